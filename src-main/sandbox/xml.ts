// Reading the messages clients send (namespace-aware DOM via @xmldom/xmldom) and the checks the authorities
// make on the raw text before any schema (MOC 7.0 §5.1 "Validação da área de dados": 214, 243, 404, 588).
import { DOMParser, type Document, type Element } from '@xmldom/xmldom';
import { NFE_NAMESPACE } from '../fiscal/schema.ts';
import type { CStat } from './cstat.ts';

export { escapeText as esc } from '../fiscal/xml.ts';

export const DSIG_NAMESPACE = 'http://www.w3.org/2000/09/xmldsig#';

/** Thrown for input that is not well-formed XML (rule 243). */
export class MalformedXml extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedXml';
  }
}

export function parseXml(xml: string): Document {
  try {
    return new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new MalformedXml(message);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    if (error instanceof MalformedXml) throw error;
    throw new MalformedXml(error instanceof Error ? error.message : String(error));
  }
}

function isElement(node: unknown): node is Element {
  return typeof node === 'object' && node !== null && (node as { nodeType?: number }).nodeType === 1;
}

/** Child elements in the NF-e namespace (or in `namespace`), optionally with one local name. */
export function children(parent: Element, name?: string, namespace = NFE_NAMESPACE): Element[] {
  const found: Element[] = [];
  for (let n = parent.firstChild; n !== null; n = n.nextSibling) {
    if (!isElement(n) || n.namespaceURI !== namespace) continue;
    if (name === undefined || n.localName === name) found.push(n);
  }
  return found;
}

/** The element at a slash-separated path of NF-e child names (or names in `namespace`) below `from`, if any. */
export function at(from: Element, path: string, namespace = NFE_NAMESPACE): Element | undefined {
  let current: Element | undefined = from;
  for (const step of path.split('/')) {
    if (current === undefined) return undefined;
    current = children(current, step, namespace)[0];
  }
  return current;
}

/** The text of the element at `path` below `from`, if present. */
export function textAt(from: Element, path: string, namespace = NFE_NAMESPACE): string | undefined {
  const el = at(from, path, namespace);
  return el === undefined ? undefined : (el.textContent ?? '');
}

/** The infEvento of an NF-e evento, a CT-e eventoCTe or a DC-e eventoDCe: the same fields, `chave` from its key. */
export interface EventMessage {
  xml: string;
  id: string;
  cOrgao: string;
  tpAmb: string;
  author: string;
  chave: string;
  dhEvento: string;
  tpEvento: string;
  nSeqEvento: string;
  det: Element | undefined;
}

/**
 * Reads an evento (NF-e namespace, chNFe), an eventoCTe (CT-e namespace, chCTe) or an eventoDCe (DC-e
 * namespace, chDCe, its author in CNPJAutor: `authorNames`, default CNPJ then CPF); throws when it is none.
 */
export function parseEventMessage(
  xml: string,
  kind: {
    namespace: string;
    keyName: 'chNFe' | 'chCTe' | 'chDCe';
    root: string;
    authorNames?: readonly string[];
  },
): EventMessage {
  const root = rootOf(parseXml(xml));
  const inf = root && at(root, 'infEvento', kind.namespace);
  if (inf === undefined) throw new Error(`not an ${kind.root}`);
  const t = (p: string) => textAt(inf, p, kind.namespace) ?? '';
  return {
    xml,
    id: inf.getAttribute('Id') ?? '',
    cOrgao: t('cOrgao'),
    tpAmb: t('tpAmb'),
    author:
      (kind.authorNames ?? ['CNPJ', 'CPF'])
        .map((name) => textAt(inf, name, kind.namespace))
        .find((found) => found !== undefined) ?? '',
    chave: t(kind.keyName),
    dhEvento: t('dhEvento'),
    tpEvento: t('tpEvento'),
    nSeqEvento: t('nSeqEvento'),
    det: at(inf, 'detEvento', kind.namespace),
  };
}

export function rootOf(doc: Document): Element | undefined {
  const root = doc.documentElement;
  return root === null ? undefined : root;
}

/**
 * The exact text of each top-level `<name ...>...</name>` element inside `xml`, in order: signed elements are
 * stored and answered byte for byte. The message was already checked for prefixes (404), so names are plain.
 */
export function elementTexts(xml: string, name: string): string[] {
  const found: string[] = [];
  const open = new RegExp(`<${name}[\\s>]`, 'g');
  const close = `</${name}>`;
  let match: RegExpExecArray | null;
  while ((match = open.exec(xml)) !== null) {
    const end = xml.indexOf(close, match.index);
    if (end < 0) break;
    found.push(xml.slice(match.index, end + close.length));
    open.lastIndex = end + close.length;
  }
  return found;
}

/**
 * Adds a family's default namespace (the NF-e's unless told) to an element cut out of a message that declared it
 * on an ancestor.
 */
export function withNamespace(element: string, namespace: string = NFE_NAMESPACE): string {
  const startTag = /^<[A-Za-z_][\w.-]*(\s[^>]*)?>/.exec(element)?.[0] ?? '';
  if (/\sxmlns=/.test(startTag)) return element;
  return element.replace(/^<([A-Za-z_][\w.-]*)/, `<$1 xmlns="${namespace}"`);
}

export const withNfeNamespace = (element: string): string => withNamespace(element);

/** Largest message the web services take (MOC 7.0 §3.5: 500 KB per message). */
export const MAX_MESSAGE_BYTES = 500 * 1024;

// Prefixed element names ("<nfe:NFe") anywhere in the message (rule 404).
const PREFIXED_ELEMENT = /<\/?[A-Za-z_][\w.-]*:[A-Za-z_]/;
// Line breaks, tabs or other "caracteres de edição" between tags or at the ends (rule 588).
const EDITING_BETWEEN_TAGS = />\s+</;

/** The message-level rejection of the raw text, if any, before parsing: 214, 588, 404 or 243. */
export function rawMessageProblem(message: string): { cStat: CStat; detail?: string } | null {
  if (Buffer.byteLength(message, 'utf8') > MAX_MESSAGE_BYTES) return { cStat: 214 };
  if (/^[\s]/.test(message) || /[\s]$/.test(message) || EDITING_BETWEEN_TAGS.test(message)) {
    return { cStat: 588 };
  }
  if (PREFIXED_ELEMENT.test(message)) return { cStat: 404 };
  try {
    parseXml(message);
  } catch (error) {
    return { cStat: 243, detail: error instanceof Error ? `[${error.message.split('\n')[0]}]` : undefined };
  }
  return null;
}

/** First libxml2 message of a schema failure, as a bracketed detail for xMotivo. */
export function schemaDetail(errors: readonly { message: string; field: string | null }[]): string {
  const first = errors[0];
  if (first === undefined) return '';
  return `[${first.field ?? 'xml'}: ${first.message.replace(/\s+/g, ' ')}]`;
}
