// Certificates as the authority sees them: the CNPJ of an e-CNPJ (client TLS certificate or the one in an
// XMLDSig KeyInfo), and the sandbox's own self-signed HTTPS server certificate.
import { generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import forge from 'node-forge';

const { asn1 } = forge;

// DOC-ICP-04 §7.1.2.3: the e-CNPJ carries the CNPJ in subjectAltName otherName 2.16.76.1.3.3.
const OID_SUBJECT_ALT_NAME = '2.5.29.17';
const OID_ICP_CNPJ = '2.16.76.1.3.3';
const CNPJ = /^[0-9A-Z]{12}[0-9]{2}$/;

/**
 * The CNPJ an e-CNPJ certificate identifies: the SAN otherName 2.16.76.1.3.3 (Node prints it only as
 * "othername:<unsupported>"), else the "NAME:CNPJ" layout of the subject CN. Walks the DER itself so any key
 * type works. Null when the certificate names no CNPJ (rules 282 and 292).
 */
export function cnpjFromCertificateDer(der: Uint8Array): string | null {
  const fromSan = sanCnpj(der);
  if (fromSan !== null) return fromSan;
  let subject: string;
  try {
    subject = new X509Certificate(der).subject;
  } catch {
    return null;
  }
  const cn = /^CN=(.*)$/m.exec(subject)?.[1]?.trim();
  const fromCn = cn?.match(/:([0-9A-Za-z]{12}[0-9]{2})$/)?.[1]?.toUpperCase();
  return fromCn ?? null;
}

function sanCnpj(der: Uint8Array): string | null {
  try {
    const cert = asn1.fromDer(Buffer.from(der).toString('binary'), false);
    const tbs = (cert.value as forge.asn1.Asn1[])[0];
    if (tbs === undefined || !Array.isArray(tbs.value)) return null;
    // extensions are the [3] EXPLICIT element of TBSCertificate
    const wrapper = tbs.value.find((v) => v.tagClass === asn1.Class.CONTEXT_SPECIFIC && v.type === 3);
    const extensions = Array.isArray(wrapper?.value) ? wrapper.value[0] : undefined;
    if (extensions === undefined || !Array.isArray(extensions.value)) return null;
    for (const ext of extensions.value) {
      if (!Array.isArray(ext.value)) continue;
      const [id, ...rest] = ext.value;
      if (
        id === undefined ||
        typeof id.value !== 'string' ||
        asn1.derToOid(id.value) !== OID_SUBJECT_ALT_NAME
      ) {
        continue;
      }
      const octets = rest[rest.length - 1];
      if (octets === undefined || typeof octets.value !== 'string') return null;
      const names = asn1.fromDer(octets.value, false);
      for (const name of Array.isArray(names.value) ? names.value : []) {
        // otherName: [0] IMPLICIT SEQUENCE { type-id OID, value [0] EXPLICIT ANY }
        if (name.tagClass !== asn1.Class.CONTEXT_SPECIFIC || name.type !== 0 || !Array.isArray(name.value)) {
          continue;
        }
        const [typeId, wrapped] = name.value;
        if (typeId?.type !== asn1.Type.OID || typeof typeId.value !== 'string' || wrapped === undefined)
          continue;
        if (asn1.derToOid(typeId.value) !== OID_ICP_CNPJ) continue;
        let node: forge.asn1.Asn1 = wrapped;
        while (Array.isArray(node.value) && node.value.length === 1 && node.value[0] !== undefined) {
          node = node.value[0];
        }
        const text = typeof node.value === 'string' ? node.value.trim().toUpperCase().slice(0, 14) : '';
        // ICP-Brasil fills absent identifiers with zeros, which is not a CNPJ.
        if (CNPJ.test(text) && !/^0+$/.test(text)) return text;
      }
    }
  } catch {
    // not DER forge can walk: the CN fallback still applies
  }
  return null;
}

/** The 8-position CNPJ root ("CNPJ-Base") that rules 213 and 593 compare. */
export function cnpjRoot(cnpj: string): string {
  return cnpj.slice(0, 8);
}

export interface ServerIdentity {
  keyPem: string;
  certPem: string;
}

/**
 * A fresh RSA-2048 self-signed server certificate for https://127.0.0.1 (CN 127.0.0.1, SAN IP 127.0.0.1 and
 * DNS localhost), valid 10 years. Clients trust it by passing the certificate itself as their CA.
 */
export function generateServerIdentity(now: Date = new Date()): ServerIdentity {
  // Node's native keygen takes milliseconds; forge's pure-JS RSA-2048 keygen takes seconds.
  const { privateKey: keyPem } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(keyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  // Positive serial: clear the top bit of a random 16-byte value.
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  cert.validity.notBefore = new Date(Math.floor(now.getTime() / 1000) * 1000 - 60_000);
  const notAfter = new Date(cert.validity.notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + 10);
  cert.validity.notAfter = notAfter;
  const name = [
    { shortName: 'C', value: 'BR' },
    { shortName: 'O', value: 'Balcao Sandbox Authority' },
    { shortName: 'CN', value: '127.0.0.1' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectKeyIdentifier' },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
      ],
    },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
}
