// The NFS-e cancellation request: valid against pedRegEvento_v1.01.xsd (libxml2 and xmllint), signed so that
// xmlsec1 verifies it, and the API's codigo_motivo mapped to the layout's reason codes.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SignedXml } from 'xml-crypto';
import { testCertificate, EMIT_CNPJ } from '../../../test/fixtures/fiscal.ts';
import { schemaPath, validateXml } from '../schema.ts';
import {
  buildPedRegEventoXml,
  buildSignedPedRegEvento,
  cancelMotivoOf,
  type PedRegEventoInput,
} from './events.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-nfse-evento-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function writeTemp(xml: string): string {
  const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.xml`);
  fs.writeFileSync(file, xml);
  return file;
}

function xmllint(xml: string): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', schemaPath('nfse-evento'), writeTemp(xml)], {
      stdio: 'pipe',
    });
    return 'valid';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

function xmlsecVerifies(xml: string): boolean {
  const run = spawnSync(
    'xmlsec1',
    [
      '--verify',
      '--insecure',
      '--id-attr:Id',
      'http://www.sped.fazenda.gov.br/nfse:infPedReg',
      writeTemp(xml),
    ],
    { encoding: 'utf8' },
  );
  if (run.error !== undefined) throw run.error;
  return run.status === 0 && /^OK$/m.test(`${run.stdout}${run.stderr}`);
}

// The key of the real note in the reference samples.
const CHAVE = '15054862231305199000190000000000000225121645026250';

function input(overrides: Partial<PedRegEventoInput> = {}): PedRegEventoInput {
  return {
    tpAmb: 2,
    dhEvento: '2026-03-03T09:00:00-03:00',
    verAplic: 'Balcao 1.0',
    autor: { CNPJ: EMIT_CNPJ },
    chNFSe: CHAVE,
    nPedRegEvento: 1,
    evento: { tipo: 'e101101', ...cancelMotivoOf(1, 'Valor do serviço digitado errado') },
    ...overrides,
  };
}

describe('pedRegEvento e101101', () => {
  it('is valid against the 1.01 XSD and xmlsec1 verifies its signature', () => {
    const { id, xml } = buildSignedPedRegEvento(input(), testCertificate());
    expect(id).toBe(`PRE${CHAVE}101101`);
    expect(id).toHaveLength(59);
    expect(validateXml(xml, 'nfse-evento')).toEqual({ valid: true });
    expect(xmllint(xml)).toBe('valid');
    expect(xmlsecVerifies(xml)).toBe(true);
    expect(xml).toContain(
      `<pedRegEvento xmlns="http://www.sped.fazenda.gov.br/nfse" versao="1.01"><infPedReg Id="${id}">` +
        '<tpAmb>2</tpAmb><verAplic>Balcao 1.0</verAplic><dhEvento>2026-03-03T09:00:00-03:00</dhEvento>' +
        `<CNPJAutor>${EMIT_CNPJ}</CNPJAutor><chNFSe>${CHAVE}</chNFSe>` +
        '<e101101><xDesc>Cancelamento de NFS-e</xDesc><cMotivo>1</cMotivo>' +
        '<xMotivo>Valor do serviço digitado errado</xMotivo></e101101></infPedReg><Signature',
    );
  });

  it("the signed request equals xml-crypto's for the same algorithms (C14N 1.0, RSA-SHA1, SHA-1)", () => {
    const cert = testCertificate();
    const { xml: unsigned } = buildPedRegEventoXml(input());
    const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
    const reference = new SignedXml({
      privateKey: cert.privateKeyPem,
      canonicalizationAlgorithm: C14N,
      signatureAlgorithm: 'http://www.w3.org/2000/09/xmldsig#rsa-sha1',
      getKeyInfoContent: () =>
        `<X509Data><X509Certificate>${cert.certificateDerBase64}</X509Certificate></X509Data>`,
    });
    reference.addReference({
      xpath: "//*[local-name(.)='infPedReg']",
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N],
      digestAlgorithm: 'http://www.w3.org/2000/09/xmldsig#sha1',
    });
    reference.computeSignature(unsigned, {
      location: { reference: "//*[local-name(.)='infPedReg']", action: 'after' },
    });
    expect(buildSignedPedRegEvento(input(), cert).xml).toBe(reference.getSignedXml());
  });

  it('a tampered request fails xmlsec1', () => {
    const { xml } = buildSignedPedRegEvento(input(), testCertificate());
    expect(xmlsecVerifies(xml.replace('<cMotivo>1</cMotivo>', '<cMotivo>2</cMotivo>'))).toBe(false);
  });

  it('a CPF author, each API reason, and text that needs escaping', () => {
    for (const codigo of [1, 2, 3] as const) {
      const evento = {
        tipo: 'e101101' as const,
        ...cancelMotivoOf(codigo, 'Cliente & prestador <acordo> desfeito'),
      };
      const { xml } = buildSignedPedRegEvento(
        input({ autor: { CPF: '52998224725' }, evento }),
        testCertificate(),
      );
      expect(validateXml(xml, 'nfse-evento')).toEqual({ valid: true });
      expect(xmlsecVerifies(xml)).toBe(true);
      expect(xml).toContain('<CPFAutor>52998224725</CPFAutor>');
      expect(xml).toContain('Cliente &amp; prestador &lt;acordo&gt; desfeito</xMotivo>');
    }
  });

  it('the XSD refuses what the layout does not allow', () => {
    const { xml } = buildPedRegEventoXml(
      input({ evento: { tipo: 'e101101', cMotivo: '1', xMotivo: 'curto demais' } }),
    );
    const result = validateXml(xml, 'nfse-evento');
    expect(result.valid).toBe(false);
    expect(result.valid ? [] : result.errors.map((e) => e.field)).toEqual([
      'pedRegEvento/infPedReg/e101101/xMotivo',
    ]);
    expect(() => buildPedRegEventoXml(input({ chNFSe: CHAVE.slice(1) }))).toThrow(/50-digit/);
  });
});

describe('cancelMotivoOf', () => {
  it('maps codigo_motivo 1/2/3 to cMotivo 1/2/9, a duplicate note named in the text', () => {
    expect(cancelMotivoOf(1, 'Erro no valor do serviço')).toEqual({
      cMotivo: '1',
      xMotivo: 'Erro no valor do serviço',
    });
    expect(cancelMotivoOf(2, 'Serviço não foi prestado')).toEqual({
      cMotivo: '2',
      xMotivo: 'Serviço não foi prestado',
    });
    expect(cancelMotivoOf(3, 'Emitida duas vezes para o mesmo serviço')).toEqual({
      cMotivo: '9',
      xMotivo: 'Nota duplicada: Emitida duas vezes para o mesmo serviço',
    });
  });

  it('fits the text to TSMotivo: spaces collapsed, at most 255 characters', () => {
    expect(cancelMotivoOf(1, '  Erro   no valor\tdo serviço  ').xMotivo).toBe('Erro no valor do serviço');
    const long = 'x'.repeat(255);
    expect(cancelMotivoOf(2, long).xMotivo).toHaveLength(255);
    const duplicate = cancelMotivoOf(3, long).xMotivo;
    expect(duplicate).toHaveLength(255);
    expect(duplicate.startsWith('Nota duplicada: x')).toBe(true);
    const { xml } = buildSignedPedRegEvento(
      input({ evento: { tipo: 'e101101', ...cancelMotivoOf(3, long) } }),
      testCertificate(),
    );
    expect(validateXml(xml, 'nfse-evento')).toEqual({ valid: true });
  });
});
