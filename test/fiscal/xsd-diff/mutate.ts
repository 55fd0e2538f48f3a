// Mutations of a valid document for the differential XSD test, as fast-check arbitraries: each mutation is a
// small plain object (which element, what to do) applied to a copy of the parsed document, so a failing case
// prints as data and replays exactly from the fixed seed.
import fc from 'fast-check';
import {
  allElements,
  childElements,
  cloneDoc,
  cloneEl,
  escapeXmlText,
  isLeaf,
  localName,
  serializeXml,
  setText,
  textOf,
  type XmlDoc,
  type XmlEl,
} from './tree.ts';

/** How a text is changed to break (or, for the encodings, to keep) its simple type's facets. */
export const TEXT_CHANGES = [
  'too-long', // the last character repeated: breaks maxLength/length/{n} while staying in the character class
  'too-short', // the last character dropped: minLength/length/{n}
  'empty',
  'off-pattern', // one character replaced by a letter, a space, a dash or an accented letter
  'enumeration', // a value no enumeration of ours lists
  'total-digits', // nine more integer digits
  'fraction-digits', // one more fraction digit (or a fraction where there is none)
  'negative',
  'spaces', // leading and trailing spaces: whiteSpace collapse vs preserve
  'inner-whitespace', // a tab and a line break inside
  'char-refs', // the same value written as character references: must not change the verdict
  'entity-chars', // markup characters (escaped) added: &, <, >
  'number-forms', // "+1", "01.00", "1e2", ".5", "1.": lexical forms a decimal pattern or xs:decimal may refuse
  'char-edge', // last character replaced at a range edge: U+00FF, U+0100, U+00A0, DEL, an astral emoji
  'cdata', // the same value in a CDATA section: must not change the verdict
  'comment-inside', // a comment splitting the value: the value is the text around it, unchanged
  'digit-run', // 0 to 20 digits: every length a counted pattern ({2}|{8}, {12,14}, {0,12}) may allow or not
  // The value of an element of the same name elsewhere in the corpus: often valid, and a test of local
  // declarations that share a name but not a type (CST of ICMS00, of PISAliq, of IBSCBS; vBC; tpAmb).
  'same-name-value',
] as const;
export type TextChange = (typeof TEXT_CHANGES)[number];

export const ATTR_CHANGES = [
  'remove',
  'empty',
  'off-pattern',
  'unknown',
  'too-long',
  'namespace',
  'spaces', // leading and trailing spaces: attribute values are normalized, then whiteSpace applies
  'char-refs', // the same value as character references
] as const;
export type AttrChange = (typeof ATTR_CHANGES)[number];

export const INSERTS = [
  'unknown',
  'foreign-namespace',
  'borrowed',
  'text-in-element-content',
  'comment', // ignored by validation: must not change the verdict
  'processing-instruction', // likewise
] as const;
export type InsertKind = (typeof INSERTS)[number];

/** Numbers pick elements modulo what the document has, so one mutation applies to any document. */
export type Mutation =
  | { op: 'delete'; target: number }
  | { op: 'duplicate'; target: number }
  | { op: 'swap'; target: number; other: number }
  | { op: 'move'; target: number; dest: number; at: number }
  | { op: 'text'; target: number; change: TextChange; pick: number }
  | { op: 'attr'; target: number; change: AttrChange; pick: number }
  | { op: 'insert'; target: number; what: InsertKind; at: number; pick: number }
  | { op: 'rename'; target: number; pick: number }
  | { op: 'repeat'; target: number; pick: number };

const n = fc.nat({ max: 1_000_000 });

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), target: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('duplicate' as const), target: n }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('swap' as const), target: n, other: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('move' as const), target: n, dest: n, at: n }) },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('text' as const),
      target: n,
      change: fc.constantFrom(...TEXT_CHANGES),
      pick: n,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('attr' as const),
      target: n,
      change: fc.constantFrom(...ATTR_CHANGES),
      pick: n,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rename' as const), target: n, pick: n }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('repeat' as const), target: n, pick: n }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      target: n,
      what: fc.constantFrom(...INSERTS),
      at: n,
      pick: n,
    }),
  },
);

export interface Applied {
  xml: string;
  /** What was done, with the element's path in the original document. */
  description: string;
}

/** Element path with local names and [n] for same-named siblings (only for the descriptions). */
function pathOf(doc: XmlDoc, target: XmlEl): string {
  const steps: string[] = [];
  const walk = (el: XmlEl): boolean => {
    if (el === target) return true;
    const kids = childElements(el);
    for (const c of kids) {
      const same = kids.filter((k) => k.name === c.name);
      steps.push(same.length > 1 ? `${c.name}[${same.indexOf(c) + 1}]` : c.name);
      if (walk(c)) return true;
      steps.pop();
    }
    return false;
  };
  walk(doc.root);
  return [doc.root.name, ...steps].join('/');
}

function changedText(text: string, change: TextChange, pick: number): string {
  const last = text.slice(-1) || '1';
  switch (change) {
    case 'too-long':
      return text + last.repeat([1, 3, 62, 2001][pick % 4] as number);
    case 'too-short':
      return text.length > 1 ? text.slice(0, pick % 2 === 0 ? -1 : 1) : '';
    case 'empty':
      return '';
    case 'off-pattern': {
      const at = text.length === 0 ? 0 : pick % text.length;
      const by = ['A', ' ', '-', 'é', 'x', '0'][Math.floor(pick / 7) % 6] as string;
      return text.slice(0, at) + by + text.slice(at + 1);
    }
    case 'enumeration':
      return ['7', '99', 'X', '00', '1.00', 'ZZ'][pick % 6] as string;
    case 'total-digits':
      return '999999999' + text;
    case 'fraction-digits':
      return text.includes('.') ? `${text}1` : `${text}.001`;
    case 'negative':
      return `-${text}`;
    case 'digit-run':
      return '7'.repeat(pick % 21);
    case 'number-forms':
      return [`+${text}`, `0${text}`, '1e2', '.5', `${text}.`, '0.00'][pick % 6] as string;
    case 'char-edge':
      return (
        text.slice(0, -1) + (['\u00ff', '\u0100', '\u00a0', '\u007f', '\u{1f600}', '~'][pick % 6] as string)
      );
    case 'spaces':
      return ` ${text} `;
    case 'inner-whitespace':
      return text.length < 2 ? `${text}\t\n` : `${text.slice(0, 1)}\t\n${text.slice(1)}`;
    default:
      return text;
  }
}

/**
 * Applies `m` to a copy of `doc`; null when it does not apply (no such element, nothing to change), so the
 * caller counts it as skipped rather than checking the same document twice.
 */
/** Texts of the corpus by element local name, for 'same-name-value'. */
export type ValuePool = ReadonlyMap<string, readonly string[]>;

export function valuePool(docs: readonly XmlDoc[]): ValuePool {
  const pool = new Map<string, Set<string>>();
  for (const doc of docs) {
    for (const { el } of allElements(doc)) {
      if (!isLeaf(el)) continue;
      const name = localName(el.name);
      const values = pool.get(name) ?? new Set<string>();
      values.add(textOf(el));
      pool.set(name, values);
    }
  }
  return new Map([...pool].map(([k, v]) => [k, [...v].sort()]));
}

export function applyMutation(doc: XmlDoc, m: Mutation, pool: ValuePool = new Map()): Applied | null {
  const copy = cloneDoc(doc);
  const all = allElements(copy);
  const nonRoot = all.slice(1);
  const describe = (el: XmlEl, what: string): string => `${what} ${pathOf(doc, originalOf(doc, copy, el))}`;
  switch (m.op) {
    case 'delete':
    case 'duplicate': {
      const entry = nonRoot[m.target % Math.max(1, nonRoot.length)];
      if (!entry?.parent) return null;
      const { el, parent } = entry;
      const i = parent.children.indexOf(el);
      const description = describe(el, m.op);
      if (m.op === 'delete') parent.children.splice(i, 1);
      else parent.children.splice(i + 1, 0, structuredClone(el));
      return { xml: serializeXml(copy), description };
    }
    case 'swap': {
      const entry = nonRoot[m.target % Math.max(1, nonRoot.length)];
      if (!entry?.parent) return null;
      const siblings = childElements(entry.parent).filter((s) => s !== entry.el && s.name !== entry.el.name);
      const other = siblings[m.other % Math.max(1, siblings.length)];
      if (!other) return null;
      const description = `${describe(entry.el, 'swap')} with ${other.name}`;
      const kids = entry.parent.children;
      const a = kids.indexOf(entry.el);
      const b = kids.indexOf(other);
      kids[a] = other;
      kids[b] = entry.el;
      return { xml: serializeXml(copy), description };
    }
    case 'move': {
      const entry = nonRoot[m.target % Math.max(1, nonRoot.length)];
      if (!entry?.parent) return null;
      const inside = new Set(allElements({ prolog: '', root: entry.el, epilog: '' }).map((e) => e.el));
      const dests = all.filter((e) => !inside.has(e.el) && e.el !== entry.parent && !isLeafWithText(e.el));
      const dest = dests[m.dest % Math.max(1, dests.length)]?.el;
      if (!dest) return null;
      const description = `${describe(entry.el, 'move')} into ${describe(dest, '').trim()}`;
      entry.parent.children.splice(entry.parent.children.indexOf(entry.el), 1);
      dest.children.splice(m.at % (dest.children.length + 1), 0, entry.el);
      return { xml: serializeXml(copy), description };
    }
    case 'text': {
      const leaves = nonRoot.filter((e) => isLeaf(e.el));
      const entry = leaves[m.target % Math.max(1, leaves.length)];
      if (!entry) return null;
      const el = entry.el;
      const text = textOf(el);
      if (m.change === 'same-name-value') {
        const values = (pool.get(localName(el.name)) ?? []).filter((v) => v !== text);
        const value = values[m.pick % Math.max(1, values.length)];
        if (value === undefined) return null;
        setText(el, value);
      } else if (m.change === 'cdata' || m.change === 'comment-inside') {
        if (text === '' || text.includes(']]>')) return null;
        const cut = Math.max(1, Math.min(text.length - 1, m.pick % text.length));
        el.children = [
          m.change === 'cdata'
            ? { kind: 'text', raw: `<![CDATA[${text}]]>` }
            : {
                kind: 'text',
                raw: `${escapeXmlText(text.slice(0, cut))}<!-- x -->${escapeXmlText(text.slice(cut))}`,
              },
        ];
      } else if (m.change === 'char-refs') {
        if (text === '') return null;
        el.children = [
          {
            kind: 'text',
            raw: [...text].map((c) => `&#x${(c.codePointAt(0) as number).toString(16)};`).join(''),
          },
        ];
      } else if (m.change === 'entity-chars') {
        // Same length, the last character replaced by an escaped markup character.
        el.children = [
          { kind: 'text', raw: escapeXmlText(text.slice(0, -1) + (['&', '<', '>'][m.pick % 3] as string)) },
        ];
      } else {
        const next = changedText(text, m.change, m.pick);
        if (next === text) return null;
        setText(el, next);
      }
      return {
        xml: serializeXml(copy),
        description: `${describe(el, `text ${m.change}`)} (was ${JSON.stringify(text.slice(0, 60))})`,
      };
    }
    case 'attr': {
      const isXmlns = (name: string): boolean => name === 'xmlns' || name.startsWith('xmlns:');
      const withAttrs =
        m.change === 'unknown'
          ? all
          : all.filter((e) => e.el.attrs.some((a) => isXmlns(a.name) === (m.change === 'namespace')));
      const entry = withAttrs[m.target % Math.max(1, withAttrs.length)];
      if (!entry) return null;
      const el = entry.el;
      if (m.change === 'namespace') {
        // The default namespace (or a prefix's) moved or dropped: every element in its scope changes name.
        const decl =
          el.attrs.filter((a) => isXmlns(a.name))[m.pick % 2] ?? el.attrs.find((a) => isXmlns(a.name));
        if (!decl) return null;
        const description = describe(
          el,
          `namespace ${m.pick % 3 === 0 ? 'removed' : 'changed'} @${decl.name}`,
        );
        if (m.pick % 3 === 0 && decl.name === 'xmlns') el.attrs.splice(el.attrs.indexOf(decl), 1);
        else decl.value = `${decl.value}/outro`;
        return { xml: serializeXml(copy), description };
      }
      if (m.change === 'unknown') {
        // Id with the value of another Id of the document: xs:ID values must be unique (libxml2 checks it).
        const ids = all.flatMap((e) => e.el.attrs.filter((a) => a.name === 'Id').map((a) => a.value));
        const duplicateId = m.pick % 5 === 4 ? ids[0] : undefined;
        if (m.pick % 5 === 4 && duplicateId === undefined) return null;
        el.attrs.push({
          name: ['foo', 'Id', 'versao', 'xmlns:x', 'Id'][m.pick % 5] as string,
          value: duplicateId ?? 'x1',
        });
        if (new Set(el.attrs.map((a) => a.name)).size !== el.attrs.length) return null; // duplicate: not XML
        return { xml: serializeXml(copy), description: describe(el, `attr add ${el.attrs.at(-1)?.name}`) };
      }
      const own = el.attrs.filter((a) => !isXmlns(a.name));
      const attr = own[m.pick % own.length];
      if (!attr) return null;
      const before = attr.value;
      // The value is kept raw: an edit next to a reference (&#x41;, &amp;) could break it rather than the value.
      if (before.includes('&') && m.change !== 'remove' && m.change !== 'empty') return null;
      if (m.change === 'remove') el.attrs.splice(el.attrs.indexOf(attr), 1);
      else if (m.change === 'empty') attr.value = '';
      else if (m.change === 'too-long') attr.value = before + (before.slice(-1) || '1').repeat(3);
      else if (m.change === 'spaces') attr.value = ` ${before} `;
      else if (m.change === 'char-refs')
        attr.value = [...before].map((c) => `&#x${(c.codePointAt(0) as number).toString(16)};`).join('');
      else attr.value = `${before.slice(0, -1)}Z`;
      if (m.change !== 'remove' && m.change !== 'char-refs' && attr.value === before) return null;
      if (m.change === 'char-refs' && before === '') return null;
      return { xml: serializeXml(copy), description: describe(el, `attr ${m.change} @${attr.name}`) };
    }
    case 'repeat': {
      // Many copies of an element that may repeat: past maxOccurs 20 (infCorrecao, NFref groups), 100 (detPag),
      // 120 (dup) or at the edge of it.
      const entry = nonRoot[m.target % Math.max(1, nonRoot.length)];
      if (!entry?.parent) return null;
      const copies = [19, 20, 99, 100, 119, 120][m.pick % 6] as number;
      const description = describe(entry.el, `repeat x${copies + 1}`);
      const i = entry.parent.children.indexOf(entry.el);
      entry.parent.children.splice(i + 1, 0, ...Array.from({ length: copies }, () => cloneEl(entry.el)));
      return { xml: serializeXml(copy), description };
    }
    case 'rename': {
      // Renamed after another element of the document: a different branch of a choice (CPF/CNPJ, ICMS00/
      // ICMS20) or a name out of place; the prefix, attributes and content stay.
      const entry = nonRoot[m.target % Math.max(1, nonRoot.length)];
      const donor = nonRoot[m.pick % Math.max(1, nonRoot.length)]?.el;
      if (!entry || !donor || donor.name === entry.el.name) return null;
      const description = `${describe(entry.el, 'rename')} to ${donor.name}`;
      entry.el.name = donor.name;
      return { xml: serializeXml(copy), description };
    }
    case 'insert': {
      const parents = all.filter((e) => !isLeafWithText(e.el));
      const entry = parents[m.target % Math.max(1, parents.length)];
      if (!entry) return null;
      const el = entry.el;
      const at = m.at % (el.children.length + 1);
      let node: XmlEl | { kind: 'text'; raw: string };
      if (m.what === 'unknown')
        node = { kind: 'element', name: 'xDesconhecido', attrs: [], children: [{ kind: 'text', raw: '1' }] };
      else if (m.what === 'foreign-namespace')
        node = {
          kind: 'element',
          name: 'o:extra',
          attrs: [{ name: 'xmlns:o', value: 'urn:outro' }],
          children: [],
        };
      else if (m.what === 'borrowed') {
        const donor = nonRoot[m.pick % Math.max(1, nonRoot.length)]?.el;
        if (!donor) return null;
        node = structuredClone(donor);
      } else if (m.what === 'comment') node = { kind: 'text', raw: '<!-- comentario -->' };
      else if (m.what === 'processing-instruction') node = { kind: 'text', raw: '<?balcao teste?>' };
      else node = { kind: 'text', raw: 'texto solto' };
      const what = node.kind === 'element' ? `<${node.name}>` : 'text';
      const description = describe(el, `insert ${m.what} ${what} at ${at} in`);
      el.children.splice(at, 0, node);
      return { xml: serializeXml(copy), description };
    }
  }
}

/** A leaf that holds text: inserting an element there makes mixed content, which the text mutations cover. */
const isLeafWithText = (el: XmlEl): boolean => isLeaf(el) && el.children.length > 0;

/** The element of the original document at the same position as `el` in its copy. */
function originalOf(doc: XmlDoc, copy: XmlDoc, el: XmlEl): XmlEl {
  const i = allElements(copy).findIndex((e) => e.el === el);
  return allElements(doc)[i]?.el ?? doc.root;
}
