// Code 128 and QR matrices rasterized to PNG and read back by zbarimg (Debian zbar-tools), the same check
// a scanner at the counter does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { CODE128_PATTERNS, CODE128_QUIET_ZONE, code128Bars, encodeCode128 } from './code128.ts';
import { qrMatrix, qrRuns, qrSize, type QrErrorCorrection } from './qr.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-barcode-'));

function zbar(png: Buffer): string {
  const file = path.join(tmp, `${Math.random().toString(36).slice(2)}.png`);
  fs.writeFileSync(file, png);
  const run = spawnSync('zbarimg', ['--quiet', '--raw', file], { encoding: 'utf8' });
  if (run.error !== undefined) throw run.error;
  return run.stdout.trim();
}

function raster(width: number, height: number, dark: (x: number, y: number) => boolean): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      const v = dark(x, y) ? 0 : 255;
      png.data[o] = v;
      png.data[o + 1] = v;
      png.data[o + 2] = v;
      png.data[o + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

function code128Png(text: string, scale = 2): Buffer {
  const { modules } = encodeCode128(text);
  const bars = code128Bars(text);
  const width = (modules + 2 * CODE128_QUIET_ZONE) * scale;
  const dark = new Uint8Array(width);
  for (const b of bars) {
    for (let x = (b.x + CODE128_QUIET_ZONE) * scale; x < (b.x + b.width + CODE128_QUIET_ZONE) * scale; x++)
      dark[x] = 1;
  }
  return raster(width, 60, (x) => dark[x] === 1);
}

describe('Code 128', () => {
  it('every symbol is 11 modules wide and the 44-digit key is pure code set C', () => {
    expect(CODE128_PATTERNS).toHaveLength(107);
    CODE128_PATTERNS.forEach((p, v) => {
      const sum = [...p].reduce((a, w) => a + Number(w), 0);
      expect(sum, `symbol ${v}`).toBe(v === 106 ? 13 : 11);
    });
    const key = '35261112345678000195550010000012341408100233';
    const code = encodeCode128(key);
    expect(code.values[0]).toBe(105);
    expect(code.values).toHaveLength(1 + 22 + 1);
    expect(code.values.slice(1, 23)).toEqual(key.match(/../g)?.map(Number));
    // 24 symbols of 11 modules + the 13-module stop pattern.
    expect(code.modules).toBe(24 * 11 + 13);
    expect(code.widths).toHaveLength(24 * 6 + 7);
  });

  it('reads back a numeric key, an alphanumeric-CNPJ key and mixed text', () => {
    for (const text of [
      '35261112345678000195550010000012341408100233',
      '3526111234567800019555001000001234140810023',
      '352611' + '12ABC34501DE35' + '550010000000011408100235',
      'NF-e 123/ABC',
      'A1',
      '12',
    ]) {
      expect(zbar(code128Png(text)), text).toBe(text);
    }
  });

  it('letters of the alphanumeric CNPJ go in code set B, digit runs stay in C', () => {
    const key = '352611' + '12ABC34501DE35' + '550010000000011408100235';
    const { values } = encodeCode128(key);
    expect(values[0]).toBe(105); // starts in C with "352611" + "12"
    expect(values).toContain(100); // switch to B for "ABC"
    expect(values).toContain(99); // back to C
    expect(values.length).toBeLessThan(key.length); // shorter than all of it in B
  });

  it('refuses characters outside printable ASCII', () => {
    expect(() => encodeCode128('café')).toThrow(RangeError);
    expect(() => encodeCode128('')).toThrow(RangeError);
  });
});

describe('QR matrix', () => {
  it('reads back the exact NFC-e URL; runs cover exactly the dark modules', () => {
    const url =
      'https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode?p=35261112345678000195650010000012341408100236|2|2|1|0BF8F91178D1EE47EF206E5B1F75BC0461587EDE';
    const m = qrMatrix(url);
    const scale = 4;
    const quiet = 4;
    const side = (m.size + 2 * quiet) * scale;
    const png = raster(side, side, (x, y) =>
      m.isDark(Math.floor(x / scale) - quiet, Math.floor(y / scale) - quiet),
    );
    expect(zbar(png)).toBe(url);

    let dark = 0;
    for (let y = 0; y < m.size; y++) for (let x = 0; x < m.size; x++) if (m.isDark(x, y)) dark++;
    const runs = qrRuns(m);
    expect(runs.reduce((a, r) => a + r.length, 0)).toBe(dark);
    expect(runs.every((r) => m.isDark(r.x, r.y) && m.isDark(r.x + r.length - 1, r.y))).toBe(true);
    expect(m.isDark(-1, 0)).toBe(false);
  });
});

describe('qrSize', () => {
  it('is the size of the symbol qrMatrix builds, for every level and data mode, across versions', () => {
    const url =
      'https://www.homologacao.nfce.fazenda.sp.gov.br/qrcode?p=35261112345678000195650010000012341408100233|2|2|1|';
    const texts = [
      'A',
      '0123456789',
      'HELLO WORLD 123',
      'Balcão - teste de impressão - 80 mm - pc850',
      `${url}9F8E7D6C5B4A39281706F5E4D3C2B1A098765432`,
      `${url}12|0.01|7a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b`,
    ];
    // Lengths crossing many version boundaries, mixing numeric, alphanumeric and byte runs.
    for (let n = 1; n <= 700; n += 23) texts.push(`${'7'.repeat(n)}AB-${'x'.repeat(n % 97)}${n}`);
    for (const text of texts)
      for (const level of ['L', 'M', 'Q', 'H'] as QrErrorCorrection[])
        expect(qrSize(text, level), `${level} ${text.slice(0, 30)}`).toBe(qrMatrix(text, level).size);
  });
});
