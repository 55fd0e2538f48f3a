// The 12 × 24 bitmap font the receipt preview draws font A with (Spleen, Latin-1 subset, BDF in
// resources/escpos/): the same cell as the printers' font A, so a preview column is a printed column.
import fs from 'node:fs';
import { resourcePath } from '../../paths.ts';

export const CELL_WIDTH = 12;
export const CELL_HEIGHT = 24;

export interface BitmapFont {
  /** Rows of each glyph, top to bottom; bit 15 is the leftmost dot. */
  glyphs: Map<number, Uint16Array>;
}

/** Reads the BITMAP rows of a fixed-cell BDF font whose glyphs fill the whole cell. */
export function parseBdf(text: string): BitmapFont {
  const glyphs = new Map<number, Uint16Array>();
  const lines = text.split(/\r?\n/);
  let encoding: number | null = null;
  let rows: number[] | null = null;
  for (const line of lines) {
    if (line.startsWith('ENCODING ')) {
      encoding = Number(line.slice(9));
    } else if (line.startsWith('BBX ')) {
      const [w, h] = line.slice(4).split(' ').map(Number);
      if (w !== CELL_WIDTH || h !== CELL_HEIGHT)
        throw new Error(`glyph ${encoding ?? '?'} is ${w}x${h}, not 12x24`);
    } else if (line === 'BITMAP') {
      rows = [];
    } else if (line === 'ENDCHAR') {
      if (encoding === null || rows === null || rows.length !== CELL_HEIGHT) {
        throw new Error(`glyph ${encoding ?? '?'}: expected ${CELL_HEIGHT} bitmap rows`);
      }
      glyphs.set(encoding, Uint16Array.from(rows));
      encoding = null;
      rows = null;
    } else if (rows !== null) {
      rows.push(Number.parseInt(line, 16));
    }
  }
  return { glyphs };
}

let font: BitmapFont | undefined;

export function receiptFont(): BitmapFont {
  if (font === undefined) {
    const file = resourcePath('escpos', 'spleen-12x24-latin1.bdf');
    font = parseBdf(fs.readFileSync(file, 'latin1'));
  }
  return font;
}
