// The cashier's sign-in in a real Chromium: code, Enter, PIN, Enter from the keyboard; a wrong PIN says how
// many tries are left, five lock the operator and the screen says so; once signed in, the register asks
// for the float, and the bar names who is selling.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { cashierGate, DEMO_CAIXA, openRegister, signIn, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

/** The cashier as a terminal opens it, stopping at whatever gate shows first. */
const openCashier = () => ui.newPage();

async function typeCredentials(page: Page, codigo: string, pin: string): Promise<void> {
  await page.getByTestId('signin-codigo').focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(codigo);
  await page.keyboard.press('Enter');
  await page.keyboard.type(pin);
  await page.keyboard.press('Enter');
}

describe('operator sign-in', () => {
  it('refuses a wrong PIN with the tries left, then signs in, asks for the float and names the operator', async () => {
    const page = await openCashier();
    expect(await cashierGate(page)).toBe('sign-in');
    // Nothing to sell with before signing in.
    expect(await page.getByTestId('code-input').count()).toBe(0);

    await typeCredentials(page, DEMO_CAIXA.codigo, '1357');
    const error = page.getByTestId('signin-error');
    await error.waitFor();
    await expect.poll(() => error.textContent()).toMatch(/PIN incorreto: 4 tentativas restantes/);

    await typeCredentials(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    await page.getByTestId('operator-sign-in').waitFor({ state: 'hidden' });
    expect(await cashierGate(page)).toBe('open-register');

    await openRegister(page, '150,00');
    await page.getByTestId('code-input').waitFor();
    expect(await page.getByTestId('operator-name').textContent()).toContain('Caixa Demo');
    const current = await ui.product.api<{ fundo_troco: number; aberta_por: { codigo: string } }>(
      'GET',
      '/register-sessions/current',
    );
    expect(current.status).toBe(200);
    expect(current.body.fundo_troco).toBe(150);
    expect(current.body.aberta_por.codigo).toBe(DEMO_CAIXA.codigo);

    // A reload keeps the operator signed in and the register open: straight back to selling.
    await page.reload();
    await page.getByTestId('status-bar').waitFor();
    expect(await cashierGate(page)).toBe('sale');

    // F1 → 4 signs out; the next person sees the sign-in, and the register stays open for them.
    await page.keyboard.press('F1');
    await page.getByTestId('register-menu').waitFor();
    await page.keyboard.press('4');
    expect(await cashierGate(page)).toBe('sign-in');
    await page.close();
  }, 120_000);

  it('creates an operator in Operadores, locks it after five wrong PINs, unlocks it with a new PIN, deactivates it', async () => {
    // Back office: a trivial PIN is refused beside its field, a good one creates the operator.
    const page = await openCashier();
    await page.goto(`${ui.product.url}/#/operadores`);
    await page.getByRole('button', { name: 'Novo operador' }).click();
    const form = page.getByTestId('operator-form');
    await form.getByLabel('Nome').fill('Operadora Teste');
    await form.getByLabel('Papel').selectOption('caixa');
    await form.getByLabel('PIN').fill('1234');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => form.getByRole('alert').first().textContent()).toContain('fácil demais');
    await form.getByLabel('PIN').fill('2580');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await form.waitFor({ state: 'detached' });
    const row = page.locator('[data-testid=operators-table] tr', { hasText: 'Operadora Teste' });
    await expect.poll(() => row.textContent()).toMatch(/Caixa.*Ativo/);
    const codigo = (await row.getAttribute('data-codigo')) ?? '';
    expect(codigo).toMatch(/^\d+$/);

    await page.goto(`${ui.product.url}/#/caixa`);
    expect(await cashierGate(page)).toBe('sign-in');
    const error = page.getByTestId('signin-error');
    for (let left = 4; left >= 0; left--) {
      await typeCredentials(page, codigo, '1470');
      await expect
        .poll(() => error.textContent())
        .toMatch(
          left > 0 ? new RegExp(`PIN incorreto: ${left} tentativa`) : /bloqueado .*até \d\d\/\d\d\/\d{4}/,
        );
    }
    // Even the right PIN is refused while locked.
    await typeCredentials(page, codigo, '2580');
    await expect.poll(() => error.textContent()).toMatch(/bloqueado/i);
    expect(await page.getByTestId('operator-sign-in').isVisible()).toBe(true);

    // The back office shows the lock; a new PIN unlocks, and the operator signs in with it.
    await page.goto(`${ui.product.url}/#/operadores`);
    await expect.poll(() => row.textContent()).toMatch(/Bloqueado até/);
    await row.getByRole('button', { name: 'Editar' }).click();
    await form.getByLabel('PIN').fill('8642');
    await form.getByRole('button', { name: 'Salvar' }).click();
    await expect.poll(() => row.textContent()).toMatch(/Ativo/);
    await page.goto(`${ui.product.url}/#/caixa`);
    await signIn(page, codigo, '8642');
    expect(await page.getByTestId('operator-name').textContent()).toContain('Operadora Teste');
    await page.keyboard.press('F1');
    await page.keyboard.press('4');
    expect(await cashierGate(page)).toBe('sign-in');

    // Deactivated, the operator leaves the list and cannot sign in; the history keeps the name.
    await page.goto(`${ui.product.url}/#/operadores`);
    await row.getByRole('button', { name: 'Desativar' }).click();
    await row.waitFor({ state: 'detached' });
    await page.getByLabel('Mostrar inativos').check();
    await expect.poll(() => row.textContent()).toMatch(/Inativo/);
    await page.goto(`${ui.product.url}/#/caixa`);
    await typeCredentials(page, codigo, '8642');
    await expect.poll(() => error.textContent()).toBe('Código de operador não encontrado ou inativo.');
    await page.close();
  }, 120_000);

  it('a second terminal set as caixa 2 signs in to it and opens its own register', async () => {
    const page = await openCashier();
    await page.goto(`${ui.product.url}/#/configuracoes/terminal`);
    const field = page.getByLabel('Número deste caixa');
    await field.fill('2');
    await page.getByText('Este terminal é o caixa 2.').waitFor();
    await page.goto(`${ui.product.url}/#/caixa`);
    expect(await cashierGate(page)).toBe('sign-in');
    expect(await page.getByTestId('operator-sign-in').textContent()).toContain('Entrar no caixa 2');
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    // Caixa 1 may be open (the first test): caixa 2 has no session yet and asks for its own float.
    expect(await cashierGate(page)).toBe('open-register');
    await openRegister(page, '75,00');
    await page.getByTestId('code-input').waitFor();
    const second = await ui.product.api<{ caixa: string; fundo_troco: number }>(
      'GET',
      '/register-sessions/current?caixa=2',
    );
    expect(second.status).toBe(200);
    expect([second.body.caixa, second.body.fundo_troco]).toEqual(['2', 75]);
    expect(await page.getByTestId('operator-bar').textContent()).toContain('Caixa 2');
    await page.close();
  }, 120_000);
});
