import {
  createHash,
  createPrivateKey,
  createSign,
  createVerify,
  generateKeyPairSync,
  X509Certificate,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
// eslint-disable-next-line no-restricted-imports -- test-only: createSecureContext is the OpenSSL oracle for PFX files; no socket is opened.
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { CertificateError, certificateStatus, generateTestA1, readPkcs12 } from './certificate.ts';
import type { A1Certificate } from './certificate.ts';

const { asn1 } = forge;
const DAY = 86_400_000;

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const repoRoot = new URL('../../', import.meta.url);
const samplePath = fileURLToPath(
  new URL('../shared/reference/samples/certs/novo_test_certificate.pfx', repoRoot),
);
const legacyPath = fileURLToPath(new URL('test/fixtures/certs/legacy-rc2-3des.pfx', repoRoot));

const OID_CNPJ = '2.16.76.1.3.3';
const OID_PF_DATA = '2.16.76.1.3.1';

function expectCertificateError(run: () => unknown, code: CertificateError['code']): CertificateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CertificateError);
    expect((error as CertificateError).code).toBe(code);
    return error as CertificateError;
  }
  throw new Error(`expected CertificateError(${code}), nothing was thrown`);
}

function opensslAccepts(pfx: Uint8Array, passphrase: string): true | string {
  try {
    tls.createSecureContext({ pfx: Buffer.from(pfx), passphrase });
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

function sha256Fingerprint(a1: A1Certificate): string {
  return createHash('sha256')
    .update(Buffer.from(a1.certificateDerBase64, 'base64'))
    .digest('hex')
    .toUpperCase();
}

/** Proves the PEMs are a usable pair for node:crypto, which is what the XML signer will use. */
function expectKeyPairWorks(a1: A1Certificate): void {
  const signature = createSign('RSA-SHA1').update('<infNFe/>').sign(a1.privateKeyPem);
  expect(createVerify('RSA-SHA1').update('<infNFe/>').verify(a1.certificatePem, signature)).toBe(true);
}

// --- building unusual PKCS#12 files directly with forge (independent of the module under test) ---

function nodeRsaKey(): forge.pki.rsa.PrivateKey {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return forge.pki.privateKeyFromPem(privateKey);
}

// RSA keygen dominates these tests' time; one end-entity key and one CA key are enough.
const eeKey = nodeRsaKey();
const caKey = nodeRsaKey();

// @types/node-forge types valueTagClass as asn1.Class although forge reads a universal tag.
const UTF8 = asn1.Type.UTF8 as unknown as forge.asn1.Class;

function sanDer(entries: Array<{ oid: string; value: string; tag?: forge.asn1.Type }>): string {
  return asn1
    .toDer(
      asn1.create(
        asn1.Class.UNIVERSAL,
        asn1.Type.SEQUENCE,
        true,
        entries.map(({ oid, value, tag }) =>
          asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
            asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(oid).getBytes()),
            asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
              asn1.create(asn1.Class.UNIVERSAL, tag ?? asn1.Type.OCTETSTRING, false, value),
            ]),
          ]),
        ),
      ),
    )
    .getBytes();
}

function forgeCert(options: {
  cn: string;
  key?: forge.pki.rsa.PrivateKey;
  issuer?: { cn: string; key: forge.pki.rsa.PrivateKey };
  otherNames?: Array<{ oid: string; value: string; tag?: forge.asn1.Type }>;
  ca?: boolean;
  serial?: string;
}): forge.pki.Certificate {
  const key = options.key ?? eeKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = options.serial ?? '0a1b2c';
  cert.validity.notBefore = new Date('2026-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2028-01-01T00:00:00Z');
  const name = (cn: string): forge.pki.CertificateField[] => [
    { shortName: 'C', value: 'BR' },
    { shortName: 'O', value: 'ICP-Brasil', valueTagClass: UTF8 },
    { shortName: 'CN', value: cn, valueTagClass: UTF8 },
  ];
  cert.setSubject(name(options.cn));
  cert.setIssuer(name(options.issuer?.cn ?? options.cn));
  const extensions: object[] = [{ name: 'basicConstraints', cA: options.ca ?? false }];
  if (options.otherNames) extensions.push({ id: '2.5.29.17', value: sanDer(options.otherNames) });
  cert.setExtensions(extensions);
  cert.sign(options.issuer?.key ?? key, forge.md.sha256.create());
  return cert;
}

function forgePfx(
  key: forge.pki.rsa.PrivateKey | null,
  certs: forge.pki.Certificate[],
  password: string,
): Uint8Array {
  const p12 = forge.pkcs12.toPkcs12Asn1(key, certs, password, { algorithm: 'aes256' });
  return Buffer.from(asn1.toDer(p12).getBytes(), 'binary');
}

/**
 * A PFX encoded the way OpenSSL and Windows do for a non-ASCII password: PBES2 gets the UTF-8 bytes,
 * the MAC's PKCS#12 KDF gets the BMPString. forge alone cannot write this (it uses one string for both).
 */
function opensslStylePfx(key: forge.pki.rsa.PrivateKey, cert: forge.pki.Certificate, password: string) {
  const p12 = forge.pkcs12.toPkcs12Asn1(key, cert, forge.util.encodeUtf8(password), {
    algorithm: 'aes256',
    useMac: false,
  });
  const parts = p12.value as forge.asn1.Asn1[];
  // PFX = SEQUENCE { version, authSafe ContentInfo { data OID, [0] { OCTET STRING } } }
  const authSafe = parts[1]!.value as forge.asn1.Asn1[];
  const octets = (authSafe[1]!.value as forge.asn1.Asn1[])[0]!.value as string;
  const salt = forge.random.getBytesSync(8);
  const macKey = forge.pkcs12.generateKey(password, forge.util.createBuffer(salt), 3, 2048, 20);
  const hmac = forge.hmac.create();
  hmac.start('sha1', macKey);
  hmac.update(octets);
  const U = asn1.Class.UNIVERSAL;
  parts.push(
    asn1.create(U, asn1.Type.SEQUENCE, true, [
      asn1.create(U, asn1.Type.SEQUENCE, true, [
        asn1.create(U, asn1.Type.SEQUENCE, true, [
          asn1.create(U, asn1.Type.OID, false, asn1.oidToDer('1.3.14.3.2.26').getBytes()),
          asn1.create(U, asn1.Type.NULL, false, ''),
        ]),
        asn1.create(U, asn1.Type.OCTETSTRING, false, hmac.digest().getBytes()),
      ]),
      asn1.create(U, asn1.Type.OCTETSTRING, false, salt),
      asn1.create(U, asn1.Type.INTEGER, false, asn1.integerToDer(2048).getBytes()),
    ]),
  );
  return Buffer.from(asn1.toDer(p12).getBytes(), 'binary');
}

/** The SAN otherName values of a DER certificate, found by walking the ASN.1 here in the test. */
function otherNamesInDer(derBase64: string): Record<string, string> {
  const cert = asn1.fromDer(Buffer.from(derBase64, 'base64').toString('binary'));
  const tbs = (cert.value as forge.asn1.Asn1[])[0]!.value as forge.asn1.Asn1[];
  const extsWrapper = tbs.find((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && n.type === 3);
  const exts = ((extsWrapper?.value as forge.asn1.Asn1[])[0]!.value ?? []) as forge.asn1.Asn1[];
  const out: Record<string, string> = {};
  for (const ext of exts) {
    const [id, ...rest] = ext.value as forge.asn1.Asn1[];
    if (asn1.derToOid(id!.value as string) !== '2.5.29.17') continue;
    const names = asn1.fromDer(rest[rest.length - 1]!.value as string);
    for (const gn of names.value as forge.asn1.Asn1[]) {
      const [oid, wrapped] = gn.value as forge.asn1.Asn1[];
      const inner = (wrapped!.value as forge.asn1.Asn1[])[0]!;
      out[asn1.derToOid(oid!.value as string)] = inner.value as string;
    }
  }
  return out;
}

describe('generateTestA1 → readPkcs12', () => {
  const notBefore = new Date('2026-01-10T12:00:00Z');
  const notAfter = new Date('2027-01-10T12:00:00Z');
  const pfx = generateTestA1({
    cnpj: '12345678000195',
    legalName: 'EMPRESA DEMO LTDA',
    password: 'segredo',
    notBefore,
    notAfter,
  });

  it('round-trips subject, CNPJ (from the SAN), dates and a usable key pair', () => {
    const a1 = readPkcs12(pfx, 'segredo');
    const subject = 'CN=EMPRESA DEMO LTDA:12345678000195, OU=Certificado de teste Balcao, O=ICP-Brasil, C=BR';
    expect(a1.subject).toBe(subject);
    expect(a1.issuer).toBe(subject); // self-signed
    expect(a1.cnpj).toBe('12345678000195');
    expect(a1.cpf).toBeNull();
    expect(a1.notBefore.toISOString()).toBe('2026-01-10T12:00:00.000Z');
    expect(a1.notAfter.toISOString()).toBe('2027-01-10T12:00:00.000Z');
    expect(a1.serialNumber).toMatch(/^[0-9A-F]{32}$/);
    expect(a1.privateKeyPem).toContain('-----BEGIN PRIVATE KEY-----');
    expect(a1.certificatePem).toContain('-----BEGIN CERTIFICATE-----');
    expectKeyPairWorks(a1);

    // The CNPJ really is in an ICP-Brasil otherName, not only in the CN.
    expect(otherNamesInDer(a1.certificateDerBase64)).toEqual({ [OID_CNPJ]: '12345678000195' });

    const x509 = new X509Certificate(a1.certificatePem);
    expect(x509.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4']); // clientAuth, emailProtection
    expect(x509.checkPrivateKey(createPrivateKey(a1.privateKeyPem))).toBe(true);
    expect(Buffer.from(a1.certificateDerBase64, 'base64').equals(x509.raw)).toBe(true);

    expect(certificateStatus(a1, new Date('2026-06-01T12:00:00Z'))).toEqual({
      subject,
      issuer: subject,
      serialNumber: a1.serialNumber,
      cnpj: '12345678000195',
      notBefore: '2026-01-10T12:00:00.000Z',
      notAfter: '2027-01-10T12:00:00.000Z',
      daysToExpiry: 223,
      expired: false,
      notYetValid: false,
    });
  });

  it('counts whole days and treats notAfter itself as still valid', () => {
    const a1 = readPkcs12(pfx, 'segredo');
    const at = (ms: number) => certificateStatus(a1, new Date(ms));
    expect(at(notAfter.getTime() - DAY).daysToExpiry).toBe(1);
    expect(at(notAfter.getTime() - DAY + 1).daysToExpiry).toBe(0);
    expect(at(notAfter.getTime())).toMatchObject({ daysToExpiry: 0, expired: false });
    expect(at(notAfter.getTime() + 1)).toMatchObject({ daysToExpiry: -1, expired: true });
    expect(at(notBefore.getTime() - 1)).toMatchObject({ notYetValid: true, expired: false });
    expect(at(notBefore.getTime())).toMatchObject({ notYetValid: false });
  });

  it('is readable by Node/OpenSSL itself', () => {
    expect(opensslAccepts(pfx, 'segredo')).toBe(true);
  });

  it('defaults to one day back and 365 days ahead', () => {
    const before = Date.now();
    const a1 = readPkcs12(generateTestA1({ cnpj: '12345678000195', legalName: 'X', password: 'p' }), 'p');
    const after = Date.now();
    // Exactly 366 days apart whatever the clock says; each bound within the call's window.
    expect(a1.notAfter.getTime() - a1.notBefore.getTime()).toBe(366 * DAY);
    expect(a1.notBefore.getTime()).toBeGreaterThanOrEqual(before - DAY - 1000);
    expect(a1.notBefore.getTime()).toBeLessThanOrEqual(after - DAY);
  });

  it('round-trips an alphanumeric CNPJ, upper-cased', () => {
    const a1 = readPkcs12(
      generateTestA1({ cnpj: '12abc34501de35', legalName: 'ALFA & NUMERICO LTDA', password: 'p' }),
      'p',
    );
    expect(a1.cnpj).toBe('12ABC34501DE35');
    expect(a1.subject).toBe(
      'CN=ALFA & NUMERICO LTDA:12ABC34501DE35, OU=Certificado de teste Balcao, O=ICP-Brasil, C=BR',
    );
    expect(otherNamesInDer(a1.certificateDerBase64)[OID_CNPJ]).toBe('12ABC34501DE35');
  });

  it('reads a legacy-mode (3DES key bag) file, which Node also accepts', () => {
    const legacy = generateTestA1({
      cnpj: '12345678000195',
      legalName: 'EMPRESA DEMO LTDA',
      password: 'segredo',
      legacy: true,
    });
    expect(readPkcs12(legacy, 'segredo').cnpj).toBe('12345678000195');
    // forge never encrypts the certificate bag and OpenSSL 3 keeps 3DES in its default provider,
    // so this file is not "legacy" to Node; the real legacy case is the RC2 fixture below.
    expect(opensslAccepts(legacy, 'segredo')).toBe(true);
  });

  it('rejects input it cannot turn into a valid test certificate', () => {
    const base = { cnpj: '12345678000195', legalName: 'X', password: 'p' };
    expect(() => generateTestA1({ ...base, cnpj: '1234567800019' })).toThrow(TypeError);
    expect(() => generateTestA1({ ...base, cnpj: '12345678000ABC' })).toThrow(TypeError);
    expect(() => generateTestA1({ ...base, password: 'senhação' })).toThrow(TypeError);
    expect(() =>
      generateTestA1({ ...base, notBefore: new Date('2027-01-01Z'), notAfter: new Date('2026-01-01Z') }),
    ).toThrow(TypeError);
  });
});

describe('readPkcs12: identifiers', () => {
  it('finds the CNPJ in the CN when there is no SAN, upper-casing letters', () => {
    expect(readPkcs12(forgePfx(eeKey, [forgeCert({ cn: 'EMPRESA CN:11222333000181' })], 'p'), 'p').cnpj).toBe(
      '11222333000181',
    );
    const alpha = readPkcs12(forgePfx(eeKey, [forgeCert({ cn: 'Empresa Alfa:12abc34501de35' })], 'p'), 'p');
    expect(alpha.cnpj).toBe('12ABC34501DE35');
    expect(alpha.cpf).toBeNull();
  });

  it('prefers the SAN otherName over the CN, and ignores a zero-filled one', () => {
    const san = forgeCert({
      cn: 'EMPRESA:11222333000181',
      otherNames: [{ oid: OID_CNPJ, value: '12345678000195', tag: asn1.Type.PRINTABLESTRING }],
    });
    expect(readPkcs12(forgePfx(eeKey, [san], 'p'), 'p').cnpj).toBe('12345678000195');
    const zeros = forgeCert({
      cn: 'EMPRESA:11222333000181',
      otherNames: [{ oid: OID_CNPJ, value: '00000000000000' }],
    });
    expect(readPkcs12(forgePfx(eeKey, [zeros], 'p'), 'p').cnpj).toBe('11222333000181');
  });

  it('returns null when neither SAN nor CN carries a CNPJ', () => {
    const a1 = readPkcs12(forgePfx(eeKey, [forgeCert({ cn: 'Sem identificador' })], 'p'), 'p');
    expect(a1).toMatchObject({ cnpj: null, cpf: null });
  });

  it('reads an e-CPF: CPF after the 8-digit birth date in 2.16.76.1.3.1, else from the CN', () => {
    const pfData = '15071980' + '11144477735' + '00000000000' + '000000000000000' + '0000000000';
    const eCpf = forgeCert({
      cn: 'FULANO DE TAL:12345678909',
      otherNames: [{ oid: OID_PF_DATA, value: pfData }],
    });
    expect(readPkcs12(forgePfx(eeKey, [eCpf], 'p'), 'p')).toMatchObject({ cpf: '11144477735', cnpj: null });
    const cnOnly = forgeCert({ cn: 'FULANO DE TAL:12345678909' });
    expect(readPkcs12(forgePfx(eeKey, [cnOnly], 'p'), 'p')).toMatchObject({ cpf: '12345678909', cnpj: null });
  });

  it('picks the certificate matching the private key when the CA comes first', () => {
    const ca = forgeCert({ cn: 'AC TESTE', key: caKey, ca: true, serial: '01' });
    const ee = forgeCert({
      cn: 'EMPRESA CADEIA LTDA:11222333000181',
      issuer: { cn: 'AC TESTE', key: caKey },
      serial: '02',
    });
    const a1 = readPkcs12(forgePfx(eeKey, [ca, ee], 'p'), 'p');
    expect(a1.subject).toBe('CN=EMPRESA CADEIA LTDA:11222333000181, O=ICP-Brasil, C=BR');
    expect(a1.issuer).toBe('CN=AC TESTE, O=ICP-Brasil, C=BR');
    expect(a1.serialNumber).toBe('02');
    expect(a1.cnpj).toBe('11222333000181');
    expectKeyPairWorks(a1);
  });
});

describe('readPkcs12: failures', () => {
  const good = generateTestA1({ cnpj: '12345678000195', legalName: 'X', password: 'certa' });

  it('reports a wrong password as wrong_password', () => {
    const error = expectCertificateError(() => readPkcs12(good, 'errada'), 'wrong_password');
    expect(error.message).toMatch(/password/);
    expectCertificateError(() => readPkcs12(good, ''), 'wrong_password');
  });

  it('reports bytes that are not a PKCS#12 as invalid_pfx', () => {
    expectCertificateError(
      () => readPkcs12(new TextEncoder().encode('definitely not a pfx'), 'x'),
      'invalid_pfx',
    );
    expectCertificateError(() => readPkcs12(new Uint8Array(0), 'x'), 'invalid_pfx');
    expectCertificateError(() => readPkcs12(good.subarray(0, good.length - 40), 'certa'), 'invalid_pfx');
    // Valid DER, wrong structure: an X.509 certificate is not a PFX.
    const certDer = Buffer.from(readPkcs12(good, 'certa').certificateDerBase64, 'base64');
    expectCertificateError(() => readPkcs12(certDer, 'x'), 'invalid_pfx');
  });

  it('reports a file without a key as no_private_key', () => {
    expectCertificateError(
      () => readPkcs12(forgePfx(null, [forgeCert({ cn: 'A:11222333000181' })], 'p'), 'p'),
      'no_private_key',
    );
  });

  it('reports a key whose certificate is missing as no_certificate', () => {
    const other = forgeCert({ cn: 'OUTRA:11222333000181', key: caKey });
    expectCertificateError(() => readPkcs12(forgePfx(eeKey, [other], 'p'), 'p'), 'no_certificate');
  });
});

describe('readPkcs12: non-ASCII passwords', () => {
  it('opens a PBES2 file whose password was encoded as UTF-8, as OpenSSL and Windows write it', () => {
    const password = 'Senha-ção';
    const pfx = opensslStylePfx(eeKey, forgeCert({ cn: 'ACENTUADA:11222333000181' }), password);
    expect(opensslAccepts(pfx, password)).toBe(true); // the fixture itself is OpenSSL-correct
    expect(readPkcs12(pfx, password).cnpj).toBe('11222333000181');
    expectCertificateError(() => readPkcs12(pfx, 'Senha-cao'), 'wrong_password');
  });
});

describe('certificateStatus of an expired certificate', () => {
  it('is expired with negative days', () => {
    const a1 = readPkcs12(
      generateTestA1({
        cnpj: '12345678000195',
        legalName: 'VENCIDA LTDA',
        password: 'p',
        notBefore: new Date('2020-01-01T00:00:00Z'),
        notAfter: new Date('2021-01-01T00:00:00Z'),
      }),
      'p',
    );
    const status = certificateStatus(a1, new Date('2026-06-01T00:00:00Z'));
    expect(status).toMatchObject({ expired: true, notYetValid: false, notAfter: '2021-01-01T00:00:00.000Z' });
    // 2021-01-01 → 2026-01-01 is 1826 days, plus 151 to June 1st.
    expect(status.daysToExpiry).toBe(-1977);
  });
});

describe('legacy fixture (openssl -legacy: RC2-40 certificate bag, 3DES key bag)', () => {
  const pfx = readFileSync(legacyPath);

  it('is read with forge, choosing the end-entity over the bundled AC', () => {
    const a1 = readPkcs12(pfx, 'legado123');
    expect(a1.subject).toBe(
      'CN=EMPRESA LEGADA LTDA:11222333000181, OU=Certificado de teste Balcao, O=ICP-Brasil, C=BR',
    );
    expect(a1.issuer).toBe('CN=AC TESTE BALCAO LEGADA, OU=Teste Balcao, O=ICP-Brasil, C=BR');
    expect(a1.cnpj).toBe('11222333000181');
    expect(a1.serialNumber).toBe('02');
    expect(a1.notBefore.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(a1.notAfter.toISOString()).toBe('2046-01-01T00:00:00.000Z');
    // `openssl x509 -fingerprint -sha256` of a1.pem (see test/fixtures/certs/README.md): original bytes kept.
    expect(sha256Fingerprint(a1)).toBe('47E8A1F3F93AD078CD3836B2CCE68D2458F98AA7CF7FAFE00CC47BCCC68912D3');
    expectKeyPairWorks(a1);
    expect(certificateStatus(a1, new Date('2026-11-22T00:00:00Z'))).toMatchObject({
      daysToExpiry: 6980,
      expired: false,
    });
  });

  it('is refused by Node TLS (OpenSSL 3 without the legacy provider), so it really is legacy', () => {
    expect(opensslAccepts(pfx, 'legado123')).toMatch(/Unsupported PKCS12 PFX data/);
  });

  it('still reports a wrong password as such', () => {
    expectCertificateError(() => readPkcs12(pfx, 'legado'), 'wrong_password');
  });
});

describe('public sped-nfe test certificate (shared/reference/samples)', () => {
  it('reads its real subject, serial and validity; it carries no CNPJ', () => {
    const a1 = readPkcs12(readFileSync(samplePath), 'nfephp');
    const dn =
      'CN=SPED Projects in PHP, OU=nfephp-org, O=nfephp-org, L=Porto Alegre, ST=Rio Grande do Sul, C=BR';
    expect(a1.subject).toBe(dn);
    expect(a1.issuer).toBe(dn);
    expect(a1.serialNumber).toBe('F5E3BF4EC443BD9E');
    expect(a1.cnpj).toBeNull();
    expect(a1.cpf).toBeNull();
    expect(a1.notBefore.toISOString()).toBe('2018-08-09T02:41:55.000Z');
    expect(a1.notAfter.toISOString()).toBe('2028-08-06T02:41:55.000Z');
    expect(sha256Fingerprint(a1)).toBe('B658E233E663235535C17234C3180162CA6DC1AC02AB16BECE9E9508D3A4165A');
    expect(a1.privateKey.n.bitLength()).toBe(4096);
    expectKeyPairWorks(a1);
    expect(certificateStatus(a1, new Date('2026-11-22T00:00:00Z'))).toMatchObject({
      daysToExpiry: 623,
      expired: false,
      notYetValid: false,
    });
  });
});
