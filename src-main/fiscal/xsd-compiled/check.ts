// The one-pass checker: a small pull tokenizer over the document's text (no DOM) driving the content models,
// attributes and simple types of the tables generated from the XSDs. Anything it cannot judge answers
// "unsupported" so the caller asks libxml2 instead; it never answers "valid" for what it did not check.
import type {
  AttributeTable,
  Builtin,
  FacetCheck,
  ElementTable,
  FolderTables,
  ParticleTable,
  SimpleTypeTable,
  TypeTable,
  WhiteSpace,
} from './tables.ts';

export type CompiledVerdict =
  | { ok: true }
  /** `path` names the failing element as schema.ts names libxml2's first error (NFe/infNFe/det[2]/prod/NCM). */
  | { ok: false; unsupported: false; path: string; message: string }
  | { ok: false; unsupported: true; reason: string };

// ---------------------------------------------------------------------------------------------------------
// Tables made ready for matching: regexes compiled, particles annotated, on first use of a folder.

interface Particle {
  min: number;
  max: number; // Infinity for unbounded
  /** Element declaration index, or -1 for a group. */
  el: number;
  /** Local name of the element (fast reject before the namespace compare). */
  name: string;
  seq: boolean;
  items: Particle[];
  /** The term accepts the empty sequence (the particle does when min is 0 too). */
  termNullable: boolean;
  nullable: boolean;
  /** Local names that can start the term. */
  first: Set<string>;
  /** A wildcard can start the term (any name may, subject to the wildcard's namespace). */
  wild: boolean;
  /** For a wildcard (el WILDCARD): its processContents, and the namespace ##other excludes (null: ##any). */
  process: 'skip' | 'lax' | 'strict';
  other: string | null;
}

/** Particle.el of an xs:any; feed() answers it for an element a skipping wildcard takes, LAX_OR_STRICT else. */
const WILDCARD = -2;
const LAX_OR_STRICT = -3;

interface Prepared {
  tables: FolderTables;
  /** Simple types made ready (regexes compiled, enumerations as sets), by type index, on first use. */
  simple: (CompiledSimple | undefined)[];
  /** Content models by type index, each wrapped in the one-item sequence a run starts from. */
  models: (Particle | undefined)[];
  /** What the walk needs of each element declaration, by declaration index, on first use. */
  decls: (DeclInfo | undefined)[];
  /** The tables' own (internalized) strings for element names and namespaces: compared by identity. */
  names: Map<string, string>;
  /** Element local names by scanName's hash (a name whose hash another shares is left out: sliced instead). */
  byHash: NamesByHash;
}

/**
 * Open-addressed table of names by hash: one probe of two arrays, about a third of a Map's lookup on the
 * hot path (a lookup per start tag).
 */
interface NamesByHash {
  mask: number;
  hashes: Int32Array;
  /** '' for an empty slot. */
  names: string[];
}

function namesByHash(entries: Map<number, string>): NamesByHash {
  let size = 16;
  while (size < entries.size * 4) size *= 2;
  const table: NamesByHash = {
    mask: size - 1,
    hashes: new Int32Array(size),
    names: Array<string>(size).fill(''),
  };
  for (const [h, name] of entries) {
    let i = h & table.mask;
    while (table.names[i] !== '') i = (i + 1) & table.mask;
    table.hashes[i] = h;
    table.names[i] = name;
  }
  return table;
}

/** The name whose hash is `h`, or '' for none. */
function nameOfHash(table: NamesByHash, h: number): string {
  for (let i = h & table.mask; ; i = (i + 1) & table.mask) {
    const name = table.names[i]!;
    if (name === '' || table.hashes[i] === h) return name;
  }
}

// Facet kinds, numbered so the value check is a switch over small integers.
const F_PATTERN = 0;
const F_ENUM = 1;
const F_LENGTH = 2;
const F_MIN_LENGTH = 3;
const F_MAX_LENGTH = 4;
const F_TOTAL_DIGITS = 5;
const F_FRACTION_DIGITS = 6;
const F_MIN_INCLUSIVE = 7;
const F_MAX_INCLUSIVE = 8;
const F_MIN_EXCLUSIVE = 9;
const F_MAX_EXCLUSIVE = 10;
const FACET_KINDS: Record<FacetCheck[0], number> = {
  p: F_PATTERN,
  e: F_ENUM,
  l: F_LENGTH,
  minl: F_MIN_LENGTH,
  maxl: F_MAX_LENGTH,
  td: F_TOTAL_DIGITS,
  fd: F_FRACTION_DIGITS,
  mini: F_MIN_INCLUSIVE,
  maxi: F_MAX_INCLUSIVE,
  mine: F_MIN_EXCLUSIVE,
  maxe: F_MAX_EXCLUSIVE,
};

interface Facet {
  k: number;
  re: RegExp | null;
  set: Set<string> | null;
  /** Length or digits. */
  n: number;
  /** Bound of a numeric facet, or the XSD pattern for messages. */
  s: string;
  values: readonly string[];
}

interface CompiledSimple {
  b: Builtin;
  ws: WhiteSpace;
  facets: Facet[];
}

function compileSimple(t: SimpleTypeTable): CompiledSimple {
  const facets = t.f.map((f): Facet => {
    const k = FACET_KINDS[f[0]];
    if (f[0] === 'p') return { k, re: new RegExp(f[1], 'u'), set: null, n: 0, s: f[2], values: [] };
    if (f[0] === 'e') return { k, re: null, set: new Set(f[1]), n: 0, s: '', values: f[1] };
    if (typeof f[1] === 'number') return { k, re: null, set: null, n: f[1], s: '', values: [] };
    return { k, re: null, set: null, n: 0, s: f[1], values: [] };
  });
  return { b: t.b, ws: t.ws, facets };
}

function simpleOf(prepared: Prepared, index: number): CompiledSimple | null {
  const known = prepared.simple[index];
  if (known !== undefined) return known;
  const t = prepared.tables.types[index];
  if (t === undefined || t.k !== 's') return null;
  const made = compileSimple(t);
  prepared.simple[index] = made;
  return made;
}

function prepareParticle(p: ParticleTable, tables: FolderTables): Particle {
  const max = p.x < 0 ? Infinity : p.x;
  if ('w' in p) {
    return {
      min: p.n,
      max,
      el: WILDCARD,
      name: '',
      seq: false,
      items: [],
      termNullable: false,
      nullable: p.n === 0,
      first: new Set(),
      wild: true,
      process: p.w,
      other: p.o,
    };
  }
  if ('e' in p) {
    const decl = tables.elements[p.e]!;
    return {
      min: p.n,
      max,
      el: p.e,
      name: decl.n,
      seq: false,
      items: [],
      termNullable: false,
      nullable: p.n === 0,
      first: new Set([decl.n]),
      wild: false,
      process: 'skip',
      other: null,
    };
  }
  const items = p.i.map((i) => prepareParticle(i, tables));
  const seq = p.g === 's';
  const termNullable = seq ? items.every((i) => i.nullable) : items.some((i) => i.nullable);
  const first = new Set<string>();
  let wild = false;
  for (const item of items) {
    for (const n of item.first) first.add(n);
    wild ||= item.wild;
    if (seq && !item.nullable) break;
  }
  return {
    min: p.n,
    max,
    el: -1,
    name: '',
    seq,
    items,
    termNullable,
    nullable: p.n === 0 || termNullable,
    first,
    wild,
    process: 'skip',
    other: null,
  };
}

/**
 * What the walk needs of an element declaration, gathered once per declaration: the tables' types come in five
 * shapes, and reading them for every element kept the walk's property loads polymorphic.
 */
interface DeclInfo {
  decl: ElementTable;
  /** Why the declaration cannot be checked here (left to libxml2), or null. */
  unsupported: string | null;
  attributes: readonly AttributeTable[];
  required: readonly AttributeTable[];
  /** xs:anyAttribute processContents="skip": undeclared attributes are allowed and not checked. */
  anyAttribute: boolean;
  /** The group a run of element-only content starts from, or null. */
  model: Particle | null;
  /** The value's type (simple type or simple content), or null. */
  value: CompiledSimple | null;
  /** Empty content: no text at all. */
  empty: boolean;
  /** Mixed content: text between the children is allowed and not checked. */
  mixed: boolean;
}

function declInfo(prepared: Prepared, index: number): DeclInfo {
  const { types, elements } = prepared.tables;
  const decl = elements[index]!;
  const type = types[decl.t];
  const info: DeclInfo = {
    decl,
    unsupported: null,
    attributes: [],
    required: [],
    anyAttribute: false,
    model: null,
    value: null,
    empty: false,
    mixed: false,
  };
  if (type === undefined || type.k === 'x') {
    info.unsupported = `${decl.n}: ${type?.k === 'x' ? type.why : 'no type'}`;
  } else {
    if (type.k === 'c') {
      info.attributes = type.a;
      info.required = type.a.filter((a) => a.r === 1);
      info.anyAttribute = type.aa === 1;
      info.empty = type.c === 0 && type.mx !== 1;
      info.mixed = type.mx === 1;
      if (type.c === 1) info.model = modelOf(prepared, decl.t, type.m!);
    }
    if (type.k === 's' || type.c === 2) {
      const valueType = type.k === 's' ? decl.t : type.s!;
      info.value = simpleOf(prepared, valueType);
      if (info.value === null) info.unsupported = `${decl.n}: ${whyOf(types[valueType])}`;
    }
  }
  prepared.decls[index] = info;
  return info;
}

/**
 * The content model of type `typeIndex` wrapped in a one-item sequence, so its own min/max are counted like
 * any item's; made once per type (runs only read their group). A group occurring exactly once (the usual
 * model) is its own run: the wrapper would add a level to every child's feed and count nothing.
 */
function modelOf(prepared: Prepared, typeIndex: number, particle: ParticleTable): Particle {
  const known = prepared.models[typeIndex];
  if (known !== undefined) return known;
  const model = prepareParticle(particle, prepared.tables);
  const wrapped: Particle =
    model.el === -1 && model.min === 1 && model.max === 1
      ? model
      : {
          min: 1,
          max: 1,
          el: -1,
          name: '',
          seq: true,
          items: [model],
          termNullable: model.nullable,
          nullable: model.nullable,
          first: model.first,
          wild: model.wild,
          process: 'skip',
          other: null,
        };
  prepared.models[typeIndex] = wrapped;
  return wrapped;
}

// ---------------------------------------------------------------------------------------------------------
// Content-model matching. The XSD's Unique Particle Attribution rule makes the greedy walk exact: at each
// child at most one particle can take it, so the first child no particle can take is where libxml2's automaton
// stops too, and an incomplete model at the end tag is its "Missing child element(s)".

interface Run {
  /** The group this run is one occurrence of. */
  g: Particle;
  /** Current item (sequence position, or the chosen branch of a choice; -1 = none chosen yet). */
  i: number;
  /** Occurrences of the current item so far. */
  cnt: number;
  /** The current item's in-progress occurrence, when it is a group. */
  sub: Run | null;
}

function newRun(g: Particle): Run {
  return { g, i: g.seq ? 0 : -1, cnt: 0, sub: null };
}

function itemSatisfied(item: Particle, run: Run): boolean {
  if (run.sub !== null && !complete(run.sub)) return false;
  return run.cnt >= item.min || item.termNullable;
}

function complete(run: Run): boolean {
  const g = run.g;
  if (!g.seq) {
    if (run.i < 0) return g.termNullable;
    return itemSatisfied(g.items[run.i]!, run);
  }
  if (run.i >= g.items.length) return true;
  if (!itemSatisfied(g.items[run.i]!, run)) return false;
  for (let k = run.i + 1; k < g.items.length; k++) if (!g.items[k]!.nullable) return false;
  return true;
}

/** Feeds one child element to a run: its particle (element declaration index), or -1 if it cannot go here. */
function feed(run: Run, name: string, ns: string, elements: readonly ElementTable[]): number {
  const g = run.g;
  for (;;) {
    if (!g.seq && run.i < 0) {
      const items = g.items;
      let branch = 0;
      while (branch < items.length && !items[branch]!.first.has(name)) branch++;
      // A branch opening with a wildcard only when no branch names the element.
      if (branch === items.length) {
        branch = 0;
        while (branch < items.length && !items[branch]!.wild) branch++;
      }
      if (branch === items.length) return -1;
      run.i = branch;
    }
    const item = g.items[run.i];
    if (item === undefined) return -1;
    if (item.el >= 0) {
      if (item.name === name && run.cnt < item.max && elements[item.el]!.ns === ns) {
        run.cnt++;
        return item.el;
      }
    } else if (item.el === WILDCARD) {
      if (run.cnt < item.max && (item.other === null || (ns !== item.other && ns !== ''))) {
        run.cnt++;
        return item.process === 'skip' ? WILDCARD : LAX_OR_STRICT;
      }
    } else {
      if (run.sub !== null) {
        const r = feed(run.sub, name, ns, elements);
        if (r >= 0) return r;
        if (!complete(run.sub)) return -1;
        run.sub = null;
      }
      if (run.cnt < item.max && (item.first.has(name) || item.wild)) {
        run.sub = newRun(item);
        run.cnt++;
        return feed(run.sub, name, ns, elements);
      }
    }
    if (!itemSatisfied(item, run)) return -1;
    if (!g.seq) return -1;
    run.i++;
    run.cnt = 0;
    run.sub = null;
    if (run.i >= g.items.length) return -1;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Simple values.

const UNSUPPORTED = Symbol('unsupported');
type ValueVerdict = null | string | typeof UNSUPPORTED;

// XSD 1.0 §3.2.16 Base64Binary: the character before the padding carries no leftover bits (libxml2 checks it).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=|[A-Za-z0-9+/][AQgw]==)?$/;
const NCNAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const URI = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]*$/;
const INTEGER = /^[+-]?[0-9]+$/;
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;
const TZ = '(?:Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?';
const DATE_TIME = new RegExp(
  `^-?[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?${TZ}$`,
);
const DATE = new RegExp(`^-?[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])${TZ}$`);
const G_YEAR_MONTH = new RegExp(`^-?[0-9]{4}-(0[1-9]|1[0-2])${TZ}$`);

function dayFits(value: string): boolean {
  const m = /^-?([0-9]{4})-([0-9]{2})-([0-9]{2})/.exec(value);
  if (!m) return true;
  const y = +m[1]!;
  const mo = +m[2]!;
  const d = +m[3]!;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

/** Digits of a decimal lexical form: [integer digits without leading zeros, fraction digits without trailing]. */
function digits(value: string): [string, string] {
  const unsigned = value.replace(/^[+-]/, '');
  const [int = '', frac = ''] = unsigned.split('.');
  return [int.replace(/^0+/, ''), frac.replace(/0+$/, '')];
}

function compareDecimal(a: string, b: string): number {
  const neg = (v: string): boolean => v.startsWith('-') && /[1-9]/.test(v);
  const [ai, af] = digits(a);
  const [bi, bf] = digits(b);
  const sa = neg(a) ? -1 : 1;
  const sb = neg(b) ? -1 : 1;
  if (sa !== sb) return sa - sb;
  let c = ai.length - bi.length || (ai < bi ? -1 : ai > bi ? 1 : 0);
  if (c === 0) {
    const len = Math.max(af.length, bf.length);
    const x = af.padEnd(len, '0');
    const y = bf.padEnd(len, '0');
    c = x < y ? -1 : x > y ? 1 : 0;
  }
  return sa * Math.sign(c);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Octets of a strict base64 value (checked before the facets). */
function octets(v: string): number {
  return (v.length / 4) * 3 - (v.endsWith('==') ? 2 : v.endsWith('=') ? 1 : 0);
}

function charLength(v: string): number {
  // XSD lengths count characters (code points), as libxml2's xmlUTF8Strlen does.
  return /[\uD800-\uDFFF]/.test(v) ? Array.from(v).length : v.length;
}

function checkValue(t: CompiledSimple, v: string, ids: Set<string>): ValueVerdict {
  // whiteSpace replace/collapse: a value they would change is left to libxml2 (ours never have one).
  if (t.b === 'base64Binary') {
    // Signatures and certificates often come wrapped in lines: base64 ignores the whitespace between its
    // characters (XSD 1.0 §3.2.16, as libxml2 does). Its types carry no other facet than patterns here.
    if (/[ \t\n]/.test(v)) v = v.replace(/[ \t\n]+/g, '');
  } else if (t.ws === 1 ? /[\t\n\r]/.test(v) : t.ws === 2 && /[\t\n\r]|^ | $| {2}/.test(v)) {
    return UNSUPPORTED;
  }
  switch (t.b) {
    case 'string':
    case 'normalizedString':
    case 'token':
      break;
    case 'ID':
      if (!NCNAME.test(v)) return UNSUPPORTED;
      // A repeated ID is an error libxml2 reports its own way: leave it to libxml2.
      if (ids.has(v)) return UNSUPPORTED;
      ids.add(v);
      break;
    case 'anyURI':
      if (!URI.test(v) || /%(?![0-9A-Fa-f]{2})/.test(v)) return UNSUPPORTED;
      break;
    case 'base64Binary':
      // Only the strict form is judged here: libxml2 takes some strays (a leading '-') and refuses others.
      if (!BASE64.test(v)) return UNSUPPORTED;
      break;
    case 'integer':
      if (!INTEGER.test(v)) return UNSUPPORTED;
      break;
    case 'decimal':
      if (!DECIMAL.test(v)) return UNSUPPORTED;
      break;
    case 'dateTime':
      if (!DATE_TIME.test(v) || !dayFits(v)) return UNSUPPORTED;
      break;
    case 'date':
      if (!DATE.test(v) || !dayFits(v)) return UNSUPPORTED;
      break;
    case 'gYearMonth':
      if (!G_YEAR_MONTH.test(v)) return UNSUPPORTED;
      break;
  }
  // Lengths of base64Binary count octets; bounds of gYearMonth compare plain YYYY-MM (others go to libxml2).
  const yearMonth = t.b === 'gYearMonth';
  if (yearMonth && !/^[0-9]{4}-[0-9]{2}$/.test(v) && t.facets.some((f) => f.k >= F_MIN_INCLUSIVE)) {
    return UNSUPPORTED;
  }
  const compare = yearMonth ? compareText : compareDecimal;
  let size = 0;
  for (const f of t.facets) {
    switch (f.k) {
      case F_PATTERN:
        if (!f.re!.test(v))
          return `[facet 'pattern'] The value '${v}' is not accepted by the pattern '${f.s}'.`;
        break;
      case F_ENUM:
        if (!f.set!.has(v)) {
          return `[facet 'enumeration'] The value '${v}' is not an element of the set {'${f.values.join("', '")}'}.`;
        }
        break;
      case F_LENGTH:
        size = t.b === 'base64Binary' ? octets(v) : charLength(v);
        if (size !== f.n) {
          return `[facet 'length'] The value '${v}' has a length of '${size}'; this differs from the allowed length of '${f.n}'.`;
        }
        break;
      case F_MIN_LENGTH:
        size = t.b === 'base64Binary' ? octets(v) : charLength(v);
        if (size < f.n) {
          return `[facet 'minLength'] The value '${v}' has a length of '${size}'; this underruns the allowed minimum length of '${f.n}'.`;
        }
        break;
      case F_MAX_LENGTH:
        size = t.b === 'base64Binary' ? octets(v) : charLength(v);
        if (size > f.n) {
          return `[facet 'maxLength'] The value '${v}' has a length of '${size}'; this exceeds the allowed maximum length of '${f.n}'.`;
        }
        break;
      case F_TOTAL_DIGITS: {
        const [i, fr] = digits(v);
        if (i.length + fr.length > f.n) {
          return `[facet 'totalDigits'] The value '${v}' has more digits than are allowed ('${f.n}').`;
        }
        break;
      }
      case F_FRACTION_DIGITS:
        if (digits(v)[1].length > f.n) {
          return `[facet 'fractionDigits'] The value '${v}' has more fractional digits than are allowed ('${f.n}').`;
        }
        break;
      case F_MIN_INCLUSIVE:
        if (compare(v, f.s) < 0) {
          return `[facet 'minInclusive'] The value '${v}' is less than the minimum value allowed ('${f.s}').`;
        }
        break;
      case F_MAX_INCLUSIVE:
        if (compare(v, f.s) > 0) {
          return `[facet 'maxInclusive'] The value '${v}' is greater than the maximum value allowed ('${f.s}').`;
        }
        break;
      case F_MIN_EXCLUSIVE:
        if (compare(v, f.s) <= 0)
          return `[facet 'minExclusive'] The value '${v}' must be greater than '${f.s}'.`;
        break;
      case F_MAX_EXCLUSIVE:
        if (compare(v, f.s) >= 0)
          return `[facet 'maxExclusive'] The value '${v}' must be less than '${f.s}'.`;
        break;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// The tokenizer and the walk.

// ASCII name characters: bit 1 may start a name, bit 2 may continue one (':' is handled apart). Names outside
// ASCII are left to libxml2 (none of the schemas declares one).
const NAME_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  NAME_CHARS[c] = /[A-Za-z_]/.test(ch) ? 3 : /[0-9.-]/.test(ch) ? 2 : 0;
}

// Set by scanName: where the local part starts (after the prefix's ':'), and a hash of the local part.
let scannedLocal = 0;
let scannedHash = 0;

/** End of the (optionally prefixed) name starting at `p`, or -1; sets scannedLocal and scannedHash. */
function scanName(xml: string, p: number): number {
  let c = xml.charCodeAt(p);
  if (!(c < 128 && (NAME_CHARS[c]! & 1) !== 0)) return -1;
  let colon = false;
  scannedLocal = p;
  let h = c;
  for (p++; ; p++) {
    c = xml.charCodeAt(p);
    if (c < 128 && (NAME_CHARS[c]! & 2) !== 0) {
      h = (Math.imul(h, 31) + c) | 0;
      continue;
    }
    if (c !== 0x3a || colon) {
      scannedHash = h;
      return p;
    }
    colon = true;
    scannedLocal = p + 1;
    c = xml.charCodeAt(p + 1);
    if (!(c < 128 && (NAME_CHARS[c]! & 1) !== 0)) return -1;
    h = 0;
  }
}

/** The same hash of a name as scanName's. */
function nameHash(name: string): number {
  let h = name.charCodeAt(0);
  for (let i = 1; i < name.length; i++) h = (Math.imul(h, 31) + name.charCodeAt(i)) | 0;
  return h;
}

/** `name` occurs in `xml` at `at` (a char-by-char compare: cheaper than startsWith for these short names). */
function sameAt(xml: string, at: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) if (xml.charCodeAt(at + i) !== name.charCodeAt(i)) return false;
  return true;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09;
}

const NAME = /[A-Za-z_][A-Za-z0-9_.-]*(?::[A-Za-z_][A-Za-z0-9_.-]*)?/y;
const ATTRIBUTE =
  /[ \t\n]+([A-Za-z_][A-Za-z0-9_.-]*(?::[A-Za-z_][A-Za-z0-9_.-]*)?)[ \t\n]*=[ \t\n]*(?:"([^"<]*)"|'([^'<]*)')/y;
const TAG_END = /[ \t\n]*(\/?)>/y;
const END_TAG_REST = /[ \t\n]*>/y;
/* eslint-disable no-control-regex -- the control characters XML forbids are what these look for */
// Characters XML 1.0 forbids, and lone surrogates.
const BAD_CHARS =
  /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// The declarations we write and receive; any other form (or encoding) is left to libxml2.
const XML_DECL =
  /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(?:"1\.0"|'1\.0')(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(?:"(?:UTF|utf)-8"|'(?:UTF|utf)-8'))?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\n]*\?>/y;
// A cheap first look for the characters BAD_CHARS names (any surrogate), then the exact test.
const MAYBE_BAD = /[\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;
function badChars(text: string): boolean {
  return MAYBE_BAD.test(text) && BAD_CHARS.test(text);
}
const TEXT_ATTENTION = /[&\]\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;
/* eslint-enable no-control-regex */
const PI_BODY = /^[A-Za-z_][A-Za-z0-9_.-]*(?:[ \t\n][\s\S]*)?$/;
const SPACE_ONLY = /^[ \t\n]*$/;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes references; undefined when one is not the five predefined entities or a valid character. */
function decode(text: string): string | undefined {
  let bad = false;
  const out = text.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|[A-Za-z]+);|&/g, (whole, ref: string | undefined) => {
    if (ref === undefined) {
      bad = true;
      return '';
    }
    if (ref[0] !== '#') {
      const e = ENTITIES[ref];
      if (e === undefined) bad = true;
      return e ?? '';
    }
    const cp = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    if (!(
      cp === 9 ||
      cp === 10 ||
      (cp >= 0x20 && cp <= 0xd7ff) ||
      (cp >= 0xe000 && cp <= 0xfffd) ||
      (cp >= 0x10000 && cp <= 0x10ffff)
    )) {
      bad = true;
      return '';
    }
    // A character reference to \r or to whitespace would escape normalization: leave those to libxml2.
    if (cp === 9 || cp === 10) bad = true;
    return String.fromCodePoint(cp);
  });
  return bad ? undefined : out;
}

interface Frame {
  qname: string;
  /** Offset of '<' of the start tag, to name the element's path on an error. */
  start: number;
  decl: ElementTable;
  /** Simple type or simple content: text is collected as the value. */
  simple: boolean;
  /** The value's type when `simple`. */
  value: CompiledSimple | null;
  /** Empty content: no text at all. */
  empty: boolean;
  /** Mixed content: text between the children is allowed and not checked. */
  mixed: boolean;
  /** Taken by a skipping wildcard (or inside one): nothing below is checked against the schema. */
  skip: boolean;
  run: Run | null;
  text: string;
  /** Default namespace and prefixes in scope. */
  dns: string;
  prefixes: Map<string, string> | null;
  /** xs:unique tables owned by this element: per constraint, keys seen. */
  uniques: Set<string>[] | null;
  /** A repeated xs:unique key, reported when the element ends. */
  dup: string | null;
}

class Unsupported {
  constructor(readonly reason: string) {}
}

interface Failure {
  offset: number;
  attribute: string | null;
  message: string;
}

const XMLNS_XML = 'http://www.w3.org/XML/1998/namespace';

export function check(
  xml: string,
  prepared: Prepared,
  rootFile: string,
  rootNs: string,
  rootName: string,
): CompiledVerdict {
  // XML 1.0 §2.11: every \r\n and lone \r reaches the application as \n.
  if (xml.includes('\r')) xml = xml.replace(/\r\n?/g, '\n');
  const r = walk(xml, prepared, rootFile, rootNs, rootName);
  if (r === null) return { ok: true };
  if (r instanceof Unsupported) return { ok: false, unsupported: true, reason: r.reason };
  // libxml2 parses the whole document before it validates: a document that is not well-formed further on
  // is its parse error, not this finding.
  if (!wellFormed(xml)) return { ok: false, unsupported: true, reason: 'not well-formed: left to libxml2' };
  const path = pathAt(xml, r.offset);
  if (path === null) return { ok: false, unsupported: true, reason: 'no path for the failing element' };
  return {
    ok: false,
    unsupported: false,
    path: r.attribute === null ? path : `${path}/@${r.attribute}`,
    message: r.message,
  };
}

function walk(
  xml: string,
  prepared: Prepared,
  rootFile: string,
  rootNs: string,
  rootName: string,
): Failure | Unsupported | null {
  const { tables } = prepared;
  const { types, elements } = tables;
  const ids = new Set<string>();
  // The open elements are FRAMES[0..depth): frames are reused from document to document, sparing an object
  // per element (about a third of what a check allocated: 85 -> 55 KB per NFC-e).
  const stack = FRAMES;
  let depth = 0;
  let pos = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  let seenRoot = false;
  const len = xml.length;
  while (pos < len) {
    const lt = xml.indexOf('<', pos);
    const textEnd = lt < 0 ? len : lt;
    if (textEnd > pos) {
      const top = depth > 0 ? stack[depth - 1] : undefined;
      if (top !== undefined && top.simple) {
        const raw = xml.slice(pos, textEnd);
        // One look for anything needing care (a reference, ']]>', a character XML forbids), usually none.
        if (TEXT_ATTENTION.test(raw)) {
          if (badChars(raw)) return new Unsupported('characters left to libxml2');
          if (raw.includes(']]>')) return new Unsupported('"]]>" in text');
          if (raw.includes('&')) {
            const d = decode(raw);
            if (d === undefined) return new Unsupported('reference left to libxml2');
            top.text += d;
          } else top.text += raw;
        } else top.text += raw;
      } else if (top !== undefined && top.mixed) {
        const raw = xml.slice(pos, textEnd);
        if (TEXT_ATTENTION.test(raw) && (badChars(raw) || raw.includes(']]>') || decode(raw) === undefined)) {
          return new Unsupported('text left to libxml2');
        }
      } else {
        // Between tags: only whitespace is expected; scanned in place, without a copy.
        let i = pos;
        for (; i < textEnd; i++) {
          const c = xml.charCodeAt(i);
          if (c !== 0x20 && c !== 0x0a && c !== 0x09) break;
        }
        if (top === undefined) {
          if (i < textEnd) return new Unsupported('text outside the root');
        } else if (i < textEnd || top.empty) {
          // Empty content takes no text at all, not even whitespace (libxml2 agrees); element-only takes spaces.
          const raw = xml.slice(pos, textEnd);
          if (badChars(raw) || raw.includes('&') || raw.includes(']]>')) {
            return new Unsupported('text left to libxml2');
          }
          return {
            offset: top.start,
            attribute: null,
            message: top.empty
              ? `Element '${clark(top.decl)}': Character content is not allowed, because the content type is empty.`
              : `Element '${clark(top.decl)}': Character content other than whitespace is not allowed because the content type is 'element-only'.`,
          };
        }
      }
    }
    if (lt < 0) break;
    const c1 = xml.charCodeAt(lt + 1);
    if (c1 === 0x2f /* / */) {
      // end tag
      if (depth === 0) return new Unsupported('end tag without start');
      const top = stack[--depth]!;
      if (!sameAt(xml, lt + 2, top.qname)) return new Unsupported('mismatched end tag');
      let q = lt + 2 + top.qname.length;
      while (isSpace(xml.charCodeAt(q))) q++;
      if (xml.charCodeAt(q) !== 0x3e) return new Unsupported('malformed end tag');
      pos = q + 1;
      const f = endElement(top, ids);
      if (f !== null) return f;
      continue;
    }
    if (c1 === 0x3f /* ? */) {
      const end = xml.indexOf('?>', lt + 2);
      if (end < 0) return new Unsupported('unterminated processing instruction');
      const isDecl = xml.startsWith('<?xml', lt) && /[ \t\n?]/.test(xml[lt + 5] ?? '');
      if (isDecl) {
        if (lt !== (xml.charCodeAt(0) === 0xfeff ? 1 : 0)) return new Unsupported('misplaced declaration');
        XML_DECL.lastIndex = lt;
        if (!XML_DECL.test(xml)) return new Unsupported('XML declaration left to libxml2');
      } else {
        const body = xml.slice(lt + 2, end);
        if (/^xml/i.test(body) || !PI_BODY.test(body) || badChars(body)) {
          return new Unsupported('processing instruction left to libxml2');
        }
        if (depth > 0 && stack[depth - 1]!.simple) {
          return new Unsupported('processing instruction in a value');
        }
      }
      pos = end + 2;
      continue;
    }
    if (c1 === 0x21 /* ! */) {
      if (xml.startsWith('<!--', lt)) {
        const end = xml.indexOf('-->', lt + 4);
        if (end < 0) return new Unsupported('unterminated comment');
        const body = xml.slice(lt + 4, end);
        if (body.includes('--') || body.endsWith('-') || badChars(body))
          return new Unsupported('malformed comment');
        const top = depth > 0 ? stack[depth - 1] : undefined;
        if (top !== undefined && top.simple) {
          return new Unsupported('comment in a value');
        }
        pos = end + 3;
        continue;
      }
      if (xml.startsWith('<![CDATA[', lt)) {
        const end = xml.indexOf(']]>', lt + 9);
        const top = depth > 0 ? stack[depth - 1] : undefined;
        if (end < 0 || top === undefined) return new Unsupported('CDATA section');
        const raw = xml.slice(lt + 9, end);
        if (badChars(raw)) return new Unsupported('characters left to libxml2');
        if (top.simple) top.text += raw;
        else if (!top.mixed) return new Unsupported('CDATA in element content');
        pos = end + 3;
        continue;
      }
      return new Unsupported('DOCTYPE or markup declaration');
    }
    // start tag, scanned by hand: a regex per tag and attribute costs more than the whole schema check
    const nameEnd = scanName(xml, lt + 1);
    if (nameEnd < 0) return new Unsupported('start tag name');
    const localStart = scannedLocal;
    // The tables' own string for a known local name, found by its hash without copying the name out, so the
    // content model compares names by identity.
    const known = nameOfHash(prepared.byHash, scannedHash);
    const local =
      known.length === nameEnd - localStart && sameAt(xml, localStart, known)
        ? known
        : xml.slice(localStart, nameEnd);
    const qn = localStart === lt + 1 ? local : xml.slice(lt + 1, nameEnd);
    let p = nameEnd;
    let attrs: [string, string][] | null = null;
    const parent = depth > 0 ? stack[depth - 1] : undefined;
    let dns = parent !== undefined ? parent.dns : '';
    let prefixes = parent !== undefined ? parent.prefixes : null;
    let selfClosing = false;
    for (;;) {
      let q = p;
      while (isSpace(xml.charCodeAt(q))) q++;
      const c = xml.charCodeAt(q);
      if (c === 0x3e /* > */) {
        pos = q + 1;
        break;
      }
      if (c === 0x2f /* / */) {
        if (xml.charCodeAt(q + 1) !== 0x3e) return new Unsupported('malformed start tag');
        pos = q + 2;
        selfClosing = true;
        break;
      }
      // An attribute: whitespace before it, name, '=', a quoted value without '<'.
      if (q === p) return new Unsupported('malformed start tag');
      const attrEnd = scanName(xml, q);
      if (attrEnd < 0) return new Unsupported('attribute name');
      const an = xml.slice(q, attrEnd);
      let r = attrEnd;
      while (isSpace(xml.charCodeAt(r))) r++;
      if (xml.charCodeAt(r) !== 0x3d /* = */) return new Unsupported('malformed attribute');
      r++;
      while (isSpace(xml.charCodeAt(r))) r++;
      const quote = xml.charCodeAt(r);
      if (quote !== 0x22 && quote !== 0x27) return new Unsupported('malformed attribute');
      const close = xml.indexOf(quote === 0x22 ? '"' : "'", r + 1);
      if (close < 0) return new Unsupported('malformed attribute');
      const rawValue = xml.slice(r + 1, close);
      p = close + 1;
      if (rawValue.includes('<') || badChars(rawValue))
        return new Unsupported('attribute value left to libxml2');
      if (rawValue.includes('\t') || rawValue.includes('\n'))
        return new Unsupported('attribute normalization');
      let value = rawValue;
      if (rawValue.includes('&')) {
        const d = decode(rawValue);
        if (d === undefined) return new Unsupported('reference in attribute');
        value = d;
      }
      if (an === 'xmlns') {
        dns = prepared.names.get(value) ?? value;
        continue;
      }
      if (an.startsWith('xmlns:')) {
        if (value === '') return new Unsupported('namespace undeclaration');
        prefixes = new Map(prefixes ?? []);
        prefixes.set(an.slice(6), prepared.names.get(value) ?? value);
        continue;
      }
      if (an.includes(':')) return new Unsupported('qualified attribute');
      attrs ??= [];
      for (const [n] of attrs) if (n === an) return new Unsupported('repeated attribute');
      attrs.push([an, value]);
    }
    let ns: string;
    if (localStart === lt + 1) ns = dns;
    else {
      const prefix = xml.slice(lt + 1, localStart - 1);
      const bound = prefix === 'xml' ? XMLNS_XML : prefixes?.get(prefix);
      if (bound === undefined) return new Unsupported('undeclared prefix');
      ns = bound;
    }
    // Which declaration: the root's global element, or the parent's content model.
    let declIndex: number;
    if (parent === undefined) {
      if (seenRoot) return new Unsupported('second root element');
      seenRoot = true;
      if (local !== rootName || ns !== rootNs) {
        const found = ns ? `{${ns}}${local}` : local;
        return {
          offset: lt,
          attribute: null,
          message: `Root element '${found}' is not the expected '{${rootNs}}${rootName}'.`,
        };
      }
      const globals = tables.roots[rootFile];
      const g = globals?.[`{${ns}}${local}`];
      if (g === undefined) return new Unsupported('root element not compiled');
      declIndex = g;
    } else {
      if (parent.skip) {
        // Inside what a skipping wildcard took: well-formed is all that is asked.
        if (!selfClosing) skipFrame(frameAt(depth++), qn, lt, dns, prefixes);
        continue;
      }
      if (parent.simple) return new Unsupported('element inside a simple value');
      if (parent.run === null) return new Unsupported('element inside empty content');
      declIndex = feed(parent.run, local, ns, elements);
      if (declIndex === LAX_OR_STRICT) return new Unsupported('element taken by a lax or strict wildcard');
      if (declIndex === WILDCARD) {
        if (parent.uniques !== null) return new Unsupported('wildcard child under xs:unique');
        if (!selfClosing) skipFrame(frameAt(depth++), qn, lt, dns, prefixes);
        continue;
      }
      if (declIndex < 0) {
        return {
          offset: lt,
          attribute: null,
          message: `Element '${ns ? `{${ns}}` : ''}${local}': This element is not expected.`,
        };
      }
    }
    const info = prepared.decls[declIndex] ?? declInfo(prepared, declIndex);
    if (info.unsupported !== null) return new Unsupported(info.unsupported);
    const decl = info.decl;
    if (attrs !== null) {
      for (const [an, value] of attrs) {
        let ad: AttributeTable | undefined;
        for (const d of info.attributes) {
          if (d.n === an) {
            ad = d;
            break;
          }
        }
        if (ad === undefined) {
          if (info.anyAttribute) continue; // xs:anyAttribute processContents="skip"
          return {
            offset: lt,
            attribute: an,
            message: `Element '${clark(decl)}', attribute '${an}': The attribute '${an}' is not allowed.`,
          };
        }
        const at = simpleOf(prepared, ad.t);
        if (at === null) return new Unsupported(`attribute ${an}: ${whyOf(types[ad.t])}`);
        const v = checkValue(at, value, ids);
        if (v === UNSUPPORTED) return new Unsupported(`attribute ${an} value`);
        if (v !== null) {
          return { offset: lt, attribute: an, message: `Element '${clark(decl)}', attribute '${an}': ${v}` };
        }
        if (ad.f !== undefined && value !== ad.f) {
          return {
            offset: lt,
            attribute: an,
            message: `Element '${clark(decl)}', attribute '${an}': The value '${value}' does not match the fixed value constraint '${ad.f}'.`,
          };
        }
      }
    }
    for (const ad of info.required) {
      if (attrs === null || !attrs.some(([n]) => n === ad.n)) {
        return {
          offset: lt,
          attribute: null,
          message: `Element '${clark(decl)}': The attribute '${ad.n}' is required but missing.`,
        };
      }
    }
    // A self-closing element's frame is the slot above the top, ended at once and left there.
    const frame = fillFrame(
      frameAt(depth),
      qn,
      lt,
      info,
      false,
      info.model === null ? null : newRun(info.model),
      dns,
      prefixes,
    );
    if (parent?.uniques) {
      // xs:unique over the parent's children keyed by one attribute (the only form compiled).
      const u = parent.decl.u!;
      for (let k = 0; k < u.length; k++) {
        const key = attrs?.find(([n]) => n === u[k]!.attr)?.[1];
        if (key === undefined) continue;
        const seen = parent.uniques[k]!;
        // libxml2 reports a repeated key at the end of the repeating element, after what is wrong inside it.
        if (seen.has(key)) {
          frame.dup ??= `Element '${clark(decl)}': Duplicate key-sequence ['${key}'] in unique identity-constraint '${u[k]!.name}'.`;
        }
        seen.add(key);
      }
    }
    if (selfClosing) {
      const f = endElement(frame, ids);
      if (f !== null) return f;
    } else {
      depth++;
    }
  }
  if (depth > 0 || !seenRoot) return new Unsupported('unterminated document');
  return null;
}

/** The tokenizer of walk() without the schema: tags balanced, one root, references decodable. */
function wellFormed(xml: string): boolean {
  if (BAD_CHARS.test(xml)) return false;
  const stack: string[] = [];
  let pos = xml.charCodeAt(0) === 0xfeff ? 1 : 0;
  let roots = 0;
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    const text = xml.slice(pos, lt < 0 ? xml.length : lt);
    if (
      stack.length === 0
        ? !SPACE_ONLY.test(text)
        : text.includes(']]>') || (text.includes('&') && decode(text) === undefined)
    ) {
      return false;
    }
    if (lt < 0) break;
    const c1 = xml.charCodeAt(lt + 1);
    if (c1 === 0x2f) {
      const top = stack.pop();
      if (top === undefined || !xml.startsWith(top, lt + 2)) return false;
      END_TAG_REST.lastIndex = lt + 2 + top.length;
      if (!END_TAG_REST.test(xml)) return false;
      pos = END_TAG_REST.lastIndex;
      continue;
    }
    if (c1 === 0x3f || c1 === 0x21) {
      const close =
        c1 === 0x3f
          ? '?>'
          : xml.startsWith('<!--', lt)
            ? '-->'
            : xml.startsWith('<![CDATA[', lt)
              ? ']]>'
              : null;
      if (close === null) return false;
      if (close === ']]>' && stack.length === 0) return false;
      const end = xml.indexOf(close, lt + 2);
      if (end < 0) return false;
      if (close === '-->' && xml.slice(lt + 4, end).includes('--')) return false;
      if (c1 === 0x3f && xml.startsWith('<?xml', lt)) {
        XML_DECL.lastIndex = lt;
        if (lt !== (xml.charCodeAt(0) === 0xfeff ? 1 : 0) || !XML_DECL.test(xml)) return false;
      }
      pos = end + close.length;
      continue;
    }
    NAME.lastIndex = lt + 1;
    const nm = NAME.exec(xml);
    if (nm === null) return false;
    let p = NAME.lastIndex;
    const names: string[] = [];
    for (;;) {
      ATTRIBUTE.lastIndex = p;
      const am = ATTRIBUTE.exec(xml);
      if (am === null) break;
      p = ATTRIBUTE.lastIndex;
      const value = am[2] ?? am[3]!;
      if (names.includes(am[1]!) || (value.includes('&') && decode(value) === undefined)) return false;
      names.push(am[1]!);
    }
    TAG_END.lastIndex = p;
    const te = TAG_END.exec(xml);
    if (te === null) return false;
    pos = TAG_END.lastIndex;
    if (stack.length === 0 && ++roots > 1) return false;
    if (te[1] !== '/') stack.push(nm[0]);
  }
  return stack.length === 0 && roots === 1;
}

const SKIPPED_DECL: ElementTable = { ns: '', n: '', t: -1 };
/** An element a skipping wildcard took, or one inside it: mixed, any attribute, nothing checked. */
const SKIPPED: DeclInfo = {
  decl: SKIPPED_DECL,
  unsupported: null,
  attributes: [],
  required: [],
  anyAttribute: true,
  model: null,
  value: null,
  empty: false,
  mixed: true,
};

/** The frames walk() reuses; a check runs to its end without yielding, so one set serves every check. */
const FRAMES: Frame[] = [];

function frameAt(depth: number): Frame {
  let frame = FRAMES[depth];
  if (frame === undefined) {
    frame = {
      qname: '',
      start: 0,
      decl: SKIPPED_DECL,
      simple: false,
      value: null,
      empty: false,
      mixed: true,
      skip: true,
      run: null,
      text: '',
      dns: '',
      prefixes: null,
      uniques: null,
      dup: null,
    };
    FRAMES[depth] = frame;
  }
  return frame;
}

function skipFrame(
  frame: Frame,
  qname: string,
  start: number,
  dns: string,
  prefixes: Map<string, string> | null,
): Frame {
  return fillFrame(frame, qname, start, SKIPPED, true, null, dns, prefixes);
}

/** Sets every field of a reused frame for the element starting at `start`. */
function fillFrame(
  frame: Frame,
  qname: string,
  start: number,
  info: DeclInfo,
  skip: boolean,
  run: Run | null,
  dns: string,
  prefixes: Map<string, string> | null,
): Frame {
  const decl = info.decl;
  frame.qname = qname;
  frame.start = start;
  frame.decl = decl;
  frame.simple = info.value !== null;
  frame.value = info.value;
  frame.empty = info.empty;
  frame.mixed = info.mixed;
  frame.skip = skip;
  frame.run = run;
  frame.text = '';
  frame.dns = dns;
  frame.prefixes = prefixes;
  frame.uniques = decl.u === undefined ? null : decl.u.map(() => new Set<string>());
  frame.dup = null;
  return frame;
}

function clark(decl: ElementTable): string {
  return decl.ns ? `{${decl.ns}}${decl.n}` : decl.n;
}

function endElement(frame: Frame, ids: Set<string>): Failure | Unsupported | null {
  const own = endContent(frame, ids);
  if (own !== null || frame.dup === null) return own;
  return { offset: frame.start, attribute: null, message: frame.dup };
}

function endContent(frame: Frame, ids: Set<string>): Failure | Unsupported | null {
  if (frame.value !== null) {
    const v = checkValue(frame.value, frame.text, ids);
    if (v === UNSUPPORTED) return new Unsupported(`value of ${frame.decl.n}`);
    if (v !== null)
      return { offset: frame.start, attribute: null, message: `Element '${clark(frame.decl)}': ${v}` };
    const fixed = frame.decl.f;
    if (fixed !== undefined && frame.text !== fixed) {
      // libxml2 compares the values after whiteSpace; our fixed elements are preserve strings: leave others.
      if (frame.value.ws !== 0) return new Unsupported('fixed value of a collapsed type');
      return {
        offset: frame.start,
        attribute: null,
        message: `Element '${clark(frame.decl)}': The value '${frame.text}' does not match the fixed value constraint '${fixed}'.`,
      };
    }
    return null;
  }
  if (frame.run !== null && !complete(frame.run)) {
    return {
      offset: frame.start,
      attribute: null,
      message: `Element '${clark(frame.decl)}': Missing child element(s).`,
    };
  }
  return null;
}

/**
 * The path of the element whose start tag is at `offset`, named as schema.ts names libxml2's errors: local
 * names from the root, with [n] where the element has same-named siblings. Errors are rare, so this walks the
 * document again rather than keep counts on the hot path.
 */
export function pathAt(xml: string, offset: number): string | null {
  interface Level {
    id: number;
    counts: Map<string, number>;
  }
  const stack: Level[] = [{ id: 0, counts: new Map() }];
  const tag =
    /<(\/?)([A-Za-z_][A-Za-z0-9_.:-]*)(?:[ \t\n]+[^ \t\n=>]+[ \t\n]*=[ \t\n]*(?:"[^"]*"|'[^']*'))*[ \t\n]*(\/?)>|<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>/g;
  let serial = 0;
  // Name and index of the open element at each depth.
  const open: { name: string; index: number }[] = [];
  let target: { name: string; index: number; parent: number }[] | null = null;
  const later: boolean[] = [];
  for (let m = tag.exec(xml); m !== null; m = tag.exec(xml)) {
    if (m[2] === undefined) continue;
    if (m[1] === '/') {
      stack.pop();
      if (stack.length === 0) break;
      continue;
    }
    const local = m[2].slice(m[2].indexOf(':') + 1);
    const level = stack[stack.length - 1]!;
    const index = (level.counts.get(local) ?? 0) + 1;
    level.counts.set(local, index);
    const depth = stack.length - 1;
    const id = ++serial;
    if (target === null && m.index === offset) {
      target = [];
      for (let d = 0; d <= depth; d++) target.push({ name: '', index: 0, parent: stack[d]!.id });
      for (let d = 0; d < depth; d++) Object.assign(target[d]!, open[d]!);
      Object.assign(target[depth]!, { name: local, index });
    } else if (target !== null) {
      const t = target[depth];
      if (t !== undefined && t.name === local && t.parent === level.id) later[depth] = true;
    }
    if (m[3] !== '/') {
      open[depth] = { name: local, index };
      stack.push({ id, counts: new Map() });
    }
  }
  if (target === null) return null;
  return target.map((t, d) => (t.index > 1 || later[d] ? `${t.name}[${t.index}]` : t.name)).join('/');
}

export function prepare(tables: FolderTables): Prepared {
  const names = new Map<string, string>();
  for (const e of tables.elements) {
    names.set(e.n, e.n);
    names.set(e.ns, e.ns);
  }
  const byHash = new Map<number, string>();
  const clash = new Set<number>();
  for (const e of tables.elements) {
    const h = nameHash(e.n);
    const other = byHash.get(h);
    if (other !== undefined && other !== e.n) clash.add(h);
    byHash.set(h, e.n);
  }
  for (const h of clash) byHash.delete(h);
  return { tables, simple: [], models: [], decls: [], names, byHash: namesByHash(byHash) };
}

function whyOf(t: TypeTable | undefined): string {
  return t === undefined ? 'no type' : t.k === 'x' ? t.why : 'not a simple type';
}

export type { Prepared };
