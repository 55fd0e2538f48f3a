// The sandbox's DOM-free signature check: the Signature exactly as our signer writes it, over a signed
// element already in canonical form, is verified with string slicing, one SHA-1 and one RSA verify.
// Anything else answers `undefined` and verifySignature() takes the xmldom + xml-crypto path, so verdicts
// never depend on which path ran (a differential test holds both to the same answers).
import { createHash, verify as rsaVerify, X509Certificate } from 'node:crypto';
import { canonicalSignedElement, SigningError } from '../fiscal/sign.ts';
import type { SignedTag } from '../fiscal/sign.ts';

const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const C14N_10 = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const B64 = '[A-Za-z0-9+/]+={0,2}';
// The serialized form signXmlDetailed() emits (MOC 7.0 §4 fixes every algorithm); only Id, digest,
// signature value and certificate vary.
const SIGNATURE = new RegExp(
  escapeRe(
    `<Signature xmlns="${DSIG_NS}"><SignedInfo>` +
      `<CanonicalizationMethod Algorithm="${C14N_10}"/><SignatureMethod Algorithm="${RSA_SHA1}"/>` +
      `<Reference URI="#`,
  ) +
    '([A-Za-z_][A-Za-z0-9_.-]*)' +
    escapeRe(
      `"><Transforms><Transform Algorithm="${ENVELOPED}"/>` +
        `<Transform Algorithm="${C14N_10}"/></Transforms><DigestMethod Algorithm="${SHA1}"/><DigestValue>`,
    ) +
    `(${B64})</DigestValue></Reference></SignedInfo><SignatureValue>(${B64})</SignatureValue>` +
    `<KeyInfo><X509Data><X509Certificate>(${B64})</X509Certificate></X509Data></KeyInfo></Signature>`,
);
const ANY_SIGNATURE = /<(?:[A-Za-z_][\w.-]*:)?Signature[\s>/]/g;
const NAME = '[A-Za-z_][A-Za-z0-9_.-]*';
// What may come before the signed element: an XML declaration and the start tags of its ancestors,
// with plain `"` attributes only (no prefixes but xmlns, no references), so the prefix is well-formed.
const DECLARATION = /^\uFEFF?(?:<\?xml [^<>?]*\?>)?\s*/y;
const ANCESTOR = new RegExp(`<(${NAME})((?:\\s+(?:xmlns|${NAME})="[^"<&]*")*)\\s*>\\s*`, 'y');
const ATTRIBUTE_NAME = /\s+([^\s=]+)=/g;
// infNFeSupl / infDCeSupl: simple elements with escaped text, nothing a parser could refuse.
const supplement = (name: string) =>
  new RegExp(`^<${name}>(?:<([A-Za-z]+)>[^<>&]*(?:&(?:amp|lt|gt|quot|apos);[^<>&]*)*</\\1>)*</${name}>$`);
const SUPPLEMENT: Partial<Record<SignedTag, RegExp>> = {
  infNFe: supplement('infNFeSupl'),
  infCte: supplement('infCTeSupl'),
  infDCe: supplement('infDCeSupl'),
};

// One store signs with one or two certificates: parsing the DER costs about as much as the RSA verify.
const certificates = new Map<string, X509Certificate>();

function certificateOf(base64: string): X509Certificate | undefined {
  let cert = certificates.get(base64);
  if (cert !== undefined) return cert;
  try {
    cert = new X509Certificate(Buffer.from(base64, 'base64'));
  } catch {
    return undefined; // unreadable: the general path answers 290
  }
  if (certificates.size >= 32) certificates.clear();
  certificates.set(base64, cert);
  return cert;
}

export interface FastSignature {
  certificate: X509Certificate;
  digestValue: string;
  /** Digest and RSA value both match: false means 297, as xml-crypto would answer. */
  valid: boolean;
}

/**
 * The signature parts of `xml` when the fast path can decide it, or undefined. The caller applies the same
 * certificate checks (291, 292) to the certificate as on the general path.
 */
export function fastSignature(xml: string, signed: SignedTag, namespace: string): FastSignature | undefined {
  const match = SIGNATURE.exec(xml);
  if (match === null) return undefined;
  const [whole, id = '', digestValue = '', signatureValue = '', certificateBase64 = ''] = match;
  const sigStart = match.index;
  const sigEnd = sigStart + whole.length;
  // Exactly one Signature in the document: the general path takes the first sibling of the first element.
  ANY_SIGNATURE.lastIndex = 0;
  ANY_SIGNATURE.exec(xml);
  if (ANY_SIGNATURE.exec(xml) !== null) return undefined;

  // Ancestors: declaration then start tags only, none of them prefixed-namespace or xml:* carrying.
  DECLARATION.lastIndex = 0;
  DECLARATION.test(xml);
  let pos = DECLARATION.lastIndex;
  const open: string[] = [];
  for (;;) {
    if (xml.startsWith(`<${signed}`, pos)) break;
    ANCESTOR.lastIndex = pos;
    const tag = ANCESTOR.exec(xml);
    if (tag === null) return undefined;
    const seen = new Set<string>();
    for (const [, name = ''] of (tag[2] ?? '').matchAll(ATTRIBUTE_NAME)) {
      if (seen.has(name) || name.startsWith('xmlns:')) return undefined;
      seen.add(name);
    }
    open.push(tag[1] ?? '');
    pos = ANCESTOR.lastIndex;
  }
  const elStart = pos;
  if (elStart > sigStart) return undefined;

  // The signed element as C14N renders it (sign.ts checks the content is canonical as written), in the
  // document without its Signature, where sign.ts also refuses a second element of the name.
  const unsigned = xml.slice(0, sigStart) + xml.slice(sigEnd);
  let canonical: string;
  try {
    canonical = canonicalSignedElement(unsigned, signed);
  } catch (error) {
    if (error instanceof SigningError) return undefined;
    throw error;
  }
  const startTagEnd = canonical.indexOf('>');
  const nsPrefix = `<${signed} xmlns="${namespace}"`;
  const startTag = canonical.slice(0, startTagEnd + 1);
  if (!startTag.startsWith(nsPrefix) || startTag.includes('xmlns:')) return undefined;
  if (startTag.charCodeAt(nsPrefix.length) !== 0x20 && startTag.charCodeAt(nsPrefix.length) !== 0x3e) {
    return undefined;
  }
  if (!startTag.includes(` Id="${id}"`)) return undefined; // the general path answers 298
  // The Id names one element only (xml-crypto resolves the Reference by Id, ID or id anywhere).
  const idText = `="${id}"`;
  const firstId = xml.indexOf(idText);
  if (firstId < 0 || xml.indexOf(idText, firstId + 1) >= 0) return undefined;

  // Between the element and the Signature: nothing, or the QR code group the schemas put there.
  const elEnd = xml.lastIndexOf(`</${signed}>`, sigStart) + signed.length + 3;
  if (elEnd < elStart + canonical.length - startTag.length) return undefined;
  const between = xml.slice(elEnd, sigStart);
  if (between !== '' && SUPPLEMENT[signed]?.test(between) !== true) return undefined;
  // After the Signature: the ancestors' end tags, in order, and nothing else but blanks.
  let after = sigEnd;
  for (let i = open.length - 1; i >= 0; i--) {
    const endTag = `</${open[i] ?? ''}>`;
    while (/\s/.test(xml[after] ?? '')) after++;
    if (!xml.startsWith(endTag, after)) return undefined;
    after += endTag.length;
  }
  if (xml.slice(after).trim() !== '') return undefined;

  const certificate = certificateOf(certificateBase64);
  if (certificate === undefined || certificate.publicKey.asymmetricKeyType !== 'rsa') return undefined;

  const digest = createHash('sha1').update(canonical, 'utf8').digest('base64');
  // XMLDSig Core §3.1.2: the signature covers the canonical SignedInfo; the Signature's own xmlns is the
  // only namespace in scope (no prefixed declarations above, checked above), empty elements as pairs.
  const canonicalSignedInfo =
    `<SignedInfo xmlns="${DSIG_NS}">` +
    `<CanonicalizationMethod Algorithm="${C14N_10}"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${RSA_SHA1}"></SignatureMethod>` +
    `<Reference URI="#${id}"><Transforms>` +
    `<Transform Algorithm="${ENVELOPED}"></Transform><Transform Algorithm="${C14N_10}"></Transform>` +
    `</Transforms><DigestMethod Algorithm="${SHA1}"></DigestMethod>` +
    `<DigestValue>${digestValue}</DigestValue></Reference></SignedInfo>`;
  const valid =
    digest === digestValue &&
    rsaVerify(
      'sha1',
      Buffer.from(canonicalSignedInfo, 'utf8'),
      certificate.publicKey,
      Buffer.from(signatureValue, 'base64'),
    );
  return { certificate, digestValue, valid };
}
