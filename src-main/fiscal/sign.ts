// XMLDSig enveloped signature of NF-e/NFC-e (infNFe), events (infEvento), inutilização (infInut), CT-e
// (infCte) and DC-e (infDCe), as the Manual de Orientação do Contribuinte 7.0 §4 prescribes: C14N 1.0,
// RSA-SHA1, SHA-1.
//
// Design: there is no general XML canonicalizer here. Our builder emits the signed element already in
// canonical form (W3C C14N 1.0 §2: no comments, PIs, CDATA or empty-element tags; `"` delimited
// attributes in canonical order; canonical character escaping). The canonical octets of the signed
// element are then its own substring, with only its start tag rebuilt: inherited namespace
// declarations added and its attributes sorted (C14N 1.0 §2.3 renders every in-scope namespace on the
// apex of a document subset, namespace nodes first, attributes by name, so `Id` before `versao`).
// Everything the shortcut relies on is checked in linear time; input that fails the check is
// rejected with SigningError('not_canonical') rather than canonicalized by another route, because
// the only XML parsers in the tree (xml-crypto, @xmldom/xmldom) are devDependencies and a second,
// rarely exercised C14N path would be the place bugs hide. Tests compare the result byte for byte
// with xml-crypto and verify every signature with xmlsec1.
// signBuiltElement skips even that check for an element our builder has just written (it knows where, and
// writes it canonical by construction): the NF-e/NFC-e path, where locating and checking cost a quarter of
// the RSA signature.
import { createHash, createPrivateKey, sign as rsaSign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { A1Certificate } from './certificate.ts';

export type SignedTag = 'infNFe' | 'infEvento' | 'infInut' | 'infCte' | 'infDPS' | 'infPedReg' | 'infDCe';

/** What signing needs, prepared once per certificate: parsing the key PEM costs more than an RSA sign. */
export interface SigningKey {
  readonly keyObject: KeyObject;
  /** The signer certificate's DER in base64 without line breaks, as <X509Certificate> carries it. */
  readonly certificateBase64: string;
}

export interface SignOptions {
  tag: SignedTag;
  cert: A1Certificate | SigningKey;
}

export interface SignedXmlDetails {
  xml: string;
  /** Base64 SHA-1 of the canonical signed element; the offline NFC-e QR code v2 carries it (digVal). */
  digestValue: string;
  signatureValue: string;
}

export type SigningErrorCode =
  | 'element_not_found'
  | 'duplicate_element'
  | 'missing_id'
  | 'already_signed'
  | 'not_canonical'
  | 'unsupported_key';

export class SigningError extends Error {
  readonly code: SigningErrorCode;

  constructor(code: SigningErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SigningError';
    this.code = code;
  }
}

// Algorithm identifiers required by MOC 7.0 §4 (XMLDSig Core §6, C14N 1.0).
const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const C14N_10 = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const SHA1 = 'http://www.w3.org/2000/09/xmldsig#sha1';

// XML names restricted to ASCII without a colon: the fiscal schemas use nothing else, and an
// unprefixed name keeps C14N's attribute order (namespace URI, then local name) a plain name order.
const NAME = '[A-Za-z_][A-Za-z0-9_.-]*';
// Characters C14N 1.0 §2.3 never writes raw, besides the markup ones: CR (always &#xD;) and what is
// not an XML 1.0 §2.2 character (C0 controls other than TAB/LF, U+FFFE, U+FFFF). With the `u` flag a
// surrogate pair is one code point above U+FFFF, so \uD800-\uDFFF only catches lone surrogates.
const FORBIDDEN = '\\x00-\\x08\\x0B\\x0C\\x0D\\x0E-\\x1F\\uD800-\\uDFFF\\uFFFE\\uFFFF';
// C14N 1.0 §2.3 text nodes: & < > CR are escaped as &amp; &lt; &gt; &#xD;, nothing else is a reference.
const TEXT_CHAR = `[^<&>${FORBIDDEN}]`;
const TEXT_SRC = `${TEXT_CHAR}*(?:&(?:amp|lt|gt|#xD);${TEXT_CHAR}*)*`;
// C14N 1.0 §2.3 attribute values: & < " TAB LF CR are escaped; attribute-value normalization (XML 1.0
// §3.3.3) would turn a raw TAB or LF into a space, so neither may appear raw.
const ATTR_CHAR = `[^<&"\\t\\n${FORBIDDEN}]`;
const ATTR_VALUE = `${ATTR_CHAR}*(?:&(?:amp|lt|quot|#x9|#xA|#xD);${ATTR_CHAR}*)*`;
const TEXT = new RegExp(TEXT_SRC, 'yu');
const START_TAG = new RegExp(`<(${NAME})((?: ${NAME}="${ATTR_VALUE}")*)>`, 'yu');
const ATTRIBUTE = new RegExp(` (${NAME})="(${ATTR_VALUE})"`, 'gu');
const END_TAG = new RegExp(`</(${NAME})>`, 'yu');
// The same grammar for a whole element content in one native regex call. Each alternative starts
// with a different character and the text runs are unrolled, so the match is unambiguous and linear
// even when it fails. It does not pair tags: tagsPairAndAttributesSorted() does that next.
const CONTENT = new RegExp(
  `^${TEXT_SRC}(?:(?:<${NAME}(?: ${NAME}="${ATTR_VALUE}")*>|</${NAME}>)${TEXT_SRC})*$`,
  'u',
);
// The Id values of the Manual (NFe + 44 digits, ID + digits, CTe + 44 digits) are NCNames: the
// attribute xmlsec1 and the authority resolve `URI="#..."` against.
const ID_VALUE = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
// Attributes of the (unchecked) ancestors: only namespace declarations and xml:* matter there.
const ANY_ATTRIBUTE = /\s([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const SAFE_NS_URI = /^[^&<"\t\n\r]*$/;

const SIGNATURE_AFTER = /\s*<(?:[A-Za-z_][\w.-]*:)?Signature[\s>/]/y;
const ANOTHER_ELEMENT: Record<SignedTag, RegExp> = {
  infNFe: /<infNFe[\s>/]/,
  infEvento: /<infEvento[\s>/]/,
  infInut: /<infInut[\s>/]/,
  infCte: /<infCte[\s>/]/,
  infDPS: /<infDPS[\s>/]/,
  infPedReg: /<infPedReg[\s>/]/,
  infDCe: /<infDCe[\s>/]/,
};

// TNFe (nfe_v4.00.xsd) is the sequence infNFe, infNFeSupl?, Signature and TDCe (dceTiposBasico_v1.00.xsd)
// infDCe, infDCeSupl, Signature: the QR code group is built before signing (its text needs no DigestValue),
// so the Signature goes after it.
const SUPPLEMENT_AFTER: Partial<Record<SignedTag, string>> = { infNFe: 'infNFeSupl', infDCe: 'infDCeSupl' };

const keyCache = new WeakMap<A1Certificate, SigningKey>();

/** The node:crypto key and certificate of an A1 certificate, parsed once per certificate object. */
export function signingKeyFrom(cert: A1Certificate): SigningKey {
  const cached = keyCache.get(cert);
  if (cached) return cached;
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey(cert.privateKeyPem);
  } catch (cause) {
    throw new SigningError('unsupported_key', 'the certificate private key is not a readable PEM', { cause });
  }
  // MOC 7.0 §4: the only SignatureMethod the authorities accept is rsa-sha1.
  if (keyObject.asymmetricKeyType !== 'rsa') {
    throw new SigningError(
      'unsupported_key',
      `NF-e signatures need an RSA key, got ${keyObject.asymmetricKeyType}`,
    );
  }
  const key: SigningKey = Object.freeze({ keyObject, certificateBase64: cert.certificateDerBase64 });
  keyCache.set(cert, key);
  return key;
}

/** Signs the document's single `<tag Id="...">` element and returns the document with its Signature. */
export function signXml(xml: string, options: SignOptions): string {
  return signXmlDetailed(xml, options).xml;
}

export function signXmlDetailed(xml: string, options: SignOptions): SignedXmlDetails {
  const key = 'keyObject' in options.cert ? options.cert : signingKeyFrom(options.cert);
  const el = locateSignedElement(xml, options.tag);
  const signed = signLocated(xml.slice(el.contentStart, el.end), el, key);
  return {
    xml: xml.slice(0, el.insertAt) + signed.signature + xml.slice(el.insertAt),
    digestValue: signed.digestValue,
    signatureValue: signed.signatureValue,
  };
}

/**
 * The signed element as its builder wrote it, in canonical form by construction (see signBuiltElement): the
 * builder knows where it put it, so nothing needs to find or re-check it.
 */
export interface BuiltElement {
  tag: SignedTag;
  /** The Id attribute's value: an XML name made of the access key (NFe + 44 digits). */
  id: string;
  /** The element's attributes other than namespace declarations, Id among them, as written. */
  attributes: Readonly<Record<string, string>>;
  /** The default namespace in scope on the element (declared by its parent); no prefixed one is. */
  namespace: string;
  /** Index just past its start tag, and just past its end tag, in the document given to signBuiltElement. */
  contentStart: number;
  end: number;
}

/**
 * Signs an element our own builder just wrote, without locating and re-checking it: its content (the text
 * between `contentStart` and `end`) is written by xml.ts's helpers, which emit C14N 1.0 form as they go (no
 * empty-element tags, no whitespace between tags, escapeText's escaping, attributes written in canonical
 * order, no namespace declaration below the element). The Signature goes right after the element; `signature`
 * is also returned alone for a caller that puts a group between them (the NFC-e's infNFeSupl). What this trusts is the builder's code, not its input: a value with a character
 * XML forbids is still refused by the schema check every document meets before it leaves, and tests hold every
 * document the builders produce to signXmlDetailed's checked result, byte for byte.
 */
export function signBuiltElement(
  xml: string,
  element: BuiltElement,
  cert: A1Certificate | SigningKey,
): SignedXmlDetails & { signature: string } {
  const key = 'keyObject' in cert ? cert : signingKeyFrom(cert);
  const { tag, id, namespace, contentStart, end } = element;
  if (!ID_VALUE.test(id)) {
    throw new SigningError(
      'missing_id',
      `<${tag} Id="${id}"> is not an XML name a Reference URI can point to`,
    );
  }
  // C14N 1.0 §2.3/§4.7: the apex renders the default namespace it inherits, then its attributes by name.
  let canonicalStartTag = namespace === '' ? `<${tag}` : `<${tag} xmlns="${namespace}"`;
  for (const name of Object.keys(element.attributes).sort()) {
    canonicalStartTag += ` ${name}="${element.attributes[name] ?? ''}"`;
  }
  canonicalStartTag += '>';
  const signed = signLocated(
    xml.slice(contentStart, end),
    { id, canonicalStartTag, prefixedNamespaces: '' },
    key,
  );
  return { xml: xml.slice(0, end) + signed.signature + xml.slice(end), ...signed };
}

/** Digest, SignedInfo, RSA and the Signature element of a located element whose content (to its end tag) is given. */
function signLocated(
  content: string,
  el: Pick<LocatedElement, 'id' | 'canonicalStartTag' | 'prefixedNamespaces'>,
  key: SigningKey,
): { signature: string; digestValue: string; signatureValue: string } {
  const digestValue = createHash('sha1')
    .update(el.canonicalStartTag, 'utf8')
    .update(content, 'utf8')
    .digest('base64');

  // MOC 7.0 §4 fixes the whole SignedInfo; only URI and DigestValue vary. Its canonical form (what is
  // signed, XMLDSig Core §3.1.2 + C14N 1.0) carries the in-scope namespaces: the Signature's default
  // namespace and any prefixed ones of the ancestors. Empty elements are written as start/end pairs.
  const reference =
    `<Reference URI="#${el.id}"><Transforms>` +
    `<Transform Algorithm="${ENVELOPED}"></Transform><Transform Algorithm="${C14N_10}"></Transform>` +
    `</Transforms><DigestMethod Algorithm="${SHA1}"></DigestMethod>` +
    `<DigestValue>${digestValue}</DigestValue></Reference>`;
  const canonicalSignedInfo =
    `<SignedInfo xmlns="${DSIG_NS}"${el.prefixedNamespaces}>` +
    `<CanonicalizationMethod Algorithm="${C14N_10}"></CanonicalizationMethod>` +
    `<SignatureMethod Algorithm="${RSA_SHA1}"></SignatureMethod>${reference}</SignedInfo>`;
  // RSASSA-PKCS1-v1_5 (XMLDSig Core §6.4.2), node's default padding for RSA keys.
  const signatureValue = rsaSign('sha1', Buffer.from(canonicalSignedInfo, 'utf8'), key.keyObject).toString(
    'base64',
  );

  // The serialized Signature uses empty-element tags, like xml-crypto and the authorities' own
  // samples; the Signature's xmlns re-binds the default namespace for its subtree.
  const signature =
    `<Signature xmlns="${DSIG_NS}"><SignedInfo>` +
    `<CanonicalizationMethod Algorithm="${C14N_10}"/><SignatureMethod Algorithm="${RSA_SHA1}"/>` +
    `<Reference URI="#${el.id}"><Transforms><Transform Algorithm="${ENVELOPED}"/>` +
    `<Transform Algorithm="${C14N_10}"/></Transforms><DigestMethod Algorithm="${SHA1}"/>` +
    `<DigestValue>${digestValue}</DigestValue></Reference></SignedInfo>` +
    `<SignatureValue>${signatureValue}</SignatureValue>` +
    `<KeyInfo><X509Data><X509Certificate>${key.certificateBase64}</X509Certificate></X509Data></KeyInfo>` +
    `</Signature>`;
  return { signature, digestValue, signatureValue };
}

/** True when `signXml` accepts the document (the signed element is in our canonical input form). */
export function isCanonicalForSigning(xml: string, tag: SignedTag): boolean {
  try {
    locateSignedElement(xml, tag);
    return true;
  } catch (error) {
    if (error instanceof SigningError) return false;
    throw error;
  }
}

/** The C14N 1.0 octets (as a string) of the signed element, exactly what DigestValue hashes. */
export function canonicalSignedElement(xml: string, tag: SignedTag): string {
  const el = locateSignedElement(xml, tag);
  return el.canonicalStartTag + xml.slice(el.contentStart, el.end);
}

interface LocatedElement {
  id: string;
  /** The start tag as C14N 1.0 renders it for the apex: namespaces, then attributes, sorted. */
  canonicalStartTag: string;
  /** Index just past the original start tag. */
  contentStart: number;
  /** Index just past the end tag. */
  end: number;
  /** Where the Signature goes: `end`, or past an <infNFeSupl>/<infDCeSupl> that follows the element. */
  insertAt: number;
  /** ` xmlns:p="uri"` for each prefixed namespace in scope, sorted by prefix. */
  prefixedNamespaces: string;
}

function locateSignedElement(xml: string, tag: SignedTag): LocatedElement {
  const { start, inScope } = findStartTag(xml, tag);

  START_TAG.lastIndex = start;
  const apex = START_TAG.exec(xml);
  if (!apex || apex[1] !== tag) {
    throw notCanonical(xml, start, `the <${tag}> start tag`);
  }
  const contentStart = START_TAG.lastIndex;

  let id: string | undefined;
  const attributes: Array<[string, string]> = [];
  for (const [, name = '', value = ''] of (apex[2] ?? '').matchAll(ATTRIBUTE)) {
    if (name === 'xmlns') {
      // An undeclaration on the apex renders nothing or something depending on the output parent
      // (C14N 1.0 §2.3); our documents never need it.
      if (value === '') throw new SigningError('not_canonical', `<${tag}> must not carry xmlns=""`);
      inScope.set('', value);
      continue;
    }
    if (name === 'Id') id = value;
    attributes.push([name, value]);
  }
  attributes.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 1; i < attributes.length; i++) {
    if (attributes[i - 1]?.[0] === attributes[i]?.[0]) {
      throw new SigningError('not_canonical', `<${tag}> repeats the attribute ${attributes[i]?.[0]}`);
    }
  }
  if (id === undefined) throw new SigningError('missing_id', `<${tag}> has no Id attribute to reference`);
  if (!ID_VALUE.test(id)) {
    throw new SigningError(
      'missing_id',
      `<${tag} Id="${id}"> is not an XML name a Reference URI can point to`,
    );
  }

  // C14N 1.0 §2.3 / §4.5: namespace nodes sort by local name, the default namespace (no local name)
  // first; §4.7: the apex of a document subset carries the default namespace it inherits.
  const defaultNs = inScope.get('') ?? '';
  let prefixedNamespaces = '';
  for (const prefix of [...inScope.keys()].filter((p) => p !== '').sort()) {
    prefixedNamespaces += ` xmlns:${prefix}="${inScope.get(prefix) ?? ''}"`;
  }
  let canonicalStartTag = `<${tag}`;
  if (defaultNs !== '') canonicalStartTag += ` xmlns="${defaultNs}"`;
  canonicalStartTag += prefixedNamespaces;
  for (const [name, value] of attributes) canonicalStartTag += ` ${name}="${value}"`;
  canonicalStartTag += '>';

  const end = scanCanonicalContent(xml, contentStart, tag);
  let insertAt = end;
  const supplement = SUPPLEMENT_AFTER[tag];
  if (supplement !== undefined && xml.startsWith(`<${supplement}>`, end)) {
    const close = xml.indexOf(`</${supplement}>`, end);
    if (close < 0) throw new SigningError('not_canonical', `<${supplement}> is not closed`);
    insertAt = close + `</${supplement}>`.length;
  }
  for (const at of [end, insertAt]) {
    SIGNATURE_AFTER.lastIndex = at;
    if (SIGNATURE_AFTER.test(xml)) {
      throw new SigningError('already_signed', `<${tag}> is already followed by a Signature`);
    }
  }
  if (ANOTHER_ELEMENT[tag].test(xml.slice(end))) {
    throw new SigningError('duplicate_element', `the document holds more than one <${tag}>`);
  }

  return { id, canonicalStartTag, contentStart, end, insertAt, prefixedNamespaces };
}

/**
 * Walks the markup before the signed element, keeping the namespace declarations of its open
 * ancestors: C14N 1.0 renders all of them on the apex. Only this short prefix is parsed loosely.
 */
function findStartTag(xml: string, tag: SignedTag): { start: number; inScope: Map<string, string> } {
  const ancestors: Array<Map<string, string>> = [];
  let pos = 0;
  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt < 0) throw new SigningError('element_not_found', `the document has no <${tag}> element`);
    if (xml.startsWith('<?', lt)) {
      pos = skipPast(xml, lt, '?>', tag);
    } else if (xml.startsWith('<!--', lt)) {
      pos = skipPast(xml, lt, '-->', tag);
    } else if (xml.startsWith('<![CDATA[', lt)) {
      pos = skipPast(xml, lt, ']]>', tag);
    } else if (xml.startsWith('<!', lt)) {
      // A DTD may add default attributes and entities that C14N would have to render (C14N 1.0 §2.1).
      throw new SigningError('not_canonical', 'documents with a DOCTYPE are not signed');
    } else if (xml.startsWith('</', lt)) {
      ancestors.pop();
      pos = skipPast(xml, lt, '>', tag);
    } else {
      const gt = startTagEnd(xml, lt, tag);
      const name = /^<([^\s/>]+)/.exec(xml.slice(lt, gt + 1))?.[1] ?? '';
      if (name === tag) return { start: lt, inScope: mergeScopes(ancestors) };
      if (xml[gt - 1] !== '/') ancestors.push(namespaceDeclarations(xml.slice(lt, gt), tag));
      pos = gt + 1;
    }
  }
}

function namespaceDeclarations(startTag: string, tag: SignedTag): Map<string, string> {
  const declared = new Map<string, string>();
  for (const [, name = '', dq, sq] of startTag.matchAll(ANY_ATTRIBUTE)) {
    const value = dq ?? sq ?? '';
    if (name.startsWith('xml:')) {
      // C14N 1.0 §2.4 copies inherited xml:lang/xml:space onto the apex; our documents carry none.
      throw new SigningError('not_canonical', `an ancestor of <${tag}> carries ${name}`);
    }
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    if (!SAFE_NS_URI.test(value)) {
      throw new SigningError('not_canonical', `the namespace ${name}="${value}" needs escaping`);
    }
    declared.set(name === 'xmlns' ? '' : name.slice(6), value);
  }
  return declared;
}

function mergeScopes(ancestors: Array<Map<string, string>>): Map<string, string> {
  const inScope = new Map<string, string>();
  for (const declared of ancestors) for (const [prefix, uri] of declared) inScope.set(prefix, uri);
  // xmlns="" only cancels an outer default (Namespaces in XML §6.2); it is not a namespace node.
  if (inScope.get('') === '') inScope.delete('');
  return inScope;
}

function skipPast(xml: string, from: number, terminator: string, tag: SignedTag): number {
  const at = xml.indexOf(terminator, from);
  if (at < 0) throw new SigningError('element_not_found', `the document ends before any <${tag}> element`);
  return at + terminator.length;
}

function startTagEnd(xml: string, lt: number, tag: SignedTag): number {
  let quote = '';
  for (let i = lt + 1; i < xml.length; i++) {
    const c = xml[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '>') {
      return i;
    }
  }
  throw new SigningError('element_not_found', `the document ends before any <${tag}> element`);
}

/**
 * Checks that the element content from `pos` is canonical as written and returns the index past the
 * matching end tag. The common case costs one native regex pass and one indexOf walk over the
 * content; whatever they do not clear goes to the token scanner, which decides and says what is wrong
 * and where (it also follows a nested element of the same name past the first end tag).
 */
function scanCanonicalContent(xml: string, pos: number, tag: SignedTag): number {
  const endTag = `</${tag}>`;
  const close = xml.indexOf(endTag, pos);
  if (close >= 0) {
    const content = xml.slice(pos, close);
    if (CONTENT.test(content) && tagsPairAndAttributesSorted(content)) {
      return close + endTag.length;
    }
  }
  return scanTokens(xml, pos, tag);
}

/**
 * Start and end tags pair up, and attributes are in C14N 1.0 §2.3 order without namespace
 * declarations (inside the element C14N renders a declaration only where it changes the namespace in
 * scope, so keeping them out keeps "canonical = as written" true). The content already matched
 * CONTENT: every `<` opens a tag, names end at a space or `>`, attribute values hold no raw `<` or `"`.
 * Names are compared in place, without allocating one string per tag.
 */
function tagsPairAndAttributesSorted(s: string): boolean {
  const openStarts: number[] = [];
  const openLengths: number[] = [];
  for (let lt = s.indexOf('<'); lt >= 0; lt = s.indexOf('<', lt + 1)) {
    if (s.charCodeAt(lt + 1) === 0x2f /* / */) {
      const start = lt + 2;
      const length = s.indexOf('>', start) - start;
      const openStart = openStarts.pop();
      if (openStart === undefined || openLengths.pop() !== length) return false;
      if (compareSpans(s, openStart, length, start, length) !== 0) return false;
      continue;
    }
    let p = lt + 1;
    while (s.charCodeAt(p) !== 0x20 /* space */ && s.charCodeAt(p) !== 0x3e /* > */) p++;
    openStarts.push(lt + 1);
    openLengths.push(p - lt - 1);
    let previousStart = -1;
    let previousLength = 0;
    while (s.charCodeAt(p) === 0x20) {
      const nameStart = p + 1;
      const eq = s.indexOf('="', nameStart);
      const nameLength = eq - nameStart;
      if (nameLength === 5 && s.startsWith('xmlns', nameStart)) return false;
      if (previousStart >= 0 && compareSpans(s, previousStart, previousLength, nameStart, nameLength) >= 0) {
        return false;
      }
      previousStart = nameStart;
      previousLength = nameLength;
      p = s.indexOf('"', eq + 2) + 1;
    }
  }
  return openStarts.length === 0;
}

/** Code-unit order of two substrings of `s` (ASCII names here, so also code-point order). */
function compareSpans(s: string, a: number, aLength: number, b: number, bLength: number): number {
  const n = Math.min(aLength, bLength);
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(a + i) - s.charCodeAt(b + i);
    if (d !== 0) return d;
  }
  return aLength - bLength;
}

/** One sticky-regex step per text run or tag: linear, and exact about the first offending offset. */
function scanTokens(xml: string, pos: number, tag: SignedTag): number {
  const open: string[] = [tag];
  for (;;) {
    TEXT.lastIndex = pos;
    TEXT.test(xml);
    pos = TEXT.lastIndex;
    if (xml.charCodeAt(pos) !== 0x3c /* < */) throw notCanonical(xml, pos, `<${tag}>`);
    if (xml.charCodeAt(pos + 1) === 0x2f /* / */) {
      END_TAG.lastIndex = pos;
      const endTag = END_TAG.exec(xml);
      if (!endTag || endTag[1] !== open[open.length - 1]) throw notCanonical(xml, pos, `<${tag}>`);
      open.pop();
      pos = END_TAG.lastIndex;
      if (open.length === 0) return pos;
      continue;
    }
    START_TAG.lastIndex = pos;
    const startTag = START_TAG.exec(xml);
    if (!startTag) throw notCanonical(xml, pos, `<${tag}>`);
    let previous = '';
    // matchAll works on a copy of the global regex, so ATTRIBUTE's own lastIndex stays 0.
    for (const [, name = ''] of (startTag[2] ?? '').matchAll(ATTRIBUTE)) {
      // Inside the element a declaration is rendered only where it changes the namespace in scope
      // (C14N 1.0 §4.6); keeping declarations out keeps "canonical = as written" true.
      if (name === 'xmlns') throw notCanonical(xml, pos, `<${tag}>`, 'a namespace declaration');
      if (name <= previous) throw notCanonical(xml, pos, `<${tag}>`, 'attributes out of canonical order');
      previous = name;
    }
    open.push(startTag[1] ?? '');
    pos = START_TAG.lastIndex;
  }
}

function notCanonical(xml: string, pos: number, where: string, known?: string): SigningError {
  const reason =
    known ??
    (pos >= xml.length
      ? 'the document ends inside it'
      : xml.startsWith('<!--', pos)
        ? 'a comment'
        : xml.startsWith('<![CDATA[', pos)
          ? 'a CDATA section'
          : xml.startsWith('<?', pos)
            ? 'a processing instruction'
            : xml.startsWith('&', pos)
              ? 'a character or entity reference C14N would expand'
              : xml[pos] === '>'
                ? 'a raw ">" in text (C14N writes &gt;)'
                : xml[pos] === '\r'
                  ? 'a raw carriage return (C14N writes &#xD;)'
                  : /^<[^>]*\/>/.test(xml.slice(pos, pos + 4096))
                    ? 'an empty-element tag (C14N writes <a></a>)'
                    : xml[pos] === '<'
                      ? 'a tag not written as C14N writes it (name="value" attributes, one space, sorted)'
                      : 'a character XML does not allow');
  const excerpt = JSON.stringify(xml.slice(pos, pos + 40));
  return new SigningError(
    'not_canonical',
    `${where} is not in canonical form at offset ${pos}: ${reason}, near ${excerpt}`,
  );
}
