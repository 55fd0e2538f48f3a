// The cashier's payment panel and the screens around it, as a shift in Chromium broke them: a barcode read
// while the payment panel is open (issue 13 item 6), scans typed while a sale is being issued (item 7) and
// the keys of the finished-sale screen (item 8).
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { openUi, useRunningProduct } from './harness.ts';

interface Note {
  id: string;
  status: string;
  valor_total: string;
  itens: { descricao: string | null; quantidade: string | null }[];
}

// Each test signs a caixa in and opens the register first (scrypt PINs): generous on a shared machine.
vi.setConfig({ testTimeout: 120_000 });

const ui = useRunningProduct({ catalog: true });

function item(i: number) {
  const p = ui.catalog.products[i];
  if (p === undefined) throw new Error(`catalog item ${i}`);
  return p;
}

async function enterCode(page: Page, code: string, expectedItems: number): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByTestId('item-count').textContent()).toBe(String(expectedItems));
}

/** A scanner: the digits a few ms apart and Enter, as the wedge types them. */
async function scan(page: Page, code: string): Promise<void> {
  await page.keyboard.type(code, { delay: 2 });
  await page.keyboard.press('Enter');
}

async function beeps(page: Page): Promise<number> {
  return Number(await page.locator('.cashier').getAttribute('data-beeps'));
}

async function finishedNote(page: Page): Promise<Note> {
  const done = page.getByTestId('sale-done');
  await page
    .locator('[data-testid=sale-done], [data-testid=payment-panel] [data-testid=error-banner]')
    .first()
    .waitFor({ timeout: 30_000 });
  if ((await done.count()) === 0)
    throw new Error(`sale refused: ${await page.getByTestId('error-banner').textContent()}`);
  const id = await done.getAttribute('data-doc-id');
  if (id === null) throw new Error('no document id');
  const note = await ui.product.api<Note>('GET', `/nfce/${id}`);
  expect(note.status).toBe(200);
  return note.body;
}

/**
 * Sells one `cProd` in cash on a new page with the sandbox authority answering in 2 s (a long "Emitindo…" to
 * type into, the same every run), runs `whileIssuing` during it, and puts the authority and the page back.
 */
async function duringSlowIssue(cProd: string, whileIssuing: (page: Page) => Promise<void>): Promise<void> {
  const page = await openUi(ui.browser, ui.product);
  const slow = await ui.product.api('POST', '/sandbox/faults', { slow: 2000 }, ui.product.organizationApiKey);
  expect(slow.status).toBe(200);
  try {
    await enterCode(page, cProd, 1);
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('Enter');
    await page.getByTestId('issuing').waitFor();
    await whileIssuing(page);
  } finally {
    await ui.product.api('POST', '/sandbox/faults', { slow: false }, ui.product.organizationApiKey);
    await page.close();
  }
}

async function xmlOf(id: string): Promise<string> {
  const res = await fetch(`${ui.product.apiBase}/nfce/${id}/xml`, {
    headers: { 'X-API-Key': ui.product.apiKey },
  });
  return res.text();
}

describe('payment panel (item 6)', () => {
  it('refuses a barcode scanned in the payment panel, visibly and audibly, and keeps the amount', async () => {
    const page = await openUi(ui.browser, ui.product);
    const cafe = item(0);
    await enterCode(page, cafe.cEAN, 1);
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    const amount = page.getByTestId('payment-amount');
    expect(await amount.inputValue()).toBe('18,90');
    const before = await beeps(page);

    // The scan arrives while the panel waits for the method…
    await scan(page, item(1).cEAN);
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent())
      .toBe(`Código lido no pagamento (${item(1).cEAN}): volte aos itens (Esc) para adicioná-lo.`);
    expect(await amount.inputValue()).toBe('18,90');
    expect(await page.getByTestId('payments').count()).toBe(0);
    expect(await page.locator('.cashier').getAttribute('data-pay-stage')).toBe('method');
    expect(await beeps(page)).toBe(before + 1);

    // …and while the cashier is typing the cash received: the field goes back to what it held.
    await page.keyboard.press('1');
    await expect.poll(() => page.locator('.cashier').getAttribute('data-pay-stage')).toBe('amount');
    // A person's pause: a digit typed within 500 ms of the scan's would be read as part of it.
    await page.waitForTimeout(800);
    await scan(page, '7891000100103');
    await expect.poll(() => beeps(page)).toBe(before + 2);
    expect(await amount.inputValue()).toBe('18,90');
    expect(await page.getByTestId('payments').count()).toBe(0);
    expect(await page.getByTestId('sale-done').count()).toBe(0);

    // Esc, Esc: back to the items, where the same scan is an item.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.getByTestId('payment-panel').waitFor({ state: 'detached' });
    await scan(page, item(1).cEAN);
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('2');
    await page.close();
  });

  it('refuses cash above the cap and asks Enter again before a large change', async () => {
    const page = await openUi(ui.browser, ui.product);
    await enterCode(page, item(4).cProd, 1); // 4,79
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('1');
    // Typed by hand (slowly, so not a scan): R$ 1.500,00 for a R$ 4,79 sale.
    await page.keyboard.type('1500', { delay: 150 });
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent())
      .toBe('Valor recebido alto demais (R$ 1.500,00): em dinheiro, no máximo R$ 1.000,00 nesta venda.');
    expect(await page.getByTestId('payments').count()).toBe(0);

    // R$ 50,00: change of R$ 45,21, more than the sale itself — shown first, Enter again confirms.
    await page.keyboard.type('50');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent())
      .toBe('Troco de R$ 45,21 para R$ 50,00 recebidos: confira. Enter confirma, Esc corrige.');
    expect(await page.getByTestId('payments').count()).toBe(0);
    await page.keyboard.press('Enter');
    const note = await finishedNote(page);
    expect(note.status).toBe('autorizada');
    expect(await page.getByTestId('sale-change').textContent()).toContain('R$ 45,21');
    expect(await xmlOf(note.id)).toContain('<vTroco>45.21</vTroco>');
    await page.close();
  });

  it('picks payment methods by number: 3 débito then 1 dinheiro', async () => {
    const page = await openUi(ui.browser, ui.product);
    await enterCode(page, item(3).cProd, 1); // 27,80
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('3');
    await page.keyboard.type('20');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('remaining').textContent()).toBe('R$ 7,80');
    await page.keyboard.press('Enter'); // the rest, in the highlighted Dinheiro
    const note = await finishedNote(page);
    const xml = await xmlOf(note.id);
    expect(xml).toContain('<detPag><tPag>04</tPag><vPag>20.00</vPag>');
    expect(xml).toContain('<detPag><tPag>01</tPag><vPag>7.80</vPag></detPag>');
    await page.close();
  });
});

describe('keys around a sale (items 7 and 8)', () => {
  it('keeps the scans typed while a sale is issued for the next sale', async () => {
    await duringSlowIssue(item(2).cProd, async (page) => {
      await scan(page, item(0).cEAN);
      await scan(page, item(1).cEAN);
      await scan(page, item(0).cEAN);
      // The three scans are the next sale (the finished one gives way to it at once): café twice on one
      // line, leite once.
      await expect
        .poll(() => page.getByTestId('sale-items').textContent(), { timeout: 30_000 })
        .toContain(item(1).xProd);
      const last = await ui.product.api<{ items: Note[] }>('GET', '/nfce?limit=1');
      expect(last.body.items[0]?.status).toBe('autorizada');
      expect(last.body.items[0]?.itens.map((i) => i.descricao)).toHaveLength(1);
      await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 43,29'); // 2 × 18,90 + 5,49
      expect(await page.getByTestId('item-count').textContent()).toBe('2');
      const firstRow = await page.getByTestId('sale-items').locator('tbody tr').first().textContent();
      expect(firstRow).toContain(item(0).xProd);
      expect(firstRow).toContain('2 UN');
    });
  });

  it('keeps F11 pressed while a sale is issued: the receipts list opens once the sale is done', async () => {
    await duringSlowIssue(item(5).cProd, async (page) => {
      await page.keyboard.press('F11');
      const list = page.getByTestId('recent-receipts');
      await list.locator('tbody tr').first().waitFor({ timeout: 30_000 });
      const last = await ui.product.api<{ items: (Note & { itens: unknown[] })[] }>('GET', '/nfce?limit=1');
      expect(last.body.items[0]?.status).toBe('autorizada');
      expect(await list.locator('tbody tr').first().getAttribute('data-doc-id')).toBe(last.body.items[0]?.id);
    });
  });

  it('on the finished sale, F6 and a CPF go to the next sale, F3 sets its first quantity and F2 searches', async () => {
    const page = await openUi(ui.browser, ui.product);
    await enterCode(page, item(1).cProd, 1);
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('Enter');
    await finishedNote(page);

    // Typed at once, as a cashier does when the customer says "CPF na nota".
    await page.keyboard.press('F6');
    await page.keyboard.type('52998224725');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('consumer').textContent()).toBe('CPF na nota: 529.982.247-25');
    expect(await page.getByTestId('sale-done').count()).toBe(0);
    expect(await page.getByTestId('cashier-notice').count()).toBe(0);

    await page.keyboard.press('F3');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await enterCode(page, item(4).cProd, 1);
    await page.keyboard.press('F2');
    await page.keyboard.type('feijão');
    await page.getByRole('dialog').getByText('FEIJAO CARIOCA 1 KG').waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('2');
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('Enter');
    const note = await finishedNote(page);
    expect(note.valor_total).toBe('22.72'); // 3 × 4,79 + 8,35
    expect(await xmlOf(note.id)).toContain('<dest><CPF>52998224725</CPF>');

    // F10 right on the finished screen starts the next sale too (and says it has no items yet).
    await page.keyboard.press('F10');
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent())
      .toBe('Inclua ao menos um item antes do pagamento.');
    expect(await page.getByTestId('sale-done').count()).toBe(0);
    await page.close();
  });
});
