// inutilizacao.ts against the sped-nfe sample (re-signed with the public test key, byte for byte), the PL_010
// inutNFe schema and Debian's xmlsec1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMIT_CNPJ, testCertificate } from '../../test/fixtures/fiscal.ts';
import { readPkcs12 } from './certificate.ts';
import type { A1Certificate } from './certificate.ts';
import { buildInutilizacao, InutilizacaoError, signInutilizacao } from './inutilizacao.ts';
import type { InutilizacaoInput } from './inutilizacao.ts';
import { extractElement } from './proc.ts';

const referenceDir = fileURLToPath(new URL('../../../shared/reference/', import.meta.url));
const NFE_NS = 'http://www.portalfiscal.inf.br/nfe';

let workDir = '';
let spedKey: A1Certificate;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'balcao-inut-'));
  spedKey = readPkcs12(readFileSync(join(referenceDir, 'samples/certs/novo_test_certificate.pfx')), 'nfephp');
});

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

let counter = 0;
function xmlsecVerifies(xml: string): boolean {
  const file = join(workDir, `doc-${++counter}.xml`);
  writeFileSync(file, xml, 'utf8');
  const run = spawnSync('xmlsec1', ['--verify', '--insecure', '--id-attr:Id', `${NFE_NS}:infInut`, file], {
    encoding: 'utf8',
  });
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

function problemsOf(fn: () => unknown): Array<{ field: string; error: string }> {
  try {
    fn();
  } catch (error) {
    if (error instanceof InutilizacaoError) return error.details;
    throw error;
  }
  throw new Error('expected an InutilizacaoError');
}

const valid: InutilizacaoInput = {
  tpAmb: 2,
  cUF: 35,
  ano: 26,
  CNPJ: EMIT_CNPJ,
  mod: 65,
  serie: 0,
  nNFIni: 101,
  nNFFin: 105,
  xJust: 'Falha no sistema durante a emissão',
};

describe('reproduces samples/nfe-inutilizacao/exemplo_xml_inutiliza.xml with the public test key', () => {
  it('the whole signed inutNFe, byte for byte', () => {
    const run = spawnSync(
      'xmllint',
      [
        '--noblanks',
        '--encode',
        'UTF-8',
        join(referenceDir, 'samples/nfe-inutilizacao/exemplo_xml_inutiliza.xml'),
      ],
      { encoding: 'utf8' },
    );
    const expected = extractElement(run.stdout, 'inutNFe');
    const built = buildInutilizacao({
      tpAmb: 1,
      cUF: 35,
      ano: 22,
      CNPJ: '93623057000128',
      mod: 55,
      serie: 1,
      nNFIni: 1,
      nNFFin: 10,
      xJust: 'Testando Inutilização',
    });
    expect(built.id).toBe('ID35229362305700012855001000000001000000010');
    const signed = signInutilizacao(built.xml, spedKey);
    expect(signed.errors).toEqual([]);
    expect(signed.xml).toBe(expected);
    expect(signed.digestValue).toBe('aDoDrwNJalOdH93K2A/F8CMqlE8=');
    expect(xmlsecVerifies(signed.xml)).toBe(true);
  });
});

describe('buildInutilizacao + signInutilizacao', () => {
  it('builds the canonical request in the schema order and signs it', () => {
    const built = buildInutilizacao(valid);
    expect(built.id).toBe(`ID3526${EMIT_CNPJ}65000000000101000000105`);
    expect(built.xml).toBe(
      `<inutNFe xmlns="${NFE_NS}" versao="4.00"><infInut Id="${built.id}"><tpAmb>2</tpAmb>` +
        `<xServ>INUTILIZAR</xServ><cUF>35</cUF><ano>26</ano><CNPJ>${EMIT_CNPJ}</CNPJ><mod>65</mod>` +
        '<serie>0</serie><nNFIni>101</nNFIni><nNFFin>105</nNFFin>' +
        '<xJust>Falha no sistema durante a emissão</xJust></infInut></inutNFe>',
    );
    const signed = signInutilizacao(built.xml, testCertificate());
    expect(signed.errors).toEqual([]);
    expect(signed.xml).toMatch(
      /<\/infInut><Signature xmlns="http:\/\/www\.w3\.org\/2000\/09\/xmldsig#">.*<\/Signature><\/inutNFe>$/,
    );
    expect(xmlsecVerifies(signed.xml)).toBe(true);
  });

  it('accepts a single number, a 2-digit string year and a formatted CNPJ', () => {
    const built = buildInutilizacao({ ...valid, ano: '05', CNPJ: '12.345.678/0001-95', nNFFin: 101 });
    expect(built.id).toBe(`ID3505${EMIT_CNPJ}65000000000101000000101`);
    expect(built.xml).toContain('<ano>05</ano>');
    expect(built.xml).toContain(`<CNPJ>${EMIT_CNPJ}</CNPJ>`);
  });

  it('normalizes and escapes the justification', () => {
    const built = buildInutilizacao({ ...valid, xJust: ' Queda de energia\n\n(nobreak < 5 min) & rede ' });
    expect(built.xml).toContain('<xJust>Queda de energia (nobreak &lt; 5 min) &amp; rede</xJust>');
    expect(signInutilizacao(built.xml, testCertificate()).errors).toEqual([]);
  });

  it('reports every invalid field at once', () => {
    const problems = problemsOf(() =>
      buildInutilizacao({
        tpAmb: 0 as 1,
        cUF: 20,
        ano: 2026,
        CNPJ: '12345678000100',
        mod: 57 as 55,
        serie: 1000,
        nNFIni: 0,
        nNFFin: 1_000_000_000,
        xJust: 'curta',
      }),
    );
    expect(problems.map((p) => p.field)).toEqual([
      'tpAmb',
      'cUF',
      'ano',
      'CNPJ',
      'mod',
      'serie',
      'nNFIni',
      'nNFFin',
      'xJust',
    ]);
  });

  it('refuses a range that ends before it starts', () => {
    expect(problemsOf(() => buildInutilizacao({ ...valid, nNFIni: 10, nNFFin: 9 }))).toEqual([
      { field: 'nNFFin', error: 'must not be below nNFIni (10), got 9' },
    ]);
  });
});
