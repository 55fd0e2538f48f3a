// DANFE / DANFCe PDFs, the ESC/POS receipt in its three formats and its PNG preview, through the running
// service with the embedded sandbox authority; PDFs read back with poppler, QR codes with zbarimg.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { documentsRepository } from '../../src-main/documents/repository.ts';
import { outputDocumentOf } from '../../src-main/outputs/document.ts';
import { buildNfceReceipt, decodeEscpos } from '../../src-main/outputs/escpos/index.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';

let h: Harness;
let work: string;
let nfceId: string;
let nfeId: string;
let chave: string;
let qrCode: string;

const taxes = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const item = (codigo: string, descricao: string, valor: string) => ({
  codigo,
  descricao,
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 1,
  valor_unitario: valor,
  cfop: '5102',
  tributacao: taxes,
});

beforeAll(async () => {
  h = await startHarness();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-files-'));
  const sale = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
    json: {
      itens: [item('7891000100103', 'Pão de açúcar orgânico', '6.50'), item('789', 'Café torrado', '12.00')],
      pagamentos: [
        { metodo: 'pix', valor: '10.00' },
        { metodo: 'dinheiro', valor: '10.00' },
      ],
    },
  });
  expect(sale.status).toBe(201);
  const sold = sale.body as { id: string; chave_acesso: string; qr_code: string; status: string };
  expect(sold.status).toBe('autorizada');
  ({ id: nfceId, chave_acesso: chave, qr_code: qrCode } = sold);
  const draft = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
    json: {
      naturezaOperacao: 'Venda de mercadoria',
      customer: SP_CONTRIBUTOR,
      itens: [item('A1', 'Produto A1', '7.00')],
      pagamentos: [{ forma: '15', valor: '7.00' }],
    },
  });
  nfeId = (draft.body as { id: string }).id;
});
afterAll(async () => {
  await h.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

async function fetchBytes(
  url: string,
  key: string | null = h.apiKey,
): Promise<{ status: number; type: string; body: Buffer }> {
  const res = await fetch(`${h.service.url}${url}`, { headers: key === null ? {} : { 'X-API-Key': key } });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    body: Buffer.from(await res.arrayBuffer()),
  };
}

function pdfText(pdf: Buffer, name: string): string {
  const file = path.join(work, name);
  fs.writeFileSync(file, pdf);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

function qrOf(png: Buffer, name: string): string {
  const file = path.join(work, name);
  fs.writeFileSync(file, png);
  return execFileSync('zbarimg', ['--quiet', '--raw', '-Sdisable', '-Sqrcode.enable', file], {
    encoding: 'utf8',
  }).trim();
}

describe('DANFE', () => {
  it('a draft has no DANFE (409 naming its state); once authorized the A4 DANFE carries the key', async () => {
    const early = await h.request('GET', `/v1/nfe/${nfeId}/danfe`);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({
      error: 'invalid_state',
      details: [{ field: 'status', error: "current state is 'rascunho'" }],
    });
    const sent = await h.request('POST', `/v1/nfe/${nfeId}/send?sync=true`);
    expect(sent.body).toMatchObject({ status: 'autorizada', danfe_url: `/v1/nfe/${nfeId}/danfe` });
    const pdf = await fetchBytes(`/v1/nfe/${nfeId}/danfe?api_key=${encodeURIComponent(h.apiKey)}`, null);
    expect(pdf.status).toBe(200);
    expect(pdf.type).toBe('application/pdf');
    const text = pdfText(pdf.body, 'nfe.pdf');
    const key = (sent.body as { chave_acesso: string }).chave_acesso;
    expect(text.replace(/\s+/g, ' ')).toContain(key.match(/.{4}/g)!.join(' '));
    expect(text).toContain('SEM VALOR FISCAL');
  });

  it('an NFC-e gets its DANFCe at 80 and 58 mm, from both paths; its QR decodes to the note URL', async () => {
    for (const [url, width] of [
      [`/v1/nfce/${nfceId}/danfe`, '80'],
      [`/v1/nfe/${nfceId}/danfe?largura=58`, '58'],
    ] as const) {
      const pdf = await fetchBytes(url);
      expect(pdf.status).toBe(200);
      expect(pdf.type).toBe('application/pdf');
      const text = pdfText(pdf.body, `nfce-${width}.pdf`);
      expect(text).toContain('Café torrado');
      const file = path.join(work, `nfce-${width}`);
      execFileSync('pdftoppm', [
        '-r',
        '200',
        '-png',
        '-singlefile',
        path.join(work, `nfce-${width}.pdf`),
        file,
      ]);
      expect(qrOf(fs.readFileSync(`${file}.png`), `nfce-${width}-copy.png`)).toBe(qrCode);
    }
    expect((await h.request('GET', `/v1/nfce/${nfceId}/danfe?largura=70`)).status).toBe(400);
    // An NF-e is not an NFC-e: the /v1/nfce paths do not know it.
    expect((await h.request('GET', `/v1/nfce/${nfeId}/danfe`)).status).toBe(404);
  });
});

describe('ESC/POS', () => {
  it('raw bytes are the receipt built from the stored note; base64 and json carry the same bytes', async () => {
    const row = await documentsRepository.findById(h.service.db, nfceId);
    const expected = Buffer.from(buildNfceReceipt(outputDocumentOf(row!), { largura: 80, cut: true }));
    const raw = await fetchBytes(`/v1/nfce/${nfceId}/escpos`);
    expect(raw.status).toBe(200);
    expect(raw.type).toBe('application/octet-stream');
    expect(raw.body.equals(expected)).toBe(true);
    const b64 = await h.request('GET', `/v1/nfce/${nfceId}/escpos?format=base64`);
    expect(Buffer.from(b64.text, 'base64').equals(expected)).toBe(true);
    const json = await h.request('GET', `/v1/nfce/${nfceId}/escpos?format=json`);
    expect(json.body).toMatchObject({ id: nfceId, chave_acesso: chave, largura: 80, colunas: 48, cut: true });
    const body = json.body as { base64: string; texto: string; tamanho: number };
    expect(Buffer.from(body.base64, 'base64').equals(expected)).toBe(true);
    expect(body.tamanho).toBe(expected.length);
    // Accents come back through the code page exactly as sold (in homologação the first item's name is the
    // mandatory test text, rule 373).
    expect(body.texto).toContain('002 789 Café torrado');
    expect(body.texto).toContain('Consumidor Eletrônica');
  });

  it('58 mm has 32 columns; cut=false has no cut; the raster profile sends the QR as an image', async () => {
    const narrow = (await h.request('GET', `/v1/nfce/${nfceId}/escpos?format=json&largura=58`)).body as {
      colunas: number;
      texto: string;
      base64: string;
    };
    expect(narrow.colunas).toBe(32);
    // Every printed line fits the paper; the QR code shows as one "[QR <url>]" line.
    const printed = (text: string) => text.split('\n').filter((l) => !l.startsWith('[QR '));
    expect(Math.max(...printed(narrow.texto).map((l) => l.length))).toBe(32);
    const wide = (await h.request('GET', `/v1/nfce/${nfceId}/escpos?format=json`)).body as { texto: string };
    expect(Math.max(...printed(wide.texto).map((l) => l.length))).toBe(48);

    const cut = decodeEscpos((await fetchBytes(`/v1/nfce/${nfceId}/escpos`)).body);
    const uncut = decodeEscpos((await fetchBytes(`/v1/nfce/${nfceId}/escpos?cut=false`)).body);
    expect(cut.items.filter((i) => i.kind === 'cut')).toHaveLength(1);
    expect(uncut.items.filter((i) => i.kind === 'cut')).toHaveLength(0);
    expect(cut.items.filter((i) => i.kind === 'qr').map((q) => (q as { data: string }).data)).toEqual([
      qrCode,
    ]);

    const raster = decodeEscpos((await fetchBytes(`/v1/nfce/${nfceId}/escpos?qr=raster`)).body);
    expect(raster.items.filter((i) => i.kind === 'qr')).toHaveLength(0);
    expect(raster.items.filter((i) => i.kind === 'raster').length).toBeGreaterThan(0);
  });

  it('bad options are 400 listing every faulty parameter; a note in another state is 409', async () => {
    const bad = await h.request('GET', `/v1/nfce/${nfceId}/escpos?largura=76&format=pdf&cut=sim&qr=x`);
    expect(bad.status).toBe(400);
    expect((bad.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'cut',
      'format',
      'largura',
      'qr',
    ]);
    expect((await h.request('GET', `/v1/nfce/${nfeId}/escpos`)).status).toBe(404);
    expect((await h.request('GET', `/v1/nfce/doc_missing/escpos`)).status).toBe(404);
  });

  it('the PNG preview shows what the printer prints; its QR decodes, natively or as an image', async () => {
    for (const qr of ['nativo', 'raster']) {
      const png = await fetchBytes(
        `/v1/nfce/${nfceId}/escpos/preview.png?qr=${qr}&api_key=${encodeURIComponent(h.apiKey)}`,
        null,
      );
      expect(png.status).toBe(200);
      expect(png.type).toBe('image/png');
      expect(png.body.subarray(1, 4).toString()).toBe('PNG');
      expect(qrOf(png.body, `preview-${qr}.png`)).toBe(qrCode);
    }
  });
});
