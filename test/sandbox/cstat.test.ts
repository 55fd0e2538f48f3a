// The sandbox's cStat table against the reference table (shared/reference/tables/sped-nfe/cstat.json): every
// text fits TMotivo, and every difference from the reference is one of the deliberate ones listed here.
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { clampMotivo, CSTAT, motivo } from '../../src-main/sandbox/cstat.ts';
import { cnpjFromCertificateDer } from '../../src-main/sandbox/certificates.ts';
import { recipientCertificate, DEST_CNPJ, EMIT_CNPJ, testCertificate } from './harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const reference = new Map(
  (
    JSON.parse(
      fs.readFileSync(path.resolve(here, '../../../shared/reference/tables/sped-nfe/cstat.json'), 'utf8'),
    ) as Array<{ cod: string; msg: string | null }>
  ).map((r) => [r.cod, r.msg]),
);

// code -> why the sandbox's text differs from cstat.json (a 2019 snapshot)
const DELIBERATE: Record<string, string> = {
  '137': 'NT 2014.002 text of the distribution service',
  '138': 'NT 2014.002 text of the distribution service',
  '204': 'details appended at run time; "Rejeição:" prefix as real answers',
  '205': 'details appended at run time; "Rejeição:" prefix as real answers',
  '218': 'details appended at run time; "Rejeição:" prefix as real answers',
  '539': 'details appended at run time',
  '373': 'NT 2015.002 rule, "Rejeição:" prefix',
  '394': 'NT 2015.002 rule, "Rejeição:" prefix',
  '395': 'NT 2015.002 rule, "Rejeição:" prefix',
  '397': 'NT 2015.002 rule, "Rejeição:" prefix',
  '398': 'NT 2015.002 rule, "Rejeição:" prefix',
  '452': 'code reused by NT 2025.001',
  '462': 'NT 2015.002 rule, "Rejeição:" prefix',
  '463': 'NT 2015.002 rule, "Rejeição:" prefix',
  '464': 'NT 2015.002 rule, "Rejeição:" prefix',
  '501': 'NT 2015.002 moved "cancelamento fora de prazo" here',
  '572': 'straight quotes: TMotivo stops at U+00FF',
  '696': 'the rule text without an emitter program help prefix',
  '780': '[Limite] filled in at run time',
  '694': 'NT 2015.003 rule text, without the help prefix and the [nItem] placeholder',
  '695': 'NT 2015.003 rule text, without the help prefix and the [nItem] placeholder',
  '698': 'NT 2015.003 rule text, without the help prefix and the [nItem] placeholder',
  '699': 'NT 2015.003 rule text, without the help prefix and the [nItem] placeholder',
  '798': 'NT 2015.003 rule, "Rejeição:" prefix',
  '799': 'NT 2015.003 rule, "Rejeição:" prefix',
  '800': 'NT 2015.003 rule, "Rejeição:" prefix',
  '805': 'NT 2015.003 rule (E16a-30), "Rejeição:" prefix',
  '807': 'NT 2015.003 rule, "Rejeição:" prefix',
  '859': 'NT 2016.002 (FCP), not in the 2019 table',
  '860': 'NT 2016.002 (FCP), not in the 2019 table',
  '861': 'NT 2016.002 (FCP), not in the 2019 table',
  '862': 'NT 2016.002 (FCP), not in the 2019 table',
  '876': 'NT 2016.002 (FCP), not in the 2019 table',
  '880': 'NT 2016.002 (FCP), not in the 2019 table',
  '881': 'NT 2016.002 (FCP), not in the 2019 table',
  '910': 'NT 2018.004, not in the 2019 table',
  '850': 'NT 2016.002 (cobrança), not in the 2019 table',
  '851': 'NT 2016.002 (cobrança), not in the 2019 table',
  '852': 'NT 2016.002 (cobrança), not in the 2019 table',
  '863': 'NT 2016.002 (IPI devolvido), not in the 2019 table',
  '868': 'NT 2016.002 (transporte), not in the 2019 table',
  '897': 'NT 2016.002 (cobrança), not in the 2019 table',
  '900': 'NT 2016.002 (cobrança), not in the 2019 table',
  '901': 'NT 2016.002 (cobrança), not in the 2019 table',
  '902': 'NT 2016.002 (cobrança), not in the 2019 table',
  '905': 'NT 2016.002 (cobrança), not in the 2019 table',
  '865': 'NT 2016.002 (pagamentos), not in the 2019 table',
  '866': 'NT 2016.002 (pagamentos), not in the 2019 table',
  '869': 'NT 2016.002 (pagamentos), not in the 2019 table',
  '972': 'NT 2018.005 (responsável técnico), not in the 2019 table',
  '973': 'NT 2018.005 (responsável técnico), not in the 2019 table',
  '975': 'NT 2018.005 (CSRT), not in the 2019 table',
  '976': 'NT 2018.005 (CSRT), not in the 2019 table',
  '977': 'NT 2018.005 (CSRT), not in the 2019 table',
  '978': 'NT 2018.005 (CSRT), not in the 2019 table',
  '999': 'the exception message is not echoed',
};

// NT 2025.002-RTC (IBS/CBS) rejections: later than the 2019 table.
for (const code of Object.keys(CSTAT).filter((c) => Number(c) >= 1000 && Number(c) <= 1200)) {
  DELIBERATE[code] = 'NT 2025.002-RTC (IBS/CBS), not in the 2019 table';
}

describe('cStat table', () => {
  it('every text fits TMotivo (Latin-1, 1-255 characters, no edge spaces)', () => {
    for (const [code, text] of Object.entries(CSTAT)) {
      expect(text, code).toMatch(/^[!-\xff][ -\xff]*[!-\xff]$/);
      expect(text.length, code).toBeLessThanOrEqual(255);
    }
    expect(motivo(204, '[nProt:1]')).toBe('Rejeição: Duplicidade de NF-e [nProt:1]');
    expect(clampMotivo(`x ${'y'.repeat(300)}`)).toHaveLength(255);
    expect(clampMotivo('“a”\n\tb')).toBe('"a" b');
  });

  it('matches the reference table except for the listed, explained differences', () => {
    for (const [code, text] of Object.entries(CSTAT)) {
      if (code in DELIBERATE) {
        expect(reference.get(code), `${code} is listed as different`).not.toBe(text);
      } else {
        expect(text, code).toBe(reference.get(code));
      }
    }
  });
});

describe('certificate CNPJ', () => {
  it('reads the CNPJ of the test e-CNPJ certificates from the DER', () => {
    const der = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(cnpjFromCertificateDer(der(testCertificate().certificatePem))).toBe(EMIT_CNPJ);
    expect(cnpjFromCertificateDer(der(recipientCertificate().certificatePem))).toBe(DEST_CNPJ);
    expect(cnpjFromCertificateDer(Buffer.from('not a certificate'))).toBeNull();
  });

  it('reads the SAN otherName 2.16.76.1.3.3 when the CN names no CNPJ', () => {
    const { asn1 } = forge;
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const key = forge.pki.privateKeyFromPem(privateKey);
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    cert.serialNumber = '01';
    cert.validity.notBefore = new Date();
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    cert.setSubject([{ shortName: 'CN', value: 'EMPRESA SEM CNPJ NO CN' }]);
    cert.setIssuer([{ shortName: 'CN', value: 'EMPRESA SEM CNPJ NO CN' }]);
    const otherName = asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer('2.16.76.1.3.3').getBytes()),
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
        asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, DEST_CNPJ),
      ]),
    ]);
    const san = asn1
      .toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [otherName]))
      .getBytes();
    cert.setExtensions([{ id: '2.5.29.17', value: san }]);
    cert.sign(key, forge.md.sha256.create());
    const der = Buffer.from(asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
    expect(cnpjFromCertificateDer(der)).toBe(DEST_CNPJ);
  });
});
