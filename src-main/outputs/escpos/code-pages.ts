// Character tables of the ESC t code pages we drive (resources/escpos/code-pages.json) and the text encoder
// that degrades what a page cannot print to its closest plain form instead of emitting a wrong glyph.
import fs from 'node:fs';
import { resourcePath } from '../../paths.ts';

export type CodePageId = 'pc437' | 'pc850' | 'pc860' | 'wpc1252';

export const CODE_PAGE_IDS: readonly CodePageId[] = ['pc437', 'pc850', 'pc860', 'wpc1252'];

/**
 * PC850 is the default: it has every letter Portuguese needs (ÁÉÍÓÚ ÂÊÔ ÃÕ Ç À Ü and lower case) and, unlike
 * PC860, also ñ, ä, ö, ß and the rest of Latin-1, which turn up in customers' and products' names; and it
 * sits at ESC t 2 on every ESC/POS firmware we know of (Epson, Elgin, Bematech, Daruma, Tanca and the
 * generic 58 mm printers), while PC860 and WPC1252 are missing from some of the cheaper ones.
 */
export const DEFAULT_CODE_PAGE: CodePageId = 'pc850';

export interface CodePage {
  id: CodePageId;
  /** n of ESC t n (Epson numbering, followed by the other ESC/POS vendors). */
  escT: number;
  name: string;
  /** Character of each byte 0x80–0xFF; U+FFFD where the page has none. */
  high: string;
}

interface CodePageFile {
  [id: string]: { escT: number; name: string; high: string };
}

const NO_CHARACTER = '\ufffd';

function loadPages(): Map<CodePageId, CodePage> {
  const file = resourcePath('escpos', 'code-pages.json');
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as CodePageFile;
  const pages = new Map<CodePageId, CodePage>();
  for (const id of CODE_PAGE_IDS) {
    const entry = data[id];
    if (entry === undefined) throw new Error(`code page ${id} missing from code-pages.json`);
    const high = [...entry.high];
    if (high.length !== 128) throw new Error(`code page ${id}: ${high.length} characters, expected 128`);
    pages.set(id, { id, escT: entry.escT, name: entry.name, high: entry.high });
  }
  return pages;
}

let pages: Map<CodePageId, CodePage> | undefined;
const encoders = new Map<CodePageId, Map<string, number>>();
const decoders = new Map<CodePageId, string[]>();

export function codePage(id: CodePageId): CodePage {
  pages ??= loadPages();
  const page = pages.get(id);
  if (page === undefined) throw new RangeError(`unknown code page '${id}'`);
  return page;
}

/** The page selected by ESC t n, or undefined when we have no table for n. */
export function codePageByEscT(n: number): CodePage | undefined {
  pages ??= loadPages();
  for (const page of pages.values()) if (page.escT === n) return page;
  return undefined;
}

function encoderOf(id: CodePageId): Map<string, number> {
  const cached = encoders.get(id);
  if (cached !== undefined) return cached;
  const map = new Map<string, number>();
  for (let b = 0x20; b < 0x7f; b++) map.set(String.fromCharCode(b), b);
  [...codePage(id).high].forEach((ch, i) => {
    // No-break space and soft hyphen print as a plain space or nothing, whatever byte a page gives them.
    if (ch !== NO_CHARACTER && ch !== '\u00a0' && ch !== '\u00ad' && !map.has(ch)) map.set(ch, 0x80 + i);
  });
  encoders.set(id, map);
  return map;
}

/** Characters a receipt may contain that no page has, and the plain text a cashier would type instead. */
const PLAIN_FORMS: Readonly<Record<string, string>> = {
  '\u00a0': ' ',
  '\u2002': ' ',
  '\u2003': ' ',
  '\u2009': ' ',
  '\u00ad': '',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u00b4': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u00ab': '"',
  '\u00bb': '"',
  '\u2026': '...',
  '\u2022': '*',
  '\u00b7': '.',
  '\u00d7': 'x',
  '\u20ac': 'EUR',
  '\u00aa': 'a',
  '\u00ba': 'o',
  '\u00b0': 'o',
  '\u00bd': '1/2',
  '\u00bc': '1/4',
  '\u00be': '3/4',
  '\u00b2': '2',
  '\u00b3': '3',
  '\u00b9': '1',
  '\u00df': 'ss',
  '\u00e6': 'ae',
  '\u00c6': 'AE',
  '\u0153': 'oe',
  '\u0152': 'OE',
  '\u00f8': 'o',
  '\u00d8': 'O',
  '\u0131': 'i',
  '\u0142': 'l',
  '\u0141': 'L',
  '\u00f0': 'd',
  '\u00d0': 'D',
  '\u00fe': 'th',
  '\u00de': 'TH',
};

/**
 * Text for one code page: each character the page has becomes its byte; the others lose their accent
 * (NFD without combining marks: "Ã" → "A" on PC437), then take a plain form ("–" → "-"), and what is still
 * left becomes "?". Control characters other than what the caller writes as commands are dropped.
 */
export function encodeText(text: string, id: CodePageId): Uint8Array {
  // Most receipt text is printable ASCII, which every page maps to itself (and NFC leaves as it is).
  if (PRINTABLE_ASCII.test(text)) {
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }
  const map = encoderOf(id);
  const memo = memoOf(id);
  const out: number[] = [];
  const pushPlain = (ch: string, depth: number): void => {
    const direct = map.get(ch);
    if (direct !== undefined) {
      out.push(direct);
      return;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return;
    if (depth > 2) {
      out.push(0x3f);
      return;
    }
    const plain = PLAIN_FORMS[ch];
    if (plain !== undefined) {
      for (const c of plain) pushPlain(c, depth + 1);
      return;
    }
    const stripped = ch.normalize('NFD').replace(/\p{M}/gu, '');
    if (stripped !== ch && stripped !== '') {
      for (const c of stripped) pushPlain(c, depth + 1);
      return;
    }
    out.push(0x3f);
  };
  // NFC first so "A" + combining tilde finds the page's "Ã".
  for (const ch of text.normalize('NFC')) {
    const direct = map.get(ch);
    if (direct !== undefined) {
      out.push(direct);
      continue;
    }
    // What a character outside the page becomes depends only on the character and the page: worked out once.
    let bytes = memo.get(ch);
    if (bytes === undefined) {
      const start = out.length;
      pushPlain(ch, 0);
      bytes = out.slice(start);
      memo.set(ch, bytes);
    } else for (const b of bytes) out.push(b);
  }
  return Uint8Array.from(out);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Per page: the bytes of each character the page does not have (its plain form, or "?"). */
const fallbacks = new Map<CodePageId, Map<string, number[]>>();

function memoOf(id: CodePageId): Map<string, number[]> {
  let memo = fallbacks.get(id);
  if (memo === undefined) {
    memo = new Map();
    fallbacks.set(id, memo);
  }
  return memo;
}

/** How `text` will print on page `id` (what encodeText produces, read back). */
export function printedForm(text: string, id: CodePageId): string {
  // Printable ASCII prints as itself on every page.
  if (PRINTABLE_ASCII.test(text)) return text;
  return decodeText(encodeText(text, id), id);
}

/** Bytes ≥ 0x20 back to text through page `id` (U+FFFD for bytes the page leaves undefined). */
export function decodeText(bytes: Uint8Array, id: CodePageId): string {
  let table = decoders.get(id);
  if (table === undefined) {
    table = [...codePage(id).high];
    decoders.set(id, table);
  }
  let text = '';
  for (const b of bytes) text += b < 0x80 ? String.fromCharCode(b) : (table[b - 0x80] ?? NO_CHARACTER);
  return text;
}
