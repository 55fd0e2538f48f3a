// A DOM-free reader of signed fiscal XML as we write it (elements, attributes, text, the five XML entities and
// character references), giving the very tree fast-xml-parser gives with the options of xmlTreeReader.
// Anything outside that subset (comments, CDATA, DOCTYPE, mixed content, other entities) returns null, and the
// caller falls back to fast-xml-parser: parsing the note was two thirds of an ESC/POS receipt's time.
import type { Node } from './model.ts';

/** Whitespace between elements: only these four are left to the fast path (JS trim takes more). */
function isXmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function blank(xml: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isXmlSpace(xml.charCodeAt(i))) return false;
  return true;
}

/** Plain names only: anything else (a second ':', a name Object.prototype knows) goes to the full parser. */
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const RESERVED = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']);

/** The local name fast-xml-parser's removeNSPrefix keeps, '' for an xmlns attribute, null outside the subset. */
function localName(raw: string): string | null {
  const colon = raw.indexOf(':');
  let name = raw;
  if (colon >= 0) {
    if (raw.indexOf(':', colon + 1) >= 0) return null;
    const prefix = raw.slice(0, colon);
    name = raw.slice(colon + 1);
    if (!NAME.test(prefix) || !NAME.test(name)) return null;
    if (prefix === 'xmlns') return '';
  }
  if (name === 'xmlns') return '';
  return NAME.test(name) && !RESERVED.has(name) && name !== '#text' ? name : null;
}

function validCodePoint(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Normalizes line ends (XML 1.0 §2.11, as fast-xml-parser does over the whole text), trims, then decodes the five
 * XML entities and character references in one pass (so &#xD; stays a CR); null for any other '&'.
 */
function decode(raw: string): string | null {
  const s = (raw.indexOf('\r') >= 0 ? raw.replace(/\r\n?/g, '\n') : raw).trim();
  let amp = s.indexOf('&');
  if (amp < 0) return s;
  let out = '';
  let from = 0;
  while (amp >= 0) {
    const semi = s.indexOf(';', amp + 1);
    if (semi < 0) return null;
    const ref = s.slice(amp + 1, semi);
    let value: string | undefined;
    if (ref.charCodeAt(0) === 0x23 /* # */) {
      const hex = ref.charCodeAt(1) === 0x78; /* x */
      const digits = ref.slice(hex ? 2 : 1);
      if (!(hex ? /^[0-9a-fA-F]{1,6}$/ : /^[0-9]{1,7}$/).test(digits)) return null;
      const cp = Number.parseInt(digits, hex ? 16 : 10);
      if (!validCodePoint(cp)) return null;
      value = String.fromCodePoint(cp);
    } else {
      value = NAMED[ref];
      if (value === undefined) return null;
    }
    out += s.slice(from, amp) + value;
    from = semi + 1;
    amp = s.indexOf('&', from);
  }
  return out + s.slice(from);
}

interface Frame {
  /** The raw tag name, to match the end tag. */
  raw: string;
  name: string;
  attrs: Node | null;
  children: Node | null;
  /** Where the text after the start tag begins (for a leaf). */
  textFrom: number;
}

function addChild(parent: Node, name: string, value: unknown, repeated: ReadonlySet<string>): void {
  const existing = parent[name];
  if (repeated.has(name)) {
    if (existing === undefined) parent[name] = [value];
    else (existing as unknown[]).push(value);
  } else if (existing === undefined) parent[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else parent[name] = [existing, value];
}

/**
 * Reads the attributes of a start tag from `i` (just after its name) up to its '>'.
 * @returns the position after '>' and whether the tag closed itself, or null outside the subset.
 */
function readAttributes(
  xml: string,
  i: number,
  into: (name: string, value: string) => boolean,
): { end: number; selfClosing: boolean } | null {
  const n = xml.length;
  for (;;) {
    while (i < n && isXmlSpace(xml.charCodeAt(i))) i++;
    if (i >= n) return null;
    const c = xml.charCodeAt(i);
    if (c === 0x3e /* > */) return { end: i + 1, selfClosing: false };
    if (c === 0x2f /* / */) {
      if (xml.charCodeAt(i + 1) !== 0x3e) return null;
      return { end: i + 2, selfClosing: true };
    }
    if (c === 0x3f /* ? */) {
      if (xml.charCodeAt(i + 1) !== 0x3e) return null;
      return { end: i + 2, selfClosing: true };
    }
    const nameFrom = i;
    while (i < n) {
      const d = xml.charCodeAt(i);
      if (d === 0x3d /* = */ || isXmlSpace(d) || d === 0x3e || d === 0x2f) break;
      i++;
    }
    const rawName = xml.slice(nameFrom, i);
    while (i < n && isXmlSpace(xml.charCodeAt(i))) i++;
    if (xml.charCodeAt(i) !== 0x3d) return null;
    i++;
    while (i < n && isXmlSpace(xml.charCodeAt(i))) i++;
    const quote = xml.charCodeAt(i);
    if (quote !== 0x22 && quote !== 0x27) return null;
    const close = xml.indexOf(quote === 0x22 ? '"' : "'", i + 1);
    if (close < 0) return null;
    const raw = xml.slice(i + 1, close);
    if (raw.indexOf('<') >= 0) return null;
    const value = decode(raw);
    if (value === null || !into(rawName, value)) return null;
    i = close + 1;
    const after = xml.charCodeAt(i);
    if (!isXmlSpace(after) && after !== 0x3e && after !== 0x2f && after !== 0x3f) return null;
  }
}

/**
 * The tree of `xml` as fast-xml-parser builds it for xmlTreeReader(repeated), or null when the document holds
 * anything this reader leaves to fast-xml-parser (including every malformed document).
 */
export function fastXmlTree(xml: string, repeated: ReadonlySet<string>): Node | null {
  const root: Node = {};
  const stack: Frame[] = [];
  const n = xml.length;
  let pos = 0;
  // A UTF-8 byte order mark read as text.
  if (xml.charCodeAt(0) === 0xfeff) return null;
  for (;;) {
    const lt = xml.indexOf('<', pos);
    const top = stack.length === 0 ? null : (stack[stack.length - 1] as Frame);
    if (lt < 0) {
      if (stack.length !== 0 || !blank(xml, pos, n)) return null;
      break;
    }
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x2f /* </ */) {
      if (top === null) return null;
      const gt = xml.indexOf('>', lt + 2);
      if (gt < 0) return null;
      let nameEnd = gt;
      while (nameEnd > lt + 2 && isXmlSpace(xml.charCodeAt(nameEnd - 1))) nameEnd--;
      if (xml.slice(lt + 2, nameEnd) !== top.raw) return null;
      let value: unknown;
      if (top.children !== null) {
        if (!blank(xml, pos, lt)) return null; // mixed content
        value = top.children;
        if (top.attrs !== null) Object.assign(top.children, top.attrs);
      } else {
        const text = decode(xml.slice(top.textFrom, lt));
        if (text === null) return null;
        if (top.attrs !== null) {
          const node: Node = {};
          if (text.length > 0) node['#text'] = text;
          value = Object.assign(node, top.attrs);
        } else value = text;
      }
      stack.pop();
      const parent = stack.length === 0 ? root : (stack[stack.length - 1] as Frame);
      if (parent === root) {
        if (root[top.name] !== undefined) return null;
        root[top.name] = repeated.has(top.name) ? [value] : value;
      } else {
        const p = parent as Frame;
        p.children ??= {};
        addChild(p.children, top.name, value, repeated);
      }
      pos = gt + 1;
      continue;
    }
    // Text before a start tag: only whitespace (mixed content goes to the full parser).
    if (!blank(xml, pos, lt)) return null;
    if (next === 0x21 /* <! comment, CDATA, DOCTYPE */) return null;
    const isDeclaration = next === 0x3f; /* <? */
    if (isDeclaration && (stack.length !== 0 || !xml.startsWith('<?xml', lt) || root['?xml'] !== undefined))
      return null;
    let i = isDeclaration ? lt + 5 : lt + 1;
    const nameFrom = i;
    while (i < n && !isDeclaration) {
      const d = xml.charCodeAt(i);
      if (isXmlSpace(d) || d === 0x3e || d === 0x2f || d === 0x3f) break;
      i++;
    }
    const raw = isDeclaration ? '?xml' : xml.slice(nameFrom, i);
    if (isDeclaration && !isXmlSpace(xml.charCodeAt(i))) return null;
    const name = isDeclaration ? '?xml' : localName(raw);
    if (name === null || name === '') return null;
    let attrs: Node | null = null;
    const tag = readAttributes(xml, i, (rawName, value) => {
      const attr = localName(rawName);
      if (attr === null) return false;
      if (attr === '') return true; // xmlns declarations are dropped
      attrs ??= {};
      const key = `@_${attr}`;
      if (key in attrs) return false;
      attrs[key] = value;
      return true;
    });
    if (tag === null || (isDeclaration && attrs === null)) return null;
    // '?>' ends the declaration and only it; '/>' never ends it.
    if (isDeclaration !== (xml.charCodeAt(tag.end - 2) === 0x3f)) return null;
    if (tag.selfClosing) {
      const value: unknown = attrs ?? '';
      if (stack.length === 0) {
        if (root[name] !== undefined) return null;
        root[name] = repeated.has(name) ? [value] : value;
      } else {
        const p = top as Frame;
        p.children ??= {};
        addChild(p.children, name, value, repeated);
      }
    } else {
      if (stack.length === 0 && root[name] !== undefined) return null;
      stack.push({ raw, name, attrs, children: null, textFrom: tag.end });
    }
    pos = tag.end;
  }
  return root;
}
