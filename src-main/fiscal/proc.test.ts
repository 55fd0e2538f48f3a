// proc.ts: element extraction without re-serializing, and nfeProc / procEventoNFe / ProcInutNFe assembled
// from signed documents and authority answers, checked with the PL_010 schemas (libxml2 in Node and Debian's
// xmllint) and with xmlsec1 on the signatures inside.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMIT_CNPJ, prepareContext, testCertificate } from '../../test/fixtures/fiscal.ts';
import { buildEvent, signEvent } from './events.ts';
import { buildInutilizacao, signInutilizacao } from './inutilizacao.ts';
import type { PreparedNfe } from './nfe/prepare.ts';
import { prepareNfe } from './nfe/prepare.ts';
import {
  embeddableElement,
  extractElement,
  findElement,
  findElements,
  nfeProc,
  ProcError,
  procEventoNFe,
  procInutNFe,
} from './proc.ts';

const referenceDir = fileURLToPath(new URL('../../../shared/reference/', import.meta.url));
const ref = (path: string): string => join(referenceDir, path);
const NFE_NS = 'http://www.portalfiscal.inf.br/nfe';
const SOAP_NS = 'http://www.w3.org/2003/05/soap-envelope';

let workDir = '';
let nfce: PreparedNfe;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'balcao-proc-'));
  const prepared = prepareNfe(
    { itens: [{ productId: 'prd_cafe', quantidade: 2 }], pagamentos: [{ forma: '01', valor: '40.00' }] },
    prepareContext(65),
  );
  if (!prepared.ok) throw new Error(JSON.stringify(prepared.errors));
  nfce = prepared.document;
});

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

let counter = 0;
function writeTemp(xml: string): string {
  const file = join(workDir, `doc-${++counter}.xml`);
  writeFileSync(file, xml, 'utf8');
  return file;
}

const IDS = ['infNFe', 'infEvento', 'infInut'].flatMap((tag) => ['--id-attr:Id', `${NFE_NS}:${tag}`]);

function xmlsecVerifies(xml: string): boolean {
  const run = spawnSync('xmlsec1', ['--verify', '--insecure', ...IDS, writeTemp(xml)], { encoding: 'utf8' });
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

/** Debian's xmllint against the reference copy of the PL_010 schemas: a second validator. */
function xmllintValidates(xml: string, xsd: string): boolean {
  const run = spawnSync('xmllint', ['--noout', '--schema', ref(`xsd/nfe-pl010/${xsd}`), writeTemp(xml)], {
    encoding: 'utf8',
  });
  return run.status === 0;
}

function noBlanks(file: string): string {
  const run = spawnSync('xmllint', ['--noblanks', '--encode', 'UTF-8', ref(file)], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return run.stdout;
}

function procErrors(fn: () => unknown): Array<{ field: string; error: string }> {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProcError) return error.details;
    throw error;
  }
  throw new Error('expected a ProcError');
}

function protNFe(
  over: Partial<Record<'chNFe' | 'digVal' | 'cStat' | 'tpAmb', string>> = {},
  open = '<protNFe versao="4.00">',
): string {
  return (
    `${open}<infProt><tpAmb>${over.tpAmb ?? '2'}</tpAmb><verAplic>SP_NFCE_PL_010</verAplic>` +
    `<chNFe>${over.chNFe ?? nfce.chave}</chNFe><dhRecbto>2026-11-22T12:30:05-03:00</dhRecbto>` +
    `<nProt>135260000000001</nProt><digVal>${over.digVal ?? nfce.digestValue}</digVal>` +
    `<cStat>${over.cStat ?? '100'}</cStat><xMotivo>Autorizado o uso da NF-e</xMotivo></infProt></protNFe>`
  );
}

// --- extraction --------------------------------------------------------------------------------------

describe('extracting elements without re-serializing', () => {
  it('returns the exact substring, whatever the markup around it', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- <evento>fake</evento> -->' +
      `<envEvento xmlns="${NFE_NS}" versao="1.00"><idLote>1</idLote>` +
      '<note><![CDATA[<evento>not this</evento>]]></note>' +
      `<x:evento xmlns:x="urn:other">another namespace</x:evento>` +
      `<evento versao="1.00" note='a > b'><evento>nested</evento><empty/>\n  <b>t</b></evento></envEvento>`;
    const span = findElement(xml, 'evento');
    expect(span?.qName).toBe('evento');
    expect(extractElement(xml, 'evento')).toBe(
      `<evento versao="1.00" note='a > b'><evento>nested</evento><empty/>\n  <b>t</b></evento>`,
    );
    expect(extractElement(xml, 'evento', { namespace: 'urn:other' })).toBe(
      '<x:evento xmlns:x="urn:other">another namespace</x:evento>',
    );
    expect(extractElement(xml, 'empty')).toBe('<empty/>');
    // Nested matches are inside the first one: only the outer evento is listed.
    expect(findElements(xml, 'evento')).toHaveLength(1);
    expect(() => extractElement(xml, 'retEvento')).toThrow(ProcError);
  });

  it('follows prefixes, and restores the declarations an element relied on when it is embedded', () => {
    const xml =
      `<soap:Envelope xmlns:soap="${SOAP_NS}"><soap:Body>` +
      `<ns2:retEnvEvento xmlns:ns2="${NFE_NS}" versao="1.00"><ns2:idLote>1</ns2:idLote>` +
      '<ns2:retEvento versao="1.00"><ns2:infEvento><ns2:cStat>135</ns2:cStat></ns2:infEvento></ns2:retEvento>' +
      '</ns2:retEnvEvento></soap:Body></soap:Envelope>';
    const span = findElement(xml, 'retEvento');
    expect(span).toMatchObject({
      qName: 'ns2:retEvento',
      prefix: 'ns2',
      localName: 'retEvento',
      namespace: NFE_NS,
    });
    const exact =
      '<ns2:retEvento versao="1.00"><ns2:infEvento><ns2:cStat>135</ns2:cStat></ns2:infEvento></ns2:retEvento>';
    expect(extractElement(xml, 'retEvento')).toBe(exact);
    // Only the prefix it uses (not soap), and no default namespace: it had none.
    expect(span && embeddableElement(xml, span)).toBe(
      `<ns2:retEvento xmlns="" xmlns:ns2="${NFE_NS}"${exact.slice('<ns2:retEvento'.length)}`,
    );
    // An unprefixed element of the parent's default namespace is taken as it is.
    const plain = `<a xmlns="${NFE_NS}" xmlns:p="urn:p"><protNFe versao="4.00"><x>1</x></protNFe></a>`;
    const protSpan = findElement(plain, 'protNFe');
    expect(protSpan && embeddableElement(plain, protSpan)).toBe('<protNFe versao="4.00"><x>1</x></protNFe>');
  });

  it('reads declarations wherever they are, and only from attributes', () => {
    // "xmlns" as text and inside a value declares nothing; a declaration far down the document still counts,
    // on a tag with its name followed by a line break; an end tag may carry a space before its '>'.
    const xml =
      `<a xmlns="urn:a"><t>xmlns</t><u note="xmlns:q='urn:nothing'"><q:x xmlns:q="urn:q">1</q:x ></u>` +
      `<b\nxmlns:p="${NFE_NS}"><p:protNFe versao="4.00"><p:c/></p:protNFe></b></a>`;
    const prot = findElement(xml, 'protNFe');
    expect(prot).toMatchObject({ qName: 'p:protNFe', prefix: 'p', namespace: NFE_NS });
    expect([...(prot?.inherited ?? [])]).toEqual([
      ['', 'urn:a'],
      ['p', NFE_NS],
    ]);
    expect([...(prot?.declared ?? [])]).toEqual([]);
    expect(findElement(xml, 'x', { namespace: 'urn:q' })?.end).toBe(xml.indexOf('</u>'));
    expect(findElement(xml, 'u', { namespace: 'urn:a' })?.declared.size).toBe(0);
    expect(findElements(xml, 'x', { namespace: 'urn:nothing' })).toEqual([]);
    expect(() => findElement(`<a xmlns="${NFE_NS}"><b></ b></a>`, 'b')).not.toThrow();
    expect(() => findElement(`<a xmlns="${NFE_NS}"><b></bb></a>`, 'b')).toThrow(ProcError);
  });

  it('refuses markup it cannot follow', () => {
    expect(() => findElement(`<a xmlns="${NFE_NS}"><b></a>`, 'b')).toThrow(ProcError);
    expect(() => findElement(`<a xmlns="${NFE_NS}"><b>`, 'b')).toThrow(ProcError);
    expect(() => findElement(`<!DOCTYPE a><a xmlns="${NFE_NS}"></a>`, 'a')).toThrow(ProcError);
  });
});

// --- nfeProc -----------------------------------------------------------------------------------------

describe('nfeProc', () => {
  it('puts the signed NFC-e and its protNFe side by side; validates and still verifies', () => {
    const prot = protNFe();
    const { xml, errors } = nfeProc(nfce.xml, prot);
    expect(errors).toEqual([]);
    expect(xml).toBe(`<nfeProc xmlns="${NFE_NS}" versao="4.00">${nfce.xml}${prot}</nfeProc>`);
    expect(xmllintValidates(xml, 'procNFe_v4.00.xsd')).toBe(true);
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  it('keeps a protNFe that repeats the namespace as received', () => {
    const prot = protNFe({}, `<protNFe xmlns="${NFE_NS}" versao="4.00">`);
    const { xml, errors } = nfeProc(nfce.xml, prot);
    expect(errors).toEqual([]);
    expect(xml.endsWith(`${prot}</nfeProc>`)).toBe(true);
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  it('takes the protNFe out of a prefixed SOAP answer, and the right one out of a batch', () => {
    const other = protNFe({ chNFe: nfce.chave.replace(/^(.{25})(.{9})/, '$1000000999') });
    const mine = protNFe().replace(/<(\/?)/g, '<$1n:');
    const soap =
      `<env:Envelope xmlns:env="${SOAP_NS}"><env:Body>` +
      `<nfeResultMsg xmlns="http://www.portalfiscal.inf.br/nfe/wsdl/NFeRetAutorizacao4">` +
      `<n:retConsReciNFe xmlns:n="${NFE_NS}" versao="4.00">${other.replace(/<(\/?)/g, '<$1n:')}${mine}` +
      '</n:retConsReciNFe></nfeResultMsg></env:Body></env:Envelope>';
    const { xml, errors } = nfeProc(nfce.xml, soap);
    expect(errors).toEqual([]);
    // The prefix keeps its declaration; the default namespace of nfeResultMsg (WSDL) is not inherited.
    expect(xml).toContain(`</NFe><n:protNFe xmlns="" xmlns:n="${NFE_NS}" versao="4.00">`);
    expect(xml).toContain(`<n:chNFe>${nfce.chave}</n:chNFe>`);
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  it('rebuilds samples/nfe/nfe_layout4_com_prot.xml byte for byte from its own parts', () => {
    const sample = noBlanks('samples/nfe/nfe_layout4_com_prot.xml');
    const { xml, errors } = nfeProc(sample, sample);
    expect(errors).toEqual([]);
    expect(xml).toBe(extractElement(sample, 'nfeProc'));
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  it('refuses a protocol of another note, another signature, a rejection or an unsigned NFe', () => {
    const wrong = protNFe({ digVal: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=', cStat: '204', tpAmb: '1' });
    expect(procErrors(() => nfeProc(nfce.xml, wrong)).map((p) => p.field)).toEqual([
      'protNFe.tpAmb',
      'protNFe.cStat',
      'protNFe.digVal',
    ]);
    const otherKey = nfce.chave.replace(/^(.{25})(.{9})/, '$1000000999');
    expect(procErrors(() => nfeProc(nfce.xml, protNFe({ chNFe: otherKey }))).map((p) => p.field)).toEqual([
      'protNFe.chNFe',
    ]);
    const unsigned = nfce.xml.replace(/<Signature [\s\S]*<\/Signature>/, '');
    expect(procErrors(() => nfeProc(unsigned, protNFe()))).toEqual([
      { field: 'NFe', error: 'the NFe is not signed' },
    ]);
    expect(procErrors(() => nfeProc(nfce.xml, '<retEnviNFe/>')).map((p) => p.field)).toEqual(['protNFe']);
  });
});

// --- procEventoNFe -----------------------------------------------------------------------------------

function retEvento(
  ids: { chNFe: string; tpEvento: string; nSeqEvento: string; cOrgao: string; tpAmb?: string },
  cStat = '135',
  open = '<retEvento versao="1.00">',
): string {
  return (
    `${open}<infEvento><tpAmb>${ids.tpAmb ?? '2'}</tpAmb><verAplic>SVRS202601</verAplic>` +
    `<cOrgao>${ids.cOrgao}</cOrgao><cStat>${cStat}</cStat><xMotivo>Evento registrado e vinculado a NF-e</xMotivo>` +
    `<chNFe>${ids.chNFe}</chNFe><tpEvento>${ids.tpEvento}</tpEvento><nSeqEvento>${ids.nSeqEvento}</nSeqEvento>` +
    '<dhRegEvento>2026-11-22T12:31:00-03:00</dhRegEvento><nProt>135260000000002</nProt></infEvento></retEvento>'
  );
}

function retEnvEvento(...rets: string[]): string {
  return (
    `<retEnvEvento xmlns="${NFE_NS}" versao="1.00"><idLote>42</idLote><tpAmb>2</tpAmb>` +
    `<verAplic>SVRS202601</verAplic><cOrgao>35</cOrgao><cStat>128</cStat><xMotivo>Lote de evento processado</xMotivo>` +
    `${rets.join('')}</retEnvEvento>`
  );
}

describe('procEventoNFe', () => {
  it('a signed cancellation of the NFC-e and its retEnvEvento', () => {
    const built = buildEvent({
      tpEvento: '110111',
      tpAmb: 2,
      CNPJ: EMIT_CNPJ,
      chNFe: nfce.chave,
      nSeqEvento: 1,
      dhEvento: new Date('2026-11-22T15:31:00Z'),
      idLote: 42,
      nProt: '135260000000001',
      xJust: 'Cliente desistiu da compra',
    });
    const signed = signEvent(built.xml, testCertificate());
    const ret = retEvento({ chNFe: nfce.chave, tpEvento: '110111', nSeqEvento: '1', cOrgao: '35' });
    const { xml, errors } = procEventoNFe(signed.xml, retEnvEvento(ret));
    expect(errors).toEqual([]);
    expect(xml).toBe(
      `<procEventoNFe xmlns="${NFE_NS}" versao="1.00">${extractElement(signed.xml, 'evento')}${ret}</procEventoNFe>`,
    );
    expect(xmllintValidates(xml, 'procEventoCancNFe_v1.00.xsd')).toBe(true);
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  const spedSamples: Array<[string, string, string]> = [
    ['nfe-eventos/exemplo_xml_sefazCancela.xml', '110111', 'procEventoCancNFe_v1.00.xsd'],
    ['nfe-eventos/exemplo_xml_request_sefazManifesta.xml', '210210', 'procConfRecebtoNFe_v1.00.xsd'],
    [
      'nfe-eventos/exemplo_xml_request_sefazCancelaPorSubstituicao.xml',
      '110112',
      'procEventoCancSubst_v1.00.xsd',
    ],
    ['nfe-eventos/exemplo_xml_request_cce_cnpj.xml', '110110', 'procCCeNFe_v1.00.xsd'],
  ];
  for (const [file, tpEvento, xsd] of spedSamples) {
    it(`${file} with a matching retEvento (evento kept with its repeated xmlns)`, () => {
      const sample = noBlanks(`samples/${file}`);
      const evento = extractElement(sample, 'evento');
      expect(evento.startsWith(`<evento xmlns="${NFE_NS}" versao="1.00">`)).toBe(true);
      const chNFe = /<chNFe>([^<]+)<\/chNFe>/.exec(evento)?.[1] ?? '';
      const cOrgao = /<cOrgao>([^<]+)<\/cOrgao>/.exec(evento)?.[1] ?? '';
      const ret = retEvento({ chNFe, tpEvento, nSeqEvento: '1', cOrgao });
      const { xml, errors } = procEventoNFe(sample, ret);
      expect(errors).toEqual([]);
      expect(xml).toBe(`<procEventoNFe xmlns="${NFE_NS}" versao="1.00">${evento}${ret}</procEventoNFe>`);
      expect(xmllintValidates(xml, xsd)).toBe(true);
      expect(xmlsecVerifies(xml)).toBe(true);
    });
  }

  it('the real CC-e procEventoNFe sample: same evento and retEvento bytes, valid, verifies', () => {
    const file =
      'samples/nfe-eventos/110110-53181011028793000173550010000066701204276800-1-procEventoNfe.xml';
    const sample = readFileSync(ref(file), 'utf8');
    const { xml, errors } = procEventoNFe(sample, sample);
    expect(errors).toEqual([]);
    expect(extractElement(xml, 'evento')).toBe(extractElement(sample, 'evento'));
    expect(extractElement(xml, 'retEvento')).toBe(extractElement(sample, 'retEvento'));
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  it('takes the retEvento of this event out of a batch, and refuses answers that do not register it', () => {
    const sample = noBlanks('samples/nfe-eventos/exemplo_xml_sefazCancela.xml');
    const chNFe = '35150300822602000124550010009923461099234656';
    const other = retEvento({ chNFe, tpEvento: '110111', nSeqEvento: '2', cOrgao: '35' }, '573');
    const mine = retEvento({ chNFe, tpEvento: '110111', nSeqEvento: '1', cOrgao: '35' });
    expect(procEventoNFe(sample, retEnvEvento(other, mine)).xml).toContain(
      `</evento>${mine}</procEventoNFe>`,
    );

    const rejected = retEvento({ chNFe, tpEvento: '110111', nSeqEvento: '1', cOrgao: '35' }, '573');
    expect(procErrors(() => procEventoNFe(sample, rejected))).toEqual([
      {
        field: 'retEvento.cStat',
        error: '573 (Evento registrado e vinculado a NF-e) does not register the event',
      },
    ]);
    const wrongAmb = retEvento({ chNFe, tpEvento: '110111', nSeqEvento: '1', cOrgao: '35', tpAmb: '1' });
    expect(procErrors(() => procEventoNFe(sample, wrongAmb)).map((p) => p.field)).toEqual([
      'retEvento.tpAmb',
    ]);
    const unsigned = sample.replace(/<Signature [\s\S]*<\/Signature>/, '');
    expect(procErrors(() => procEventoNFe(unsigned, mine)).map((p) => p.field)).toEqual(['evento']);
    expect(procErrors(() => procEventoNFe(sample, retEnvEvento())).map((p) => p.field)).toEqual([
      'retEvento',
    ]);
  });
});

// --- ProcInutNFe -------------------------------------------------------------------------------------

describe('procInutNFe', () => {
  // The real answer of samples/nfe-inutilizacao (SEFAZ-GO, CNPJ zeroed): our request matches its range.
  const response = readFileSync(ref('samples/nfe-inutilizacao/response_inut_cnpj.xml'), 'utf8').replace(
    '<CNPJ>00000000000000</CNPJ>',
    `<CNPJ>${EMIT_CNPJ}</CNPJ>`,
  );
  const signedInut = (): string =>
    signInutilizacao(
      buildInutilizacao({
        tpAmb: 2,
        cUF: 52,
        ano: 25,
        CNPJ: EMIT_CNPJ,
        mod: 55,
        serie: 3,
        nNFIni: 53,
        nNFFin: 53,
        xJust: 'Numeracao pulada por falha do sistema',
      }).xml,
      testCertificate(),
    ).xml;

  it('ProcInutNFe (capital P) with the request and the answer as received', () => {
    const inut = signedInut();
    const { xml, errors } = procInutNFe(inut, response);
    expect(errors).toEqual([]);
    const ret = extractElement(response, 'retInutNFe');
    expect(ret.startsWith(`<retInutNFe versao="4.00" xmlns="${NFE_NS}"\n`)).toBe(true);
    expect(xml).toBe(`<ProcInutNFe xmlns="${NFE_NS}" versao="4.00">${inut}${ret}</ProcInutNFe>`);
    expect(xmllintValidates(xml, 'procInutNFe_v4.00.xsd')).toBe(true);
    expect(xmlsecVerifies(xml)).toBe(true);
  });

  it('refuses an answer for another range or a rejection', () => {
    const inut = signedInut();
    const otherRange = response.replace('<nNFFin>53</nNFFin>', '<nNFFin>54</nNFFin>');
    expect(procErrors(() => procInutNFe(inut, otherRange))).toEqual([
      { field: 'retInutNFe.nNFFin', error: 'is 54, the request says 53' },
    ]);
    const rejected = response.replace('<cStat>102</cStat>', '<cStat>563</cStat>');
    expect(procErrors(() => procInutNFe(inut, rejected)).map((p) => p.field)).toEqual(['retInutNFe.cStat']);
    expect(procErrors(() => procInutNFe('<x/>', '<y/>')).map((p) => p.field)).toEqual([
      'inutNFe',
      'retInutNFe',
    ]);
  });
});
