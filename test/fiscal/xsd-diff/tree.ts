// A small lossless XML tree for the differential XSD test: parse the documents we produce (and the reference
// samples), mutate elements, attributes and texts, and write them back byte for byte where nothing changed
// (attributes come back in double quotes).
// Not a general XML parser: no DTD, no entity declarations; comments, PIs and CDATA are kept as raw text.

export interface XmlText {
  kind: 'text';
  /** Raw (still escaped) text, or a raw comment/PI/CDATA section. */
  raw: string;
}

export interface XmlAttr {
  /** Qualified name as written (`versao`, `xmlns`, `xmlns:ds`). */
  name: string;
  /** Raw (still escaped) value, without the quotes. */
  value: string;
}

export interface XmlEl {
  kind: 'element';
  /** Qualified name as written (`infNFe`, `ds:Signature`). */
  name: string;
  attrs: XmlAttr[];
  children: XmlNode[];
  /** Written as `<x/>`: kept so that an untouched `<x></x>` comes back as written. */
  selfClosing?: boolean;
}

export type XmlNode = XmlEl | XmlText;

export interface XmlDoc {
  /** Everything before the root element (XML declaration, whitespace), verbatim. */
  prolog: string;
  root: XmlEl;
  /** Everything after the root element, verbatim. */
  epilog: string;
}

const NAME = /[A-Za-z_][\w.:-]*/y;
const ATTR = /\s*([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;

export function parseXml(xml: string): XmlDoc {
  let pos = 0;
  const stack: XmlEl[] = [];
  let root: XmlEl | null = null;
  let prolog = '';
  const append = (node: XmlNode): void => {
    const parent = stack[stack.length - 1];
    if (parent) parent.children.push(node);
  };
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    const textEnd = lt === -1 ? xml.length : lt;
    if (textEnd > pos) {
      const raw = xml.slice(pos, textEnd);
      if (stack.length > 0) append({ kind: 'text', raw });
      else if (root === null) prolog += raw;
      else if (raw.trim() !== '') throw new Error('text after the root element');
      pos = textEnd;
      if (lt === -1) break;
    }
    if (xml.startsWith('</', pos)) {
      const end = xml.indexOf('>', pos);
      const name = xml.slice(pos + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) throw new Error(`mismatched </${name}> at ${pos}`);
      pos = end + 1;
      if (stack.length === 0) return { prolog, root: open, epilog: xml.slice(pos) };
      continue;
    }
    const special = [
      ['<?', '?>'],
      ['<!--', '-->'],
      ['<![CDATA[', ']]>'],
    ].find(([start]) => xml.startsWith(start as string, pos));
    if (special) {
      const end = xml.indexOf(special[1] as string, pos) + (special[1] as string).length;
      const raw = xml.slice(pos, end);
      if (stack.length > 0) append({ kind: 'text', raw });
      else prolog += raw;
      pos = end;
      continue;
    }
    if (xml.startsWith('<!', pos)) throw new Error('DOCTYPE is not supported');
    NAME.lastIndex = pos + 1;
    const name = NAME.exec(xml)?.[0];
    if (name === undefined) throw new Error(`bad tag at ${pos}`);
    pos = NAME.lastIndex;
    const attrs: XmlAttr[] = [];
    for (;;) {
      ATTR.lastIndex = pos;
      const m = ATTR.exec(xml);
      if (!m) break;
      attrs.push({ name: m[1] as string, value: m[2] ?? m[3] ?? '' });
      pos = ATTR.lastIndex;
    }
    while (/\s/.test(xml[pos] ?? '')) pos++;
    const el: XmlEl = { kind: 'element', name, attrs, children: [] };
    if (root === null) root = el;
    else append(el);
    if (xml.startsWith('/>', pos)) {
      pos += 2;
      el.selfClosing = true;
      if (stack.length === 0) return { prolog, root: el, epilog: xml.slice(pos) };
    } else if (xml[pos] === '>') {
      pos += 1;
      stack.push(el);
    } else {
      throw new Error(`bad start tag <${name} at ${pos}`);
    }
  }
  throw new Error('unterminated document');
}

function writeEl(el: XmlEl, out: string[]): void {
  out.push('<', el.name);
  for (const a of el.attrs) out.push(' ', a.name, '="', a.value.replace(/"/g, '&quot;'), '"');
  if (el.children.length === 0 && el.selfClosing === true) {
    out.push('/>');
    return;
  }
  out.push('>');
  for (const c of el.children) {
    if (c.kind === 'text') out.push(c.raw);
    else writeEl(c, out);
  }
  out.push('</', el.name, '>');
}

export function serializeXml(doc: XmlDoc): string {
  const out: string[] = [doc.prolog];
  writeEl(doc.root, out);
  out.push(doc.epilog);
  return out.join('');
}

/** Deep copy (mutations work on a copy of the parsed document). */
export function cloneEl(el: XmlEl): XmlEl {
  return {
    kind: 'element',
    name: el.name,
    attrs: el.attrs.map((a) => ({ ...a })),
    children: el.children.map((c) => (c.kind === 'text' ? { ...c } : cloneEl(c))),
    ...(el.selfClosing === true ? { selfClosing: true } : {}),
  };
}

export function cloneDoc(doc: XmlDoc): XmlDoc {
  return { prolog: doc.prolog, root: cloneEl(doc.root), epilog: doc.epilog };
}

export const localName = (qname: string): string => qname.slice(qname.indexOf(':') + 1);

export const childElements = (el: XmlEl): XmlEl[] =>
  el.children.filter((c): c is XmlEl => c.kind === 'element');

/** Element with only text (or nothing) inside: the ones whose simple type a text mutation can break. */
export const isLeaf = (el: XmlEl): boolean => el.children.every((c) => c.kind === 'text');

/** The element's text content with the five predefined entities and character references decoded. */
export function textOf(el: XmlEl): string {
  return el.children
    .map((c) => (c.kind === 'text' ? c.raw : ''))
    .join('')
    .replace(/&(lt|gt|amp|quot|apos|#x[0-9A-Fa-f]+|#\d+);/g, (_, e: string) => {
      if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
      if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
      return { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[e] as string;
    });
}

export const escapeXmlText = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function setText(el: XmlEl, text: string): void {
  el.children = text === '' ? [] : [{ kind: 'text', raw: escapeXmlText(text) }];
}

/** Every element in document order with its parent (null for the root). */
export function allElements(doc: XmlDoc): { el: XmlEl; parent: XmlEl | null }[] {
  const out: { el: XmlEl; parent: XmlEl | null }[] = [];
  const walk = (el: XmlEl, parent: XmlEl | null): void => {
    out.push({ el, parent });
    for (const c of el.children) if (c.kind === 'element') walk(c, el);
  };
  walk(doc.root, null);
  return out;
}
