// A PNG of what a thermal printer prints for an ESC/POS job, dot for dot: 576 dots across on 80 mm paper,
// 384 on 58 mm, font A in 12 × 24 cells, emphasis, character sizes, native QR codes at their module size,
// raster images as sent, and the cut. The UI shows it; tests read its QR code back with zbarimg.
import { deflateSync } from 'node:zlib';
import { qrMatrix } from '../barcode/index.ts';
import { alignedStart, decodeEscpos, type DecodedLine, type DecodedReceipt } from './decoder.ts';
import { CELL_HEIGHT, CELL_WIDTH, receiptFont } from './font.ts';
import { COLUMNS, DOTS, type Largura } from './layout.ts';

/** Default line spacing (ESC 2): 30 dots, about 3.75 mm, on 203 dpi heads. */
const LINE_SPACING = 30;
/** White paper above the first line, as the paper leaves the printer after the previous cut. */
const TOP_MARGIN = 24;
/** Paper between the last printed dot and the cutter on common 80/58 mm mechanisms (about 3 mm). */
const CUTTER_OFFSET = 24;
const BOTTOM_MARGIN = 24;

/** One bit per dot, grown row by row as the job advances. */
class Paper {
  readonly width: number;
  private readonly rows: Uint8Array[] = [];

  constructor(width: number) {
    this.width = width;
  }

  get height(): number {
    return this.rows.length;
  }

  extend(height: number): void {
    while (this.rows.length < height) this.rows.push(new Uint8Array(this.width));
  }

  dot(x: number, y: number): void {
    if (x < 0 || y < 0 || x >= this.width) return;
    this.extend(y + 1);
    (this.rows[y] as Uint8Array)[x] = 1;
  }

  block(x: number, y: number, w: number, h: number): void {
    for (let dy = 0; dy < h; dy++) for (let dx = 0; dx < w; dx++) this.dot(x + dx, y + dy);
  }

  /**
   * A 1-bit grayscale PNG (what the paper is: a dot or none). Written directly: a general encoder spends
   * ~75 ms converting and filter-testing RGBA pixels of a long receipt, this takes a few.
   */
  png(): Buffer {
    const rowBytes = Math.ceil(this.width / 8);
    const raw = Buffer.alloc((rowBytes + 1) * this.rows.length, 0);
    this.rows.forEach((row, y) => {
      const at = y * (rowBytes + 1); // raw[at] = 0: filter type None
      for (let x = 0; x < this.width; x++) {
        // In a 1-bit grayscale PNG a set bit is white: paper is 1, a printed dot 0.
        if (row[x] !== 1) raw[at + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
      }
      for (let x = this.width; x < rowBytes * 8; x++) raw[at + 1 + (x >> 3)]! |= 0x80 >> (x & 7);
    });
    const header = Buffer.alloc(13);
    header.writeUInt32BE(this.width, 0);
    header.writeUInt32BE(this.rows.length, 4);
    header.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale, deflate, adaptive filtering, no interlace
    return Buffer.concat([
      PNG_SIGNATURE,
      pngChunk('IHDR', header),
      pngChunk('IDAT', deflateSync(raw)),
      pngChunk('IEND', Buffer.alloc(0)),
    ]);
  }
}

const REPLACEMENT = 0x3f;

function drawChar(
  paper: Paper,
  ch: string,
  x: number,
  y: number,
  run: { bold: boolean; width: number; height: number },
): void {
  const glyphs = receiptFont().glyphs;
  const rows = glyphs.get(ch.codePointAt(0) ?? REPLACEMENT) ?? glyphs.get(REPLACEMENT);
  if (rows === undefined) return;
  for (let gy = 0; gy < CELL_HEIGHT; gy++) {
    const bits = rows[gy] ?? 0;
    for (let gx = 0; gx < CELL_WIDTH; gx++) {
      if ((bits & (0x8000 >> gx)) === 0) continue;
      // Emphasized mode prints each dot twice, the second one dot to the right.
      const reps = run.bold ? 2 : 1;
      for (let b = 0; b < reps; b++)
        paper.block(x + (gx + b) * run.width, y + gy * run.height, run.width, run.height);
    }
  }
}

/** Splits a line where the printer wraps it at the paper edge. */
function physicalRows(
  line: DecodedLine,
  width: number,
): { chars: { ch: string; run: DecodedLine['runs'][number] }[]; dots: number }[] {
  const rows: { chars: { ch: string; run: DecodedLine['runs'][number] }[]; dots: number }[] = [
    { chars: [], dots: 0 },
  ];
  for (const run of line.runs) {
    for (const ch of run.text) {
      const w = CELL_WIDTH * run.width;
      let row = rows.at(-1) as (typeof rows)[number];
      if (row.dots + w > width) {
        row = { chars: [], dots: 0 };
        rows.push(row);
      }
      row.chars.push({ ch, run });
      row.dots += w;
    }
  }
  return rows;
}

function renderDecoded(decoded: DecodedReceipt, width: number): Buffer {
  const paper = new Paper(width);
  let y = TOP_MARGIN;
  paper.extend(y);
  for (const item of decoded.items) {
    switch (item.kind) {
      case 'line': {
        if (item.runs.length === 0) {
          y += LINE_SPACING;
          break;
        }
        for (const row of physicalRows(item, width)) {
          const height = Math.max(1, ...row.chars.map((c) => c.run.height)) * CELL_HEIGHT;
          const advance = Math.max(LINE_SPACING, height);
          let x = alignedStart(item.align, row.dots, width);
          for (const { ch, run } of row.chars) {
            // Characters of different heights share the baseline at the bottom of the line.
            drawChar(paper, ch, x, y + height - CELL_HEIGHT * run.height, run);
            x += CELL_WIDTH * run.width;
          }
          y += advance;
        }
        break;
      }
      case 'feed':
        y += item.lines * LINE_SPACING;
        break;
      case 'qr': {
        const matrix = qrMatrix(item.data, item.errorCorrection);
        const side = matrix.size * item.moduleSize;
        const x0 = alignedStart(item.align, side, width);
        for (let my = 0; my < matrix.size; my++) {
          for (let mx = 0; mx < matrix.size; mx++) {
            if (matrix.isDark(mx, my)) {
              paper.block(
                x0 + mx * item.moduleSize,
                y + my * item.moduleSize,
                item.moduleSize,
                item.moduleSize,
              );
            }
          }
        }
        y += side;
        break;
      }
      case 'raster': {
        const sx = item.mode & 1 ? 2 : 1;
        const sy = item.mode & 2 ? 2 : 1;
        const bytesPerRow = item.width / 8;
        const x0 = alignedStart(item.align, item.width * sx, width);
        for (let ry = 0; ry < item.height; ry++) {
          for (let rx = 0; rx < item.width; rx++) {
            const byte = item.bits[ry * bytesPerRow + (rx >> 3)] ?? 0;
            if ((byte & (0x80 >> (rx & 7))) !== 0) paper.block(x0 + rx * sx, y + ry * sy, sx, sy);
          }
        }
        y += item.height * sy;
        break;
      }
      case 'cut': {
        y += item.feed + CUTTER_OFFSET;
        paper.extend(y + 1);
        // Dashes for a partial cut (a hinge is left), a solid line for a full one.
        for (let x = 0; x < width; x++) if (!item.partial || x % 12 < 8) paper.dot(x, y);
        y += 1;
        break;
      }
    }
  }
  paper.extend(y + BOTTOM_MARGIN);
  return paper.png();
}

/** The printed receipt of an ESC/POS job as a PNG, one image dot per printer dot. */
export function renderReceiptPng(bytes: Uint8Array, options: { largura: Largura }): Buffer {
  const decoded = decodeEscpos(bytes, { columns: COLUMNS[options.largura] });
  return renderDecoded(decoded, DOTS[options.largura]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 of the PNG specification (ISO 3309), over a chunk's type and data. */
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
