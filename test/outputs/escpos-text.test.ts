// The pieces under the receipt: Brazilian number formats from decimal text, wrapping and right-aligned
// values, the code pages (accents round-trip, what a page lacks degrades to plain text), the command bytes as
// the ESC/POS reference spells them, and the decoder reading them back.
import { describe, expect, it } from 'vitest';
import {
  CODE_PAGE_IDS,
  codePage,
  decodeText,
  encodeText,
  printedForm,
} from '../../src-main/outputs/escpos/code-pages.ts';
import { EscposWriter } from '../../src-main/outputs/escpos/commands.ts';
import { decodeEscpos, EscposDecodeError, receiptText } from '../../src-main/outputs/escpos/decoder.ts';
import {
  accessKeyLines,
  balancedWrap,
  formatMoney,
  formatQuantity,
  formatUnitPrice,
  labelValue,
  wrap,
} from '../../src-main/outputs/escpos/layout.ts';

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ');

describe('Brazilian number formats from decimal text', () => {
  it('money has two decimals and dots between thousands', () => {
    expect(formatMoney('0')).toBe('0,00');
    expect(formatMoney('8.2')).toBe('8,20');
    expect(formatMoney('1234.56')).toBe('1.234,56');
    expect(formatMoney('1234567.00')).toBe('1.234.567,00');
    expect(formatMoney('0012.30')).toBe('12,30');
    expect(formatMoney('-0.00')).toBe('0,00');
    expect(formatMoney('-15.5')).toBe('-15,50');
    // Beyond the float range of exact cents: still exact.
    expect(formatMoney('90071992547409931.99')).toBe('90.071.992.547.409.931,99');
    expect(() => formatMoney('1.005')).toThrow(RangeError);
    expect(() => formatMoney('1,00')).toThrow(RangeError);
  });

  it('quantities drop trailing zeros, unit prices keep at least two decimals', () => {
    expect(formatQuantity('2.0000')).toBe('2');
    expect(formatQuantity('1.00')).toBe('1');
    expect(formatQuantity('0.3500')).toBe('0,35');
    expect(formatQuantity('1.235')).toBe('1,235');
    expect(formatQuantity('12500')).toBe('12.500');
    expect(formatUnitPrice('18.9000000000')).toBe('18,90');
    expect(formatUnitPrice('0.1250000000')).toBe('0,125');
    expect(formatUnitPrice('1999.99')).toBe('1.999,99');
  });
});

describe('wrapping and columns', () => {
  it('wraps at word boundaries, cuts words longer than a line, URLs after a slash or dot', () => {
    expect(wrap('Pão de queijo mineiro recheado', 12)).toEqual(['Pão de', 'queijo', 'mineiro', 'recheado']);
    expect(wrap('  a   b  ', 5)).toEqual(['a b']);
    expect(wrap('', 5)).toEqual([]);
    expect(wrap('ABCDEFGHIJKLMN', 5)).toEqual(['ABCDE', 'FGHIJ', 'KLMN']);
    expect(wrap('https://www.homologacao.nfce.fazenda.sp.gov.br/NFCeConsultaPublica', 32)).toEqual([
      'https://www.homologacao.nfce.',
      'fazenda.sp.gov.br/',
      'NFCeConsultaPublica',
    ]);
  });

  it('balances centred lines instead of leaving a lone last word', () => {
    const text = 'Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica';
    expect(wrap(text, 48)).toEqual(['Documento Auxiliar da Nota Fiscal de Consumidor', 'Eletrônica']);
    expect(balancedWrap(text, 48)).toEqual(['Documento Auxiliar da Nota', 'Fiscal de Consumidor Eletrônica']);
    expect(balancedWrap('short', 48)).toEqual(['short']);
  });

  it('puts a value flush with the last column, on the label line when both fit', () => {
    expect(labelValue('Valor total R$', '1.234,56', 32)).toEqual(['Valor total R$          1.234,56']);
    expect(labelValue('Valor total R$', '1.234,56', 32)[0]).toHaveLength(32);
    const long = labelValue(
      'Informação dos Tributos Totais Incidentes (Lei Federal 12.741/2012) R$',
      '28,86',
      32,
    );
    expect(long).toEqual([
      'Informação dos Tributos Totais',
      'Incidentes (Lei Federal',
      '12.741/2012) R$            28,86',
    ]);
    for (const line of long) expect(line.length).toBeLessThanOrEqual(32);
    // No room for the value beside the label's last line: the value gets a line of its own.
    expect(labelValue('ABCDEFGHIJ', '123', 12)).toEqual(['ABCDEFGHIJ', '         123']);
    expect(labelValue('', 'x', 4)).toEqual(['   x']);
  });

  it('writes the access key in groups of 4, the same number of groups per line', () => {
    const chave = '35261145997418000153650010000000011091261418';
    expect(accessKeyLines(chave, 48)).toEqual(['3526 1145 9974 1800 0153 6500', '1000 0000 0110 9126 1418']);
    expect(accessKeyLines(chave, 32)).toEqual(accessKeyLines(chave, 48));
    expect(accessKeyLines(chave, 60)).toEqual(['3526 1145 9974 1800 0153 6500 1000 0000 0110 9126 1418']);
  });
});

describe('code pages', () => {
  const sample = 'ÁÉÍÓÚ ÂÊÔ ÃÕ Ç áéíóú âêô ãõ ç À à Ü ü';

  it('prints every Portuguese letter on PC850, PC860 and WPC1252 and reads it back exactly', () => {
    for (const id of ['pc850', 'pc860', 'wpc1252'] as const) {
      const bytes = encodeText(sample, id);
      expect(bytes).toHaveLength([...sample].length);
      expect(decodeText(bytes, id), id).toBe(sample);
    }
  });

  it('uses the bytes of each table (PC850 "ã" is 0xC6, PC860 0x84; "Ç" is 0x80 on both)', () => {
    expect(hex(encodeText('ãÇ', 'pc850'))).toBe('c6 80');
    expect(hex(encodeText('ãÇ', 'pc860'))).toBe('84 80');
    expect(hex(encodeText('ãÇ', 'wpc1252'))).toBe('e3 c7');
    expect(codePage('pc850').escT).toBe(2);
    expect(codePage('pc860').escT).toBe(3);
  });

  it('strips the accent a page lacks instead of printing another glyph (PC437 has no Ã or Â)', () => {
    expect(printedForm(sample, 'pc437')).toBe('AÉIOU AEO AO Ç áéíóú âêô ao ç A à Ü ü');
    expect(printedForm('“Açaí” – 1½ kg… €5', 'pc850')).toBe('"Açaí" - 1½ kg... EUR5');
    expect(printedForm('Œuvre ł 漢', 'pc860')).toBe('OEuvre l ?');
    // Combining marks are composed first, so the page's own "ã" is used.
    expect(printedForm('a\u0303o', 'pc850')).toBe('ão');
  });

  it('never turns a character into a different one: itself, its unaccented letter, or plain ASCII', () => {
    const probe: string[] = [];
    for (let c = 0x20; c <= 0x24f; c++) if (c < 0x7f || c >= 0xa0) probe.push(String.fromCodePoint(c));
    probe.push('–', '—', '‘', '’', '“', '”', '…', '•', '€', '™');
    for (const id of CODE_PAGE_IDS) {
      for (const ch of probe) {
        const printed = printedForm(ch, id);
        const base = ch.normalize('NFD').replace(/\p{M}/gu, '');
        const acceptable = printed === ch || printed === base || /^[\x20-\x7e]*$/.test(printed);
        expect(acceptable, `${id} ${ch} → ${printed}`).toBe(true);
        expect(printed).not.toContain('\ufffd');
      }
    }
  });
});

describe('command bytes (Epson ESC/POS reference)', () => {
  it('init, code table, justification, emphasis, size, feed and cuts', () => {
    const w = new EscposWriter('pc850')
      .init()
      .codeTable('pc860', 3)
      .align('center')
      .bold(true)
      .size(2, 2)
      .line('Ação')
      .size(1, 1)
      .bold(false)
      .align('left')
      .feedLines(4)
      .cut('partial', 0)
      .cut('full');
    expect(hex(w.bytes())).toBe(
      '1b 40 1b 74 03 1b 61 01 1b 45 01 1d 21 11 41 87 84 6f 0a 1d 21 00 1b 45 00 1b 61 00 1b 64 04 1d 56 42 00 1d 56 00',
    );
  });

  it('QR code: model 2, module size, error correction M, store, print (GS ( k)', () => {
    const bytes = new EscposWriter('pc850').qrCode('ABC', { moduleSize: 6, errorCorrection: 'M' }).bytes();
    expect(hex(bytes)).toBe(
      [
        '1d 28 6b 04 00 31 41 32 00',
        '1d 28 6b 03 00 31 43 06',
        '1d 28 6b 03 00 31 45 31',
        '1d 28 6b 06 00 31 50 30 41 42 43',
        '1d 28 6b 03 00 31 51 30',
      ].join(' '),
    );
    expect(() => new EscposWriter('pc850').qrCode('Ação', { moduleSize: 6, errorCorrection: 'M' })).toThrow(
      RangeError,
    );
  });

  it('raster bit image (GS v 0): bytes per row and rows, little-endian', () => {
    const bytes = new EscposWriter('pc850')
      .raster({ width: 9, height: 2, bits: Uint8Array.from([0xff, 0x80, 0x00, 0x80]) })
      .bytes();
    expect(hex(bytes)).toBe('1d 76 30 00 02 00 02 00 ff 80 00 80');
  });
});

describe('decoding ESC/POS', () => {
  it('reads lines with their justification, emphasis, size and code page', () => {
    const w = new EscposWriter('pc437')
      .init()
      .codeTable('pc850', 2)
      .align('center')
      .bold(true)
      .line('Café')
      .bold(false)
      .size(2, 1)
      .line('R$ 9,90')
      .size(1, 1)
      .align('right')
      .line('fim')
      .lf()
      .cut('full');
    const decoded = decodeEscpos(w.bytes(), { columns: 32, strict: true });
    expect(decoded.lines.map((l) => [l.text, l.align, l.bold, l.columns])).toEqual([
      ['Café', 'center', true, 4],
      ['R$ 9,90', 'center', false, 14],
      ['fim', 'right', false, 3],
      ['', 'right', false, 0],
    ]);
    expect(decoded.codePages).toEqual(['pc850']);
    expect(decoded.cuts).toBe(1);
    expect(receiptText(decoded)).toBe(
      `${' '.repeat(14)}Café\n         R$ 9,90\n${' '.repeat(29)}fim\n\n✂ ${'-'.repeat(30)}\n`,
    );
  });

  it('flags commands it does not know and rejects them in strict mode', () => {
    // ESC - (underline) is never sent by the builders.
    const bytes = Uint8Array.from([0x1b, 0x40, 0x1b, 0x2d, 0x01, 0x41, 0x0a]);
    const decoded = decodeEscpos(bytes);
    expect(decoded.unknown[0]).toMatchObject({
      offset: 2,
      hex: '1b 2d',
      reason: 'unsupported command ESC 0x2d',
    });
    expect(() => decodeEscpos(bytes, { strict: true })).toThrow(EscposDecodeError);
    expect(() => decodeEscpos(Uint8Array.from([0x41, 0x42]), { strict: true })).toThrow(
      /without a line feed/,
    );
    expect(() => decodeEscpos(Uint8Array.from([0x1d, 0x28, 0x6b, 0x03]), { strict: true })).toThrow(
      /truncated/,
    );
    expect(() => decodeEscpos(Uint8Array.from([0x1b, 0x74, 0x63, 0x0a]), { strict: true })).toThrow(
      /no table/,
    );
  });

  it('reads ESC p drawer kicks with their pin and times', () => {
    const bytes = new EscposWriter('pc437')
      .init()
      .drawerKick({ pin: 2, t1: 50, t2: 250 })
      .line('x')
      .drawerKick({ pin: 5, t1: 25, t2: 250 })
      .raw(0x1b, 0x70, 0x07, 1, 1)
      .bytes();
    const decoded = decodeEscpos(bytes);
    expect(decoded.drawerKicks).toEqual([
      { kind: 'drawer', pin: 2, t1: 50, t2: 250 },
      { kind: 'drawer', pin: 5, t1: 25, t2: 250 },
    ]);
    expect(decoded.unknown).toEqual([
      { offset: 14, hex: '1b 70 07 01 01', reason: 'ESC p 7: not a drawer pin' },
    ]);
    expect(() => new EscposWriter('pc437').drawerKick({ pin: 2, t1: 0, t2: 250 })).toThrow(RangeError);
  });

  it('ignores a justification sent in the middle of a line, as the printer does', () => {
    const bytes = new EscposWriter('pc437').text('ab').align('right').text('cd').lf().line('next').bytes();
    const decoded = decodeEscpos(bytes);
    expect(decoded.lines.map((l) => [l.text, l.align])).toEqual([
      ['abcd', 'left'],
      ['next', 'left'],
    ]);
    expect(decoded.unknown).toHaveLength(1);
  });

  it('wraps a line longer than the paper where the printer would', () => {
    const decoded = decodeEscpos(new EscposWriter('pc437').line('x'.repeat(40)).bytes(), { columns: 32 });
    expect(decoded.lines[0]?.columns).toBe(40);
    expect(receiptText(decoded)).toBe(`${'x'.repeat(32)}\n${'x'.repeat(8)}\n`);
  });
});
