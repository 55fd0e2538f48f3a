// ICP-Brasil "A1" certificates (PKCS#12 .pfx + password): read them into signing material and metadata,
// and mint self-signed look-alikes for tests. Pure: bytes in, values out; storage belongs to the caller.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';

export type CertificateErrorCode = 'wrong_password' | 'invalid_pfx' | 'no_private_key' | 'no_certificate';

export class CertificateError extends Error {
  readonly code: CertificateErrorCode;

  constructor(code: CertificateErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CertificateError';
    this.code = code;
  }
}

export interface A1Certificate {
  privateKey: forge.pki.rsa.PrivateKey;
  certificate: forge.pki.Certificate;
  /** PKCS#8 ("BEGIN PRIVATE KEY"), accepted by node:crypto and by xml signers alike. */
  privateKeyPem: string;
  certificatePem: string;
  /** The certificate's original DER bytes, as XMLDSig's <X509Certificate> must carry them. */
  certificateDerBase64: string;
  /** RFC 4514 order (most specific RDN first), e.g. "CN=EMPRESA DEMO LTDA:12345678000195, ..., C=BR". */
  subject: string;
  issuer: string;
  /** Upper-case hex without DER sign padding, as `openssl x509 -serial` prints it. */
  serialNumber: string;
  cnpj: string | null;
  cpf: string | null;
  notBefore: Date;
  notAfter: Date;
}

export interface CertificateStatus {
  subject: string;
  issuer: string;
  serialNumber: string;
  cnpj: string | null;
  notBefore: string;
  notAfter: string;
  daysToExpiry: number;
  expired: boolean;
  notYetValid: boolean;
}

export interface TestA1Options {
  cnpj: string;
  legalName: string;
  password: string;
  notBefore?: Date;
  notAfter?: Date;
  /** 3DES (PKCS#12 PBE) key bag instead of PBES2/AES-256, like older Windows exports. */
  legacy?: boolean;
}

// DOC-ICP-04 §7.1.2.3 (ICP-Brasil certificate profiles): identity fields live in subjectAltName otherName.
const OID_SUBJECT_ALT_NAME = '2.5.29.17';
const OID_ICP_PF_DATA = '2.16.76.1.3.1'; // e-CPF: birth date ddmmaaaa (8) + CPF (11) + NIS (11) + RG ...
const OID_ICP_CNPJ = '2.16.76.1.3.3'; // e-CNPJ: the 14-position CNPJ

// RFC 7292 §4.2 bag types; literals because @types/node-forge does not declare them on pki.oids.
const OID_KEY_BAG = '1.2.840.113549.1.12.10.1.1';
const OID_SHROUDED_KEY_BAG = '1.2.840.113549.1.12.10.1.2';
const OID_CERT_BAG = '1.2.840.113549.1.12.10.1.3';

// IN RFB 2.229/2024: from July 2026 the CNPJ root and branch (12 positions) may hold letters;
// the two check digits stay numeric.
const CNPJ_PATTERN = /^[0-9A-Z]{12}[0-9]{2}$/;

const DAY_MS = 86_400_000;

const { asn1 } = forge;

export function readPkcs12(pfx: Uint8Array, password: string): A1Certificate {
  const der = Buffer.from(pfx.buffer, pfx.byteOffset, pfx.byteLength).toString('binary');
  let outer: forge.asn1.Asn1;
  try {
    // Not strict: Windows exports are BER (indefinite lengths, constructed OCTET STRINGs).
    outer = asn1.fromDer(der, false);
  } catch (cause) {
    throw new CertificateError('invalid_pfx', `not a PKCS#12 file: ${messageOf(cause)}`, { cause });
  }

  const p12 = openPfx(outer, password);

  const keys: forge.pki.rsa.PrivateKey[] = [];
  const certs: forge.pki.Certificate[] = [];
  let unsupportedKey = false;
  for (const contents of p12.safeContents) {
    for (const bag of contents.safeBags) {
      if (bag.type === OID_SHROUDED_KEY_BAG || bag.type === OID_KEY_BAG) {
        // forge leaves key null (not undefined) for non-RSA keys it cannot decode.
        if (bag.key) keys.push(bag.key);
        else unsupportedKey = true;
      } else if (bag.type === OID_CERT_BAG && bag.cert) {
        certs.push(bag.cert);
      }
    }
  }

  if (keys.length === 0) {
    throw new CertificateError(
      'no_private_key',
      unsupportedKey
        ? 'the private key is not RSA; NF-e signatures (XMLDSig RSA) need an RSA key'
        : 'the file holds no private key',
    );
  }
  if (certs.length === 0) {
    throw new CertificateError('no_certificate', 'the file holds no X.509 certificate forge can read');
  }

  // Files exported with "include all certificates in the path" also carry the AC chain, in any order;
  // the signing certificate is the one whose public key is the private key's.
  let chosen: { key: forge.pki.rsa.PrivateKey; cert: forge.pki.Certificate } | null = null;
  for (const key of keys) {
    for (const cert of certs) {
      if (!publicKeyMatches(cert, key)) continue;
      // Same key certified twice (renewal without re-keying): the newest one is the one to sign with.
      if (!chosen || cert.validity.notAfter > chosen.cert.validity.notAfter) chosen = { key, cert };
    }
  }
  if (!chosen) {
    throw new CertificateError('no_certificate', 'no certificate in the file matches its private key');
  }

  return toA1Certificate(chosen.key, chosen.cert);
}

export function certificateStatus(cert: A1Certificate, now: Date): CertificateStatus {
  const t = now.getTime();
  return {
    subject: cert.subject,
    issuer: cert.issuer,
    serialNumber: cert.serialNumber,
    cnpj: cert.cnpj,
    notBefore: cert.notBefore.toISOString(),
    notAfter: cert.notAfter.toISOString(),
    daysToExpiry: Math.floor((cert.notAfter.getTime() - t) / DAY_MS),
    // RFC 5280 §4.1.2.5: both validity bounds are inclusive.
    expired: t > cert.notAfter.getTime(),
    notYetValid: t < cert.notBefore.getTime(),
  };
}

export function generateTestA1(options: TestA1Options): Uint8Array {
  const cnpj = options.cnpj.trim().toUpperCase();
  if (!CNPJ_PATTERN.test(cnpj)) {
    throw new TypeError(`cnpj must be 12 characters [0-9A-Z] and 2 digits, got "${options.cnpj}"`);
  }
  const legalName = options.legalName.trim();
  if (legalName === '') throw new TypeError('legalName must not be empty');
  // forge feeds PBES2 the password's UTF-16 code units truncated to bytes while OpenSSL uses UTF-8,
  // so a non-ASCII password would give a file only forge could open.
  if (!/^[\x20-\x7e]*$/.test(options.password)) {
    throw new TypeError('generateTestA1 only supports printable ASCII passwords');
  }
  const now = Date.now();
  const notBefore = wholeSeconds(options.notBefore ?? new Date(now - DAY_MS));
  const notAfter = wholeSeconds(options.notAfter ?? new Date(now + 365 * DAY_MS));
  if (notAfter <= notBefore) throw new TypeError('notAfter must be after notBefore');

  // Node's native keygen takes milliseconds; forge's pure-JS RSA-2048 keygen takes seconds.
  const { privateKey: keyPem } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const privateKey = forge.pki.privateKeyFromPem(keyPem);

  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(privateKey.n, privateKey.e);
  cert.serialNumber = randomSerialHex();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  const name: forge.pki.CertificateField[] = [
    { shortName: 'C', value: 'BR' },
    // UTF8String like real ICP-Brasil certificates: PrintableString cannot hold "&" or accents.
    { shortName: 'O', value: 'ICP-Brasil', valueTagClass: UTF8_TAG },
    { shortName: 'OU', value: 'Certificado de teste Balcao', valueTagClass: UTF8_TAG },
    { shortName: 'CN', value: `${legalName}:${cnpj}`, valueTagClass: UTF8_TAG },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', critical: true, digitalSignature: true, nonRepudiation: true, keyEncipherment: true },
    { name: 'extKeyUsage', clientAuth: true, emailProtection: true },
    { name: 'subjectKeyIdentifier' },
    // forge's altNames only emit primitive [n] tags, and otherName is a constructed [0]:
    // hand forge the finished extnValue bytes instead.
    { id: OID_SUBJECT_ALT_NAME, value: icpOtherNameSanDer(OID_ICP_CNPJ, cnpj) },
  ]);
  cert.sign(privateKey, forge.md.sha256.create());

  const p12 = forge.pkcs12.toPkcs12Asn1(privateKey, cert, options.password, {
    algorithm: options.legacy ? '3des' : 'aes256',
    generateLocalKeyId: true,
  });
  return new Uint8Array(Buffer.from(asn1.toDer(p12).getBytes(), 'binary'));
}

/** DER of a GeneralNames holding one ICP-Brasil otherName, ready to be a subjectAltName extnValue. */
function icpOtherNameSanDer(oid: string, value: string): string {
  const otherName = asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(oid).getBytes()),
    // DOC-ICP-04 declares these values as OCTET STRING.
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, value),
    ]),
  ]);
  return asn1.toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [otherName])).getBytes();
}

// @types/node-forge types valueTagClass as asn1.Class, but forge reads it as the value's universal tag.
const UTF8_TAG = asn1.Type.UTF8 as unknown as forge.asn1.Class;

function openPfx(outer: forge.asn1.Asn1, password: string): forge.pkcs12.Pkcs12Pfx {
  try {
    return forge.pkcs12.pkcs12FromAsn1(outer, false, password);
  } catch (first) {
    const kind = classifyForgeError(first);
    if (kind === 'decrypt' && /[\u0080-\uffff]/.test(password)) {
      // The MAC (checked first, with the correct BMPString password) passed, so the password is right;
      // forge then fed PBES2 the password as Latin-1 bytes where OpenSSL and Windows use UTF-8.
      // Retry with UTF-8 bytes and the already-verified MAC removed so forge does not recheck it.
      try {
        return forge.pkcs12.pkcs12FromAsn1(withoutMac(outer), false, forge.util.encodeUtf8(password));
      } catch {
        // Fall through and report the first failure.
      }
    }
    if (kind === 'invalid') {
      throw new CertificateError('invalid_pfx', `unreadable PKCS#12: ${messageOf(first)}`, { cause: first });
    }
    throw new CertificateError('wrong_password', 'wrong certificate password', { cause: first });
  }
}

function classifyForgeError(error: unknown): 'mac' | 'decrypt' | 'invalid' {
  const message = messageOf(error);
  if (/MAC could not be verified/i.test(message)) return 'mac';
  // A file without a MAC only reveals a wrong password when decryption fails its padding check.
  if (/Failed to decrypt|Unable to decrypt|wrong password|invalid password/i.test(message)) return 'decrypt';
  return 'invalid';
}

function withoutMac(pfx: forge.asn1.Asn1): forge.asn1.Asn1 {
  const parts = pfx.value as forge.asn1.Asn1[];
  return asn1.create(pfx.tagClass, pfx.type, pfx.constructed, parts.slice(0, 2));
}

function publicKeyMatches(cert: forge.pki.Certificate, key: forge.pki.rsa.PrivateKey): boolean {
  const pub = cert.publicKey as Partial<forge.pki.rsa.PublicKey>;
  return pub.n !== undefined && pub.e !== undefined && pub.n.equals(key.n) && pub.e.equals(key.e);
}

function toA1Certificate(
  privateKey: forge.pki.rsa.PrivateKey,
  certificate: forge.pki.Certificate,
): A1Certificate {
  // certificateToAsn1 reuses the parsed tbsCertificate, so these are the bytes the AC signed.
  const derBytes = asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes();
  const { subject, issuer } = tbsNames(certificate);
  const otherNames = icpOtherNames(certificate);
  const commonName = lastValue(subject, '2.5.4.3');
  return {
    privateKey,
    certificate,
    privateKeyPem: forge.pki.privateKeyInfoToPem(
      forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(privateKey)),
    ),
    certificatePem: forge.pki.certificateToPem(certificate),
    certificateDerBase64: Buffer.from(derBytes, 'binary').toString('base64'),
    subject: formatName(subject),
    issuer: formatName(issuer),
    serialNumber: normalizeSerial(certificate.serialNumber),
    cnpj: cnpjFrom(otherNames.get(OID_ICP_CNPJ), commonName),
    cpf: cpfFrom(otherNames.get(OID_ICP_PF_DATA), commonName),
    notBefore: certificate.validity.notBefore,
    notAfter: certificate.validity.notAfter,
  };
}

function cnpjFrom(sanValue: string | undefined, commonName: string | null): string | null {
  // ICP-Brasil fills absent identifiers with zeros, which is not a CNPJ.
  const fromSan = sanValue
    ?.trim()
    .toUpperCase()
    .match(/^([0-9A-Z]{12}[0-9]{2})/)?.[1];
  if (fromSan && !/^0+$/.test(fromSan)) return fromSan;
  // "RAZAO SOCIAL:12345678000195" is the CN layout of e-CNPJ certificates.
  const fromCn = commonName?.trim().match(/:([0-9A-Za-z]{12}[0-9]{2})$/)?.[1];
  return fromCn ? fromCn.toUpperCase() : null;
}

function cpfFrom(sanValue: string | undefined, commonName: string | null): string | null {
  const fromSan = sanValue?.trim().match(/^[0-9]{8}([0-9]{11})/)?.[1];
  if (fromSan && !/^0+$/.test(fromSan)) return fromSan;
  return commonName?.trim().match(/:([0-9]{11})$/)?.[1] ?? null;
}

/** otherName values of the subjectAltName by type-id; forge leaves otherName undecoded. */
function icpOtherNames(cert: forge.pki.Certificate): Map<string, string> {
  const found = new Map<string, string>();
  // forge types extensions as any[]; a parsed extension's value is its extnValue content bytes.
  const ext = (cert.extensions as Array<{ id?: string; value?: unknown }>).find(
    (e) => e.id === OID_SUBJECT_ALT_NAME,
  );
  if (typeof ext?.value !== 'string') return found;
  let names: forge.asn1.Asn1;
  try {
    names = asn1.fromDer(ext.value, false);
  } catch {
    return found; // A malformed SAN must not hide a usable certificate; the CN fallback still applies.
  }
  if (!Array.isArray(names.value)) return found;
  for (const generalName of names.value) {
    // otherName is [0] IMPLICIT SEQUENCE { type-id OID, value [0] EXPLICIT ANY }.
    if (generalName.tagClass !== asn1.Class.CONTEXT_SPECIFIC || generalName.type !== 0) continue;
    if (!Array.isArray(generalName.value)) continue;
    const [typeId, wrapped] = generalName.value;
    if (!typeId || !wrapped || typeId.type !== asn1.Type.OID || typeof typeId.value !== 'string') continue;
    const text = innermostText(wrapped);
    const oid = asn1.derToOid(typeId.value);
    if (text !== null && !found.has(oid)) found.set(oid, text);
  }
  return found;
}

/** Unwraps single-child constructions: ACs disagree on OCTET STRING vs PrintableString vs UTF8String. */
function innermostText(node: forge.asn1.Asn1): string | null {
  let current = node;
  while (Array.isArray(current.value)) {
    const [only] = current.value;
    if (!only || current.value.length !== 1) return null;
    current = only;
  }
  return decodeString(current);
}

/** `hex` marks a value kept as RFC 4514 §2.4 "#<DER hex>" because its string type is not decodable. */
type NameAttribute = { oid: string; value: string; hex?: boolean };
type Rdn = NameAttribute[];

/** Issuer and subject straight from the signed ASN.1, keeping multi-valued RDNs and string types. */
function tbsNames(cert: forge.pki.Certificate): { subject: Rdn[]; issuer: Rdn[] } {
  const tbs = cert.tbsCertificate?.value;
  if (!Array.isArray(tbs)) {
    return {
      subject: namesFromForge(cert.subject.attributes),
      issuer: namesFromForge(cert.issuer.attributes),
    };
  }
  // TBSCertificate: [0] version (absent in v1), serial, signature, issuer, validity, subject, ...
  const offset = tbs[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  return { issuer: parseName(tbs[offset + 2]), subject: parseName(tbs[offset + 4]) };
}

function parseName(name: forge.asn1.Asn1 | undefined): Rdn[] {
  if (!name || !Array.isArray(name.value)) return [];
  return name.value.map((set) =>
    (Array.isArray(set.value) ? set.value : []).flatMap((atv) => {
      if (!Array.isArray(atv.value)) return [];
      const [type, value] = atv.value;
      if (!type || !value || typeof type.value !== 'string') return [];
      const oid = asn1.derToOid(type.value);
      const text = decodeString(value);
      return [text === null ? { oid, value: `#${derHex(value)}`, hex: true } : { oid, value: text }];
    }),
  );
}

function namesFromForge(attributes: forge.pki.CertificateField[]): Rdn[] {
  return attributes.map((a) => [{ oid: a.type ?? '', value: typeof a.value === 'string' ? a.value : '' }]);
}

function lastValue(name: Rdn[], oid: string): string | null {
  // The last RDN in DER order is the most specific one.
  for (let i = name.length - 1; i >= 0; i--) {
    const hit = name[i]?.find((a) => a.oid === oid);
    if (hit) return hit.value;
  }
  return null;
}

const RDN_KEYS: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.5': 'serialNumber',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

function formatName(name: Rdn[]): string {
  // RFC 4514 §2.1: RDNs are written from the last one in the sequence to the first.
  return [...name]
    .reverse()
    .map((rdn) =>
      rdn.map((a) => `${RDN_KEYS[a.oid] ?? a.oid}=${a.hex ? a.value : escapeRdnValue(a.value)}`).join('+'),
    )
    .join(', ');
}

function escapeRdnValue(value: string): string {
  let out = value.replace(/[\\"+,;<>]/g, (c) => `\\${c}`).replace(/\0/g, '\\00');
  if (out.startsWith('#') || out.startsWith(' ')) out = `\\${out}`;
  if (out.length > 1 && out.endsWith(' ') && !out.endsWith('\\ ')) out = `${out.slice(0, -1)}\\ `;
  return out;
}

// ASN.1 universal tags of the DirectoryString family (X.680 §8.4); forge's enum lacks most of them.
const TAG = {
  UTF8: 12,
  NUMERIC: 18,
  PRINTABLE: 19,
  T61: 20,
  IA5: 22,
  VISIBLE: 26,
  UNIVERSAL: 28,
  BMP: 30,
  OCTET: 4,
} as const;

function decodeString(node: forge.asn1.Asn1): string | null {
  if (node.tagClass !== asn1.Class.UNIVERSAL || typeof node.value !== 'string') return null;
  const bytes = node.value;
  switch (node.type as number) {
    case TAG.UTF8:
      return Buffer.from(bytes, 'binary').toString('utf8');
    case TAG.BMP:
      return Buffer.from(bytes, 'binary').swap16().toString('utf16le');
    case TAG.UNIVERSAL: {
      const raw = Buffer.from(bytes, 'binary');
      let out = '';
      for (let i = 0; i + 3 < raw.length; i += 4) out += String.fromCodePoint(raw.readUInt32BE(i));
      return out;
    }
    // T.61 is close enough to Latin-1 for the names ACs actually wrote with it; OCTET STRING is
    // DOC-ICP-04's choice for otherName values, which are ASCII digits and letters.
    case TAG.NUMERIC:
    case TAG.PRINTABLE:
    case TAG.T61:
    case TAG.IA5:
    case TAG.VISIBLE:
    case TAG.OCTET:
      return bytes;
    default:
      return null;
  }
}

function derHex(node: forge.asn1.Asn1): string {
  return forge.util.bytesToHex(asn1.toDer(node).getBytes());
}

function normalizeSerial(hex: string): string {
  // DER prefixes 00 to keep a positive INTEGER whose top bit is set; it is not part of the number.
  let out = hex.toUpperCase();
  while (out.length > 2 && out.startsWith('00')) out = out.slice(2);
  return out;
}

function randomSerialHex(): string {
  const bytes = randomBytes(16);
  // RFC 5280 §4.1.2.2: positive and at most 20 octets; setting bit 6 also keeps the length fixed.
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function wholeSeconds(date: Date): Date {
  // X.509 times carry whole seconds; truncating here makes the returned file match what was asked for.
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
