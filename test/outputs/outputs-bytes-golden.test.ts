// The NFC-e outputs byte for byte: the ESC/POS receipt (every QR mode, code page and width) and the DANFCe
// PDF (80 and 58 mm, with a fixed clock so CreationDate and the file ID are fixed), for the authorized,
// contingency and cancelled fixture notes, against digests written from the code before the speed work of
// issue 18 (item 5). Any optimisation of these paths must leave every byte as it was.
//
// Only after an intended change of a layout, rewrite the digests (and review the change on paper first):
//   UPDATE_OUTPUT_DIGESTS=1 npx vitest run test/outputs/outputs-bytes-golden.test.ts
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseOutputDocument } from '../../src-main/outputs/model.ts';
import { buildNfceReceipt, type EscposProfile } from '../../src-main/outputs/escpos/index.ts';
import { renderDanfce } from '../../src-main/outputs/pdf/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const notesDir = path.resolve(here, '../fixtures/escpos');
const digestsFile = path.resolve(here, '../fixtures/outputs/output-digests.json');
const update = process.env['UPDATE_OUTPUT_DIGESTS'] === '1';

const notes = {
  autorizada: false,
  contingencia: false,
  cancelada: true,
} as const;
type Note = keyof typeof notes;

const profiles: Record<string, EscposProfile> = {
  native850: { qr: 'native', codePage: 'pc850' },
  raster850: { qr: 'raster', codePage: 'pc850' },
  native437: { qr: 'native', codePage: 'pc437' },
  raster1252: { qr: 'raster', codePage: 'wpc1252' },
  native860: { qr: 'native', codePage: 'pc860' },
};

function parsed(note: Note) {
  const xml = fs.readFileSync(path.join(notesDir, `nfce-${note}.xml`), 'utf8');
  return parseOutputDocument(xml, { cancelled: notes[note] });
}

interface Digest {
  bytes: number;
  sha256: string;
}

function digest(bytes: Uint8Array): Digest {
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

const expected: Record<string, Digest> = update
  ? {}
  : (JSON.parse(fs.readFileSync(digestsFile, 'utf8')) as Record<string, Digest>);
const written: Record<string, Digest> = {};

function check(name: string, bytes: Uint8Array): void {
  const actual = digest(bytes);
  written[name] = actual;
  if (!update) expect(actual, name).toEqual(expected[name]);
}

describe('NFC-e outputs keep every byte', () => {
  beforeAll(() => {
    // pdfkit writes the clock into CreationDate and derives the trailer ID from it.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-10T12:34:56.000Z'));
  });
  afterAll(() => {
    vi.useRealTimers();
    if (update) fs.writeFileSync(digestsFile, `${JSON.stringify(written, null, 2)}\n`);
  });

  for (const note of Object.keys(notes) as Note[]) {
    it(`ESC/POS receipts of the ${note} note`, () => {
      const doc = parsed(note);
      for (const [id, profile] of Object.entries(profiles))
        for (const largura of [80, 58] as const)
          for (const cut of [true, false])
            check(
              `escpos-${note}-${largura}-${id}-${cut ? 'cut' : 'feed'}`,
              buildNfceReceipt(doc, { largura, cut, profile }),
            );
      check(
        `escpos-${note}-80-drawer`,
        buildNfceReceipt(doc, { largura: 80, cut: true, drawer: { pin: 2, t1: 50, t2: 250 } }),
      );
    });

    it(`DANFCe PDFs of the ${note} note`, async () => {
      const doc = parsed(note);
      for (const width of [80, 58] as const)
        check(`danfce-${note}-${width}`, await renderDanfce(doc, { width }));
    });
  }
});
