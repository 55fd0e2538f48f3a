import { createHash, createVerify, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAccessKey } from './access-key.ts';
import { generateTestA1, readPkcs12, type A1Certificate } from './certificate.ts';
import { nfceUrls } from './nfce-urls.ts';
import { buildQrCode, QrCodeError, type QrCodeInput } from './qrcode.ts';
import { signingKeyFrom } from './sign.ts';

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const repoRoot = new URL('../../', import.meta.url);
const reference = (path: string) => fileURLToPath(new URL(`../shared/reference/${path}`, repoRoot));

interface QrVector {
  name: string;
  mode: 'online' | 'offline';
  inputs: Record<string, string>;
  stringToHash: string;
  expectedHash: string;
  expectedP: string;
}
const qrVectors = JSON.parse(readFileSync(reference('test-vectors/nfce-qrcode.json'), 'utf8')) as {
  vectors: QrVector[];
  structureOnly: Array<{ file: string; qrCode: string }>;
};

/**
 * The infNFeSupl/qrCode patterns of the newest official schema package (PL_010), named by the comment above
 * each (QRCODE V1, QRCODE V2 ONLINE, ...). XSD patterns are anchored and these use only syntax JS reads alike.
 */
function xsdQrPatterns(): Map<string, RegExp> {
  const xsd = readFileSync(reference('xsd/nfe-pl010/leiauteNFe_v4.00.xsd'), 'utf8');
  const start = xsd.indexOf('<xs:element name="qrCode">');
  const element = xsd.slice(start, xsd.indexOf('</xs:element>', start));
  const patterns = new Map<string, RegExp>();
  for (const m of element.matchAll(/<!--([^>]*)-->\s*<xs:pattern value="([^"]*)"\/>/g)) {
    const [, name = '', value = ''] = m;
    patterns.set(name.trim(), new RegExp(`^(?:${value.replaceAll('&amp;', '&')})$`));
  }
  return patterns;
}
const XSD = xsdQrPatterns();

function matchingXsdPatterns(qrCode: string): string[] {
  return [...XSD].filter(([, re]) => re.test(qrCode)).map(([name]) => name);
}

function qrError(input: QrCodeInput): QrCodeError {
  try {
    buildQrCode(input);
  } catch (error) {
    expect(error).toBeInstanceOf(QrCodeError);
    return error as QrCodeError;
  }
  throw new Error('expected QrCodeError, nothing was thrown');
}

function paramsOf(qrCode: string): string[] {
  const at = qrCode.indexOf('?p=');
  expect(at).toBeGreaterThan(0);
  return qrCode.slice(at + 3).split('|');
}

const URL_SP_HOM = 'https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode';
const EMITTER = '33657677000156'; // valid CNPJ of the sample NFC-e (test-vectors/cnpj.json)

function nfceKey(tpEmis: 1 | 9, cnpjCpf = EMITTER): string {
  return buildAccessKey({
    cUF: 35,
    dhEmi: '2026-07-31T23:30:00-03:00',
    cnpjCpf,
    mod: 65,
    serie: 1,
    nNF: 4521,
    tpEmis,
    cNF: '48213907',
  }).chave;
}

it('reads the five qrCode patterns of the PL_010 schema', () => {
  expect([...XSD.keys()]).toEqual([
    'QRCODE V1',
    'QRCODE V2 ONLINE',
    'QRCODE V2 OFFLINE',
    'QRCODE V3 ONLINE',
    'QRCODE V3 OFFLINE',
  ]);
});

describe('version 2: examples of the Manual DANFE NFC-e e QR Code v5.00', () => {
  const [online, offline] = qrVectors.vectors;
  if (!online || !offline) throw new Error('nfce-qrcode.json must hold the online and offline examples');

  it('the vectors agree with SHA-1 themselves', () => {
    for (const v of [online, offline]) {
      expect(createHash('sha1').update(v.stringToHash).digest('hex').toUpperCase()).toBe(v.expectedHash);
    }
  });

  it('online: exact hash and p=', () => {
    const qr = buildQrCode({
      version: 2,
      chave: online.inputs.chNFe ?? '',
      tpAmb: 1,
      tpEmis: 1,
      urlQRCode: 'http://www.hom.nfe.se.gov.br/nfce/qrcode',
      cscId: '000001', // written without leading zeros: "1"
      csc: online.inputs.CSC,
      verifyKeyCheckDigit: false, // the Manual's example key has a wrong DV (access-keys.json)
    });
    expect(qr).toBe(`http://www.hom.nfe.se.gov.br/nfce/qrcode?p=${online.expectedP}`);
    expect(paramsOf(qr).at(-1)).toBe(online.expectedHash);
    expect(matchingXsdPatterns(qr)).toEqual(['QRCODE V2 ONLINE']);
  });

  it('offline: exact hash and p=', () => {
    const qr = buildQrCode({
      version: 2,
      chave: offline.inputs.chNFe ?? '',
      tpAmb: 1,
      tpEmis: 9,
      urlQRCode: 'http://www.nfce.se.gov.br/nfce/qrcode',
      cscId: offline.inputs.cIdToken,
      csc: offline.inputs.CSC,
      dhEmi: '2017-08-02T10:15:00-03:00', // the example's day "02" in its key's AAMM 1708
      vNF: offline.inputs.vNF,
      digestValue: offline.inputs.DigestValue,
      verifyKeyCheckDigit: false,
    });
    expect(qr).toBe(`http://www.nfce.se.gov.br/nfce/qrcode?p=${offline.expectedP}`);
    expect(paramsOf(qr)[5]).toBe(offline.inputs.digValHex);
    expect(matchingXsdPatterns(qr)).toEqual(['QRCODE V2 OFFLINE']);
  });

  it('refuses the example keys unless told that their check digit is known to be wrong', () => {
    const error = qrError({
      version: 2,
      chave: online.inputs.chNFe ?? '',
      tpAmb: 1,
      tpEmis: 1,
      urlQRCode: 'http://www.hom.nfe.se.gov.br/nfce/qrcode',
      cscId: '1',
      csc: online.inputs.CSC,
    });
    expect(error.details.map((d) => d.field)).toEqual(['chave.cDV']);
  });
});

describe('version 2: structure of samples/nfce/nfce_com_qrcode.xml', () => {
  const sample = qrVectors.structureOnly[0];
  if (!sample) throw new Error('nfce-qrcode.json must list the sample');
  const xml = readFileSync(reference(sample.file), 'utf8');
  const tag = (name: string) => {
    const value = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
    if (value === undefined) throw new Error(`no <${name}> in ${sample.file}`);
    return value;
  };
  const id = /<infNFe Id="NFe([0-9]{44})"/.exec(xml)?.[1] ?? '';
  const stored = tag('qrCode');
  const storedParams = paramsOf(stored);

  it('the vector quotes the document', () => {
    expect(stored).toBe(sample.qrCode);
  });

  it('rebuilds every parameter but the hash, whose CSC is not published', () => {
    const urlQRCode = stored.slice(0, stored.indexOf('?p='));
    const rebuilt = buildQrCode({
      version: 2,
      chave: id,
      tpAmb: Number(tag('tpAmb')) as 1 | 2,
      tpEmis: Number(tag('tpEmis')),
      urlQRCode,
      cscId: storedParams[6],
      csc: 'CSC-DESCONHECIDO',
      dhEmi: tag('dhEmi'),
      vNF: tag('vNF'),
      digestValue: tag('DigestValue'),
      verifyKeyCheckDigit: false, // <cDV>9</cDV> where modulo 11 gives 8
    });
    const params = paramsOf(rebuilt);
    expect(params.slice(0, 7)).toEqual(storedParams.slice(0, 7));
    expect(params[7]).toMatch(/^[0-9A-F]{40}$/);
    expect(params[7]).not.toBe(storedParams[7]);
    expect(rebuilt.slice(0, rebuilt.indexOf('?p='))).toBe(urlQRCode);
  });

  it('passes the checks listed in nfce-qrcode.json', () => {
    expect(storedParams[0]).toBe(id);
    expect(storedParams[3]).toBe(tag('dhEmi').slice(8, 10));
    expect(storedParams[4]).toBe(tag('vNF'));
    expect(Buffer.from(storedParams[5] ?? '', 'hex').toString('latin1')).toBe(tag('DigestValue'));
    expect(matchingXsdPatterns(stored)).toEqual(['QRCODE V2 OFFLINE']);
  });
});

describe('version 3 (NT 2025.001)', () => {
  let a1: A1Certificate;
  beforeAll(() => {
    a1 = readPkcs12(generateTestA1({ cnpj: EMITTER, legalName: 'EMPRESA QR LTDA', password: 'qr' }), 'qr');
  });

  it('online: chave|3|tpAmb, no CSC and no hash', () => {
    const chave = nfceKey(1);
    const qr = buildQrCode({ version: 3, chave, tpAmb: 2, tpEmis: 1, urlQRCode: URL_SP_HOM });
    expect(qr).toBe(`${URL_SP_HOM}?p=${chave}|3|2`);
    expect(matchingXsdPatterns(qr)).toEqual(['QRCODE V3 ONLINE']);
    // A CSC given by habit does not leak into a v3 text.
    expect(
      buildQrCode({ version: 3, chave, tpAmb: 2, tpEmis: 1, urlQRCode: URL_SP_HOM, csc: 'X', cscId: '1' }),
    ).toBe(qr);
  });

  it('offline: 8 parameters whose signature verifies with the certificate', () => {
    const chave = nfceKey(9);
    const qr = buildQrCode({
      version: 3,
      chave,
      tpAmb: 2,
      tpEmis: 9,
      urlQRCode: URL_SP_HOM,
      dhEmi: '2026-07-31T23:30:00-03:00', // already 1 August in UTC: the QR carries the local day
      vNF: '150.00',
      dest: { tpIdDest: 2, idDest: '123.456.789-09' },
      signingKeyPem: a1.privateKeyPem,
    });
    const params = paramsOf(qr);
    expect(params).toHaveLength(8);
    expect(params.slice(0, 7)).toEqual([chave, '3', '2', '31', '150.00', '2', '12345678909']);
    const signature = params[7] ?? '';
    expect(signature).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(signature, 'base64')).toHaveLength(256); // RSA-2048
    const signed = params.slice(0, 7).join('|');
    expect(createVerify('RSA-SHA1').update(signed).verify(a1.certificatePem, signature, 'base64')).toBe(true);
    // The signature covers the parameters: another total does not verify.
    const tampered = signed.replace('|150.00|', '|15.00|');
    expect(createVerify('RSA-SHA1').update(tampered).verify(a1.certificatePem, signature, 'base64')).toBe(
      false,
    );
    expect(matchingXsdPatterns(qr)).toEqual(['QRCODE V3 OFFLINE']);
    // PKCS#1 v1.5 is deterministic, so the same note always gets the same QR code.
    expect(
      buildQrCode({
        version: 3,
        chave,
        tpAmb: 2,
        tpEmis: 9,
        urlQRCode: URL_SP_HOM,
        dhEmi: '2026-07-31T23:30:00-03:00',
        vNF: '150.00',
        dest: { tpIdDest: 2, idDest: '12345678909' },
        signingKeyPem: a1.privateKeyPem,
      }),
    ).toBe(qr);
  });

  /** An offline v3 code without a buyer, its key left to the test. */
  const offlineInput = (): QrCodeInput => ({
    version: 3,
    chave: nfceKey(9),
    tpAmb: 2,
    tpEmis: 9,
    urlQRCode: URL_SP_HOM,
    dhEmi: '2026-07-31T10:00:00-03:00',
    vNF: '10.00',
  });

  it('offline: the key as the signature of the note parsed it signs as its PEM does, and an RSA key only', () => {
    const input = offlineInput();
    const parsed = signingKeyFrom(a1).keyObject;
    expect(buildQrCode({ ...input, signingKey: parsed })).toBe(
      buildQrCode({ ...input, signingKeyPem: a1.privateKeyPem }),
    );
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const error = qrError({ ...input, signingKey: ec });
    expect(error.details).toEqual([{ field: 'signingKeyPem', error: 'must be an RSA key, got ec' }]);
  });

  it('offline codes of two stores, alternating, are each signed with their own key', () => {
    const other = readPkcs12(
      generateTestA1({ cnpj: '11222333000181', legalName: 'OUTRA LOJA LTDA', password: 'qr' }),
      'qr',
    );
    const input = offlineInput();
    // Each store's code verifies with its own certificate only.
    for (const [signer, notSigner] of [
      [a1, other],
      [other, a1],
      [a1, other],
    ] as const) {
      const params = paramsOf(buildQrCode({ ...input, signingKeyPem: signer.privateKeyPem }));
      const signed = params.slice(0, 7).join('|');
      const signature = params[7] ?? '';
      expect(createVerify('RSA-SHA1').update(signed).verify(signer.certificatePem, signature, 'base64')).toBe(
        true,
      );
      expect(
        createVerify('RSA-SHA1').update(signed).verify(notSigner.certificatePem, signature, 'base64'),
      ).toBe(false);
    }
  });

  it('offline without a buyer, with a CNPJ buyer and with a foreign buyer', () => {
    const base: QrCodeInput = {
      version: 3,
      chave: nfceKey(9),
      tpAmb: 1,
      tpEmis: 9,
      urlQRCode: nfceUrls('SP', 1).urlQRCode,
      dhEmi: '2026-07-01T08:00:00-03:00',
      vNF: '0.99',
      signingKeyPem: a1.privateKeyPem,
    };
    const cases: Array<[QrCodeInput['dest'], string, string]> = [
      [undefined, '', ''],
      [{ tpIdDest: 1, idDest: '06.929.383/0001-63' }, '1', '06929383000163'],
      [{ tpIdDest: 3, idDest: 'PASSAPORTE X123' }, '3', ''],
    ];
    for (const [dest, tp, idDest] of cases) {
      const qr = buildQrCode({ ...base, dest });
      const params = paramsOf(qr);
      expect(params.slice(3, 7)).toEqual(['01', '0.99', tp, idDest]);
      expect(
        createVerify('RSA-SHA1')
          .update(params.slice(0, 7).join('|'))
          .verify(a1.certificatePem, params[7] ?? '', 'base64'),
      ).toBe(true);
      expect(matchingXsdPatterns(qr)).toEqual(['QRCODE V3 OFFLINE']);
    }
  });

  it('an alphanumeric CNPJ buyer is written as is, which the PL_010 pattern ([0-9]{3,14}) does not accept yet', () => {
    const qr = buildQrCode({
      version: 3,
      chave: nfceKey(9),
      tpAmb: 2,
      tpEmis: 9,
      urlQRCode: URL_SP_HOM,
      dhEmi: '2026-07-01T08:00:00-03:00',
      vNF: '10.00',
      dest: { tpIdDest: 1, idDest: '12.ABC.345/01DE-35' },
      signingKeyPem: a1.privateKeyPem,
    });
    expect(paramsOf(qr).slice(5, 7)).toEqual(['1', '12ABC34501DE35']);
    expect(matchingXsdPatterns(qr)).toEqual([]);
  });

  it('an NFC-e key of an alphanumeric-CNPJ emitter fits the v3 patterns', () => {
    const chave = nfceKey(1, '12ABC34501DE35');
    expect(
      matchingXsdPatterns(buildQrCode({ version: 3, chave, tpAmb: 2, tpEmis: 1, urlQRCode: URL_SP_HOM })),
    ).toEqual(['QRCODE V3 ONLINE']);
  });

  it('lists what an offline v3 code is missing', () => {
    const error = qrError({ version: 3, chave: nfceKey(9), tpAmb: 2, tpEmis: 9, urlQRCode: URL_SP_HOM });
    expect(error.details.map((d) => d.field)).toEqual(['dhEmi', 'vNF', 'signingKeyPem']);
    expect(error.message).toMatch(/^cannot build the NFC-e QR code: dhEmi: required offline/);
  });

  it('refuses bad buyers and keys that are not RSA private keys', () => {
    const error = qrError({
      version: 3,
      chave: nfceKey(9),
      tpAmb: 2,
      tpEmis: 9,
      urlQRCode: URL_SP_HOM,
      dhEmi: '2026-07-01T08:00:00-03:00',
      vNF: '10.00',
      dest: { tpIdDest: 2, idDest: '12345678900' },
      signingKeyPem: a1.certificatePem,
    });
    expect(error.details.map((d) => d.field)).toEqual(['dest.idDest', 'signingKeyPem']);
  });
});

describe('input checks', () => {
  it('version 2 names both CSC fields when they are missing', () => {
    const error = qrError({ version: 2, chave: nfceKey(1), tpAmb: 2, tpEmis: 1, urlQRCode: URL_SP_HOM });
    expect(error.details.map((d) => d.field)).toEqual(['csc', 'cscId']);
  });

  it('version 2 offline also needs dhEmi, vNF and the DigestValue', () => {
    const error = qrError({
      version: 2,
      chave: nfceKey(9),
      tpAmb: 2,
      tpEmis: 9,
      urlQRCode: URL_SP_HOM,
      cscId: '1234567',
      csc: ' padded ',
      vNF: '1,50',
      digestValue: 'abc',
    });
    expect(error.details.map((d) => d.field)).toEqual(['dhEmi', 'vNF', 'csc', 'cscId', 'digestValue']);
  });

  it('checks the key, its model and that tpEmis agrees with it', () => {
    const nfe = buildAccessKey({
      cUF: 35,
      aamm: '2607',
      cnpjCpf: EMITTER,
      mod: 55,
      serie: 1,
      nNF: 1,
      tpEmis: 1,
      cNF: '48213907',
    }).chave;
    expect(qrError({ version: 3, chave: nfe, tpAmb: 2, tpEmis: 1, urlQRCode: URL_SP_HOM }).details).toEqual([
      { field: 'chave', error: 'is not an NFC-e key (mod 55)' },
    ]);
    expect(
      qrError({ version: 3, chave: nfceKey(1), tpAmb: 2, tpEmis: 9, urlQRCode: URL_SP_HOM }).details,
    ).toEqual([
      { field: 'tpEmis', error: 'is 9 but the key says 1 (position 35)' },
      { field: 'dhEmi', error: 'required offline (tpEmis 9)' },
      { field: 'vNF', error: 'required offline (tpEmis 9)' },
      { field: 'signingKeyPem', error: expect.stringContaining('requires the private key') as string },
    ]);
    expect(
      qrError({ version: 3, chave: '123', tpAmb: 2, tpEmis: 1, urlQRCode: URL_SP_HOM }).details[0]?.field,
    ).toBe('chave');
  });

  it('refuses tpEmis without a QR-code form, bad environments and URLs that already carry a query', () => {
    const error = qrError({
      version: 3,
      chave: nfceKey(1),
      tpAmb: 3 as 1,
      tpEmis: 1,
      urlQRCode: `${URL_SP_HOM}?p=`,
    });
    expect(error.details.map((d) => d.field)).toEqual(['tpAmb', 'urlQRCode']);
    const five = nfceKey(1).slice(0, 34) + '5' + nfceKey(1).slice(35);
    expect(
      qrError({
        version: 3,
        chave: five,
        tpAmb: 2,
        tpEmis: 5,
        urlQRCode: URL_SP_HOM,
        verifyKeyCheckDigit: false,
      }).details,
    ).toEqual([{ field: 'tpEmis', error: expect.stringContaining('got 5') as string }]);
    expect(
      qrError({ version: 4 as 3, chave: nfceKey(1), tpAmb: 2, tpEmis: 1, urlQRCode: URL_SP_HOM }).details,
    ).toEqual([{ field: 'version', error: 'must be 2 or 3, got 4' }]);
  });
});
