// The DOM-free reader against fast-xml-parser: the same tree (and so the same printable model) for every note
// we write, every XML fixture and real sample, and for thousands of generated and mutated documents; where
// the fast reader declines (null), the caller falls back to fast-xml-parser, so declining is always safe.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signedNote } from '../../test/fixtures/outputs/notes.ts';
import { signedCte, supplierNfeKey } from '../../test/fixtures/cte-sample.ts';
import { dceProcXml, fixture, manyItems } from '../../test/fixtures/outputs/dce.ts';
import { fastXmlTree } from './fast-tree.ts';
import { parseOutputDocument, xmlTreeReader } from './model.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const NFE_REPEATED = new Set([
  'det',
  'detPag',
  'dup',
  'vol',
  'lacres',
  'NFref',
  'obsCont',
  'obsFisco',
  'protNFe',
]);
const SETS: ReadonlySet<string>[] = [new Set(), NFE_REPEATED, new Set(['b', 'infDoc', 'Signature'])];

function xmlFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .flatMap((e) => (e.isFile() && e.name.endsWith('.xml') ? [path.join(e.parentPath, e.name)] : []));
}

const tributacao = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
function note(modelo: 55 | 65, items: number): string {
  return signedNote(modelo, {
    naturezaOperacao: 'Venda de mercadoria',
    ...(modelo === 55
      ? {
          customer: {
            cnpj: '11222333000181',
            nome: 'Mercado & Filhos <ME> "Central"',
            ie: '110042490114',
            endereco: {
              logradouro: "Rua D'Ajuda",
              numero: '2',
              bairro: 'Centro',
              codigoMunicipio: '3550308',
              uf: 'SP',
              cep: '01000000',
            },
          },
        }
      : {}),
    itens: Array.from({ length: items }, (_, i) => ({
      codigo: `P${i + 1}`,
      descricao: `Parafuso & porca <inox> ${i + 1} ação`,
      ncm: '73181500',
      unidade: 'CX',
      quantidade: 2,
      valor_unitario: '2.50',
      cfop: '5102',
      tributacao,
    })),
    pagamentos: [{ forma: '01', valor: (items * 5).toFixed(2) }],
  });
}

/** Our own documents: the fast reader must take every one of them. */
const ours: Array<[string, string]> = [
  ...xmlFiles(path.resolve(here, '../../test/fixtures/escpos')).map((f): [string, string] => [
    path.basename(f),
    fs.readFileSync(f, 'utf8'),
  ]),
  ['NF-e, 1 item', note(55, 1)],
  ['NF-e, 30 items', note(55, 30)],
  ['NFC-e, 3 items', note(65, 3)],
  ['CT-e, 5 NF-e', signedCte({ docsOriginarios: [1, 2, 3, 4, 5].map((n) => supplierNfeKey(n)) }).xml],
  ['DC-e, 12 items', dceProcXml(fixture({ items: manyItems(12) }))],
];
const others: Array<[string, string]> = [
  ...xmlFiles(path.resolve(here, '../../test/fixtures')),
  ...xmlFiles(path.resolve(here, '../../../shared/reference/samples')),
].map((f) => [path.relative(path.resolve(here, '../../..'), f), fs.readFileSync(f, 'utf8')]);

function slowTree(xml: string, repeated: ReadonlySet<string>): unknown {
  return xmlTreeReader(repeated, { fast: false })(xml);
}

describe('fastXmlTree gives the tree fast-xml-parser gives', () => {
  it.each(ours)('takes and reads %s', (_name, xml) => {
    for (const set of SETS) {
      const fast = fastXmlTree(xml, set);
      expect(fast).not.toBeNull();
      expect(fast).toEqual(slowTree(xml, set));
    }
  });

  it.each(others)('reads %s alike or declines', (_name, xml) => {
    for (const set of SETS) {
      const fast = fastXmlTree(xml, set);
      if (fast !== null) expect(fast).toEqual(slowTree(xml, set));
    }
  });

  it('the printable model is the same through either reader, for every NF-e and NFC-e', () => {
    let compared = 0;
    for (const [, xml] of [...ours, ...others]) {
      let slow;
      try {
        slow = parseOutputDocument(xml, { fastReader: false });
      } catch {
        expect(() => parseOutputDocument(xml)).toThrow();
        continue;
      }
      expect(parseOutputDocument(xml)).toEqual(slow);
      expect(parseOutputDocument(xml, { cancelled: true })).toEqual(
        parseOutputDocument(xml, { cancelled: true, fastReader: false }),
      );
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(8);
  });
});

// Generated documents: a few names (some prefixed, some repeated), attributes, text with entities, character
// references and whitespace, then mutated at the character level.
const names = fc.constantFrom('a', 'b', 'det', 'ds:c', 'x-y', 'b');
const textChar = fc.constantFrom(
  'a',
  'Z',
  '0',
  ' ',
  '\n',
  '\t',
  '\r',
  'ç',
  '&amp;',
  '&lt;',
  '&gt;',
  '&quot;',
  '&apos;',
  '&#65;',
  '&#xD;',
  '&#x1F600;',
  '&#160;',
  '\u00a0',
  '"',
  "'",
  '>',
);
const text = fc.array(textChar, { maxLength: 8 }).map((a) => a.join(''));
const attrName = fc.constantFrom('Id', 'versao', 'xmlns', 'xmlns:ds', 'ds:q', 'nItem');
const attrs = fc
  .uniqueArray(fc.tuple(attrName, text), { selector: (t) => t[0], maxLength: 3 })
  .map((list) =>
    list.map(([n, v]) => ` ${n}="${v.replaceAll('"', '&quot;').replaceAll('<', '&lt;')}"`).join(''),
  );
const space = fc.constantFrom('', ' ', '\n  ', '\t');
const { element } = fc.letrec((tie) => ({
  element: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(names, attrs, text, fc.boolean())
      .map(([n, a, t, selfClosing]) =>
        selfClosing && t === '' ? `<${n}${a}/>` : `<${n}${a}>${t.replaceAll('<', '&lt;')}</${n}>`,
      ),
    fc
      .tuple(names, attrs, fc.array(fc.tuple(space, tie('element')), { minLength: 1, maxLength: 4 }), space)
      .map(
        ([n, a, kids, end]) => `<${n}${a}>${kids.map(([s, k]) => `${s}${String(k)}`).join('')}${end}</${n}>`,
      ),
  ),
}));
const documentXml = fc
  .tuple(fc.boolean(), element)
  .map(([decl, root]) => `${decl ? '<?xml version="1.0" encoding="UTF-8"?>\n' : ''}${String(root)}`);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    s: fc.constantFrom(
      '<',
      '>',
      '&',
      ';',
      '/',
      '"',
      "'",
      '=',
      '?',
      '!',
      ' ',
      'a',
      ':',
      '<!-- c -->',
      '<![CDATA[x]]>',
      '&nbsp;',
      '&#0;',
      '\u2003',
      '<?pi x?>',
    ),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 6 }) }),
);
interface Mutation {
  kind: 'insert' | 'delete';
  at: number;
  s?: string;
  length?: number;
}
function mutate(xml: string, m: Mutation): string {
  const at = m.at % (xml.length + 1);
  return m.kind === 'insert'
    ? xml.slice(0, at) + (m.s ?? '') + xml.slice(at)
    : xml.slice(0, at) + xml.slice(at + (m.length ?? 1));
}

function sameOrDeclined(xml: string): void {
  for (const set of SETS) {
    const fast = fastXmlTree(xml, set);
    if (fast === null) continue;
    let slow: unknown;
    expect(() => (slow = slowTree(xml, set)), xml).not.toThrow();
    expect(fast, xml).toEqual(slow);
  }
}

describe('fastXmlTree on generated documents', () => {
  it('takes every generated well-formed document and reads it as fast-xml-parser does', () => {
    fc.assert(
      fc.property(documentXml, (xml) => {
        for (const set of SETS) {
          const fast = fastXmlTree(xml, set);
          expect(fast, xml).not.toBeNull();
          expect(fast, xml).toEqual(slowTree(xml, set));
        }
      }),
      { numRuns: 2000, seed: 18 },
    );
  });

  it('reads mutated documents alike or declines them', () => {
    fc.assert(
      fc.property(documentXml, fc.array(mutation, { minLength: 1, maxLength: 3 }), (xml, ms) => {
        sameOrDeclined(ms.reduce(mutate, xml));
      }),
      { numRuns: 4000, seed: 18 },
    );
  });

  it('mutates the real notes alike or declines them', () => {
    const notes = ours.map(([, xml]) => xml);
    fc.assert(
      fc.property(
        fc.constantFrom(...notes),
        fc.array(mutation, { minLength: 1, maxLength: 2 }),
        (xml, ms) => {
          sameOrDeclined(ms.reduce(mutate, xml));
        },
      ),
      { numRuns: 600, seed: 18 },
    );
  });
});
