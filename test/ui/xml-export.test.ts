// The back office's "Exportar XML do mês" in a real Chromium against `npm start`: a sale is made, the month
// is picked, and the zip the browser downloads holds the sale's nfeProc and the summary CSV.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openUi, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

describe('Exportar XML do mês', () => {
  it('downloads the chosen month as a zip with the sale and the summary', async () => {
    const sale = await ui.product.api<{
      id: string;
      status: string;
      chave_acesso: string;
      dh_emissao: string;
    }>('POST', '/nfce/venda', {
      itens: [
        {
          codigo: 'X1',
          descricao: 'Cafe 500 g',
          ncm: '09012100',
          unidade: 'UN',
          quantidade: 1,
          valor_unitario: '18.90',
          cfop: '5102',
          tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
        },
      ],
      pagamentos: [{ metodo: 'pix', valor: '18.90' }],
    });
    expect(sale.status).toBe(201);
    expect(sale.body.status).toBe('autorizada');
    // The month as the note was issued (its dhEmi carries the company's offset).
    const mes = sale.body.dh_emissao.slice(0, 7);

    const page = await openUi(ui.browser, ui.product, '/documentos');
    await page.getByRole('button', { name: 'Exportar XML do mês' }).click();
    const dialog = page.getByRole('dialog', { name: 'Exportar XML do mês' });
    await dialog.getByLabel('Mês').fill(mes);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('link', { name: 'Baixar zip' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^xml-\\d{14}-${mes}\\.zip$`));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-ui-zip-')), 'export.zip');
    await download.saveAs(file);
    await page.close();

    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .sort();
    expect(names).toEqual([`NFCe/${sale.body.chave_acesso}-procNFe.xml`, 'resumo.csv']);
    const xml = await fetch(`${ui.product.apiBase}/nfce/${sale.body.id}/xml`, {
      headers: { 'X-API-Key': ui.product.apiKey },
    });
    const stored = Buffer.from(await xml.arrayBuffer());
    expect(execFileSync('unzip', ['-p', file, names[0] ?? '']).equals(stored)).toBe(true);
    const csv = execFileSync('unzip', ['-p', file, 'resumo.csv'], { encoding: 'utf8' }).split('\r\n');
    expect(csv[1]?.split(';').slice(0, 9)).toEqual([
      'NFCe',
      '65',
      '1',
      expect.stringMatching(/^\d+$/),
      '',
      sale.body.chave_acesso,
      expect.stringMatching(new RegExp(`^${mes}-`)),
      'autorizada',
      '18,90',
    ]);
  }, 120_000);
});
