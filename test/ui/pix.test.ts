// The PIX waiting screen in Chromium against `npm start` with the embedded sandbox PSP: key 4 charges the
// amount due and shows its QR code; the simulated payment finishes the sale as an NFC-e with tPag 17 and the
// PSP's card group; Esc cancels the charge at the PSP and returns to payment; an expired charge says so.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openUi, useRunningProduct } from './harness.ts';

const ui = useRunningProduct({ catalog: true });

/** Rings up one coffee (18,90), opens payment, and picks PIX (key 4) for the whole amount. */
async function chargeByPix(page: Page): Promise<string> {
  const cafe = ui.catalog.products[0];
  if (cafe === undefined) throw new Error('no product');
  await page.keyboard.type(cafe.cEAN);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('1');
  await page.keyboard.press('F10');
  await page.getByTestId('payment-panel').waitFor();
  await page.keyboard.press('4');
  await page.keyboard.press('Enter');
  const screen = page.getByTestId('pix-charge');
  await screen.waitFor();
  await page.getByTestId('pix-qr').waitFor();
  await expect.poll(() => screen.getAttribute('data-txid')).toMatch(/^[a-zA-Z0-9]{26,35}$/);
  expect(await screen.textContent()).toContain('18,90');
  expect(await page.getByTestId('pix-status').textContent()).toMatch(/expira em 0[45]:\d\d/);
  return (await screen.getAttribute('data-txid')) ?? '';
}

describe('PIX at the counter with the sandbox PSP', () => {
  it('pays by the simulated payment and the sale is authorized with tPag 17 and the PSP card group', async () => {
    const page = await openUi(ui.browser, ui.product);
    const txid = await chargeByPix(page);
    const copy = await page.getByTestId('pix-copia-e-cola').textContent();
    expect(copy).toMatch(/^000201010212.*br\.gov\.bcb\.pix.*6304[0-9A-F]{4}$/);
    await page.getByTestId('pix-simulate').click();
    const done = page.getByTestId('sale-done');
    await done.waitFor();
    const id = await done.getAttribute('data-doc-id');
    const charge = await ui.product.api<{ status: string; end_to_end_id: string; document_id: string }>(
      'GET',
      `/pix/charges/${txid}`,
    );
    expect(charge.body.status).toBe('CONCLUIDA');
    expect(charge.body.document_id).toBe(id);
    const xml = await fetch(`${ui.product.apiBase}/nfce/${id}/xml`, {
      headers: { 'X-API-Key': ui.product.apiKey },
    });
    const text = await xml.text();
    expect(text).toMatch(
      /<tPag>17<\/tPag><vPag>18\.90<\/vPag><card><tpIntegra>1<\/tpIntegra><CNPJ>\d{14}<\/CNPJ>/,
    );
    expect(text).toContain(`<cAut>${charge.body.end_to_end_id}</cAut>`);
    const note = await ui.product.api<{ status: string }>('GET', `/nfce/${id}`);
    expect(note.body.status).toBe('autorizada');
    await page.close();
  }, 120_000);

  it('F8 answers about the printer; Esc cancels the charge at the PSP and returns to the payment panel', async () => {
    const page = await openUi(ui.browser, ui.product);
    const txid = await chargeByPix(page);
    // F8 prints the QR for the customer; this store has no printer yet, and the screen says so.
    await page.keyboard.press('F8');
    await expect.poll(() => page.getByTestId('pix-message').textContent()).toMatch(/impressora/i);
    await page.keyboard.press('Escape');
    await page.getByTestId('pix-charge').waitFor({ state: 'detached' });
    await page.getByTestId('payment-panel').waitFor();
    const charge = await ui.product.api<{ status: string }>('GET', `/pix/charges/${txid}`);
    expect(charge.body.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    // The sale is still open: paying cash (1, Enter) finishes it.
    await page.keyboard.press('1');
    await page.keyboard.press('Enter');
    await page.getByTestId('sale-done').waitFor();
    await page.close();
  }, 120_000);

  it('an expired charge says so, and Esc goes back to payment', async () => {
    const page = await openUi(ui.browser, ui.product);
    const txid = await chargeByPix(page);
    const expired = await ui.product.api(
      'POST',
      '/sandbox/pix/faults',
      { expirar: txid },
      ui.product.organizationApiKey,
    );
    expect(expired.status).toBe(200);
    await expect
      .poll(() => page.getByTestId('pix-message').textContent(), { timeout: 10_000 })
      .toMatch(/expirou/);
    expect(await page.getByTestId('pix-simulate').count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByTestId('pix-charge').waitFor({ state: 'detached' });
    await page.getByTestId('payment-panel').waitFor();
    await page.close();
  }, 120_000);
});
