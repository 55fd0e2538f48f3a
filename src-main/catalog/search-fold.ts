// Accent- and case-insensitive product search: "feijão" finds "FEIJAO" and "feijao" finds "FEIJÃO". The
// query is folded in JavaScript; the column is folded in SQL by the same table, since SQLite's lower() and
// LIKE only know ASCII.
import { sql, type RawBuilder } from 'kysely';

/** Accented letters of Portuguese (and the Latin-1 neighbours a catalogue imports), upper and lower case. */
const ACCENTED: Readonly<Record<string, string>> = {
  a: 'áàâãäå',
  e: 'éèêë',
  i: 'íìîï',
  o: 'óòôõö',
  u: 'úùûü',
  c: 'ç',
  n: 'ñ',
  y: 'ýÿ',
};

const PAIRS: readonly (readonly [string, string])[] = Object.entries(ACCENTED).flatMap(([plain, letters]) =>
  [...letters].flatMap((l) => [[l, plain] as const, [l.toUpperCase(), plain] as const]),
);

/** Lower case without accents: what both sides of the comparison become. */
export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** SQL folding a text column the way foldText folds the query (lower() after the accents are gone). */
export function foldColumn(column: string): RawBuilder<string> {
  let expression: RawBuilder<string> = sql<string>`${sql.ref(column)}`;
  for (const [accented, plain] of PAIRS)
    expression = sql<string>`replace(${expression}, ${accented}, ${plain})`;
  return sql<string>`lower(${expression})`;
}

/** `%text%` for LIKE … ESCAPE '\', the query folded and its wildcards taken literally. */
export function containsPattern(query: string): string {
  return `%${foldText(query).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
