// Drawing primitives shared by the DANFE and the DANFCe: text wrapped and fitted by our own measure (so a
// first pass can compute heights exactly and pdfkit never breaks a page on its own), vector barcodes and
// QR codes (one rectangle per bar or per run of dark modules), and the diagonal watermarks.
import { CODE128_QUIET_ZONE, encodeCode128 } from '../barcode/code128.ts';
import { qrMatrix, qrRuns } from '../barcode/qr.ts';
import type { FontName } from './fonts.ts';

export type Doc = PDFKit.PDFDocument;

const currentFont = new WeakMap<Doc, { font: FontName; size: number }>();

export function useFont(doc: Doc, font: FontName, size: number): Doc {
  currentFont.set(doc, { font, size });
  return doc.font(font).fontSize(size);
}

// Widths at size 1 per font and text, shared by every document of the process: shaping a string with
// fontkit is the largest cost of a receipt, and labels, product names and the measuring pass of the
// DANFCe repeat the same strings. Width scales linearly with the size (pdfkit: advance × size / 1000).
const WIDTH_CACHE_LIMIT = 50_000;
const widthCache = new Map<FontName, Map<string, number>>();

/** Width of `text` in the font and size last set with `useFont`. */
export function textWidth(doc: Doc, text: string): number {
  const current = currentFont.get(doc);
  if (current === undefined) return doc.widthOfString(text);
  let cache = widthCache.get(current.font);
  if (cache === undefined) {
    cache = new Map();
    widthCache.set(current.font, cache);
  }
  let unit = cache.get(text);
  if (unit === undefined) {
    unit = doc.widthOfString(text) / current.size;
    if (cache.size >= WIDTH_CACHE_LIMIT) cache.clear();
    cache.set(text, unit);
  }
  return unit * current.size;
}

/** Greedy word wrap with the current font; words wider than the line are cut by character. */
export function wrapText(doc: Doc, text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter((w) => w.length > 0)) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (textWidth(doc, candidate) <= width) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      line = '';
      let rest = word;
      while (textWidth(doc, rest) > width && rest.length > 1) {
        let cut = rest.length - 1;
        while (cut > 1 && textWidth(doc, rest.slice(0, cut)) > width) cut--;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    if (line !== '' || lines.length === 0) lines.push(line);
  }
  return lines;
}

/** Cuts `text` with an ellipsis so it fits `width` with the current font. */
export function fitText(doc: Doc, text: string, width: number): string {
  if (textWidth(doc, text) <= width) return text;
  let cut = text.length;
  while (cut > 0 && textWidth(doc, `${text.slice(0, cut)}…`) > width) cut--;
  return `${text.slice(0, cut)}…`;
}

/** Sets `font` at the largest size from `max` down to `min` (steps of 0.25) at which `text` fits `width`. */
export function fitFont(
  doc: Doc,
  font: FontName,
  text: string,
  width: number,
  max: number,
  min: number,
): number {
  let size = max;
  useFont(doc, font, size);
  while (size > min && textWidth(doc, text) > width) useFont(doc, font, (size -= 0.25));
  return size;
}

export type Align = 'left' | 'center' | 'right';

/** One line at (x, y) = top-left of the line box, aligned inside `width`, never wrapped. */
export function textLine(
  doc: Doc,
  text: string,
  x: number,
  y: number,
  width: number,
  align: Align = 'left',
): void {
  const fitted = fitText(doc, text, width);
  const w = textWidth(doc, fitted);
  const dx = align === 'left' ? 0 : align === 'center' ? (width - w) / 2 : width - w;
  doc.text(fitted, x + dx, y, { lineBreak: false });
}

/** Code 128 filling `width` × `height` at (x, y), quiet zones included in the width. */
export function drawCode128(
  doc: Doc,
  text: string,
  x: number,
  y: number,
  width: number,
  height: number,
): void {
  const { widths, modules } = encodeCode128(text);
  const module = width / (modules + 2 * CODE128_QUIET_ZONE);
  let cursor = x + CODE128_QUIET_ZONE * module;
  doc.save();
  widths.forEach((w, k) => {
    if (k % 2 === 0) doc.rect(cursor, y, w * module, height);
    cursor += w * module;
  });
  doc.fillColor('black').fill();
  doc.restore();
}

/** QR code of `text` (level M) as a `size` × `size` square at (x, y); the caller leaves the quiet zone. */
export function drawQr(doc: Doc, text: string, x: number, y: number, size: number): void {
  const matrix = qrMatrix(text);
  const module = size / matrix.size;
  doc.save();
  for (const run of qrRuns(matrix)) {
    // A hair of overlap keeps viewers from showing seams between adjacent runs.
    doc.rect(x + run.x * module, y + run.y * module, run.length * module, module + 0.05);
  }
  doc.fillColor('black').fill();
  doc.restore();
}

/** Large translucent text rotated about (cx, cy): CANCELADA, SEM VALOR FISCAL. */
export function watermark(
  doc: Doc,
  text: string,
  cx: number,
  cy: number,
  options: { size: number; color: string; opacity: number; angle: number },
): void {
  doc.save();
  useFont(doc, 'bold', options.size);
  const w = textWidth(doc, text);
  const h = doc.currentLineHeight();
  doc.rotate(options.angle, { origin: [cx, cy] });
  doc.fillColor(options.color).fillOpacity(options.opacity);
  doc.text(text, cx - w / 2, cy - h / 2, { lineBreak: false });
  doc.restore();
  doc.fillColor('black').fillOpacity(1);
}
