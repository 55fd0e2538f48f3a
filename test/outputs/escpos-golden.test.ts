// NFC-e receipts built from notes the real pipeline issued (test/fixtures/escpos/*.xml, written once by
// make-fixtures.ts through the service and its sandbox authority), compared byte for byte with the golden
// jobs in test/fixtures/escpos/*.bin, then read back with the decoder to check what the paper shows.
//
// After an intended change of the layout, regenerate the goldens and review the diff of receiptText:
//   UPDATE_ESCPOS_GOLDEN=1 npx vitest run test/outputs/escpos-golden.test.ts
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatCpf } from '../../src-shared/tax-ids.ts';
import { parseOutputDocument, type OutputDocument } from '../../src-main/outputs/model.ts';
import {
  buildNfceReceipt,
  buildTestPage,
  decodeEscpos,
  receiptText,
  type DecodedReceipt,
  type EscposProfile,
} from '../../src-main/outputs/escpos/index.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.resolve(here, '../fixtures/escpos');
const update = process.env['UPDATE_ESCPOS_GOLDEN'] === '1';

function xml(name: string): string {
  return fs.readFileSync(path.join(fixtures, `${name}.xml`), 'utf8');
}

function tag(source: string, name: string): string {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(source);
  if (m === null) throw new Error(`no <${name}>`);
  return m[1] ?? '';
}

function golden(name: string, bytes: Uint8Array): void {
  const file = path.join(fixtures, `${name}.bin`);
  if (update) fs.writeFileSync(file, bytes);
  const expected = fs.readFileSync(file);
  if (!Buffer.from(bytes).equals(expected)) {
    // Show what changed on paper rather than a hex dump.
    const columns = name.includes('-58') ? 32 : 48;
    expect(receiptText(decodeEscpos(bytes, { columns }))).toBe(
      receiptText(decodeEscpos(expected, { columns })),
    );
  }
  expect(Buffer.from(bytes).equals(expected), `${name}.bin differs`).toBe(true);
}

const notes = {
  autorizada: { xml: xml('nfce-autorizada'), cancelled: false },
  contingencia: { xml: xml('nfce-contingencia'), cancelled: false },
  cancelada: { xml: xml('nfce-cancelada'), cancelled: true },
} as const;
type Note = keyof typeof notes;

function doc(note: Note): OutputDocument {
  return parseOutputDocument(notes[note].xml, { cancelled: notes[note].cancelled });
}

interface Case {
  name: string;
  note: Note;
  largura: 80 | 58;
  cut: boolean;
  profile?: EscposProfile;
}

const cases: Case[] = [];
for (const largura of [80, 58] as const) {
  cases.push(
    { name: `autorizada-${largura}`, note: 'autorizada', largura, cut: true },
    { name: `autorizada-${largura}-sem-corte`, note: 'autorizada', largura, cut: false },
    {
      name: `autorizada-${largura}-raster`,
      note: 'autorizada',
      largura,
      cut: true,
      profile: { qr: 'raster', codePage: 'pc850' },
    },
    { name: `contingencia-${largura}`, note: 'contingencia', largura, cut: true },
    { name: `cancelada-${largura}`, note: 'cancelada', largura, cut: true },
  );
}
cases.push({
  name: 'autorizada-80-pc860',
  note: 'autorizada',
  largura: 80,
  cut: true,
  profile: { qr: 'native', codePage: 'pc860' },
});

function build(c: Case): Uint8Array {
  return buildNfceReceipt(doc(c.note), {
    largura: c.largura,
    cut: c.cut,
    ...(c.profile === undefined ? {} : { profile: c.profile }),
  });
}

/** Lines of the decoded receipt (text only, in order). */
function texts(decoded: DecodedReceipt): string[] {
  return decoded.lines.map((l) => l.text);
}

describe('NFC-e receipts: golden jobs', () => {
  it.each(cases)('$name matches its golden file byte for byte', (c) => {
    golden(c.name, build(c));
  });

  it('the printer test page matches its golden files', () => {
    const at = new Date('2026-11-22T15:30:00Z');
    golden('teste-80', buildTestPage({ largura: 80, at, printerName: 'Caixa 01 - Elgin i9' }));
    golden('teste-58', buildTestPage({ largura: 58, at, profile: { qr: 'raster', codePage: 'pc860' } }));
  });
});

describe('NFC-e receipts: what the paper shows', () => {
  it.each(cases)('$name: fits the paper, decodes without unknown commands, one code page', (c) => {
    const width = c.largura === 80 ? 48 : 32;
    const decoded = decodeEscpos(build(c), { columns: width, strict: true });
    expect(decoded.unknown).toEqual([]);
    expect(decoded.initCount).toBe(1);
    expect(decoded.codePages).toEqual([c.profile?.codePage ?? 'pc850']);
    for (const line of decoded.lines) expect(line.columns, line.text).toBeLessThanOrEqual(width);
    // The plain text too (a QR code is shown there as "[QR <payload>]", not as printed characters).
    for (const line of receiptText(decoded)
      .split('\n')
      .filter((l) => !l.startsWith('[QR '))) {
      expect([...line].length, line).toBeLessThanOrEqual(width);
    }
    expect(decoded.cuts).toBe(c.cut ? 1 : 0);
  });

  it.each(cases)('$name: right-aligned values end exactly at the last column', (c) => {
    const width = c.largura === 80 ? 48 : 32;
    const d = doc(c.note);
    const lines = texts(decodeEscpos(build(c), { columns: width }));
    const valueLine = (label: string): string => {
      // The value sits on the last line of its (possibly wrapped) label.
      const i = lines.findIndex((l) => l.startsWith(label));
      expect(i, label).toBeGreaterThanOrEqual(0);
      const line = lines.slice(i).find((l) => l.length === width && /\d$/.test(l));
      return line ?? '';
    };
    const vNF = tag(notes[c.note].xml, 'vNF');
    expect(valueLine('Valor a Pagar R$')).toMatch(new RegExp(` ${vNF.replace('.', ',')}$`));
    expect(valueLine('Qtd. total de itens')).toMatch(new RegExp(` ${d.items.length}$`));
    // Every item's detail line: qty UN x unit = total, flush right.
    const details = lines.filter((l) => / x .* = \d/.test(l));
    expect(details).toHaveLength(d.items.length);
    for (const [i, line] of details.entries()) {
      expect(line).toHaveLength(width);
      expect(line.endsWith(` = ${d.items[i]?.vProd.replace('.', ',')}`)).toBe(true);
    }
    for (const line of lines.filter((l) => /\d,\d\d$/.test(l))) expect(line, line).toHaveLength(width);
  });

  it.each(cases)('$name: QR payload is infNFeSupl/qrCode and the access key is there in groups of 4', (c) => {
    const source = notes[c.note].xml;
    const decoded = decodeEscpos(build(c), { columns: c.largura === 80 ? 48 : 32 });
    const qrCode = tag(source, 'qrCode');
    if ((c.profile?.qr ?? 'native') === 'native') {
      expect(decoded.qrCodes.map((q) => [q.data, q.errorCorrection, q.model])).toEqual([[qrCode, 'M', 2]]);
      expect(decoded.rasters).toEqual([]);
    } else {
      expect(decoded.qrCodes).toEqual([]);
      expect(decoded.rasters).toHaveLength(1);
    }
    const keyLines = texts(decoded).filter((l) => /^\d{4}( \d{4})*$/.test(l));
    expect(keyLines.length).toBeGreaterThanOrEqual(1);
    expect(keyLines.join(' ')).toBe(doc(c.note).chave.replace(/(.{4})(?!$)/g, '$1 '));
    // "Consulte pela Chave de Acesso em", then urlChave (wrapped where it is longer than a line), then the key.
    const all = texts(decoded);
    const from = all.indexOf('Consulte pela Chave de Acesso em');
    const to = all.indexOf(keyLines[0] ?? '');
    expect(from).toBeGreaterThanOrEqual(0);
    expect(all.slice(from + 1, to).join('')).toBe(tag(source, 'urlChave'));
  });

  it('accents of names and descriptions decode back exactly, on both widths and both code pages', () => {
    for (const c of cases.filter((x) => x.note === 'autorizada')) {
      const text = texts(decodeEscpos(build(c), { columns: c.largura === 80 ? 48 : 32 })).join(' ');
      for (const expected of [
        'Padaria e Confeitaria São João Ltda',
        'Avenida Brigadeiro Luís Antônio, 1500, Loja 2',
        'São Paulo - SP',
        'Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica',
        'Pão de queijo mineiro congelado, recheado com requeijão cremoso - pacote família 1 kg',
        'Maçã Fuji nacional',
        'Água mineral sem gás 500 ml',
        'Cartão de Débito',
        'Obrigado pela preferência! Trocas em até 7 dias com este cupom.',
        'EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL',
      ]) {
        expect(text, `${c.name}: ${expected}`).toContain(expected);
      }
    }
  });

  it('authorized: totals, payments from the tPag table, troco, tax transparency, consumer, protocol', () => {
    const source = notes.autorizada.xml;
    const decoded = decodeEscpos(build({ name: '', note: 'autorizada', largura: 80, cut: true }));
    const lines = texts(decoded);
    const text = receiptText(decoded);
    expect(lines).toContain(`Valor total R$${'92,23'.padStart(48 - 14)}`);
    expect(lines).toContain(`Descontos R$${'1,00'.padStart(48 - 12)}`);
    expect(lines).toContain(`Acréscimos R$${'0,50'.padStart(48 - 13)}`);
    expect(lines).toContain(`Cartão de Débito${'40,00'.padStart(48 - 16)}`);
    expect(lines).toContain(`Dinheiro${'60,00'.padStart(48 - 8)}`);
    expect(lines).toContain(`Troco R$${'8,27'.padStart(48 - 8)}`);
    expect(text).toContain('Informação dos Tributos Totais Incidentes (Lei');
    expect(
      lines.some((l) =>
        l.endsWith(` ${tag(source.split('<ICMSTot>')[1] ?? '', 'vTotTrib').replace('.', ',')}`),
      ),
    ).toBe(true);
    expect(lines).toContain(`CONSUMIDOR - CPF ${formatCpf(tag(source, 'CPF'))}`);
    expect(lines).toContain(`Protocolo de Autorização: ${tag(source, 'nProt')}`);
    const dhRecbto = tag(source, 'dhRecbto');
    expect(lines).toContain(
      `Data de Autorização: ${dhRecbto.slice(8, 10)}/${dhRecbto.slice(5, 7)}/${dhRecbto.slice(0, 4)} ${dhRecbto.slice(11, 19)}`,
    );
    expect(lines.find((l) => l.startsWith('NFC-e nº '))).toMatch(
      /^NFC-e nº \d+ {2}Série 1 {2}\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d$/,
    );
    expect(decoded.lines.find((l) => l.text.startsWith('Valor a Pagar'))?.bold).toBe(true);
    expect(text).not.toContain('CONTINGÊNCIA');
    expect(text).not.toContain('CANCELADA');
  });

  it('contingency: "EMITIDA EM CONTINGÊNCIA" and "Pendente de autorização", no protocol', () => {
    const decoded = decodeEscpos(build({ name: '', note: 'contingencia', largura: 58, cut: true }), {
      columns: 32,
    });
    const lines = texts(decoded);
    expect(doc('contingencia').tpEmis).toBe('9');
    expect(lines).toContain('EMITIDA EM CONTINGÊNCIA');
    expect(lines).toContain('Pendente de autorização');
    expect(decoded.lines.find((l) => l.text === 'EMITIDA EM CONTINGÊNCIA')?.bold).toBe(true);
    expect(lines.some((l) => l.startsWith('Protocolo'))).toBe(false);
  });

  it('cancelled: "CANCELADA" in double size, anonymous consumer', () => {
    const decoded = decodeEscpos(build({ name: '', note: 'cancelada', largura: 58, cut: true }), {
      columns: 32,
    });
    const cancelada = decoded.lines.filter((l) => l.text === 'CANCELADA');
    expect(cancelada.length).toBeGreaterThanOrEqual(1);
    for (const line of cancelada) {
      expect(line.runs[0]).toMatchObject({ bold: true, width: 2, height: 2 });
      expect(line.columns).toBe(18);
    }
    expect(texts(decoded)).toContain('CONSUMIDOR NÃO IDENTIFICADO');
    expect(receiptText(decoded)).toContain('Pagamento Instantâneo (PIX)');
  });

  it('the test page shows the accent sample, a column ruler as wide as the paper, and a QR code', () => {
    for (const largura of [80, 58] as const) {
      const width = largura === 80 ? 48 : 32;
      const decoded = decodeEscpos(buildTestPage({ largura, at: new Date('2026-11-22T15:30:00Z') }), {
        columns: width,
        strict: true,
      });
      const lines = texts(decoded);
      expect(lines).toContain('ÁÉÍÓÚ ÂÊÔ ÃÕ Ç áéíóú âêô ãõ ç');
      expect(lines).toContain('1234567890'.repeat(5).slice(0, width));
      expect(lines).toContain('22/11/2026 12:30:00');
      expect(decoded.qrCodes).toHaveLength(1);
      expect(decoded.cuts).toBe(1);
    }
  });

  it('refuses an NF-e (modelo 55): its auxiliary document is the DANFE, not a receipt', () => {
    const nfe = { ...doc('autorizada'), modelo: '55' as const };
    expect(() => buildNfceReceipt(nfe, { largura: 80, cut: true })).toThrow(RangeError);
  });
});
