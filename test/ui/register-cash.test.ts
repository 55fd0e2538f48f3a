// The register in a real Chromium, from the keyboard: opening with the float counted, sangria and suprimento
// from the F1 menu (each printed), the blind closing (no expected amount on screen before the count is
// confirmed, then the differences and the shift report), the back office's Caixas and Relatórios pages, and
// the supervisor prompt answering for a caixa (Esc cancels, a wrong PIN says so, a caixa cannot approve).
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import {
  cashierGate,
  DEMO_CAIXA,
  DEMO_GERENTE,
  openRegister,
  saveScreenshot,
  signIn,
  useRunningProduct,
} from './harness.ts';

// Sign-ins hash PINs with scrypt: generous on a shared machine.
vi.setConfig({ testTimeout: 120_000 });

const ui = useRunningProduct({ catalog: true });

async function enterCode(page: Page, code: string, expectedItems: number): Promise<void> {
  await page.keyboard.type(code);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.getByTestId('item-count').textContent()).toBe(String(expectedItems));
}

interface Session {
  id: string;
  status: string;
  fundo_troco: number;
  movimentos: { tipo: string; valor: number; motivo: string; operador: { codigo: string } | null }[];
  fechamento: null | {
    contado: Record<string, number>;
    esperado: Record<string, number>;
    diferenca_total: number;
  };
}

describe('register screens', () => {
  it('opens, takes a sangria and a suprimento, abandons a sale, and closes with a blind count showing the difference', async () => {
    const page = await ui.newPage();
    expect(await cashierGate(page)).toBe('sign-in');
    await saveScreenshot(page, 'operator-sign-in.png');
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    expect(await cashierGate(page)).toBe('open-register');
    await openRegister(page, '200,00');
    await page.getByTestId('code-input').waitFor();
    const current = await ui.product.api<Session>('GET', '/register-sessions/current');
    expect(current.body.fundo_troco).toBe(200);

    // F1 → 1: sangria of 50,00.
    await page.keyboard.press('F1');
    await page.getByTestId('register-menu').waitFor();
    await page.keyboard.press('1');
    await page.getByTestId('register-sangria').waitFor();
    await page.keyboard.type('50,00');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Depósito no cofre');
    await page.keyboard.press('Enter');
    await page.getByTestId('code-input').waitFor();
    await expect
      .poll(() => page.getByTestId('register-notice').textContent())
      .toContain('Sangria de R$ 50,00 registrada');

    // F1 → 2: suprimento of 20,00; an empty reason is refused first.
    await page.keyboard.press('F1');
    await page.keyboard.press('2');
    await page.getByTestId('register-suprimento').waitFor();
    await page.keyboard.type('20');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('movement-error').textContent()).toBe('Informe o motivo.');
    await page.keyboard.type('Moedas');
    await page.keyboard.press('Enter');
    await page.getByTestId('code-input').waitFor();

    const moved = await ui.product.api<Session>('GET', `/register-sessions/${current.body.id}`);
    expect(moved.body.movimentos.map((m) => [m.tipo, m.valor, m.motivo, m.operador?.codigo])).toEqual([
      ['sangria', 50, 'Depósito no cofre', DEMO_CAIXA.codigo],
      ['suprimento', 20, 'Moedas', DEMO_CAIXA.codigo],
    ]);

    // A sale started and abandoned (Esc, Enter): the shift report lists it.
    const cafe = ui.catalog.products[0];
    if (cafe === undefined) throw new Error('catalog');
    await enterCode(page, cafe.cProd, 1);
    // With items on the sale the register menu waits.
    await page.keyboard.press('F1');
    await expect
      .poll(() => page.getByTestId('register-notice').textContent())
      .toBe('Conclua ou cancele a venda antes de abrir o menu do caixa.');
    expect(await page.getByTestId('register-menu').count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('0');

    // F1 → 3: the blind count. Nothing expected shows while counting.
    await page.keyboard.press('F1');
    await page.keyboard.press('3');
    const close = page.getByTestId('register-close');
    await close.waitFor();
    await page.keyboard.type('160,00'); // dinheiro: 200 − 50 + 20 = 170 expected, 10,00 short
    await page.keyboard.press('Enter');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Enter'); // crédito, débito, PIX, outros: none
    await page.getByTestId('count-confirm').waitFor();
    expect(await page.getByTestId('closing-table').count()).toBe(0);
    expect(await close.textContent()).not.toContain('170');
    // Esc goes back to correct the count, Enter on the last field asks again.
    await page.keyboard.press('Escape');
    await page.getByTestId('count-confirm').waitFor({ state: 'detached' });
    await page.keyboard.press('Enter');
    await page.getByTestId('count-confirm').waitFor();
    await page.keyboard.press('Enter');

    const closed = page.getByTestId('register-closed');
    await closed.waitFor();
    await expect.poll(() => page.getByTestId('diff-total').first().textContent()).toBe('-R$ 10,00');
    expect(await page.getByTestId('diff-dinheiro').first().textContent()).toBe('-R$ 10,00');
    // The abandoned sale is in the shift report.
    await expect
      .poll(() => page.getByTestId('report-voids').textContent())
      .toContain('Venda abandonada com 1 item');
    await saveScreenshot(page, 'register-closed.png');
    const after = await ui.product.api<Session>('GET', `/register-sessions/${current.body.id}`);
    expect(after.body.status).toBe('fechada');
    expect(after.body.fechamento?.contado['dinheiro']).toBe(160);
    expect(after.body.fechamento?.esperado['dinheiro']).toBe(170);
    expect(after.body.fechamento?.diferenca_total).toBe(-10);

    // Enter ends the shift: the caixa is signed out, the next person signs in and is asked to open again.
    await page.keyboard.press('Enter');
    expect(await cashierGate(page)).toBe('sign-in');
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    expect(await cashierGate(page)).toBe('open-register');

    // Back office: Caixas lists the closed session with its difference and shows its report.
    await page.goto(`${ui.product.url}/#/caixas`);
    const row = page.locator(`[data-testid=sessions-table] tr[data-session-id="${current.body.id}"]`);
    await expect.poll(() => row.textContent()).toContain('-R$ 10,00');
    await row.click();
    await page.getByTestId('shift-report').waitFor();
    expect(await page.getByTestId('report-movements').textContent()).toContain('Depósito no cofre');
    await page.close();
  });

  it('asks for a supervisor on the spot: Esc cancels, a wrong PIN and a caixa are refused, the gerente approves; a back-office cancel asks too', async () => {
    const page = await ui.newPage();
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    if ((await cashierGate(page)) === 'open-register') await openRegister(page, '100,00');
    const leite = ui.catalog.products[1];
    if (leite === undefined) throw new Error('catalog');
    await enterCode(page, leite.cProd, 1);
    const total = page.getByTestId('sale-total');
    expect(await total.textContent()).toBe('R$ 5,49');

    // F8: a new price needs a supervisor. Esc cancels and the price stays.
    const prompt = page.getByTestId('supervisor-prompt');
    await page.keyboard.press('F8');
    await page.keyboard.type('4,00');
    await page.keyboard.press('Enter');
    await prompt.waitFor();
    expect(await prompt.getAttribute('data-acao')).toBe('preco');
    await page.keyboard.press('Escape');
    await prompt.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByTestId('cashier-notice').textContent())
      .toBe('Alteração de preço não autorizada.');
    expect(await total.textContent()).toBe('R$ 5,49');

    // Again: the caixa's own PIN cannot approve, a wrong gerente PIN is refused, the right one approves.
    await page.keyboard.press('F8');
    await page.keyboard.type('4,00');
    await page.keyboard.press('Enter');
    await prompt.waitFor();
    // A function key typed in the prompt stays there (the cashier behind it must not open payment).
    await page.keyboard.press('F10');
    await page.keyboard.type(DEMO_CAIXA.codigo);
    await page.keyboard.press('Enter');
    await page.keyboard.type(DEMO_CAIXA.pin);
    await page.keyboard.press('Enter');
    const error = page.getByTestId('supervisor-error');
    await expect.poll(() => error.textContent()).toContain('não pode autorizar');
    expect(await page.getByTestId('payment-panel').count()).toBe(0);
    await page.keyboard.type(DEMO_GERENTE.codigo);
    await page.keyboard.press('Enter');
    await page.keyboard.type('1357');
    await page.keyboard.press('Enter');
    await expect.poll(() => error.textContent()).toContain('PIN incorreto');
    await page.keyboard.type(DEMO_GERENTE.pin);
    await page.keyboard.press('Enter');
    await prompt.waitFor({ state: 'detached' });
    await expect.poll(() => total.textContent()).toBe('R$ 4,00');

    // A 5 % discount is the caixa's own; 20 % needs the gerente.
    await page.keyboard.press('F4');
    await page.keyboard.type('0,20');
    await page.keyboard.press('Enter');
    await expect.poll(() => total.textContent()).toBe('R$ 3,80');
    expect(await prompt.count()).toBe(0);
    await page.keyboard.press('F4');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('0,80');
    await page.keyboard.press('Enter');
    await prompt.waitFor();
    expect(await prompt.getAttribute('data-acao')).toBe('desconto');
    await page.keyboard.type(DEMO_GERENTE.codigo);
    await page.keyboard.press('Enter');
    await page.keyboard.type(DEMO_GERENTE.pin);
    await page.keyboard.press('Enter');
    await expect.poll(() => total.textContent()).toBe('R$ 3,20');

    // The sale carries both approvals: issued with the price and the discount, the operator recorded.
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('2');
    await page.keyboard.press('Enter');
    const done = page.getByTestId('sale-done');
    await done.waitFor({ timeout: 30_000 });
    const id = await done.getAttribute('data-doc-id');
    const note = await ui.product.api<{ valor_total: string; operador: { codigo: string } | null }>(
      'GET',
      `/nfce/${id}`,
    );
    expect(note.body.valor_total).toBe('3.20');
    expect(note.body.operador?.codigo).toBe(DEMO_CAIXA.codigo);

    // The back office, with the caixa still signed in at this terminal: cancelling the note asks too.
    await page.goto(`${ui.product.url}/#/documentos/65/${id}`);
    await page.getByRole('button', { name: 'Cancelar nota' }).click();
    const dialog = page.getByRole('dialog', { name: /Cancelar NFC-e/ });
    await dialog.getByLabel('Justificativa (15 a 255 caracteres)').fill('Cliente desistiu da compra');
    await dialog.getByRole('button', { name: 'Cancelar nota' }).click();
    await prompt.waitFor();
    expect(await prompt.getAttribute('data-acao')).toBe('cancelar_venda');
    await page.getByTestId('supervisor-codigo').focus();
    await page.keyboard.type(DEMO_GERENTE.codigo);
    await page.keyboard.press('Enter');
    await page.keyboard.type(DEMO_GERENTE.pin);
    await page.keyboard.press('Enter');
    await page.getByText('Pedido de cancelamento enviado.').waitFor();
    await expect
      .poll(async () => (await ui.product.api<{ status: string }>('GET', `/nfce/${id}`)).body.status, {
        timeout: 20_000,
      })
      .toBe('cancelada');
    await page.close();
  });

  it('removing an item after payment started needs the supervisor, is audited with the approver and is a void of the shift', async () => {
    const page = await ui.newPage();
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    if ((await cashierGate(page)) === 'open-register') await openRegister(page, '100,00');
    const [cafe, leite] = ui.catalog.products;
    if (cafe === undefined || leite === undefined) throw new Error('catalog');
    await enterCode(page, cafe.cProd, 1);
    await enterCode(page, leite.cProd, 2);
    // Before payment a removal is the caixa's own: no prompt.
    await page.keyboard.press('F9');
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('1');
    expect(await page.getByTestId('supervisor-prompt').count()).toBe(0);
    await enterCode(page, leite.cProd, 2);

    // R$ 10,00 on the credit card, then back to the items (Esc) with the payment kept.
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('2');
    await page.keyboard.type('10,00', { delay: 120 });
    await page.keyboard.press('Enter');
    await page.getByTestId('payments').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('payment-panel').waitFor({ state: 'detached' });

    // F9 now asks; Esc keeps the item, the gerente's PIN removes it.
    const prompt = page.getByTestId('supervisor-prompt');
    await page.keyboard.press('F9');
    await prompt.waitFor();
    expect(await prompt.getAttribute('data-acao')).toBe('remover_item');
    await page.keyboard.press('Escape');
    await prompt.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('cashier-notice').textContent()).toBe('Remoção não autorizada.');
    expect(await page.getByTestId('item-count').textContent()).toBe('2');
    await page.keyboard.press('F9');
    await prompt.waitFor();
    await page.keyboard.type(DEMO_GERENTE.codigo);
    await page.keyboard.press('Enter');
    await page.keyboard.type(DEMO_GERENTE.pin);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('1');

    const actions = await ui.product.api<{
      data: {
        acao: string;
        operador: { codigo: string };
        autorizado_por: { codigo: string } | null;
        detalhe: unknown;
      }[];
    }>('GET', `/operators/actions?companyId=${ui.product.companyId}`);
    const removal = actions.body.data.find((a) => a.acao === 'remover_item');
    expect(removal?.operador.codigo).toBe(DEMO_CAIXA.codigo);
    expect(removal?.autorizado_por?.codigo).toBe(DEMO_GERENTE.codigo);
    expect(removal?.detalhe).toMatchObject({ codigo: leite.cProd });

    // Both removals are voids of the open session's shift report.
    const current = await ui.product.api<{ id: string }>('GET', '/register-sessions/current');
    const report = await ui.product.api<{ voids: { tipo: string; descricao: string; valor: number }[] }>(
      'GET',
      `/register-sessions/${current.body.id}/report`,
    );
    const removed = report.body.voids.filter((v) => v.tipo === 'item' && v.descricao.includes(leite.xProd));
    expect(removed.map((v) => v.valor)).toEqual([5.49, 5.49]);
    await page.close();
  });

  it('a register closed elsewhere during a sale sends the cashier back to the opening screen', async () => {
    const page = await ui.newPage();
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    if ((await cashierGate(page)) === 'open-register') await openRegister(page, '100,00');
    const cafe = ui.catalog.products[0];
    if (cafe === undefined) throw new Error('catalog');
    await enterCode(page, cafe.cProd, 1);

    // The gerente closes the register from another terminal.
    const signed = await fetch(`${ui.product.apiBase}/operators/sign-in`, {
      method: 'POST',
      headers: { 'X-API-Key': ui.product.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ codigo: DEMO_GERENTE.codigo, pin: DEMO_GERENTE.pin }),
    });
    const { token } = (await signed.json()) as { token: string };
    const current = await ui.product.api<{ id: string }>('GET', '/register-sessions/current');
    const notesBefore = (await ui.product.api<{ total: number }>('GET', '/nfce?limit=1')).body.total;
    const closed = await fetch(`${ui.product.apiBase}/register-sessions/${current.body.id}/close`, {
      method: 'POST',
      headers: {
        'X-API-Key': ui.product.apiKey,
        'X-Operator-Token': token,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ contagem: {} }),
    });
    expect(closed.status).toBe(200);

    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('2');
    await page.keyboard.press('Enter');
    // No note is issued on a closed register: the screen asks to open it again.
    await page.getByTestId('register-open').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('code-input').count()).toBe(0);
    expect((await ui.product.api<{ total: number }>('GET', '/nfce?limit=1')).body.total).toBe(notesBefore);
    await page.close();
  });

  it('a sale refused for want of an approval asks at payment and is issued on the retry under the same Idempotency-Key', async () => {
    // A supervisor approves a 30 % discount on the spot, but an approval is held to the approver's own
    // limit (20 %): the service refuses the sale (403 desconto) and the gerente answers the prompt then.
    const supervisor = await ui.product.api<{ codigo: string }>(
      'POST',
      `/operators?companyId=${ui.product.companyId}`,
      { nome: 'Supervisora Teste', papel: 'supervisor', pin: '3692' },
    );
    expect(supervisor.status).toBe(201);
    const page = await ui.newPage();
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    if ((await cashierGate(page)) === 'open-register') await openRegister(page, '100,00');
    const cafe = ui.catalog.products[0];
    if (cafe === undefined) throw new Error('catalog');
    await enterCode(page, cafe.cProd, 1);
    const prompt = page.getByTestId('supervisor-prompt');
    const approve = async (codigo: string, pin: string) => {
      await prompt.waitFor({ timeout: 30_000 });
      expect(await prompt.getAttribute('data-acao')).toBe('desconto');
      await page.keyboard.type(codigo);
      await page.keyboard.press('Enter');
      await page.keyboard.type(pin);
      await page.keyboard.press('Enter');
      await prompt.waitFor({ state: 'detached' });
    };
    await page.keyboard.press('F4');
    await page.keyboard.type('30%');
    await page.keyboard.press('Enter');
    await approve(supervisor.body.codigo, '3692');
    await expect.poll(() => page.getByTestId('sale-total').textContent()).toBe('R$ 13,23');

    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('3');
    await page.keyboard.press('Enter');
    await approve(DEMO_GERENTE.codigo, DEMO_GERENTE.pin);
    const done = page.getByTestId('sale-done');
    await done.waitFor({ timeout: 30_000 });
    const note = await ui.product.api<{ valor_total: string; operador: { codigo: string } | null }>(
      'GET',
      `/nfce/${await done.getAttribute('data-doc-id')}`,
    );
    expect(note.body.valor_total).toBe('13.23');
    expect(note.body.operador?.codigo).toBe(DEMO_CAIXA.codigo);
    await page.close();
  });

  it('an operator whose session ended (its role changed in the back office) is sent back to the sign-in at the next sale', async () => {
    const created = await ui.product.api<{ id: string; codigo: string }>(
      'POST',
      `/operators?companyId=${ui.product.companyId}`,
      { nome: 'Caixa Temporária', papel: 'caixa', pin: '4703' },
    );
    expect(created.status).toBe(201);
    const page = await ui.newPage();
    await signIn(page, created.body.codigo, '4703');
    if ((await cashierGate(page)) === 'open-register') await openRegister(page, '100,00');
    await page.getByTestId('code-input').waitFor();
    await enterCode(page, ui.catalog.products[2]?.cProd ?? '', 1);
    // A role change ends the operator's sessions on the service.
    const promoted = await ui.product.api('PUT', `/operators/${created.body.id}`, { papel: 'supervisor' });
    expect(promoted.status).toBe(200);
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await page.keyboard.press('2');
    await page.keyboard.press('Enter');
    await page.getByTestId('operator-sign-in').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('signin-error').textContent()).toContain('A sessão do operador terminou');
    await page.close();
  });
});
