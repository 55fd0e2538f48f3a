// The DANFCe drawn on the worker pool is the one drawn on the request thread: same bytes but for the
// clock pdfkit writes (CreationDate and the trailer ID derived from it).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseOutputDocument } from '../../src-main/outputs/model.ts';
import { closePdfWorkers, renderNotePdf, setPdfWorkers } from '../../src-main/workers/pdf.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const note = () =>
  parseOutputDocument(fs.readFileSync(path.resolve(here, '../fixtures/escpos/nfce-autorizada.xml'), 'utf8'), {
    cancelled: false,
  });
/** The bytes without the clock's marks. */
const clockless = (pdf: Buffer) =>
  pdf
    .toString('latin1')
    .replace(/\(D:\d{14}Z\)/, '')
    .replace(/\/ID \[<[0-9a-f]+> <[0-9a-f]+>\]/, '');

afterAll(async () => {
  setPdfWorkers(null);
  await closePdfWorkers();
});

describe('PDF renders on the worker pool', () => {
  it.each([80, 58] as const)('the %i mm DANFCe is the same as on the request thread', async (width) => {
    setPdfWorkers(0);
    const inline = await renderNotePdf(note(), width);
    setPdfWorkers(1);
    const pooled = await renderNotePdf(note(), width);
    expect(Buffer.isBuffer(pooled)).toBe(true);
    expect(pooled.subarray(0, 5).toString()).toBe('%PDF-');
    expect(clockless(pooled)).toBe(clockless(inline));
  });
});
