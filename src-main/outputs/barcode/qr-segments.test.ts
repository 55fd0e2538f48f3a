// qr-segments.ts against qrcode itself: the same segments (mode, length, bits) as Segments.rawSplit and
// Segments.fromString at every version range, and so the same symbol size, over NFC-e QR payloads and
// generated text mixing the three modes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import QRCode from 'qrcode';
import * as Segments from 'qrcode/lib/core/segments.js';
import { describe, expect, it } from 'vitest';
import { parseOutputDocument } from '../model.ts';
import { qrMatrix, qrSize } from './qr.ts';
import { optimalSegments, rawSegments } from './qr-segments.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

interface Seg {
  mode: { id: string };
  getLength(): number;
  getBitsLength(): number;
}
const shape = (segs: unknown[]): Array<[string, number, number]> =>
  (segs as Seg[]).map((s) => [s.mode.id, s.getLength(), s.getBitsLength()]);

function sameAsQrcode(text: string): void {
  expect(shape(rawSegments(text)), text).toEqual(shape(Segments.rawSplit(text)));
  for (const version of [1, 9, 10, 26, 27, 40])
    expect(shape(optimalSegments(text, version)), `${text} @${version}`).toEqual(
      shape(Segments.fromString(text, version)),
    );
}

const fixtureQrCodes = ['autorizada', 'contingencia', 'cancelada'].map((note) => {
  const xml = fs.readFileSync(path.resolve(here, `../../../test/fixtures/escpos/nfce-${note}.xml`), 'utf8');
  const qr = parseOutputDocument(xml).infNFeSupl?.qrCode;
  if (qr === undefined) throw new Error(`no QR code in ${note}`);
  return qr;
});

const hex = fc.array(fc.constantFrom(...'0123456789ABCDEFabcdef'), { minLength: 40, maxLength: 40 });
const digits = (n: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: n, maxLength: n });
const nfceUrl = fc
  .tuple(
    fc.constantFrom(
      'https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode',
      'http://www.fazenda.pr.gov.br/nfce/qrcode',
      'HTTPS://WWW.SEFAZ.RS.GOV.BR/NFCE/NFCE-COM.ASPX',
    ),
    digits(44),
    fc.constantFrom('1', '2'),
    fc.integer({ min: 1, max: 999 }),
    hex,
    fc.boolean(),
  )
  .map(
    ([base, key, amb, csc, hash, v3]) =>
      `${base}?p=${key.join('')}|${v3 ? '3' : '2'}|${amb}|${csc}|${hash.join('')}`,
  );
const mixed = fc
  .array(
    fc.oneof(
      fc.constantFrom(...'0123456789'),
      fc.constantFrom(...'ABCXYZ $%*+-./:'),
      fc.constantFrom(...'abc|?=&_ç€\n'),
      fc.constant('😀'),
      fc.array(fc.constantFrom(...'0123456789'), { minLength: 1, maxLength: 14 }).map((a) => a.join('')),
    ),
    { minLength: 1, maxLength: 120 },
  )
  .map((a) => a.join(''));

describe('qr-segments chooses what qrcode chooses', () => {
  it('on the fixture notes’ QR codes', () => {
    for (const qr of fixtureQrCodes) {
      sameAsQrcode(qr);
      expect(qrSize(qr)).toBe(QRCode.create(qr, { errorCorrectionLevel: 'M' }).modules.size);
    }
  });

  it('on generated NFC-e QR payloads', () => {
    fc.assert(
      fc.property(nfceUrl, (url) => sameAsQrcode(url)),
      { numRuns: 300, seed: 18 },
    );
  });

  it('on generated text of every mode', () => {
    fc.assert(
      fc.property(mixed, (text) => sameAsQrcode(text)),
      { numRuns: 1500, seed: 18 },
    );
  });

  it('gives the size of the symbol qrcode builds', () => {
    fc.assert(
      fc.property(fc.oneof(nfceUrl, mixed), fc.constantFrom('L', 'M', 'Q', 'H' as const), (text, level) => {
        expect(qrSize(text, level)).toBe(QRCode.create(text, { errorCorrectionLevel: level }).modules.size);
      }),
      { numRuns: 150, seed: 18 },
    );
  });
});

describe('qrMatrix with the segments handed to qrcode', () => {
  it('builds the very symbol QRCode.create builds from the text', () => {
    fc.assert(
      fc.property(fc.oneof(nfceUrl, mixed), fc.constantFrom('L', 'M', 'Q', 'H' as const), (text, level) => {
        const ours = qrMatrix(text, level);
        const { modules } = QRCode.create(text, { errorCorrectionLevel: level });
        expect(ours.size).toBe(modules.size);
        const bits: number[] = [];
        for (let y = 0; y < ours.size; y++)
          for (let x = 0; x < ours.size; x++) bits.push(ours.isDark(x, y) ? 1 : 0);
        expect(Buffer.from(bits).equals(Buffer.from(modules.data)), text).toBe(true);
      }),
      { numRuns: 200, seed: 18 },
    );
  });
});
