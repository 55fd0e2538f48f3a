// Compiles the official XSDs of resources/xsd into the tables of src-main/fiscal/xsd-compiled/generated/ (one
// module per schema folder) that the one-pass checker reads. Run: npm run gen:xsd (deterministic output).
//
// What is compiled: global and local elements (element refs across imports, e.g. ds:Signature), named and
// anonymous complex types with sequence/choice content (minOccurs/maxOccurs, nested groups), empty content and
// simple content, attributes (use, fixed, simple types), simple-type restrictions with their facets (pattern
// translated from XSD regex to JS, enumeration, length/minLength/maxLength, totalDigits/fractionDigits,
// bounds, whiteSpace) and xs:unique over children keyed by one attribute. Anything else (xs:any, anyAttribute,
// mixed, complexContent, unions, lists, element defaults, other identity constraints...) is compiled as
// "unsupported", so a document reaching it falls back to libxml2 instead of being judged here.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser, type Element } from '@xmldom/xmldom';
import type {
  AttributeTable,
  Builtin,
  ElementTable,
  FacetCheck,
  FolderTables,
  ParticleTable,
  TypeTable,
  UniqueTable,
  WhiteSpace,
} from '../src-main/fiscal/xsd-compiled/tables.ts';
import { compiledTargets } from '../src-main/fiscal/xsd-compiled/targets.ts';

const XS = 'http://www.w3.org/2001/XMLSchema';
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const xsdRoot = path.join(repoRoot, 'resources', 'xsd');
export const generatedDir = path.join(repoRoot, 'src-main', 'fiscal', 'xsd-compiled', 'generated');

const BUILTIN_WS: Record<Builtin, WhiteSpace> = {
  string: 0,
  normalizedString: 1,
  token: 2,
  ID: 2,
  anyURI: 2,
  base64Binary: 2,
  integer: 2,
  decimal: 2,
  dateTime: 2,
  date: 2,
  gYearMonth: 2,
};

class Unsupported extends Error {}

// ---------------------------------------------------------------------------------------------------------
// XSD regular expressions (XML Schema Part 2, appendix F) to JS (u flag). Every XSD pattern is anchored at
// both ends; ^ and $ are ordinary characters; '.' excludes only \n and \r; \d is any Unicode decimal digit;
// \s is the four XML spaces. Literal characters are written as \u{...} so no JS syntax leaks through.

function lit(cp: number): string {
  const ch = String.fromCodePoint(cp);
  return /[A-Za-z0-9 ]/.test(ch) ? ch : `\\u{${cp.toString(16)}}`;
}

const SINGLE_ESCAPES: Record<string, number> = { n: 10, r: 13, t: 9 };
const ESCAPABLE = new Set('\\|.-^?*+{}()[]'.split(''));

/** Translates an XSD regex to the source of an anchored JS RegExp (u flag); throws Unsupported. */
export function translateXsdRegex(src: string): string {
  const cps = Array.from(src);
  let i = 0;
  const peek = (): string | undefined => cps[i];
  function escape(inClass: boolean): string {
    // at the char after the backslash
    const c = cps[i++];
    if (c === undefined) throw new Unsupported(`dangling backslash in /${src}/`);
    if (c in SINGLE_ESCAPES) return lit(SINGLE_ESCAPES[c]!);
    if (ESCAPABLE.has(c)) return lit(c.codePointAt(0)!);
    switch (c) {
      case 'd':
        return '\\p{Nd}';
      case 'D':
        if (inClass) throw new Unsupported(`\\D in a class in /${src}/`);
        return '\\P{Nd}';
      case 's':
        return inClass ? ' \\t\\n\\r' : '[ \\t\\n\\r]';
      case 'S':
        // In a class, the complement of the four spaces written as ranges (a class cannot nest [^...]).
        return inClass ? '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u0021-\\u{10ffff}' : '[^ \\t\\n\\r]';
      default:
        // \i \c \w \p{..} and their negations: not used by the shipped schemas; not translated.
        throw new Unsupported(`escape \\${c} in /${src}/`);
    }
  }
  function classChar(): number | string {
    const c = cps[i++]!;
    if (c === '\\') {
      const save = i;
      const next = cps[i];
      if (next !== undefined && (next in SINGLE_ESCAPES || ESCAPABLE.has(next))) {
        i++;
        return next in SINGLE_ESCAPES ? SINGLE_ESCAPES[next]! : next.codePointAt(0)!;
      }
      i = save;
      return escape(true);
    }
    if (c === '[') throw new Unsupported(`'[' in a class in /${src}/`);
    return c.codePointAt(0)!;
  }
  function charClass(): string {
    // at the char after '['
    let out = '[';
    if (peek() === '^') {
      out += '^';
      i++;
    }
    let first = true;
    for (;;) {
      const c = peek();
      if (c === undefined) throw new Unsupported(`unterminated class in /${src}/`);
      if (c === ']' && !first) {
        i++;
        break;
      }
      if (c === '-' && cps[i + 1] === '[') throw new Unsupported(`class subtraction in /${src}/`);
      first = false;
      const a = classChar();
      if (typeof a === 'string') {
        out += a;
        continue;
      }
      if (peek() === '-' && cps[i + 1] !== ']' && cps[i + 1] !== undefined && cps[i + 1] !== '[') {
        i++;
        const b = classChar();
        if (typeof b === 'string') throw new Unsupported(`range to an escape in /${src}/`);
        if (b < a) throw new Unsupported(`reversed range in /${src}/`);
        out += `${lit(a)}-${lit(b)}`;
      } else {
        out += lit(a);
      }
    }
    return out + ']';
  }
  let out = '';
  let depth = 0;
  while (i < cps.length) {
    const c = cps[i++]!;
    switch (c) {
      case '\\':
        out += escape(false);
        break;
      case '[':
        out += charClass();
        break;
      case '(':
        depth++;
        out += '(?:';
        break;
      case ')':
        if (--depth < 0) throw new Unsupported(`unbalanced ) in /${src}/`);
        out += ')';
        break;
      case '|':
      case '*':
      case '+':
      case '?':
        out += c;
        break;
      case '{': {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(cps.slice(i - 1).join(''));
        if (!m) throw new Unsupported(`bad quantifier in /${src}/`);
        out += m[0];
        i += m[0].length - 1;
        break;
      }
      case '.':
        out += '[^\\n\\r]';
        break;
      case ']':
      case '}':
        throw new Unsupported(`stray ${c} in /${src}/`);
      default:
        out += lit(c.codePointAt(0)!);
    }
  }
  if (depth !== 0) throw new Unsupported(`unbalanced ( in /${src}/`);
  const js = `^(?:${out})$`;
  new RegExp(js, 'u'); // throws on anything JS refuses
  return js;
}

// ---------------------------------------------------------------------------------------------------------
// Loading a folder's schema documents.

interface SchemaDoc {
  file: string;
  el: Element;
  tns: string;
  qualifiedElements: boolean;
  qualifiedAttributes: boolean;
  /** Included without a targetNamespace of its own: its no-namespace references take the includer's. */
  chameleon: boolean;
  /** This file and every file it includes or imports, transitively. */
  closure: SchemaDoc[];
}

function xsChildren(el: Element, local?: string): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) {
    if (n.nodeType !== 1) continue;
    const e = n as Element;
    if (e.namespaceURI !== XS) continue;
    if (e.localName === 'annotation') continue;
    if (local === undefined || e.localName === local) out.push(e);
  }
  return out;
}

function attr(el: Element, name: string): string | null {
  return el.hasAttribute(name) ? el.getAttribute(name) : null;
}

class Folder {
  docs = new Map<string, SchemaDoc>();
  constructor(readonly folder: string) {}

  load(file: string): SchemaDoc {
    const known = this.docs.get(file);
    if (known) return known;
    const text = fs.readFileSync(path.join(xsdRoot, this.folder, file), 'utf8').replace(/^\uFEFF/, '');
    const dom = new DOMParser({ onError: () => undefined }).parseFromString(text, 'text/xml');
    const el = dom.documentElement;
    if (!el || el.namespaceURI !== XS || el.localName !== 'schema') throw new Error(`${file}: not a schema`);
    const doc: SchemaDoc = {
      file,
      el,
      tns: attr(el, 'targetNamespace') ?? '',
      qualifiedElements: attr(el, 'elementFormDefault') === 'qualified',
      qualifiedAttributes: attr(el, 'attributeFormDefault') === 'qualified',
      chameleon: false,
      closure: [],
    };
    this.docs.set(file, doc);
    const seen = new Set<SchemaDoc>([doc]);
    const order: SchemaDoc[] = [doc];
    for (const inc of [...xsChildren(el, 'include'), ...xsChildren(el, 'import')]) {
      const loc = attr(inc, 'schemaLocation');
      if (loc === null) throw new Error(`${file}: import without schemaLocation`);
      const sub = this.load(path.basename(loc));
      // A schema without targetNamespace included by one with it takes the includer's (a "chameleon"
      // include, XSD 1.0 §4.2.1): DFeTiposBasicos_v1.00.xsd is one.
      if (inc.localName === 'include' && sub.tns !== doc.tns) {
        if (sub.tns !== '' || sub.chameleon)
          throw new Error(`${file}: include of ${sub.file} across namespaces`);
        sub.tns = doc.tns;
        sub.chameleon = true;
      }
      for (const d of [sub, ...sub.closure]) {
        if (!seen.has(d)) {
          seen.add(d);
          order.push(d);
        }
      }
    }
    // Files reached through a cycle get their closure completed once the cycle closes.
    doc.closure = order;
    return doc;
  }
}

/** Expands a QName found in `el` (prefix resolved in its scope) to `{ns}local`. */
function qname(el: Element, value: string): { ns: string; local: string } {
  const colon = value.indexOf(':');
  const prefix = colon < 0 ? null : value.slice(0, colon);
  const local = colon < 0 ? value : value.slice(colon + 1);
  const ns = el.lookupNamespaceURI(prefix ?? '') ?? el.lookupNamespaceURI(prefix) ?? '';
  return { ns, local };
}

// ---------------------------------------------------------------------------------------------------------
// Compiling components into one folder's tables.

class Compiler {
  types: TypeTable[] = [];
  elements: ElementTable[] = [];
  private typeIndex = new Map<Element | string, number>();
  private elementIndex = new Map<Element, number>();

  constructor(private folder: Folder) {}

  /** The global component `kind` named {ns}local visible from `doc`. */
  private global(doc: SchemaDoc, kind: string, ns: string, local: string): { el: Element; doc: SchemaDoc } {
    const found: { el: Element; doc: SchemaDoc }[] = [];
    for (const d of [doc, ...doc.closure]) {
      if (d.tns !== ns) continue;
      for (const c of xsChildren(d.el, kind)) {
        if (attr(c, 'name') === local && !found.some((f) => f.el === c)) found.push({ el: c, doc: d });
      }
    }
    // A file may lean on a sibling that only the root includes (cteTiposBasico does): then the name must be
    // unique across the folder's loaded files.
    if (found.length === 0) {
      for (const d of this.folder.docs.values()) {
        if (d.tns !== ns) continue;
        for (const c of xsChildren(d.el, kind)) {
          if (attr(c, 'name') === local && !found.some((f) => f.el === c)) found.push({ el: c, doc: d });
        }
      }
    }
    if (found.length !== 1) {
      throw new Error(`${doc.file}: ${kind} {${ns}}${local} found ${found.length} times`);
    }
    return found[0]!;
  }

  private docOf(el: Element): SchemaDoc {
    for (const d of this.folder.docs.values()) if (d.el.ownerDocument === el.ownerDocument) return d;
    throw new Error('element outside the loaded schemas');
  }

  private reserve(key: Element | string): { index: number; fresh: boolean } {
    const known = this.typeIndex.get(key);
    if (known !== undefined) return { index: known, fresh: false };
    const index = this.types.length;
    this.types.push({ k: 'x', why: 'in progress' });
    this.typeIndex.set(key, index);
    return { index, fresh: true };
  }

  /** Type index of a type named by QName (built-in or global). */
  private qname(from: Element, value: string): { ns: string; local: string } {
    const q = qname(from, value);
    const doc = this.docOf(from);
    return q.ns === '' && doc.chameleon ? { ns: doc.tns, local: q.local } : q;
  }

  typeByName(from: Element, value: string): number {
    const { ns, local } = this.qname(from, value);
    if (ns === XS) return this.builtin(local);
    const doc = this.docOf(from);
    let found: { el: Element; doc: SchemaDoc };
    try {
      found = this.global(doc, 'simpleType', ns, local);
    } catch {
      found = this.global(doc, 'complexType', ns, local);
    }
    return this.typeOf(found.el);
  }

  private builtin(local: string): number {
    const key = `xs:${local}`;
    const { index, fresh } = this.reserve(key);
    if (!fresh) return index;
    if (Object.hasOwn(BUILTIN_WS, local)) {
      const b = local as Builtin;
      this.types[index] = { k: 's', name: `{${XS}}${local}`, b, ws: BUILTIN_WS[b], f: [] };
    } else {
      this.types[index] = { k: 'x', why: `built-in type xs:${local}` };
    }
    return index;
  }

  typeOf(el: Element): number {
    const { index, fresh } = this.reserve(el);
    if (!fresh) return index;
    try {
      this.types[index] = el.localName === 'simpleType' ? this.simple(el) : this.complex(el);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      this.types[index] = { k: 'x', why: error.message };
    }
    return index;
  }

  private nameOf(el: Element): string {
    const name = attr(el, 'name');
    return name === null ? '' : `{${this.docOf(el).tns}}${name}`;
  }

  private simple(el: Element): TypeTable {
    const [body, ...rest] = xsChildren(el);
    if (!body || rest.length > 0) throw new Unsupported('simpleType without one restriction');
    if (body.localName !== 'restriction') throw new Unsupported(`simpleType ${body.localName}`);
    const baseName = attr(body, 'base');
    let baseIndex: number;
    if (baseName !== null) baseIndex = this.typeByName(body, baseName);
    else {
      const inner = xsChildren(body, 'simpleType')[0];
      if (!inner) throw new Unsupported('restriction without a base');
      baseIndex = this.typeOf(inner);
    }
    const base = this.types[baseIndex]!;
    if (base.k === 'x') throw new Unsupported(base.why);
    if (base.k !== 's') throw new Unsupported('simple type restricting a complex type');
    return { k: 's', name: this.nameOf(el), ...this.facets(body, base.b, base.ws, base.f) };
  }

  private facets(
    restriction: Element,
    b: Builtin,
    baseWs: WhiteSpace,
    baseChecks: readonly FacetCheck[],
  ): { b: Builtin; ws: WhiteSpace; f: FacetCheck[] } {
    let ws = baseWs;
    const checks: FacetCheck[] = [...baseChecks];
    const patterns: string[] = [];
    const values: string[] = [];
    const numeric = b === 'integer' || b === 'decimal';
    // Lengths count characters, or octets for base64Binary (hashCSRT: 20 octets).
    const lengthy =
      b === 'string' ||
      b === 'normalizedString' ||
      b === 'token' ||
      b === 'ID' ||
      b === 'anyURI' ||
      b === 'base64Binary';
    for (const f of xsChildren(restriction)) {
      const value = attr(f, 'value');
      if (f.localName === 'simpleType' || f.localName === 'attribute') continue;
      if (value === null) throw new Unsupported(`facet ${f.localName} without value`);
      switch (f.localName) {
        case 'pattern':
          patterns.push(value);
          break;
        case 'enumeration':
          values.push(value);
          break;
        case 'whiteSpace':
          ws = value === 'preserve' ? 0 : value === 'replace' ? 1 : 2;
          if (ws < baseWs) throw new Unsupported('whiteSpace loosened');
          break;
        case 'length':
        case 'minLength':
        case 'maxLength':
          if (!lengthy) throw new Unsupported(`${f.localName} on ${b}`);
          checks.push([
            f.localName === 'length' ? 'l' : f.localName === 'minLength' ? 'minl' : 'maxl',
            +value,
          ]);
          break;
        case 'totalDigits':
        case 'fractionDigits':
          if (!numeric) throw new Unsupported(`${f.localName} on ${b}`);
          checks.push([f.localName === 'totalDigits' ? 'td' : 'fd', +value]);
          break;
        case 'minInclusive':
        case 'maxInclusive':
        case 'minExclusive':
        case 'maxExclusive':
          // Bounds of numbers, and of gYearMonth written as a plain YYYY-MM (competApur: from 2025-01).
          if (
            !(numeric && /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value)) &&
            !(b === 'gYearMonth' && /^\d{4}-\d{2}$/.test(value))
          ) {
            throw new Unsupported(`${f.localName} on ${b}`);
          }
          checks.push([
            (
              {
                minInclusive: 'mini',
                maxInclusive: 'maxi',
                minExclusive: 'mine',
                maxExclusive: 'maxe',
              } as const
            )[f.localName],
            value,
          ]);
          break;
        default:
          throw new Unsupported(`facet ${f.localName}`);
      }
    }
    // Facets of one step are checked after those of the base (a value must pass every step); within a step,
    // patterns are alternatives (XSD 1.0 §4.3.4.3) and so are the enumerated values.
    if (patterns.length > 0) {
      const js = patterns.map((p) => translateXsdRegex(p).slice(4, -2)).join('|');
      checks.push(['p', `^(?:${js})$`, patterns.join('|')]);
    }
    if (values.length > 0) checks.push(['e', values]);
    return { b, ws, f: checks };
  }

  private attributes(holder: Element, own: boolean): AttributeTable[] {
    const out: AttributeTable[] = [];
    for (const a of xsChildren(holder)) {
      if (a.localName === 'anyAttribute') {
        // Only the skipping wildcard over any namespace (the events' detEvento): undeclared attributes pass.
        const ns = attr(a, 'namespace') ?? '##any';
        if (attr(a, 'processContents') !== 'skip' || ns !== '##any') throw new Unsupported('anyAttribute');
        continue;
      }
      if (a.localName === 'attributeGroup') throw new Unsupported('attributeGroup');
      if (a.localName !== 'attribute') continue;
      if (attr(a, 'ref') !== null) throw new Unsupported('attribute ref');
      const name = attr(a, 'name');
      if (name === null) throw new Unsupported('attribute without name');
      const form = attr(a, 'form');
      if (form === 'qualified' || (form === null && this.docOf(a).qualifiedAttributes)) {
        throw new Unsupported('qualified attribute');
      }
      if (attr(a, 'default') !== null) throw new Unsupported('attribute default');
      const use = attr(a, 'use') ?? 'optional';
      if (use === 'prohibited') throw new Unsupported('prohibited attribute');
      const typeName = attr(a, 'type');
      const inline = xsChildren(a, 'simpleType')[0];
      // An attribute without a type is of anySimpleType: any value (DC-e's versao in some messages).
      const t =
        typeName !== null
          ? this.typeByName(a, typeName)
          : inline
            ? this.typeOf(inline)
            : this.builtin('string');
      const table: { n: string; t: number; r?: 1; f?: string } = { n: name, t };
      if (use === 'required') table.r = 1;
      const fixed = attr(a, 'fixed');
      if (fixed !== null) table.f = fixed;
      out.push(table);
    }
    void own;
    return out;
  }

  private complex(el: Element): TypeTable {
    if (attr(el, 'abstract') === 'true') throw new Unsupported('abstract type');
    const t = this.complexBody(el);
    const extra: { mx?: 1; aa?: 1 } = {};
    // Mixed content: text anywhere between the children (the full xmldsig's CanonicalizationMethod).
    if (attr(el, 'mixed') === 'true') {
      if (t.k !== 'c' || t.c === 2) throw new Unsupported('mixed simple content');
      extra.mx = 1;
    }
    const holder = xsChildren(el, 'simpleContent')[0]
      ? xsChildren(xsChildren(el, 'simpleContent')[0]!)[0]!
      : el;
    if (xsChildren(holder, 'anyAttribute').length > 0) extra.aa = 1;
    return t.k === 'c' ? { ...t, ...extra } : t;
  }

  private complexBody(el: Element): TypeTable {
    const name = this.nameOf(el);
    const kids = xsChildren(el);
    const content = kids.find((k) => k.localName !== 'attribute' && k.localName !== 'anyAttribute');
    if (content?.localName === 'complexContent') throw new Unsupported('complexContent');
    if (content?.localName === 'simpleContent') {
      const [ext, ...more] = xsChildren(content);
      if (!ext || more.length > 0 || ext.localName !== 'extension') {
        throw new Unsupported(`simpleContent ${ext?.localName ?? ''}`);
      }
      const baseName = attr(ext, 'base');
      if (baseName === null) throw new Unsupported('extension without base');
      const s = this.typeByName(ext, baseName);
      const base = this.types[s]!;
      if (base.k === 'x') throw new Unsupported(base.why);
      if (base.k !== 's') throw new Unsupported('simpleContent extending a complex type');
      return { k: 'c', name, a: this.attributes(ext, true), c: 2, s };
    }
    const a = this.attributes(el, true);
    if (!content) return { k: 'c', name, a, c: 0 };
    const m = this.particle(content);
    return { k: 'c', name, a, c: 1, m };
  }

  private occurs(el: Element): { n: number; x: number } {
    const min = attr(el, 'minOccurs');
    const max = attr(el, 'maxOccurs');
    return { n: min === null ? 1 : +min, x: max === null ? 1 : max === 'unbounded' ? -1 : +max };
  }

  private particle(el: Element): ParticleTable {
    const { n, x } = this.occurs(el);
    switch (el.localName) {
      case 'sequence':
      case 'choice': {
        const items = xsChildren(el).map((k) => this.particle(k));
        return { g: el.localName === 'sequence' ? 's' : 'c', n, x, i: items };
      }
      case 'element':
        return { e: this.element(el), n, x };
      case 'any': {
        // Element wildcards: ##any, or ##other (any namespace but the schema's own, and not none).
        const ns = attr(el, 'namespace') ?? '##any';
        const w = (attr(el, 'processContents') ?? 'strict') as 'skip' | 'lax' | 'strict';
        if (ns === '##any') return { w, o: null, n, x };
        if (ns === '##other') return { w, o: this.docOf(el).tns, n, x };
        throw new Unsupported(`wildcard namespace ${ns}`);
      }
      default:
        throw new Unsupported(`particle ${el.localName}`);
    }
  }

  /** Element declaration index of a local element, an element ref or a global element. */
  element(el: Element): number {
    const ref = attr(el, 'ref');
    if (ref !== null) {
      const { ns, local } = this.qname(el, ref);
      return this.element(this.global(this.docOf(el), 'element', ns, local).el);
    }
    const known = this.elementIndex.get(el);
    if (known !== undefined) return known;
    const index = this.elements.length;
    const doc = this.docOf(el);
    const global = el.parentNode === doc.el;
    const form = attr(el, 'form');
    const qualified = global || form === 'qualified' || (form === null && doc.qualifiedElements);
    const decl: { ns: string; n: string; t: number; u?: UniqueTable[]; f?: string } = {
      ns: qualified ? doc.tns : '',
      n: attr(el, 'name') ?? '',
      t: -1,
    };
    this.elements.push(decl);
    this.elementIndex.set(el, index);
    try {
      const fixed = attr(el, 'fixed');
      if (fixed !== null) decl.f = fixed;
      for (const a of ['default', 'nillable', 'abstract', 'substitutionGroup', 'block']) {
        if (attr(el, a) !== null) throw new Unsupported(`element ${decl.n} with ${a}`);
      }
      const u: UniqueTable[] = [];
      for (const c of xsChildren(el)) {
        if (c.localName === 'key' || c.localName === 'keyref')
          throw new Unsupported(`identity ${c.localName}`);
        if (c.localName === 'unique') u.push(this.unique(c));
      }
      if (u.length > 0) decl.u = u;
      const typeName = attr(el, 'type');
      const inline = xsChildren(el).find(
        (c) => c.localName === 'complexType' || c.localName === 'simpleType',
      );
      if (typeName !== null) decl.t = this.typeByName(el, typeName);
      else if (inline) decl.t = this.typeOf(inline);
      else throw new Unsupported(`element ${decl.n} of anyType`);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      decl.t = this.types.length;
      this.types.push({ k: 'x', why: error.message });
    }
    return index;
  }

  private unique(el: Element): UniqueTable {
    const selector = xsChildren(el, 'selector');
    const fields = xsChildren(el, 'field');
    if (selector.length !== 1 || fields.length !== 1) throw new Unsupported('unique of several fields');
    const sel = attr(selector[0]!, 'xpath') ?? '';
    const field = attr(fields[0]!, 'xpath') ?? '';
    const fm = /^@([A-Za-z_][\w.-]*)$/.exec(field);
    const sm = /^(?:\.\/)?(\*|[A-Za-z_][\w.-]*)$/.exec(sel);
    if (!fm || !sm) throw new Unsupported(`unique ${sel} ${field}`);
    // An unprefixed name step in a selector names an element in no namespace, which ours never are.
    if (sm[1] !== '*') throw new Unsupported(`unique selector ${sel}`);
    return { name: `{${this.docOf(el).tns}}${attr(el, 'name') ?? ''}`, sel: null, attr: fm[1]! };
  }
}

// ---------------------------------------------------------------------------------------------------------

/** Generated module text of every schema folder, by file name. */
export function generate(): Map<string, string> {
  const byFolder = new Map<string, Set<string>>();
  for (const t of compiledTargets()) {
    const files = byFolder.get(t.folder) ?? new Set<string>();
    files.add(t.file);
    byFolder.set(t.folder, files);
  }
  const out = new Map<string, string>();
  for (const [folderName, files] of [...byFolder].sort(([a], [b]) => a.localeCompare(b))) {
    const folder = new Folder(folderName);
    const compiler = new Compiler(folder);
    const roots: Record<string, Record<string, number>> = {};
    for (const file of files) folder.load(file);
    for (const file of [...files].sort()) {
      const doc = folder.load(file);
      const globals: Record<string, number> = {};
      for (const d of [doc, ...doc.closure]) {
        for (const e of xsChildren(d.el, 'element')) {
          globals[`{${d.tns}}${attr(e, 'name')}`] = compiler.element(e);
        }
      }
      roots[file] = globals;
    }
    const tables: FolderTables = {
      folder: folderName,
      types: compiler.types,
      elements: compiler.elements,
      roots,
    };
    const sources = [...folder.docs.keys()].sort();
    const text =
      `// Generated by scripts/compile-xsd.ts (npm run gen:xsd) from resources/xsd/${folderName}/: ` +
      `${sources.join(', ')}.\n` +
      `// Do not edit: change the generator or the schemas and generate again (a test compares this file).\n` +
      `import type { FolderTables } from '../tables.ts';\n\n` +
      `export const tables: FolderTables = ${JSON.stringify(tables)};\n`;
    out.set(`${folderName}.ts`, text);
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.mkdirSync(generatedDir, { recursive: true });
  const files = generate();
  for (const old of fs.readdirSync(generatedDir)) {
    if (!files.has(old)) fs.rmSync(path.join(generatedDir, old));
  }
  for (const [name, text] of files) {
    fs.writeFileSync(path.join(generatedDir, name), text);
    const unsupported = (text.match(/"k":"x"/g) ?? []).length;
    console.log(`${name}: ${text.length} bytes, ${unsupported} unsupported types`);
  }
}
