// The sale on screen survives its operator's session being ended by the back office (a PIN or role change,
// a deactivation): the cashier is sent to the sign-in, and whoever signs in next at the terminal, the same
// operator or another, finds the sale as it was (items, quantities, payments) and finishes it in their name.
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { cashierGate, DEMO_GERENTE, openRegister, signIn, useRunningProduct } from './harness.ts';

// Sign-ins hash PINs with scrypt: generous on a shared machine.
vi.setConfig({ testTimeout: 180_000 });

const ui = useRunningProduct({ catalog: true });

async function enterCode(page: Page, code: string, expectedItems: number): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByTestId('item-count').textContent()).toBe(String(expectedItems));
}

/** The lines on screen: code, quantity and total of each. */
async function lines(page: Page): Promise<string[][]> {
  return page
    .getByTestId('sale-items')
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
    )
    .then((rows) => rows.map((cells) => [cells[1] ?? '', cells[3] ?? '', cells[5] ?? '']));
}

/** Pays the rest by credit card (key 2, Enter): the sale is sent. */
async function payByCredit(page: Page): Promise<void> {
  await page.keyboard.press('F10');
  await page.getByTestId('payment-panel').waitFor();
  await page.keyboard.press('2');
  await page.keyboard.press('Enter');
}

/** The session was ended by the back office: the sale's request is refused and the sign-in shows why. */
async function sentToSignIn(page: Page): Promise<void> {
  await page.getByTestId('operator-sign-in').waitFor({ timeout: 30_000 });
  await expect
    .poll(() => page.getByTestId('signin-error').textContent())
    .toContain('A sessão do operador terminou');
}

describe('a sale held across sign-ins', () => {
  it('stays on screen when the same operator signs in again after a PIN change, and when another one does after a role change', async () => {
    const created = await ui.product.api<{ id: string; codigo: string }>(
      'POST',
      `/operators?companyId=${ui.product.companyId}`,
      { nome: 'Caixa Substituível', papel: 'caixa', pin: '5820' },
    );
    expect(created.status).toBe(201);
    const notesBefore = (await ui.product.api<{ total: number }>('GET', '/nfce?limit=1')).body.total;
    const page = await ui.newPage();
    await signIn(page, created.body.codigo, '5820');
    if ((await cashierGate(page)) === 'open-register') await openRegister(page, '100,00');
    await page.getByTestId('code-input').waitFor();
    const [cafe, leite] = ui.catalog.products;
    if (cafe === undefined || leite === undefined) throw new Error('catalog');
    await enterCode(page, cafe.cEAN, 1);
    await enterCode(page, `2*${leite.cEAN}`, 2);
    const before = await lines(page);
    expect(before.map((l) => l[0])).toEqual([cafe.cProd, leite.cProd]);
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 29,88');

    // The back office gives the operator a new PIN: the session ends, the sale is refused at payment.
    const newPin = await ui.product.api('PUT', `/operators/${created.body.id}`, { pin: '6931' });
    expect(newPin.status).toBe(200);
    await payByCredit(page);
    await sentToSignIn(page);
    await signIn(page, created.body.codigo, '6931');
    await page.getByTestId('code-input').waitFor();
    expect(await lines(page)).toEqual(before);
    expect(await page.getByTestId('sale-total').textContent()).toBe('R$ 29,88');
    expect(await page.getByTestId('cashier-notice').textContent()).toContain('Venda retomada');

    // Now its role changes: another operator signs in and finds the sale, its payment included.
    const promoted = await ui.product.api('PUT', `/operators/${created.body.id}`, { papel: 'supervisor' });
    expect(promoted.status).toBe(200);
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('F10');
    await sentToSignIn(page);
    await signIn(page, DEMO_GERENTE.codigo, DEMO_GERENTE.pin);
    await page.getByTestId('code-input').waitFor();
    expect(await lines(page)).toEqual(before);
    expect((await ui.product.api<{ total: number }>('GET', '/nfce?limit=1')).body.total).toBe(notesBefore);

    // The gerente finishes it: one note, in the gerente's name, with the sale's items and payment.
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('F10');
    const done = page.getByTestId('sale-done');
    await done.waitFor({ timeout: 30_000 });
    const note = await ui.product.api<{
      valor_total: string;
      operador: { codigo: string } | null;
      itens: { codigo: string; quantidade: string }[];
    }>('GET', `/nfce/${await done.getAttribute('data-doc-id')}`);
    expect(note.body.valor_total).toBe('29.88');
    expect(note.body.operador?.codigo).toBe(DEMO_GERENTE.codigo);
    expect(note.body.itens.map((i) => [i.codigo, i.quantidade])).toEqual([
      [cafe.cProd, '1.00'],
      [leite.cProd, '2.00'],
    ]);
    expect((await ui.product.api<{ total: number }>('GET', '/nfce?limit=1')).body.total).toBe(
      notesBefore + 1,
    );
    await page.close();
  });
});
