// The DC-e screens of the back office in a real Chromium against `npm start` and its embedded authority
// (sandbox): a DC-e typed in the form (a marketplace issuing for a seller, the recipient from the customers,
// items with their exact total) saved and sent, authorized, its DACE on A4 and on the label and its XML, then
// cancelled with its justification; the API's field errors beside their fields with nothing created; a draft
// previewed, edited and sent; a DC-e the authority refused, corrected and sent again; the list's filters.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DCE_CODES } from '../../src-shared/tables/dce-codes.ts';
import { DCE_ENDERECO_PR } from '../fixtures/dce-sample.ts';
import { pdfFile, pdfInfo, pdfRawText } from '../fixtures/outputs/pdf-tools.ts';
import { detailStatus, listTotal, openUi, poll, saveScreenshot, useRunningProduct } from './harness.ts';

interface Dce {
  id: string;
  status: string;
  numero: number;
  chave_acesso: string;
  protocolo: string | null;
  valor_total: string;
  itens_count: number;
  qr_code: string | null;
}

const ui = useRunningProduct({ catalog: true });

const SITE = 'https://loja.example.com.br';
const SELLER = { ...DCE_ENDERECO_PR, nome: 'Maria da Silva', cpf: '529.982.247-25', xMun: 'Curitiba' };

/** The error shown beside the input labelled `label` (a field of the form or a cell of the items). */
const errorBeside = (page: Page, label: string) =>
  page.locator('label.field', { has: page.getByLabel(label, { exact: true }) }).locator('.field-error');

const dceCount = () => listTotal(ui.product, '/dce');

async function dceOf(id: string): Promise<Dce> {
  return (await ui.product.api<Dce>('GET', `/dce/${id}`)).body;
}

const dceStatus = (page: Page, status: string) => detailStatus(page, 'dce-detail', status);

function idOf(page: Page): Promise<string> {
  return page.evaluate('location.hash').then((h) =>
    String(h)
      .replace(/^#\/dce\//, '')
      .replace(/\?.*$/, ''),
  );
}

/** The seller who declares, typed into the form. */
async function fillSeller(page: Page): Promise<void> {
  const s = 'Remetente (declarante)';
  await page.getByLabel(`${s}: Nome / razão social`).fill(SELLER.nome);
  await page.getByLabel(`${s}: CPF ou CNPJ`).fill(SELLER.cpf);
  await page.getByLabel(`${s}: Logradouro`).fill(SELLER.xLgr);
  await page.getByLabel(`${s}: Número`).fill(SELLER.nro);
  await page.getByLabel(`${s}: Bairro`).fill(SELLER.xBairro);
  await page.getByLabel(`${s}: Município`).fill(SELLER.xMun);
  await page.getByLabel(`${s}: Código IBGE do município`).fill(SELLER.cMun);
  await page.getByLabel(`${s}: UF`).selectOption(SELLER.uf);
  await page.getByLabel(`${s}: CEP`).fill(SELLER.cep);
}

/** The registered customer as the recipient. */
async function chooseCustomer(page: Page): Promise<void> {
  await page.getByLabel('Buscar cliente').fill('MERCADO');
  await page
    .getByRole('option', { name: /MERCADO EXEMPLO LTDA/ })
    .getByRole('button')
    .click();
  await poll(() => page.getByLabel('Destinatário: Nome / razão social').inputValue()).toBe(
    'MERCADO EXEMPLO LTDA',
  );
}

async function fillItem(
  page: Page,
  n: number,
  item: { descricao: string; ncm?: string; qtd: string; valor: string },
) {
  await page.getByLabel(`Descrição do item ${n}`).fill(item.descricao);
  if (item.ncm !== undefined) await page.getByLabel(`NCM do item ${n}`).fill(item.ncm);
  await page.getByLabel(`Quantidade do item ${n}`).fill(item.qtd);
  await page.getByLabel(`Valor unitário do item ${n}`).fill(item.valor);
}

/** A whole DC-e typed in: marketplace for the seller, to the registered customer, one item. */
async function fillValid(page: Page, item = { descricao: 'Livro usado', qtd: '1', valor: '30,00' }) {
  await page.getByLabel('Site do marketplace').fill(SITE);
  await fillSeller(page);
  await chooseCustomer(page);
  await fillItem(page, 1, item);
}

async function pdfAt(page: Page, name: string): Promise<string> {
  const href = await page.getByRole('link', { name, exact: true }).getAttribute('href');
  const res = await page.request.get(href ?? '');
  expect(res.headers()['content-type'], await res.text()).toBe('application/pdf');
  const pdf = await res.body();
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  return pdfFile(pdf);
}

describe('DC-e in the back office', () => {
  it(
    'issues a DC-e from the form, opens its DACE (A4 and label) and XML, and cancels it',
    { timeout: 240_000 },
    async () => {
      const page = await openUi(ui.browser, ui.product, '/dce');
      // Reached from the menu, beside the NFS-e.
      const menu = await page.locator('nav a').allTextContents();
      expect(menu.indexOf('DC-e')).toBe(menu.indexOf('NFS-e') + 1);
      await page.getByRole('link', { name: 'Nova DC-e' }).click();
      await page.getByTestId('dce-form').waitFor();
      // The company issues as a marketplace until its settings say otherwise.
      await poll(() => page.getByLabel('Emitida como').inputValue()).toBe('marketplace');

      await page.getByLabel('Site do marketplace').fill(SITE);
      await fillSeller(page);
      // "+ Novo cliente" opens the customer's dialog beside the form; Voltar closes it.
      const newCustomer = page.getByRole('dialog', { name: 'Novo cliente' });
      await page.getByRole('button', { name: '+ Novo cliente' }).click();
      await newCustomer.waitFor();
      await newCustomer.getByRole('button', { name: 'Voltar' }).click();
      await newCustomer.waitFor({ state: 'detached' });
      await chooseCustomer(page);
      expect(await page.getByLabel('Destinatário: CPF ou CNPJ').inputValue()).toBe('11222333000181');
      expect(await page.getByLabel('Destinatário: CEP').inputValue()).toBe('01001000');
      await page.getByLabel('Destinatário: E-mail').fill('compras@mercado.example');

      // Items and their totals as typed: 2 × 10,10 and 1,5 × 0,33333333 (0,499999995 → 0,50).
      await fillItem(page, 1, { descricao: 'Livro usado', ncm: '49019900', qtd: '2', valor: '10,10' });
      await poll(() => page.getByTestId('dce-item-total-1').textContent()).toBe('R$ 20,20');
      await page.getByRole('button', { name: '+ Adicionar item' }).click();
      await fillItem(page, 2, { descricao: 'Camiseta de algodão', qtd: '1,5', valor: '0,33333333' });
      await poll(() => page.getByTestId('dce-item-total-2').textContent()).toBe('R$ 0,50');
      await poll(() => page.getByTestId('dce-form-total').textContent()).toBe('R$ 20,70');
      // A third row added and removed leaves the total as it was.
      await page.getByRole('button', { name: '+ Adicionar item' }).click();
      await fillItem(page, 3, { descricao: 'Engano', qtd: '1', valor: '99' });
      await poll(() => page.getByTestId('dce-form-total').textContent()).toBe('R$ 119,70');
      await page.getByRole('button', { name: 'Remover item 3' }).click();
      await poll(() => page.getByTestId('dce-form-total').textContent()).toBe('R$ 20,70');
      await page.getByLabel('Modalidade de transporte').selectOption('correios');
      await page.getByLabel('Informações complementares').fill('Pedido 1234 da loja virtual');
      await page.getByRole('heading', { name: 'Conteúdo declarado' }).scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'dce-form.png');

      await page.getByRole('button', { name: 'Salvar e enviar' }).click();
      await page.getByTestId('dce-detail').waitFor();
      await dceStatus(page, 'autorizada');
      const id = await idOf(page);
      const d = await dceOf(id);
      expect(d.valor_total).toBe('20.70');
      expect(d.chave_acesso).toMatch(/^\d{20}99\d{22}$/);
      // TProt of the DC-e 1.00 schemas: 16 digits.
      expect(d.protocolo).toMatch(/^\d{16}$/);
      expect((await page.getByTestId('access-key').textContent())?.replace(/\s/g, '')).toBe(d.chave_acesso);
      await poll(() => page.getByTestId('protocol').textContent()).toBe(d.protocolo);
      expect(await page.getByTestId('dce-total').textContent()).toBe('R$ 20,70');
      expect(await page.getByTestId('dce-tipo-emitente').textContent()).toBe('Marketplace / loja virtual');
      // Parties and items as the XML holds them.
      await poll(() => page.getByTestId('dce-items-view').locator('tbody tr').count()).toBe(3);
      const second = page.getByTestId('dce-items-view').locator('tbody tr').nth(1);
      // The unit price with all its decimals, from which the line's 0,50 was computed.
      expect(await second.locator('td').allTextContents()).toEqual([
        '2',
        'Camiseta de algodão',
        '00',
        '1,5',
        'R$ 0,33333333',
        'R$ 0,50',
      ]);
      expect(await page.getByTestId('dce-emitente-view').textContent()).toContain('529.982.247-25');
      expect(await page.getByTestId('dce-destinatario-view').textContent()).toContain('São Paulo/SP');
      // An authorized DC-e is no longer edited, sent or deleted: it is cancelled.
      for (const name of ['Editar', 'Excluir', 'Enviar', 'Reenviar'])
        expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'Editar' }).count()).toBe(0);
      await saveScreenshot(page, 'dce-detail.png');

      // The DACE on A4 and on the 100 × 150 mm label: this DC-e's number, parties and total.
      const a4 = await pdfAt(page, 'DACE A4');
      const a4Text = pdfRawText(a4);
      expect(a4Text).toContain('MERCADO EXEMPLO LTDA');
      expect(a4Text).toContain('20,70');
      expect(a4Text.replace(/\s/g, '')).toContain(d.chave_acesso);
      const label = await pdfAt(page, 'DACE etiqueta');
      const size = pdfInfo(label);
      expect(size.pages).toBe(1);
      // 100 × 150 mm in points (72 per 25.4 mm).
      expect(Math.round(size.width)).toBe(283);
      expect(Math.round(size.height)).toBe(425);
      expect(pdfRawText(label)).toContain('MERCADO EXEMPLO LTDA');
      if (process.env['BALCAO_KEEP_DACE'] !== undefined) fs.copyFileSync(a4, process.env['BALCAO_KEEP_DACE']);

      // The XML button saves the authorized DC-e with its protocol.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Baixar XML' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${d.chave_acesso}-procDCe.xml`);
      const xml = fs.readFileSync((await download.path()) ?? '', 'utf8');
      expect(xml).toContain(`Id="DCe${d.chave_acesso}"`);
      expect(xml).toContain(`<nProt>${d.protocolo}</nProt>`);

      // The cancellation: its justification's length is the API's rule, its answer the authority's.
      await page.getByRole('button', { name: 'Cancelar DC-e' }).click();
      const dialog = page.getByTestId('dce-cancel');
      await dialog.getByLabel('Justificativa (15 a 255 caracteres)').fill('curta');
      await dialog.getByRole('button', { name: 'Cancelar DC-e' }).click();
      await poll(() => dialog.locator('.field-error').textContent()).toBe('mínimo de 15 caracteres');
      await dialog
        .getByLabel('Justificativa (15 a 255 caracteres)')
        .fill('Comprador desistiu antes do envio');
      await saveScreenshot(page, 'dce-cancel.png');
      await dialog.getByRole('button', { name: 'Cancelar DC-e' }).click();
      await dceStatus(page, 'cancelada');
      const events = page.getByTestId('dce-events').locator('tbody tr');
      await poll(() => events.count()).toBe(1);
      await poll(() => events.first().locator('.badge').textContent()).toBe('Registrado');
      expect(await events.first().getAttribute('data-event-type')).toBe('110111');
      // Cancelled: DACE (marked) and XML stay, nothing else.
      expect(await page.getByRole('button', { name: 'Cancelar DC-e' }).count()).toBe(0);
      expect(pdfRawText(await pdfAt(page, 'DACE A4'))).toContain('CANCELADA');
      await saveScreenshot(page, 'dce-cancelled.png');

      // In the list under its status and found by its recipient.
      await page.getByRole('link', { name: '‹ DC-e' }).click();
      const rows = page.getByTestId('dce-list').locator('tbody tr[data-dce-id]');
      await poll(() => page.locator(`tr[data-dce-id="${id}"]`).count()).toBe(1);
      await page.getByLabel('Situação', { exact: true }).selectOption('cancelada');
      await poll(() => page.evaluate('location.hash')).toBe('#/dce?status=cancelada');
      await poll(() => rows.count()).toBe(1);
      expect(await rows.first().getAttribute('data-dce-id')).toBe(id);
      await page.getByLabel('Situação', { exact: true }).selectOption('autorizada');
      await poll(() => page.locator(`tr[data-dce-id="${id}"]`).count()).toBe(0);
      await page.getByRole('button', { name: 'Limpar filtros' }).click();
      await page.getByLabel('Buscar DC-e').fill('MERCADO');
      await poll(() => page.evaluate('location.hash')).toBe('#/dce?q=MERCADO');
      await poll(() => page.locator(`tr[data-dce-id="${id}"]`).count()).toBe(1);
      await page.getByLabel('Buscar DC-e').fill('NINGUEM COM ESTE NOME');
      await poll(() => rows.count()).toBe(0);
      await page.getByRole('button', { name: 'Limpar filtros' }).click();
      await poll(() => rows.count()).toBeGreaterThan(0);
      await saveScreenshot(page, 'dce-list.png');
    },
  );

  it('shows the API field errors beside their fields and creates nothing', { timeout: 120_000 }, async () => {
    const before = await dceCount();
    const page = await openUi(ui.browser, ui.product, '/dce/nova');
    await page.getByTestId('dce-form').waitFor();
    await page.getByLabel('Site do marketplace').fill(SITE);
    await fillSeller(page);
    // A recipient typed without CEP, with a bad CPF; an item without a description and a bad NCM.
    const r = 'Destinatário';
    await page.getByLabel(`${r}: Nome / razão social`).fill('Joao Pereira');
    await page.getByLabel(`${r}: CPF ou CNPJ`).fill('111.444.777-00');
    await page.getByLabel(`${r}: Logradouro`).fill('Avenida Atlantica');
    await page.getByLabel(`${r}: Número`).fill('1702');
    await page.getByLabel(`${r}: Bairro`).fill('Copacabana');
    await page.getByLabel(`${r}: Código IBGE do município`).fill('3304557');
    await page.getByLabel(`${r}: UF`).selectOption('RJ');
    await page.getByLabel('NCM do item 1').fill('123');
    await page.getByLabel('Quantidade do item 1').fill('1');
    await page.getByLabel('Valor unitário do item 1').fill('10');
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    await poll(() => errorBeside(page, `${r}: CEP`).count()).toBe(1);
    expect(await errorBeside(page, `${r}: CPF ou CNPJ`).textContent()).toBe('CPF ou CNPJ inválido');
    // The item's faults in the operator's words, each under its cell.
    const items = page.getByTestId('dce-items');
    expect(await items.locator('.field-error').allTextContents()).toEqual([
      'obrigatório',
      'o capítulo (2 dígitos) ou o NCM completo (8 dígitos)',
    ]);
    expect(await page.getByTestId('error-banner').textContent()).toBe('Há campos inválidos.');
    // A corrected field stops showing the old answer; the others keep theirs.
    await page.getByLabel(`${r}: CPF ou CNPJ`).fill('111.444.777-35');
    await poll(() => errorBeside(page, `${r}: CPF ou CNPJ`).count()).toBe(0);
    expect(await errorBeside(page, `${r}: CEP`).count()).toBe(1);
    await page.getByLabel(`${r}: CEP`).scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'dce-form-errors.png');
    expect(await page.getByTestId('dce-form').count()).toBe(1);
    expect(await dceCount()).toBe(before);
  });

  it('keeps a draft, previews its DACE, edits it and sends it', { timeout: 120_000 }, async () => {
    const page = await openUi(ui.browser, ui.product, '/dce/nova');
    await page.getByTestId('dce-form').waitFor();
    await fillValid(page, { descricao: 'Tênis usado', qtd: '1', valor: '80,00' });
    await page.getByRole('button', { name: '+ Adicionar observação' }).click();
    await page.getByLabel('Campo da observação 1').fill('pedido');
    await page.getByLabel('Texto da observação 1').fill('PED-77');
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    await page.getByTestId('dce-detail').waitFor();
    await dceStatus(page, 'rascunho');
    const id = await idOf(page);
    expect(await page.getByTestId('dce-total').textContent()).toBe('R$ 80,00');
    await poll(() => page.getByTestId('dce-adicionais').textContent()).toBe(
      'Informações complementarespedidoPED-77',
    );
    // No DACE of value before authorization; a preview marked as such.
    expect(await page.getByRole('link', { name: 'DACE A4' }).count()).toBe(0);
    expect(pdfRawText(await pdfAt(page, 'Prévia do DACE'))).toContain('PRÉVIA');

    await page.getByRole('link', { name: 'Editar' }).click();
    await page.getByTestId('dce-form').waitFor();
    // The form holds the draft as it was saved.
    await poll(() => page.getByLabel('Descrição do item 1').inputValue()).toBe('Tênis usado');
    expect(await page.getByLabel('Valor unitário do item 1').inputValue()).toBe('80,00');
    expect(await page.getByLabel('Remetente (declarante): Nome / razão social').inputValue()).toBe(
      SELLER.nome,
    );
    expect(await page.getByLabel('Site do marketplace').inputValue()).toBe(SITE);
    expect(await page.getByLabel('Texto da observação 1').inputValue()).toBe('PED-77');
    await page.getByLabel('Quantidade do item 1').fill('2');
    await poll(() => page.getByTestId('dce-form-total').textContent()).toBe('R$ 160,00');
    await page.getByRole('button', { name: 'Salvar e enviar' }).click();
    await page.getByTestId('dce-detail').waitFor();
    await dceStatus(page, 'autorizada');
    const sent = await dceOf(id);
    expect(sent.valor_total).toBe('160.00');
    // What was not changed went again as it was.
    await poll(() => page.getByTestId('dce-adicionais').textContent()).toContain('PED-77');
  });

  it('deletes a draft never sent', { timeout: 60_000 }, async () => {
    const page = await openUi(ui.browser, ui.product, '/dce/nova');
    await page.getByTestId('dce-form').waitFor();
    await fillValid(page);
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    await dceStatus(page, 'rascunho');
    const id = await idOf(page);
    await page.getByRole('button', { name: 'Excluir' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('nada foi registrado na SEFAZ');
    await dialog.getByRole('button', { name: 'Excluir' }).click();
    await poll(() => page.evaluate('location.hash')).toBe('#/dce');
    expect((await ui.product.api('GET', `/dce/${id}`)).status).toBe(404);
  });

  it(
    'shows a DC-e the authority refused on its page, where it is edited and sent again',
    { timeout: 120_000 },
    async () => {
      const refused = DCE_CODES.dceSchema;
      const fault = await ui.product.api(
        'POST',
        '/sandbox/faults',
        { reject: refused.code },
        ui.product.organizationApiKey,
      );
      expect(fault.status, JSON.stringify(fault.body)).toBe(200);
      const page = await openUi(ui.browser, ui.product, '/dce/nova');
      await page.getByTestId('dce-form').waitFor();
      await fillValid(page, { descricao: 'Bolsa de couro', qtd: '1', valor: '45,00' });
      await page.getByRole('button', { name: 'Salvar e enviar' }).click();
      await page.getByTestId('dce-detail').waitFor();
      await dceStatus(page, 'erro');
      expect(await page.getByTestId('rejection').textContent()).toContain(`Rejeição ${refused.code}`);
      // It reached the authority: no longer deleted; no DACE before authorization.
      expect(await page.getByRole('button', { name: 'Excluir' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'DACE A4' }).count()).toBe(0);
      await saveScreenshot(page, 'dce-rejected.png');
      const id = await idOf(page);
      const numero = (await dceOf(id)).numero;

      await page.getByRole('link', { name: 'Editar' }).click();
      await page.getByTestId('dce-form').waitFor();
      await poll(() => page.getByLabel('Descrição do item 1').inputValue()).toBe('Bolsa de couro');
      await page.getByLabel('Descrição do item 1').fill('Bolsa de couro marrom');
      await page.getByRole('button', { name: 'Salvar e enviar' }).click();
      await page.getByTestId('dce-detail').waitFor();
      await dceStatus(page, 'autorizada');
      // The same DC-e under the same number: a rejection never spends a second one.
      expect((await dceOf(id)).numero).toBe(numero);
      await poll(() => page.getByTestId('dce-items-view').textContent()).toContain('Bolsa de couro marrom');
    },
  );
  it(
    'follows a DC-e queued while the authority is down until it is authorized, and its cancellation until registered',
    { timeout: 360_000 },
    async () => {
      const online = (value: boolean) =>
        ui.product.api('POST', '/sandbox/faults', { online: value }, ui.product.organizationApiKey);
      expect((await online(false)).status).toBe(200);
      let page: Page;
      try {
        page = await openUi(ui.browser, ui.product, '/dce/nova');
        await page.getByTestId('dce-form').waitFor();
        await fillValid(page, { descricao: 'Relógio de parede', qtd: '1', valor: '120,00' });
        await page.getByRole('button', { name: 'Salvar e enviar' }).click();
        // Queued: the page says so, offers only a refresh, and follows it by itself.
        await page.getByTestId('dce-detail').waitFor();
        await dceStatus(page, 'processando');
        expect(await page.getByTestId('queued').textContent()).toContain('Na fila de transmissão');
        expect(await page.getByRole('button', { name: 'Atualizar' }).count()).toBe(1);
        for (const name of ['Enviar', 'Reenviar', 'Excluir', 'Cancelar DC-e'])
          expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
        expect(await page.getByRole('link', { name: 'Editar' }).count()).toBe(0);
        await saveScreenshot(page, 'dce-queued.png');
      } finally {
        await online(true);
      }
      await poll(() => page.getByTestId('dce-detail').getAttribute('data-status'), { timeout: 150_000 }).toBe(
        'autorizada',
      );

      // A cancellation asked while the authority is down waits in the queue, shown as such, until registered.
      expect((await online(false)).status).toBe(200);
      try {
        await page.getByRole('button', { name: 'Cancelar DC-e' }).click();
        const dialog = page.getByTestId('dce-cancel');
        await dialog
          .getByLabel('Justificativa (15 a 255 caracteres)')
          .fill('Endereco do destinatario errado');
        await dialog.getByRole('button', { name: 'Cancelar DC-e' }).click();
        await poll(() => page.getByRole('status').filter({ hasText: 'cancelamento' }).textContent()).toBe(
          'Pedido de cancelamento na fila da SEFAZ.',
        );
        const events = page.getByTestId('dce-events').locator('tbody tr');
        await poll(() => events.first().locator('.badge').textContent()).toBe('Processando');
        expect(await page.getByRole('button', { name: 'Cancelar DC-e' }).count()).toBe(0);
      } finally {
        await online(true);
      }
      await poll(() => page.getByTestId('dce-detail').getAttribute('data-status'), { timeout: 150_000 }).toBe(
        'cancelada',
      );
      await poll(() => page.getByTestId('dce-events').locator('tbody tr .badge').first().textContent()).toBe(
        'Registrado',
      );
    },
  );
});
