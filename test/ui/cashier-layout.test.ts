// Messages for people (issue 13 item 10): at 1024×768 the menu, the key legend and the status bar each stay
// on one line; the finished sale follows a contingency note until it is authorized; the back office guides
// the first setup, the owner edits the company, API keys and webhooks sit under "Integrações"; and no
// tpEmis, API path or command line shows on the screens a person uses.
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { openUi, saveScreenshot, useRunningProduct } from './harness.ts';

vi.setConfig({ testTimeout: 150_000 });

const ui = useRunningProduct({ catalog: true });

/**
 * For each selector: how many distinct rows its visible children sit on, and whether anything is cut off
 * (content wider than the box).
 */
const ROWS = `(selectors) => selectors.map((sel) => {
  const box = document.querySelector(sel);
  if (box === null) return { sel, rows: -1, overflow: true };
  const tops = new Set();
  for (const child of box.children) {
    const r = child.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) tops.add(Math.round(r.top + r.height / 2));
  }
  return { sel, rows: tops.size, overflow: box.scrollWidth > box.clientWidth + 1 };
})`;

async function lines(page: Page, selectors: string[]) {
  return page.evaluate<{ sel: string; rows: number; overflow: boolean }[]>(
    `(${ROWS})(${JSON.stringify(selectors)})`,
  );
}

/** Every text a person sees on the page, to look for what belongs to integrators. */
async function screenText(page: Page): Promise<string> {
  return page.evaluate<string>('document.body.innerText');
}

const FOR_INTEGRATORS = [/tpEmis/, /\/v1\//, /npm run/, /npx /, /sandbox\.json/, /\bcli\b/];

describe('at 1024×768', () => {
  it('keeps the menu, the key legend and the status bar on one line each, in every mode of the cashier', async () => {
    const page = await openUi(ui.browser, ui.product);
    await page.setViewportSize({ width: 1024, height: 768 });
    const check = async (what: string) => {
      const found = await lines(page, ['.nav', '.fkeys', '.status-bar']);
      for (const f of found) expect({ what, ...f }).toEqual({ what, sel: f.sel, rows: 1, overflow: false });
    };
    await check('sale');
    for (const w of ['4', '2']) {
      await page.keyboard.type(w);
      await page.keyboard.press('Enter');
    }
    await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('2');
    await saveScreenshot(page, 'cashier-1024x768.png');
    await page.keyboard.press('F10');
    await page.getByTestId('payment-panel').waitFor();
    await check('payment');
    await page.keyboard.press('1');
    await check('payment amount');
    await page.keyboard.press('Enter');
    await page.getByTestId('sale-done').waitFor({ timeout: 30_000 });
    await check('done');
    for (const re of FOR_INTEGRATORS) expect(await screenText(page)).not.toMatch(re);
    await page.close();
  });
});

describe('finished sale in contingency', () => {
  it('follows the note until "Autorizada" without a key press', async () => {
    const page = await openUi(ui.browser, ui.product);
    const off = await ui.product.api(
      'POST',
      '/sandbox/faults',
      { online: false },
      ui.product.organizationApiKey,
    );
    expect(off.status).toBe(200);
    try {
      const refri = ui.catalog.products[2];
      if (refri === undefined) throw new Error('catalog');
      await page.keyboard.type(refri.cProd);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('item-count').textContent()).toBe('1');
      await page.keyboard.press('F10');
      await page.getByTestId('payment-panel').waitFor();
      await page.keyboard.press('Enter');
      const done = page.getByTestId('sale-done');
      await done.waitFor({ timeout: 30_000 });
      expect(await done.getAttribute('data-status')).toBe('contingencia');
      const status = await page.getByTestId('sale-status').textContent();
      expect(status).toContain('Contingência');
      expect(status).toContain('emitida sem internet');
      expect(status).not.toMatch(/tpEmis/);
    } finally {
      await ui.product.api('POST', '/sandbox/faults', { online: true }, ui.product.organizationApiKey);
    }
    await expect
      .poll(() => page.getByTestId('sale-done').getAttribute('data-status'), {
        timeout: 120_000,
        interval: 1000,
      })
      .toBe('autorizada');
    expect(await page.getByTestId('sale-status').textContent()).toContain('Autorizada');
    await page.close();
  });
});

describe('back office', () => {
  it('guides the first setup, lets the owner edit the company and groups API keys and webhooks under Integrações', async () => {
    const page = await openUi(ui.browser, ui.product, '/documentos');
    await page.setViewportSize({ width: 1024, height: 768 });
    // The demo company has no printer yet: the guide says so.
    await expect.poll(() => page.getByTestId('setup-notice').textContent()).toContain('impressora de cupons');
    const [nav] = await lines(page, ['.nav']);
    expect(nav).toEqual({ sel: '.nav', rows: 1, overflow: false });
    await page.getByTestId('setup-notice').getByRole('link').click();
    const guide = page.getByTestId('setup-guide');
    await guide.waitFor();
    await expect.poll(() => guide.locator('[data-step=impressora]').getAttribute('data-done')).toBe('false');
    await expect.poll(() => guide.locator('[data-step=certificado]').getAttribute('data-done')).toBe('true');
    await expect.poll(() => guide.locator('[data-step=operador]').getAttribute('data-done')).toBe('true');
    expect(await guide.locator('[data-step=csc]').getAttribute('data-done')).toBe('true');
    await saveScreenshot(page, 'setup-guide.png');

    const integrations = page.getByTestId('settings-integrations');
    expect(await integrations.textContent()).toBe('Integrações');
    const navText = await page.locator('.settings-nav').innerText();
    expect(navText.indexOf('Integrações')).toBeLessThan(navText.indexOf('Chaves de API'));
    expect(navText.indexOf('Integrações')).toBeLessThan(navText.indexOf('Webhooks'));

    await page.locator('.settings-nav').getByRole('link', { name: 'Empresa' }).click();
    const edit = page.getByTestId('company-edit');
    await edit.waitFor();
    await edit.getByLabel('Nome fantasia').fill('Mercadinho do Bairro');
    await edit.getByLabel('CEP').fill('123');
    await edit.getByRole('button', { name: 'Salvar dados da empresa' }).click();
    await expect.poll(() => edit.locator('.field-error').allTextContents()).toHaveLength(1);
    await edit.getByLabel('CEP').fill('01001-000');
    await edit.getByRole('button', { name: 'Salvar dados da empresa' }).click();
    await edit.getByText('Dados da empresa salvos.').waitFor();
    const company = await ui.product.api<{ xFant: string }>('GET', `/companies/${ui.product.companyId}`);
    expect(company.body.xFant).toBe('Mercadinho do Bairro');
    await expect.poll(() => page.locator('.topbar .company').textContent()).toContain('Mercadinho do Bairro');
    for (const re of FOR_INTEGRATORS) expect(await screenText(page)).not.toMatch(re);
    await page.close();
  });

  it('walks a new company through the first setup and creates its first operator, a gerente', async () => {
    const created = await ui.product.api<{ id: string }>(
      'POST',
      '/companies',
      {
        cnpj: '11222333000181',
        ie: '111111110110',
        xNome: 'Loja Nova Ltda',
        crt: 1,
        endereco: {
          xLgr: 'Rua Nova',
          nro: '10',
          xBairro: 'Centro',
          cMun: '3550308',
          uf: 'SP',
          cep: '01001000',
        },
      },
      ui.product.organizationApiKey,
    );
    expect(created.status).toBe(201);
    const page = await ui.browser.newPage({ viewport: { width: 1024, height: 768 }, locale: 'pt-BR' });
    page.on('pageerror', (e) => {
      throw e;
    });
    // The owner's organization key reaches both companies; this terminal works for the new one.
    await page.addInitScript(`localStorage.setItem('balcao.companyId', ${JSON.stringify(created.body.id)})`);
    await page.goto(
      `${ui.product.url}/?api_key=${encodeURIComponent(ui.product.organizationApiKey)}#/configuracoes/inicio`,
    );
    const guide = page.getByTestId('setup-guide');
    await guide.waitFor();
    const notice = page.getByTestId('setup-notice');
    await expect.poll(() => notice.textContent()).toContain('primeiro operador (gerente)');
    for (const step of ['certificado', 'csc', 'impressora', 'operador'])
      await expect.poll(() => guide.locator(`[data-step=${step}]`).getAttribute('data-done')).toBe('false');
    const form = page.getByTestId('first-operator');
    await form.getByLabel('Nome do operador').fill('Maria Dona');
    await form.getByLabel('PIN do operador').fill('4826');
    await form.getByRole('button', { name: 'Criar gerente' }).click();
    const createdText = page.getByText('Maria Dona criado com o código');
    await createdText.or(form.getByTestId('error-banner')).first().waitFor();
    if (!(await createdText.isVisible()))
      throw new Error(`refused: ${await form.getByTestId('error-banner').textContent()}`);
    await expect.poll(() => guide.locator('[data-step=operador]').getAttribute('data-done')).toBe('true');
    const operators = await ui.product.api<{ data: { nome: string; papel: string }[] }>(
      'GET',
      `/operators?companyId=${created.body.id}`,
      undefined,
      ui.product.organizationApiKey,
    );
    expect(operators.body.data.map((o) => [o.nome, o.papel])).toEqual([['Maria Dona', 'gerente']]);
    await page.close();
  });
});
