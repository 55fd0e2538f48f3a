// The PNG preview of ESC/POS jobs: paper width in dots, font A cells, emphasis, sizes, justification, and QR
// codes (native, drawn from the QR matrix at the commanded module size, and raster, drawn as sent) that
// Debian's zbarimg reads back to infNFeSupl/qrCode. Also keeps docs/receipt-preview-*.png current:
//   UPDATE_ESCPOS_GOLDEN=1 npx vitest run test/outputs/escpos-preview.test.ts   rewrites them.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { parseOutputDocument } from '../../src-main/outputs/model.ts';
import { codePage } from '../../src-main/outputs/escpos/code-pages.ts';
import { EscposWriter } from '../../src-main/outputs/escpos/commands.ts';
import { CELL_HEIGHT, CELL_WIDTH, receiptFont } from '../../src-main/outputs/escpos/font.ts';
import { buildNfceReceipt, buildTestPage, renderReceiptPng } from '../../src-main/outputs/escpos/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const update = process.env['UPDATE_ESCPOS_GOLDEN'] === '1';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-escpos-'));

const xml = fs.readFileSync(path.join(root, 'test/fixtures/escpos/nfce-autorizada.xml'), 'utf8');
const qrCode = /<qrCode>([^<]*)<\/qrCode>/.exec(xml)?.[1] ?? '';
const doc = parseOutputDocument(xml);

function zbar(png: Buffer): string {
  const file = path.join(tmp, `r-${Math.random().toString(36).slice(2)}.png`);
  fs.writeFileSync(file, png);
  return execFileSync('zbarimg', ['--raw', '-q', file], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** Dark dots as a set of "x,y", plus the image size. */
function dots(png: Buffer): {
  width: number;
  height: number;
  dark: (x: number, y: number) => boolean;
  count: number;
} {
  const image = PNG.sync.read(png);
  let count = 0;
  for (let i = 0; i < image.data.length; i += 4) if ((image.data[i] ?? 255) < 128) count++;
  return {
    width: image.width,
    height: image.height,
    dark: (x, y) => (image.data[(y * image.width + x) * 4] ?? 255) < 128,
    count,
  };
}

function bbox(png: Buffer): { left: number; right: number; top: number; bottom: number } {
  const d = dots(png);
  const box = { left: d.width, right: -1, top: d.height, bottom: -1 };
  for (let y = 0; y < d.height; y++) {
    for (let x = 0; x < d.width; x++) {
      if (!d.dark(x, y)) continue;
      box.left = Math.min(box.left, x);
      box.right = Math.max(box.right, x);
      box.top = Math.min(box.top, y);
      box.bottom = Math.max(box.bottom, y);
    }
  }
  return box;
}

describe('receipt preview PNG', () => {
  for (const largura of [80, 58] as const) {
    for (const qr of ['native', 'raster'] as const) {
      it(`${largura} mm, ${qr} QR: ${largura === 80 ? 576 : 384} dots wide, zbarimg reads the NFC-e QR URL`, () => {
        const bytes = buildNfceReceipt(doc, { largura, cut: true, profile: { qr, codePage: 'pc850' } });
        const png = renderReceiptPng(bytes, { largura });
        const d = dots(png);
        expect(d.width).toBe(largura === 80 ? 576 : 384);
        expect(d.height).toBeGreaterThan(1000);
        expect(zbar(png)).toBe(qrCode);
      });
    }
  }

  it('the test page QR reads back too', () => {
    const png = renderReceiptPng(buildTestPage({ largura: 58, at: new Date('2026-11-22T15:30:00Z') }), {
      largura: 58,
    });
    expect(zbar(png)).toBe('Balcao - teste de impressao - 58 mm - pc850');
  });

  it('docs/receipt-preview-80mm.png and -58mm.png show the current layout', () => {
    for (const largura of [80, 58] as const) {
      const png = renderReceiptPng(buildNfceReceipt(doc, { largura, cut: true }), { largura });
      const file = path.join(root, 'docs', `receipt-preview-${largura}mm.png`);
      if (update) fs.writeFileSync(file, png);
      const committed = PNG.sync.read(fs.readFileSync(file));
      const current = PNG.sync.read(png);
      expect([committed.width, committed.height]).toEqual([current.width, current.height]);
      expect(committed.data.equals(current.data), `${file} is out of date`).toBe(true);
    }
  });
});

describe('drawing what the printer prints', () => {
  const job = (build: (w: EscposWriter) => EscposWriter): Buffer =>
    renderReceiptPng(build(new EscposWriter('pc850').init()).bytes(), { largura: 80 });

  it('font A is a 12 × 24 cell; a right-justified character ends in the last cell of the paper', () => {
    const left = bbox(job((w) => w.line('M')));
    expect(left.left).toBeGreaterThanOrEqual(0);
    expect(left.right).toBeLessThan(CELL_WIDTH);
    expect(left.bottom - left.top).toBeLessThan(CELL_HEIGHT);
    const right = bbox(job((w) => w.align('right').line('M')));
    expect(right.left).toBeGreaterThanOrEqual(576 - CELL_WIDTH);
    expect(right.right).toBeLessThan(576);
    const centre = bbox(job((w) => w.align('center').line('MM')));
    expect(centre.left).toBeGreaterThanOrEqual(288 - CELL_WIDTH);
    expect(centre.right).toBeLessThan(288 + CELL_WIDTH);
    // 48 columns fill the paper exactly; a 49th character wraps to the next line.
    const full = bbox(job((w) => w.line('M'.repeat(48))));
    expect(full.right).toBeGreaterThanOrEqual(576 - CELL_WIDTH);
    const wrapped = bbox(job((w) => w.line('M'.repeat(49))));
    expect(wrapped.bottom - full.bottom).toBe(30);
  });

  it('emphasis darkens, double size doubles both ways', () => {
    const normal = dots(job((w) => w.line('Ação'))).count;
    const bold = dots(job((w) => w.bold(true).line('Ação'))).count;
    const double = dots(job((w) => w.size(2, 2).line('Ação'))).count;
    expect(bold).toBeGreaterThan(normal);
    expect(double).toBe(normal * 4);
    const box = bbox(job((w) => w.size(2, 2).line('M')));
    const small = bbox(job((w) => w.line('M')));
    expect(box.right - box.left + 1).toBe(2 * (small.right - small.left + 1));
  });

  it('the font has a visible glyph for every letter the code pages print', () => {
    const glyphs = receiptFont().glyphs;
    expect(glyphs.size).toBe(191);
    for (const id of ['pc850', 'pc860'] as const) {
      for (const ch of codePage(id).high) {
        const code = ch.codePointAt(0) ?? 0;
        if (!/\p{L}/u.test(ch) || code > 0xff) continue;
        const rows = glyphs.get(code);
        expect(rows, `${id} ${ch}`).toBeDefined();
        expect(
          rows?.some((r) => r !== 0),
          `${id} ${ch}`,
        ).toBe(true);
      }
    }
  });
});
