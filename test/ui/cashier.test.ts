// The cashier screen in a real Chromium against `npm start` on a fresh data dir: sales with several payment
// methods and change, offline contingency and its later authorization, and a keyboard-only sale whose key
// presses are counted.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  cashierGate,
  DEMO_GERENTE,
  readyToSell,
  decodeBarcodes,
  installKeyCounter,
  keysSeen,
  openUi,
  saveScreenshot,
  throttleCpu,
  useRunningProduct,
} from './harness.ts';
import { RECEIPT_IMAGES_LOADED, RECEIPT_IMAGES_PNG } from './in-page.ts';

interface Note {
  id: string;
  status: string;
  numero: number;
  qr_code: string | null;
  tipo_emissao: number;
  valor_total: string;
  itens: { descricao: string | null; quantidade: string | null }[];
}

const ui = useRunningProduct({ catalog: true });

/** Types a code into the always-focused code field, as a scanner or a person does, and Enter. */
async function enterCode(page: Page, code: string, expectedItems: number): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByTestId('item-count').textContent()).toBe(String(expectedItems));
}

async function finishedNote(page: Page): Promise<Note> {
  const done = page.getByTestId('sale-done');
  // A refused sale shows its error banner instead: fail with the message the cashier saw.
  await page
    .locator('[data-testid=sale-done], [data-testid=payment-panel] [data-testid=error-banner]')
    .first()
    .waitFor({ timeout: 20_000 });
  if ((await done.count()) === 0)
    throw new Error(`sale refused: ${await page.getByTestId('error-banner').textContent()}`);
  const id = await done.getAttribute('data-doc-id');
  if (id === null) throw new Error('no document id on the finished sale');
  const note = await ui.product.api<Note>('GET', `/nfce/${id}`);
  expect(note.status).toBe(200);
  return note.body;
}

/** The supervisor prompt shows for `acao`; the demo gerente types code, Enter, PIN, Enter. */
async function approveAsSupervisor(page: Page, acao: string): Promise<void> {
  const prompt = page.getByTestId('supervisor-prompt');
  await prompt.waitFor();
  expect(await prompt.getAttribute('data-acao')).toBe(acao);
  await page.keyboard.type(DEMO_GERENTE.codigo);
  await page.keyboard.press('Enter');
  await page.keyboard.type(DEMO_GERENTE.pin);
  await page.keyboard.press('Enter');
  await prompt.waitFor({ state: 'detached' });
}

describe('cashier screen', () => {
  it('sells two items paid by credit card and cash with change: NFC-e authorized, receipt with items and QR', async () => {
    const page = await openUi(ui.browser, ui.product);
    await expect.poll(() => page.getByTestId('status-authority').getAttribute('data-online')).toBe('true');
    const [cafe, leite] = ui.catalog.products;
    if (cafe === undefined || leite === undefined) throw new Error('catalog');
    await enterCode(page, cafe.cEAN, 1); // a scan: 13 digits + Enter
    await enterCode(page, `3*${leite.cProd}`, 2); // quantity*code
    // 18.90 + 3 × 5.49 = 35.37
    expect(await page.getByTestId('sale-total').textContent()).toBe('R$ 35,37');
    await saveScreenshot(page, 'cashier.png');

    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    expect(await page.getByTestId('payment-amount').inputValue()).toBe('35,37');
    await page.keyboard.press('2'); // Cartão de crédito: methods are picked by their number
    await page.keyboard.type('20');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('remaining').textContent()).toBe('R$ 15,37');
    expect(await page.getByTestId('payment-amount').inputValue()).toBe('15,37');
    await page.keyboard.press('1'); // Dinheiro
    await page.keyboard.type('50');
    await page.keyboard.press('Enter');

    const note = await finishedNote(page);
    expect(note.status).toBe('autorizada');
    expect(await page.getByTestId('sale-status').textContent()).toContain('Autorizada');
    expect(await page.getByTestId('sale-change').textContent()).toContain('R$ 34,63');

    const xml = await fetch(`${ui.product.apiBase}/nfce/${note.id}/xml`, {
      headers: { 'X-API-Key': ui.product.apiKey },
    });
    const text = await xml.text();
    expect(text).toContain('<detPag><tPag>03</tPag><vPag>20.00</vPag>');
    expect(text).toContain('<detPag><tPag>01</tPag><vPag>50.00</vPag></detPag>');
    expect(text).toContain('<vTroco>34.63</vTroco>');

    // The receipt preview: the items are on it and its QR code is the note's.
    const preview = page.getByTestId('receipt-preview');
    await preview.waitFor();
    await page.waitForFunction(RECEIPT_IMAGES_LOADED);
    const receiptItems = await receiptText(page, note);
    expect(receiptItems).toContain('LEITE INTEGRAL 1 L');
    // In homologação the first item's description is the mandatory notice (MOC 7.0 rule for tpAmb 2).
    expect(receiptItems).toContain('HOMOLOGACAO');
    expect(await previewCodes(page)).toContain(note.qr_code);
    await saveScreenshot(page, 'cashier-sale-done.png');
    await page.close();
  });

  it('completes a sale in offline contingency while the sandbox is down, counts it in the queue, and gets it authorized when back', async () => {
    const page = await openUi(ui.browser, ui.product);
    const off = await ui.product.api(
      'POST',
      '/sandbox/faults',
      { online: false },
      ui.product.organizationApiKey,
    );
    expect(off.status).toBe(200);
    try {
      const [, , refri] = ui.catalog.products;
      if (refri === undefined) throw new Error('catalog');
      await enterCode(page, refri.cProd, 1);
      await page.keyboard.press('F10');
      await page.getByTestId('payment-panel').waitFor();
      await page.keyboard.press('Enter'); // exact amount in cash
      const note = await finishedNote(page);
      expect(note.status).toBe('contingencia');
      expect(note.tipo_emissao).toBe(9);
      expect(await page.getByTestId('sale-status').textContent()).toContain('Contingência');
      await expect
        .poll(() => page.getByTestId('status-authority').getAttribute('data-online'), { timeout: 15_000 })
        .toBe('false');
      await expect
        .poll(async () => Number(await page.getByTestId('queue-contingency').textContent()), {
          timeout: 15_000,
        })
        .toBeGreaterThanOrEqual(1);
      await saveScreenshot(page, 'cashier-offline.png');

      const on = await ui.product.api(
        'POST',
        '/sandbox/faults',
        { online: true },
        ui.product.organizationApiKey,
      );
      expect(on.status).toBe(200);
      await expect
        .poll(async () => (await ui.product.api<Note>('GET', `/nfce/${note.id}`)).body.status, {
          timeout: 90_000,
          interval: 1000,
        })
        .toBe('autorizada');
      await expect
        .poll(() => page.getByTestId('queue-contingency').textContent(), { timeout: 20_000 })
        .toBe('0');
      await expect
        .poll(() => page.getByTestId('status-authority').getAttribute('data-online'), { timeout: 20_000 })
        .toBe('true');
    } finally {
      await ui.product.api('POST', '/sandbox/faults', { online: true }, ui.product.organizationApiKey);
      await page.close();
    }
  }, 150_000);

  it('rings up a 5-item sale from the keyboard alone in the minimum number of key presses', async () => {
    const page = await openUi(ui.browser, ui.product);
    await installKeyCounter(page);
    const codes = ui.catalog.products.slice(0, 5).map((p) => p.cProd);
    expect(codes).toEqual(['1', '2', '3', '4', '5']);
    let pressed = 0;
    for (const [i, code] of codes.entries()) {
      await page.keyboard.type(code);
      pressed += code.length;
      await page.keyboard.press('Enter');
      pressed += 1;
      // The cashier sees the line appear before the next one (not a key press).
      await expect.poll(() => page.getByTestId('item-count').textContent()).toBe(String(i + 1));
    }
    await page.keyboard.press('F10');
    pressed += 1;
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('Enter');
    pressed += 1;
    const note = await finishedNote(page);
    expect(note.status).toBe('autorizada');
    expect(note.itens).toHaveLength(5);
    // 18.90 + 5.49 + 9.99 + 27.80 + 4.79
    expect(note.valor_total).toBe('66.97');

    // The minimum this design needs: each item is its code (the shortest input that names a product) and
    // Enter (what a scanner sends); then F10 opens payment with the amount due already filled in cash,
    // and Enter confirms it, which completes the sale. No key starts a sale (the first item does), none
    // prints (the receipt is shown at once) and none starts the next sale (its first code does).
    const minimum = codes.reduce((n, c) => n + c.length + 1, 0) + 2;
    expect(minimum).toBe(12);
    expect(pressed).toBe(minimum);
    expect(await keysSeen(page)).toHaveLength(minimum);
    await page.close();
  });

  it('drives search, quantity, price, discount, CPF, removal and cancellation from function keys', async () => {
    const page = await openUi(ui.browser, ui.product);
    // The key arrives in ?api_key= and leaves the address bar at once.
    expect(page.url()).not.toContain('api_key');
    const press = (key: string) => page.keyboard.press(key);
    const dialog = page.getByRole('dialog');

    await press('F2');
    await page.keyboard.type('FEIJAO');
    await dialog.getByText('FEIJAO CARIOCA 1 KG').waitFor();
    await press('Enter');
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('1');
    await press('F3');
    await page.keyboard.type('2');
    await press('Enter');
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 16,70');
    await enterCode(page, '1', 2);
    await press('ArrowUp'); // the feijão line
    await press('F9');
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('1');
    await press('F8');
    await page.keyboard.type('15,00');
    await press('Enter');
    // The demo caixa changes no price and gives at most 5 % alone: the gerente's PIN, on the spot.
    await approveAsSupervisor(page, 'preco');
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 15,00');
    await press('F4');
    await page.keyboard.type('10%');
    await press('Enter');
    await approveAsSupervisor(page, 'desconto');
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 13,50');
    await press('F6');
    await page.keyboard.type('12345678900');
    await press('Enter');
    expect(await dialog.getByRole('alert').textContent()).toBe('CPF inválido: confira os dígitos.');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('52998224725');
    await press('Enter');
    await expect.poll(() => page.getByTestId('consumer').textContent()).toBe('CPF na nota: 529.982.247-25');

    await press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await press('Enter');
    const note = await finishedNote(page);
    expect(note.status).toBe('autorizada');
    const xml = await (
      await fetch(`${ui.product.apiBase}/nfce/${note.id}/xml`, {
        headers: { 'X-API-Key': ui.product.apiKey },
      })
    ).text();
    expect(xml).toContain('<dest><CPF>52998224725</CPF>');
    expect(xml).toContain('<vUnCom>15.00');
    expect(xml).toContain('<vDesc>1.50</vDesc>');
    expect(note.valor_total).toBe('13.50');

    // Esc after a sale starts the next one; Esc with items asks, Enter confirms the cancellation.
    await press('Escape');
    await page.getByTestId('sale-done').waitFor({ state: 'detached' });
    await enterCode(page, '2', 1);
    await press('Escape');
    await dialog.waitFor();
    await press('Enter');
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('0');
    expect(await page.getByTestId('cashier-notice').textContent()).toBe('Venda cancelada.');
    await page.close();
  });

  it('keeps every key typed before the screen is ready, in order: a scan, F10 and Enter the moment the page loads', async () => {
    // The terminal as it starts a working day's second time: the caixa signed in, the register open.
    const page = await openUi(ui.browser, ui.product);
    // No wait for the screen: the page's script has run (DOMContentLoaded follows module scripts), and the
    // keys arrive while the companies, the operator's register and React's cashier load.
    await page.reload({ waitUntil: 'domcontentloaded' });
    const [cafe, leite, , arroz] = ui.catalog.products;
    if (cafe === undefined || leite === undefined || arroz === undefined) throw new Error('catalog');
    await page.keyboard.type(cafe.cEAN, { delay: 0 });
    await page.keyboard.press('Enter');
    await page.keyboard.press('F10');
    await page.keyboard.press('Enter');
    const note = await finishedNote(page);
    expect(note.status).toBe('autorizada');
    expect(note.itens.map((i) => i.descricao)).toHaveLength(1);
    expect(note.valor_total).toBe('18.90');

    // Keys typed while payment opens and while the sale is being issued wait for it: the next scan then
    // starts the next sale.
    await page.keyboard.press('Escape');
    await page.getByTestId('sale-done').waitFor({ state: 'detached' });
    await page.keyboard.type(leite.cProd);
    await page.keyboard.press('Enter');
    await page.keyboard.press('F10');
    await page.keyboard.press('Enter');
    await page.keyboard.type(arroz.cProd);
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('sale-items').textContent(), { timeout: 20_000 })
      .toContain(arroz.xProd);
    expect(await page.getByTestId('item-count').textContent()).toBe('1');
    expect(await page.getByTestId('sale-total').textContent()).toBe('R$ 27,80');
    expect(await page.getByTestId('sale-items').textContent()).not.toContain(leite.xProd);
    await page.close();
  });

  it('asks for the API key when none is given, refuses a wrong one and keeps the right one', async () => {
    const context = await ui.browser.newContext({ locale: 'pt-BR' });
    const page = await context.newPage();
    await throttleCpu(page);
    await page.goto(`${ui.product.url}/`);
    const input = page.getByLabel('Chave de API');
    await input.fill('blc_0000000000000000_wrong');
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.getByText('A chave de API não é válida.').waitFor();
    await input.fill(ui.product.apiKey);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await readyToSell(page);
    // Kept for the next start of this terminal, with the operator signed in.
    await page.reload();
    expect(await cashierGate(page)).toBe('sale');
    expect(await page.evaluate<string | null>("localStorage.getItem('balcao.apiKey')")).toBe(
      ui.product.apiKey,
    );
    await context.close();
  });
});

/**
 * The barcodes in the images the receipt preview shows, read from the pixels the browser decoded (drawn on
 * a canvas at their natural size, so a preview taller than its scroll box is read whole).
 */
async function previewCodes(page: Page): Promise<string[]> {
  const images = await page.evaluate<string[]>(RECEIPT_IMAGES_PNG);
  return images.flatMap((b64) => decodeBarcodes(Buffer.from(b64, 'base64')));
}

/** The receipt's text: the HTML rendering, or the service's ESC/POS text when the preview is its PNG. */
async function receiptText(page: Page, note: Note): Promise<string> {
  const image = page.getByTestId('receipt-image');
  if ((await image.count()) === 0) return (await page.getByTestId('receipt-preview').textContent()) ?? '';
  const res = await fetch(`${ui.product.apiBase}/nfce/${note.id}/escpos?largura=80&format=json`, {
    headers: { 'X-API-Key': ui.product.apiKey },
  });
  expect(res.status).toBe(200);
  return res.text();
}
