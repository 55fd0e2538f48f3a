// The company logo: upload (raw image or multipart), checks, and the logo on the DANFE and DANFCe, through
// the running service; the PDFs' images listed with poppler's pdfimages.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';

let h: Harness;
let work: string;

beforeAll(async () => {
  h = await startHarness();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-logo-'));
});
afterAll(async () => {
  await h.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const cafe = {
  codigo: '1',
  descricao: 'Cafe 500 g',
  ncm: '09012100',
  unidade: 'UN',
  quantidade: 1,
  valor_unitario: '18.90',
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
};

function logoPng(width = 120, height = 60): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) {
    const dark = i % width > width / 4 && i % width < (3 * width) / 4;
    png.data.set(dark ? [20, 60, 120, 255] : [255, 255, 255, 255], i * 4);
  }
  return PNG.sync.write(png);
}

async function put(body: Buffer | FormData, type?: string, companyId = h.companyId) {
  const res = await fetch(`${h.service.url}/v1/companies/${companyId}/logo`, {
    method: 'PUT',
    headers: { 'X-API-Key': h.apiKey, ...(type === undefined ? {} : { 'Content-Type': type }) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Images embedded in a PDF, as pdfimages lists them ("page num type width height …"). */
function pdfImageSizes(pdf: Buffer, name: string): string[] {
  const file = path.join(work, name);
  fs.writeFileSync(file, pdf);
  return execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
    .split('\n')
    .slice(2)
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const cols = l.trim().split(/\s+/);
      return `${cols[3]}x${cols[4]}`;
    });
}

describe('company logo', () => {
  it('takes a PNG as the body or by multipart, serves it back, and prints it on the DANFE and DANFCe', async () => {
    const png = logoPng();
    expect(await put(png, 'image/png')).toEqual({
      status: 200,
      body: { mediaType: 'image/png', width: 120, height: 60, bytes: png.length },
    });
    const back = await fetch(`${h.service.url}/v1/companies/${h.companyId}/logo`, {
      headers: { 'X-API-Key': h.apiKey },
    });
    expect(back.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await back.arrayBuffer()).equals(png)).toBe(true);

    const form = new FormData();
    form.append('logo', new Blob([logoPng(90, 90)], { type: 'image/png' }), 'logo.png');
    expect(await put(form)).toMatchObject({ status: 200, body: { width: 90, height: 90 } });

    const sale = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
      json: {
        itens: [cafe],
        pagamentos: [{ metodo: 'pix', valor: '18.90' }],
      },
    });
    const id = (sale.body as { id: string }).id;
    const danfce = await fetch(`${h.service.url}/v1/nfce/${id}/danfe`, {
      headers: { 'X-API-Key': h.apiKey },
    });
    expect(danfce.status).toBe(200);
    expect(pdfImageSizes(Buffer.from(await danfce.arrayBuffer()), 'with-logo.pdf')).toContain('90x90');

    const draft = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: {
        naturezaOperacao: 'Venda de mercadoria',
        customer: SP_CONTRIBUTOR,
        itens: [cafe],
        pagamentos: [{ forma: '15', valor: '18.90' }],
      },
    });
    const nfeId = (draft.body as { id: string }).id;
    expect((await h.request('POST', `/v1/nfe/${nfeId}/send?sync=true`)).body).toMatchObject({
      status: 'autorizada',
    });
    const danfe = await fetch(`${h.service.url}/v1/nfe/${nfeId}/danfe`, {
      headers: { 'X-API-Key': h.apiKey },
    });
    expect(pdfImageSizes(Buffer.from(await danfe.arrayBuffer()), 'danfe-logo.pdf')).toContain('90x90');

    expect((await h.request('DELETE', `/v1/companies/${h.companyId}/logo`)).status).toBe(204);
    expect((await h.request('DELETE', `/v1/companies/${h.companyId}/logo`)).status).toBe(404);
    const plain = await fetch(`${h.service.url}/v1/nfce/${id}/danfe`, { headers: { 'X-API-Key': h.apiKey } });
    expect(pdfImageSizes(Buffer.from(await plain.arrayBuffer()), 'without-logo.pdf')).not.toContain('90x90');
  });

  it('refuses what is not a usable image with a field error, and other companies with 403', async () => {
    const broken = logoPng();
    broken.writeUInt32BE(0xdeadbeef, broken.length - 20); // corrupt the image data (IDAT/CRC)
    const corrupt = await put(broken, 'image/png');
    expect(corrupt.status).toBe(400);
    expect(corrupt.body).toMatchObject({ error: 'validation_error', details: [{ field: 'logo' }] });

    const notImage = await put(Buffer.from('GIF89a not supported'), 'image/jpeg');
    expect(notImage.body).toMatchObject({
      details: [{ field: 'logo', error: 'must be a PNG or JPEG image' }],
    });

    expect((await put(logoPng(2400, 10), 'image/png')).body).toMatchObject({
      details: [{ field: 'logo', error: 'at most 2000×2000 pixels (got 2400×10)' }],
    });
    expect((await put(Buffer.alloc(300 * 1024, 1), 'image/png')).status).toBe(413);
    expect((await put(Buffer.from('{}'), 'application/json')).body).toMatchObject({
      details: [{ field: 'logo' }],
    });

    const otherCnpj = '222333440001' + cnpjCheckDigits('222333440001');
    const created = await h.request('POST', '/v1/companies', { json: companyBody(otherCnpj) });
    expect(created.status).toBe(201);
    const key = await h.request('POST', '/v1/api-keys', {
      json: { name: 'caixa', scope: 'company', companyId: h.companyId, plan: 'standard' },
    });
    const res = await fetch(`${h.service.url}/v1/companies/${(created.body as { id: string }).id}/logo`, {
      method: 'PUT',
      headers: { 'X-API-Key': (key.body as { key: string }).key, 'Content-Type': 'image/png' },
      body: logoPng(),
    });
    expect(res.status).toBe(403);
  });
});
