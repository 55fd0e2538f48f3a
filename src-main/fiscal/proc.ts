// Distribution documents (MOC 7.0: nfeProc, procEventoNFe, ProcInutNFe): the signed request and the
// authority's answer put side by side as substrings of what was signed and received, never re-serialized.
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { eventSchemas, isTpEvento } from './events.ts';
import { NFE_NAMESPACE, validateXml } from './schema.ts';
import type { SchemaError, SchemaName, SchemaPackage } from './schema.ts';

const DSIG_NAMESPACE = 'http://www.w3.org/2000/09/xmldsig#';

export interface ProcOptions {
  schemaPackage?: SchemaPackage;
  /** Validate the assembled document against its schema (default true). */
  validate?: boolean;
}

export interface ProcResult {
  xml: string;
  /** Schema findings; empty when the document validates (or validation was skipped). */
  errors: SchemaError[];
}

/** The parts do not belong together (or are missing); `details` lists every problem found. */
export class ProcError extends Error {
  readonly details: ErrorDetail[];

  constructor(details: ErrorDetail[]) {
    super(`cannot assemble the document: ${details.map((d) => `${d.field}: ${d.error}`).join('; ')}`);
    this.name = 'ProcError';
    this.details = details;
  }
}

// --- finding elements in a larger document -----------------------------------------------------------

/** Where an element sits in a document: `xml.slice(start, end)` is the element, byte for byte. */
export interface ElementSpan {
  /** Index of its `<`. */
  start: number;
  /** Index just past its start tag. */
  startTagEnd: number;
  /** Index just past its end tag (or past the start tag of an empty-element tag). */
  end: number;
  /** Name as written, e.g. `ns2:retEvento`. */
  qName: string;
  /** '' when unprefixed. */
  prefix: string;
  localName: string;
  /** Namespace URI the name resolves to ('' for none). */
  namespace: string;
  /** Namespace declarations in scope from the ancestors ('' = the default namespace). */
  inherited: ReadonlyMap<string, string>;
  /** Namespace declarations on the element's own start tag. */
  declared: ReadonlyMap<string, string>;
}

export interface FindOptions {
  /** Namespace the element must resolve to; default NFE_NAMESPACE, null for any. */
  namespace?: string | null;
  /** Only elements inside this one (a span of the same document). */
  within?: ElementSpan;
}

const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
/** The characters JavaScript's \s takes: a tag's name runs up to one of them, '/' or '>'. */
function isJsSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    (c >= 0xa0 &&
      (c === 0xa0 ||
        c === 0x1680 ||
        (c >= 0x2000 && c <= 0x200a) ||
        c === 0x2028 ||
        c === 0x2029 ||
        c === 0x202f ||
        c === 0x205f ||
        c === 0x3000 ||
        c === 0xfeff))
  );
}

/** End of the tag name starting at `from` (its first character that is \s, '/' or '>'). */
function nameEnd(xml: string, from: number, limit: number): number {
  let i = from;
  while (i < limit) {
    const c = xml.charCodeAt(i);
    if (c === 0x2f || c === 0x3e || isJsSpace(c)) break;
    i++;
  }
  return i;
}

/** `name` is written in `xml` at `at` (char by char: cheaper than startsWith for these short names). */
function writtenAt(xml: string, at: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (xml.charCodeAt(at + i) !== name.charCodeAt(i)) return false;
  return true;
}
/** The declarations of a tag that declares no namespace (shared: a span is given a Map of its own). */
const NONE: ReadonlyMap<string, string> = new Map();

function malformed(error: string): ProcError {
  return new ProcError([{ field: 'xml', error }]);
}

function skipPast(xml: string, from: number, terminator: string): number {
  const at = xml.indexOf(terminator, from);
  if (at < 0) throw malformed(`unterminated markup at offset ${from}`);
  return at + terminator.length;
}

function startTagEnd(xml: string, lt: number): number {
  let quote = 0;
  for (let i = lt + 1; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) {
      quote = c;
    } else if (c === 0x3e) {
      return i;
    }
  }
  throw malformed(`unterminated start tag at offset ${lt}`);
}

/**
 * Every element named `localName` (any prefix) in document order, skipping matches nested in an earlier
 * match. A light, linear scan that follows namespace declarations; it pairs tags and refuses a DOCTYPE,
 * but it is not a validating parser: a document it accepts still goes through the schema afterwards.
 * @throws ProcError for markup it cannot follow (unclosed or mismatched tags, a DOCTYPE).
 */
export function findElements(xml: string, localName: string, options: FindOptions = {}): ElementSpan[] {
  const wanted = options.namespace === undefined ? NFE_NAMESPACE : options.namespace;
  const within = options.within;
  const found: ElementSpan[] = [];
  const stack: Array<{ qName: string; parentScope: Map<string, string> }> = [];
  let scope = new Map<string, string>();
  let open: { span: Omit<ElementSpan, 'end'>; depth: number } | undefined;
  let pos = 0;
  // Where the next "xmlns" is: a tag's attributes are read only when it holds one (most tags have none), and
  // the search moves on only once passed, so the scan stays linear.
  let xmlnsAt = xml.indexOf('xmlns');
  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt < 0) break;
    const c1 = xml.charCodeAt(lt + 1);
    if (c1 === 0x3f /* <? */) {
      pos = skipPast(xml, lt, '?>');
    } else if (c1 === 0x21 /* <! */) {
      if (xml.startsWith('<!--', lt)) pos = skipPast(xml, lt, '-->');
      else if (xml.startsWith('<![CDATA[', lt)) pos = skipPast(xml, lt, ']]>');
      else throw malformed('documents with a DOCTYPE are not accepted');
    } else if (c1 === 0x2f /* </ */) {
      const gt = skipPast(xml, lt, '>');
      const expected = stack[stack.length - 1]?.qName;
      // `</name>` as written, else the name between `</` and `>` trimmed.
      const name =
        expected !== undefined && gt === lt + 3 + expected.length && writtenAt(xml, lt + 2, expected)
          ? expected
          : xml.slice(lt + 2, gt - 1).trim();
      const frame = stack.pop();
      if (frame === undefined || frame.qName !== name) {
        throw malformed(`</${name}> at offset ${lt} does not close <${frame?.qName ?? ''}>`);
      }
      scope = frame.parentScope;
      pos = gt;
      if (open !== undefined && stack.length === open.depth) {
        found.push({ ...open.span, end: pos });
        open = undefined;
      }
    } else {
      const gt = startTagEnd(xml, lt);
      const selfClosing = xml.charCodeAt(gt - 1) === 0x2f;
      const bodyEnd = selfClosing ? gt - 1 : gt;
      const qNameEnd = nameEnd(xml, lt + 1, bodyEnd);
      if (qNameEnd === lt + 1) throw malformed(`a tag without a name at offset ${lt}`);
      const qName = xml.slice(lt + 1, qNameEnd);
      while (xmlnsAt >= 0 && xmlnsAt < lt) xmlnsAt = xml.indexOf('xmlns', xmlnsAt + 5);
      let declared = NONE;
      if (xmlnsAt >= 0 && xmlnsAt < bodyEnd) {
        const own = new Map<string, string>();
        for (const [, name = '', dq, sq] of xml.slice(lt + 1 + qName.length, bodyEnd).matchAll(ATTRIBUTE)) {
          if (name === 'xmlns') own.set('', dq ?? sq ?? '');
          else if (name.startsWith('xmlns:')) own.set(name.slice(6), dq ?? sq ?? '');
        }
        declared = own;
      }
      const elementScope = declared.size > 0 ? new Map([...scope, ...declared]) : scope;
      const colon = qName.indexOf(':');
      const prefix = colon < 0 ? '' : qName.slice(0, colon);
      const local = colon < 0 ? qName : qName.slice(colon + 1);
      const namespace = elementScope.get(prefix) ?? '';
      const inside = within === undefined || (lt > within.start && lt < within.end);
      if (open === undefined && inside && local === localName && (wanted === null || namespace === wanted)) {
        const span = {
          start: lt,
          startTagEnd: gt + 1,
          qName,
          prefix,
          localName: local,
          namespace,
          inherited: scope,
          declared: declared === NONE ? new Map<string, string>() : declared,
        };
        if (selfClosing) found.push({ ...span, end: gt + 1 });
        else open = { span, depth: stack.length };
      }
      if (!selfClosing) {
        stack.push({ qName, parentScope: scope });
        scope = elementScope;
      }
      pos = gt + 1;
    }
  }
  if (stack.length > 0) throw malformed(`the document ends inside <${stack[stack.length - 1]?.qName ?? ''}>`);
  return found;
}

/** The first element named `localName` (any prefix; NFE_NAMESPACE unless told otherwise). */
export function findElement(
  xml: string,
  localName: string,
  options: FindOptions = {},
): ElementSpan | undefined {
  return findElements(xml, localName, options)[0];
}

/**
 * The exact substring of the first element named `localName` (e.g. `evento` out of an envEvento, `protNFe`
 * out of a SOAP answer), whatever its prefix.
 * @throws ProcError when there is none.
 */
export function extractElement(xml: string, localName: string, options: FindOptions = {}): string {
  const span = findElement(xml, localName, options);
  if (span === undefined) throw new ProcError([{ field: localName, error: `no <${localName}> element` }]);
  return xml.slice(span.start, span.end);
}

/**
 * The element's substring, ready to be placed under a parent whose default namespace is `parentDefault`:
 * unchanged in the usual case (an unprefixed element of that namespace, or one declaring its own). Otherwise
 * its start tag gains the declarations of its ancestors that it relies on: each prefix it uses, and the
 * default namespace when the parent's differs (see below). Unused declarations of the ancestors (a SOAP
 * envelope's) are left behind. C14N 1.0 renders every in-scope namespace on a signed element, so a
 * signature inside stays valid when it was computed in that reduced context, as signers do: they sign the
 * document before it is wrapped in SOAP.
 */
export function embeddableElement(
  xml: string,
  span: ElementSpan,
  parentDefault: string = NFE_NAMESPACE,
): string {
  const body = xml.slice(span.start, span.end);
  const used = new Set<string>();
  for (const [, p = ''] of body.matchAll(/<\/?([A-Za-z_][\w.-]*):[A-Za-z_]/g)) used.add(p);
  for (const [, p = ''] of body.matchAll(/\s([A-Za-z_][\w.-]*):[A-Za-z_][\w.-]*\s*=/g)) {
    if (p !== 'xmlns' && p !== 'xml') used.add(p);
  }
  let extra = '';
  const inheritedDefault = span.inherited.get('') ?? '';
  if (!span.declared.has('') && inheritedDefault !== parentDefault) {
    // Unprefixed: it keeps the namespace it had. Prefixed: no default namespace, which is what a prefixed
    // document had when it was signed, before any SOAP wrapping lent it the envelope's default namespace.
    extra += ` xmlns=${quoted(span.prefix === '' ? inheritedDefault : '')}`;
  }
  for (const prefix of [...used].sort()) {
    const uri = span.inherited.get(prefix);
    if (!span.declared.has(prefix) && uri !== undefined) extra += ` xmlns:${prefix}=${quoted(uri)}`;
  }
  if (extra === '') return body;
  const nameEnd = 1 + span.qName.length;
  return body.slice(0, nameEnd) + extra + body.slice(nameEnd);
}

function quoted(raw: string): string {
  // The value is copied as it was written (references included), so only the delimiter may need to change.
  return raw.includes('"') ? `'${raw}'` : `"${raw}"`;
}

// --- reading a few values ------------------------------------------------------------------------------

const NAMED: ReadonlyMap<string, string> = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);

function decode(text: string): string {
  return text.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|[a-z]+);/g, (match, ref: string) => {
    if (!ref.startsWith('#')) return NAMED.get(ref) ?? match;
    const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}

/** Text of the first element named `name` (any prefix) in `xml`, trimmed; undefined when absent. */
export function textOf(xml: string, name: string): string | undefined {
  const m = new RegExp(
    `<(?:[A-Za-z_][\\w.-]*:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:[A-Za-z_][\\w.-]*:)?${name}\\s*>`,
  ).exec(xml);
  return m?.[1] === undefined ? undefined : decode(m[1]).trim();
}

/** Value of the attribute `name` in a start tag, references decoded. */
export function attributeOf(startTag: string, name: string): string | undefined {
  for (const [, attr, dq, sq] of startTag.matchAll(ATTRIBUTE))
    if (attr === name) return decode(dq ?? sq ?? '');
  return undefined;
}

export interface Part {
  span: ElementSpan;
  /** The element as it will be embedded. */
  xml: string;
  /** The element's own substring, to read values from. */
  text: string;
}

/**
 * The elements `name` of the NF-e namespace (or `namespace`) or, when there is none, unqualified ones: a fragment cut out of
 * a larger document (a stored `<protNFe>` without xmlns) gets its namespace back from the new parent.
 */
export function candidates(xml: string, name: string, namespace = NFE_NAMESPACE): ElementSpan[] {
  const qualified = findElements(xml, name, { namespace });
  return qualified.length > 0 ? qualified : findElements(xml, name, { namespace: '' });
}

/** The element at `span` ready to embed in a proc whose default namespace is `namespace`, and its text. */
export function part(xml: string, span: ElementSpan, namespace = NFE_NAMESPACE): Part {
  // An unqualified fragment takes the parent's namespace: it is given no default namespace of its own.
  const parentDefault = span.namespace === '' ? '' : namespace;
  return { span, xml: embeddableElement(xml, span, parentDefault), text: xml.slice(span.start, span.end) };
}

export function hasSignature(xml: string, span: ElementSpan): boolean {
  return findElement(xml, 'Signature', { namespace: DSIG_NAMESPACE, within: span }) !== undefined;
}

/** The proc as built, validated against `schema` unless the options say not to. */
export function finish(xml: string, schema: SchemaName, options: ProcOptions): ProcResult {
  if (options.validate === false) return { xml, errors: [] };
  const result = validateXml(xml, schema, { package: options.schemaPackage });
  return { xml, errors: result.valid ? [] : result.errors };
}

// --- the parts of a proc, checked -------------------------------------------------------------------

/** The names that tell one kind's signed document and its authorization protocol apart. */
export interface DocumentProcNames {
  namespace: string;
  /** The signed document, e.g. `CTe`; also the prefix of its infXxx/@Id. */
  document: string;
  /** Its signed group, e.g. `infCte`. */
  inf: string;
  /** The authority's protocol, e.g. `protCTe`. */
  prot: string;
  /** The key's element in the protocol, e.g. `chCTe`. */
  key: string;
  /** protXxx cStat worth distributing. */
  accepted: ReadonlySet<string>;
  /** Said of a cStat outside `accepted`, e.g. `is not an authorization`. */
  notAccepted: string;
}

/**
 * The signed document of `documentXml` and, out of `protXml`, the protocol of its key (or the only one),
 * checked to belong together: key, environment, digVal, an accepted cStat.
 * @throws ProcError listing every problem when a part is missing, the document is unsigned, or the protocol
 *   is not this document's.
 */
export function documentProcParts(
  documentXml: string,
  protXml: string,
  names: DocumentProcNames,
): { document: Part; prot: Part } {
  const { namespace, document: doc, prot: protName, key } = names;
  const docSpan = candidates(documentXml, doc, namespace)[0];
  if (docSpan === undefined) throw new ProcError([{ field: doc, error: `no <${doc}> element` }]);
  const document = part(documentXml, docSpan, namespace);
  const inf = findElement(documentXml, names.inf, { namespace: docSpan.namespace, within: docSpan });
  const chave =
    inf &&
    attributeOf(documentXml.slice(inf.start, inf.startTagEnd), 'Id')?.replace(new RegExp(`^${doc}`), '');
  const problems: ErrorDetail[] = [];
  if (chave === undefined) problems.push({ field: doc, error: `no ${names.inf}/@Id` });
  if (!hasSignature(documentXml, docSpan)) problems.push({ field: doc, error: `the ${doc} is not signed` });

  const prots = candidates(protXml, protName, namespace).map((span) => part(protXml, span, namespace));
  const prot =
    prots.find((p) => textOf(p.text, key) === chave) ?? (prots.length === 1 ? prots[0] : undefined);
  if (prot === undefined) {
    problems.push({
      field: protName,
      error: prots.length === 0 ? `no <${protName}> element` : `no ${protName} for the key ${chave ?? '?'}`,
    });
    throw new ProcError(problems);
  }
  const chProt = textOf(prot.text, key);
  if (chave !== undefined && chProt !== chave) {
    problems.push({
      field: `${protName}.${key}`,
      error: `is ${chProt ?? 'missing'}, the ${doc} key is ${chave}`,
    });
  }
  const tpAmb = textOf(prot.text, 'tpAmb');
  const docTpAmb = textOf(document.text, 'tpAmb');
  if (tpAmb !== docTpAmb) {
    problems.push({
      field: `${protName}.tpAmb`,
      error: `is ${tpAmb ?? 'missing'}, the ${doc} says ${docTpAmb ?? '?'}`,
    });
  }
  const cStat = textOf(prot.text, 'cStat') ?? '';
  if (!names.accepted.has(cStat)) {
    problems.push({
      field: `${protName}.cStat`,
      error: `${cStat} (${textOf(prot.text, 'xMotivo') ?? ''}) ${names.notAccepted}`,
    });
  }
  // digVal is the DigestValue of the document the authority received: another signature means another document.
  const digVal = textOf(prot.text, 'digVal');
  const digest = textOf(document.text, 'DigestValue');
  if (digVal !== undefined && digest !== undefined && digVal !== digest) {
    problems.push({
      field: `${protName}.digVal`,
      error: `is ${digVal}, the ${doc} signature digest is ${digest}`,
    });
  }
  if (problems.length > 0) throw new ProcError(problems);
  return { document, prot };
}

/** The names of one kind's event request and answer (a single answer per request, as CT-e and DC-e give). */
export interface EventProcNames {
  namespace: string;
  /** The signed event, e.g. `eventoCTe`. */
  evento: string;
  /** The authority's answer, e.g. `retEventoCTe`. */
  ret: string;
  /** The document key's element, e.g. `chCTe`. */
  key: string;
  /** retXxx cStat that register the event. */
  registered: ReadonlySet<string>;
}

/**
 * The signed event of `eventoXml` and the first answer of `retXml`, checked to belong together (the ids the
 * answer carries) and to register the event.
 * @throws ProcError listing every problem when a part is missing, the event is unsigned, or the answer does
 *   not register it.
 */
export function eventProcParts(
  eventoXml: string,
  retXml: string,
  names: EventProcNames,
): { evento: Part; ret: Part } {
  const { namespace, evento: eventoName, ret: retName, key } = names;
  const eventoSpan = candidates(eventoXml, eventoName, namespace)[0];
  if (eventoSpan === undefined)
    throw new ProcError([{ field: eventoName, error: `no <${eventoName}> element` }]);
  const evento = part(eventoXml, eventoSpan, namespace);
  const problems: ErrorDetail[] = [];
  if (!hasSignature(eventoXml, eventoSpan))
    problems.push({ field: eventoName, error: `the ${eventoName} is not signed` });
  const fields = [key, 'tpEvento', 'nSeqEvento', 'tpAmb'];
  const ids = new Map(fields.map((field) => [field, textOf(evento.text, field)]));

  const retSpan = candidates(retXml, retName, namespace)[0];
  if (retSpan === undefined) {
    problems.push({ field: retName, error: `no <${retName}> element` });
    throw new ProcError(problems);
  }
  const ret = part(retXml, retSpan, namespace);
  // The key, tpEvento and nSeqEvento are optional in TRetEvento (a rejection may lack them): compare those present.
  for (const field of fields) {
    const value = textOf(ret.text, field);
    if (value !== undefined && value !== ids.get(field)) {
      problems.push({
        field: `${retName}.${field}`,
        error: `is ${value}, the ${eventoName} says ${ids.get(field) ?? '?'}`,
      });
    }
  }
  const cStat = textOf(ret.text, 'cStat') ?? '';
  if (!names.registered.has(cStat)) {
    problems.push({
      field: `${retName}.cStat`,
      error: `${cStat} (${textOf(ret.text, 'xMotivo') ?? ''}) does not register the event`,
    });
  }
  if (problems.length > 0) throw new ProcError(problems);
  return { evento, ret };
}

// --- nfeProc -----------------------------------------------------------------------------------------

/** protNFe cStat that make a note worth distributing: authorized (100, 150) or denied (110, 301-303). */
const PROT_NFE_CSTAT: ReadonlySet<string> = new Set(['100', '150', '110', '301', '302', '303']);

/**
 * `<nfeProc versao="4.00">` with the signed NFe and the authority's protNFe (procNFe_v4.00.xsd), both as
 * received: `nfeXml` may be the NFe itself or any document holding it (enviNFe, a stored nfeProc) and
 * `protNFeXml` the protNFe or the answer that holds it (retEnviNFe, retConsReciNFe, retConsSitNFe, a SOAP
 * envelope); with several protNFe the one of this note's key is taken.
 * @throws ProcError when a part is missing, the NFe is unsigned, or the protocol is not this note's
 *   authorization (key, environment, digVal, cStat).
 */
export function nfeProc(nfeXml: string, protNFeXml: string, options: ProcOptions = {}): ProcResult {
  const { document, prot } = documentProcParts(nfeXml, protNFeXml, {
    namespace: NFE_NAMESPACE,
    document: 'NFe',
    inf: 'infNFe',
    prot: 'protNFe',
    key: 'chNFe',
    accepted: PROT_NFE_CSTAT,
    notAccepted: 'is neither an authorization nor a denial',
  });
  const xml = `<nfeProc xmlns="${NFE_NAMESPACE}" versao="4.00">${document.xml}${prot.xml}</nfeProc>`;
  return finish(xml, 'procNFe', options);
}

// --- procEventoNFe -------------------------------------------------------------------------------------

/** retEvento cStat of a registered event: 135 linked to the note, 136 not linked, 155 late cancellation. */
const RET_EVENTO_CSTAT: ReadonlySet<string> = new Set(['135', '136', '155']);

/**
 * `<procEventoNFe versao="1.00">` with the signed evento and the authority's retEvento, validated against
 * the procEventoNFe schema of the event type. `eventoXml` may be the signed envEvento (or a stored
 * procEventoNFe); `retEventoXml` the retEvento or the answer holding it (retEnvEvento, SOAP envelope). With
 * several retEvento, the one of this event (chNFe, tpEvento, nSeqEvento) is taken.
 * @throws ProcError when a part is missing, the evento is unsigned, or the answer does not register it.
 */
export function procEventoNFe(
  eventoXml: string,
  retEventoXml: string,
  options: ProcOptions = {},
): ProcResult {
  const eventoSpan = candidates(eventoXml, 'evento')[0];
  if (eventoSpan === undefined) throw new ProcError([{ field: 'evento', error: 'no <evento> element' }]);
  const evento = part(eventoXml, eventoSpan);
  const problems: ErrorDetail[] = [];
  if (!hasSignature(eventoXml, eventoSpan))
    problems.push({ field: 'evento', error: 'the evento is not signed' });
  const ids = {
    chNFe: textOf(evento.text, 'chNFe'),
    tpEvento: textOf(evento.text, 'tpEvento'),
    nSeqEvento: textOf(evento.text, 'nSeqEvento'),
    tpAmb: textOf(evento.text, 'tpAmb'),
  };
  const tpEvento = ids.tpEvento !== undefined && isTpEvento(ids.tpEvento) ? ids.tpEvento : undefined;
  if (tpEvento === undefined) {
    problems.push({
      field: 'evento.tpEvento',
      error: `${ids.tpEvento ?? 'missing'} is not an event handled here`,
    });
  }

  const rets = candidates(retEventoXml, 'retEvento').map((span) => part(retEventoXml, span));
  // The answer's fields are optional in TRetEvento: compare those present.
  const same = (ret: Part, field: 'chNFe' | 'tpEvento' | 'nSeqEvento' | 'tpAmb') => {
    const value = textOf(ret.text, field);
    return value === undefined || value === ids[field];
  };
  const ret =
    rets.find((r) => same(r, 'chNFe') && same(r, 'tpEvento') && same(r, 'nSeqEvento')) ??
    (rets.length === 1 ? rets[0] : undefined);
  if (ret === undefined) {
    problems.push({
      field: 'retEvento',
      error:
        rets.length === 0 ? 'no <retEvento> element' : 'no retEvento for this chNFe, tpEvento and nSeqEvento',
    });
    throw new ProcError(problems);
  }
  for (const field of ['chNFe', 'tpEvento', 'nSeqEvento', 'tpAmb'] as const) {
    if (!same(ret, field)) {
      problems.push({
        field: `retEvento.${field}`,
        error: `is ${textOf(ret.text, field) ?? ''}, the evento says ${ids[field] ?? '?'}`,
      });
    }
  }
  const cStat = textOf(ret.text, 'cStat') ?? '';
  if (!RET_EVENTO_CSTAT.has(cStat)) {
    problems.push({
      field: 'retEvento.cStat',
      error: `${cStat} (${textOf(ret.text, 'xMotivo') ?? ''}) does not register the event`,
    });
  }
  if (problems.length > 0 || tpEvento === undefined) throw new ProcError(problems);

  const xml = `<procEventoNFe xmlns="${NFE_NAMESPACE}" versao="1.00">${evento.xml}${ret.xml}</procEventoNFe>`;
  return finish(xml, eventSchemas(tpEvento).procEventoNFe, options);
}

// --- ProcInutNFe ---------------------------------------------------------------------------------------

/**
 * `<ProcInutNFe versao="4.00">` (the official root really has a capital P, procInutNFe_v4.00.xsd) with the
 * signed inutNFe and the authority's retInutNFe, both as received.
 * @throws ProcError when a part is missing, the request is unsigned, or the answer is not the homologation
 *   (cStat 102) of this very range.
 */
export function procInutNFe(
  inutNFeXml: string,
  retInutNFeXml: string,
  options: ProcOptions = {},
): ProcResult {
  const inutSpan = candidates(inutNFeXml, 'inutNFe')[0];
  const retSpan = candidates(retInutNFeXml, 'retInutNFe')[0];
  const problems: ErrorDetail[] = [];
  if (inutSpan === undefined) problems.push({ field: 'inutNFe', error: 'no <inutNFe> element' });
  if (retSpan === undefined) problems.push({ field: 'retInutNFe', error: 'no <retInutNFe> element' });
  if (inutSpan === undefined || retSpan === undefined) throw new ProcError(problems);
  const inut = part(inutNFeXml, inutSpan);
  const ret = part(retInutNFeXml, retSpan);
  if (!hasSignature(inutNFeXml, inutSpan))
    problems.push({ field: 'inutNFe', error: 'the inutNFe is not signed' });
  const cStat = textOf(ret.text, 'cStat') ?? '';
  if (cStat !== '102') {
    problems.push({
      field: 'retInutNFe.cStat',
      error: `${cStat} (${textOf(ret.text, 'xMotivo') ?? ''}) is not 102, inutilização homologada`,
    });
  }
  for (const field of ['tpAmb', 'cUF', 'ano', 'CNPJ', 'mod', 'serie', 'nNFIni', 'nNFFin']) {
    const answered = textOf(ret.text, field);
    const asked = textOf(inut.text, field);
    if (answered !== undefined && answered !== asked) {
      problems.push({
        field: `retInutNFe.${field}`,
        error: `is ${answered}, the request says ${asked ?? '?'}`,
      });
    }
  }
  if (problems.length > 0) throw new ProcError(problems);

  const xml = `<ProcInutNFe xmlns="${NFE_NAMESPACE}" versao="4.00">${inut.xml}${ret.xml}</ProcInutNFe>`;
  return finish(xml, 'procInutNFe', options);
}
