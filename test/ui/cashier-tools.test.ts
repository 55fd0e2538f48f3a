// The cashier's counter tools from the keyboard (issue 13 item 9): price check (F5), repeated scans grouped,
// scale labels (EAN-13 starting with 2, layout set in Settings › Este terminal), reprint from the list of
// recent receipts (F11) and cancelling the last NFC-e (F12), both approved by a supervisor for a caixa; and
// F8 without a printer saying so (item 10).
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { DEMO_GERENTE, openUi, useRunningProduct } from './harness.ts';
import { ean13CheckDigit } from '../../src-renderer/src/cashier/scan.ts';

vi.setConfig({ testTimeout: 120_000 });

interface Note {
  id: string;
  status: string;
  numero: number;
  valor_total: string;
  itens: { quantidade: string | null; valor_total: string }[];
}

const ui = useRunningProduct({
  catalog: true,
  setup: async ({ product, catalog }) => {
    // Sold by weight: the scale prints labels with code 0123.
    const cheese = await product.api('POST', `/products?companyId=${product.companyId}`, {
      cProd: '123',
      xProd: 'QUEIJO PRATO KG',
      NCM: '04069010',
      uCom: 'KG',
      vUnCom: '39.90',
      fiscalProfileId: catalog.profileId,
    });
    if (cheese.status !== 201) throw new Error(`cheese: ${JSON.stringify(cheese.body)}`);
  },
});

const label = (body12: string) => `${body12}${ean13CheckDigit(body12)}`;

async function scan(page: Page, code: string): Promise<void> {
  await page.keyboard.type(code, { delay: 2 });
  await page.keyboard.press('Enter');
}

async function beeps(page: Page): Promise<number> {
  return Number(await page.locator('.cashier').getAttribute('data-beeps'));
}

async function sell(page: Page, code: string): Promise<Note> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('1');
  await page.keyboard.press('F10');
  await page.getByTestId('payment-panel').waitFor();
  await page.keyboard.press('Enter');
  const done = page.getByTestId('sale-done');
  await done.waitFor({ timeout: 30_000 });
  const id = await done.getAttribute('data-doc-id');
  const note = await ui.product.api<Note>('GET', `/nfce/${id ?? ''}`);
  return note.body;
}

/**
 * A caixa signed in is asked for a supervisor (the service answers 403 autorizacao_necessaria and the prompt
 * shows): the demo gerente approves. Without operators the action goes through at once and `then` shows.
 */
async function approve(page: Page, acao: string, then: string): Promise<void> {
  const prompt = page.getByTestId('supervisor-prompt');
  await prompt.or(page.getByTestId(then)).first().waitFor({ timeout: 30_000 });
  if (!(await prompt.isVisible())) return;
  expect(await prompt.getAttribute('data-acao')).toBe(acao);
  await page.keyboard.type(DEMO_GERENTE.codigo);
  await page.keyboard.press('Enter');
  await page.keyboard.type(DEMO_GERENTE.pin);
  await page.keyboard.press('Enter');
  await prompt.waitFor({ state: 'detached' });
}

describe('counter tools', () => {
  it('F5 shows name and price of a scanned code without adding it; repeated scans make one line', async () => {
    const page = await openUi(ui.browser, ui.product);
    const [cafe, leite] = ui.catalog.products;
    if (cafe === undefined || leite === undefined) throw new Error('catalog');
    await page.keyboard.press('F5');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await scan(page, leite.cEAN);
    await expect.poll(() => page.getByTestId('price-check').textContent()).toContain('LEITE INTEGRAL 1 L');
    expect(await page.getByTestId('price-check').textContent()).toContain('R$ 5,49');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('item-count').textContent()).toBe('0');

    for (let i = 0; i < 3; i++) await scan(page, cafe.cEAN);
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 56,70');
    expect(await page.getByTestId('item-count').textContent()).toBe('1');
    expect(await page.getByTestId('sale-items').locator('tbody tr').first().textContent()).toContain('3 UN');
    await page.close();
  });

  it('reads scale labels by the terminal layout: price inside, then weight inside, and refuses a bad check digit', async () => {
    const page = await openUi(ui.browser, ui.product);
    // Default layout 2 CCCC 0PPPPPP D: R$ 12,34 of cheese at R$ 39,90/kg.
    await scan(page, label('201230001234'));
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 12,34');
    expect(await page.getByTestId('sale-items').textContent()).toContain('QUEIJO PRATO KG');
    const before = await beeps(page);
    const good = label('201230000999');
    await scan(page, `${good.slice(0, 12)}${(Number(good[12]) + 1) % 10}`);
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent())
      .toContain('dígito verificador não confere');
    expect(await beeps(page)).toBe(before + 1);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Enter'); // confirms abandoning this sale
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('0');

    // The scale prints the weight with 3 decimals instead.
    await page.goto(`${ui.product.url}/#/configuracoes/terminal`);
    const card = page.getByTestId('scale-layout');
    await card.waitFor();
    await card.getByLabel('A etiqueta traz').selectOption('peso');
    expect(await card.getByLabel('Casas decimais do valor').inputValue()).toBe('3');
    await page.goto(`${ui.product.url}/#/caixa`);
    await page.getByTestId('code-input').waitFor();
    await scan(page, label('201230000500')); // 0,500 kg × 39,90
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 19,95');
    await scan(page, label('201230000500')); // a second package: its own line
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('2');
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('Enter');
    const done = page.getByTestId('sale-done');
    await done.waitFor({ timeout: 30_000 });
    const note = await ui.product.api<Note>('GET', `/nfce/${(await done.getAttribute('data-doc-id')) ?? ''}`);
    expect(note.body.valor_total).toBe('39.90');
    expect(note.body.itens.map((i) => Number(i.quantidade))).toEqual([0.5, 0.5]);
    await page.close();
  });

  it('F8 with no printer says so; F11 lists the recent receipts and reprints the one picked after a supervisor approves', async () => {
    const page = await openUi(ui.browser, ui.product);
    const first = await sell(page, '2');
    const second = await sell(page, '3');
    await page.keyboard.press('F8');
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent())
      .toBe(
        'Impressão: Nenhuma impressora configurada: cadastre uma impressora e marque-a como padrão em Configurações › Impressoras.',
      );

    await page.keyboard.press('F11');
    const list = page.getByTestId('recent-receipts');
    await list.locator('tbody tr').nth(1).waitFor();
    expect(await list.locator('tbody tr').first().getAttribute('data-doc-id')).toBe(second.id);
    await page.keyboard.press('ArrowDown');
    expect(await list.locator('tr.selected').getAttribute('data-doc-id')).toBe(first.id);
    await page.keyboard.press('Enter');
    await approve(page, 'reimprimir', 'reprint-outcome');
    // Approved, the reprint reaches the printing service, which has no printer to send it to.
    await expect
      .poll(() => page.getByTestId('reprint-outcome').textContent())
      .toContain('Reimpressão: Nenhuma impressora configurada');
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'detached' });
    await page.close();
  });

  it('F12 cancels the last NFC-e after a supervisor approves', async () => {
    const page = await openUi(ui.browser, ui.product);
    const note = await sell(page, '4');
    await page.keyboard.press('F12');
    const form = page.getByTestId('cancel-last');
    await form.waitFor();
    expect(await form.getAttribute('data-doc-id')).toBe(note.id);
    await page.keyboard.press('Enter'); // the justification is filled in
    await approve(page, 'cancelar_venda', 'cashier-notice');
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent(), { timeout: 30_000 })
      .toMatch(
        new RegExp(
          `^(NFC-e nº ${note.numero} cancelada|Cancelamento da NFC-e nº ${note.numero} enviado à SEFAZ)\\.$`,
        ),
      );
    await expect
      .poll(async () => (await ui.product.api<Note>('GET', `/nfce/${note.id}`)).body.status, {
        timeout: 30_000,
      })
      .toBe('cancelada');
    await page.close();
  });
});
