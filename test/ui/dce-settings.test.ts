// Settings › DC-e in Chromium against `npm start`: the company's defaults for its content declarations (issuer
// type, the marketplace site, the series) shown, saved and read back from the service, faulty values refused
// beside their fields all at once, and a new DC-e's form starting from what was saved.
import { describe, expect, it } from 'vitest';
import { fieldErrorOf, saveScreenshot, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

interface Settings {
  tipo_emitente: string;
  site: string | null;
  serie: number;
  padrao: boolean;
}

describe('Settings › DC-e', () => {
  it('saves how the company issues its DC-e, reads it back, refuses faulty values beside their fields and starts new DC-e from it', async () => {
    const { product } = ui;
    const settingsUrl = `/companies/${product.companyId}/dce-settings`;
    expect((await product.api<Settings>('GET', settingsUrl)).body).toEqual({
      tipo_emitente: 'marketplace',
      site: null,
      serie: 1,
      padrao: true,
    });

    const page = await ui.newPage('/configuracoes/dce');
    // A store setting beside the NFS-e's, before the Integrações group.
    const nav = page.getByRole('navigation', { name: 'Seções de configuração' });
    const links = await nav.locator('a, .settings-nav-group').allTextContents();
    expect(links.indexOf('DC-e')).toBe(links.indexOf('NFS-e') + 1);
    expect(links.indexOf('DC-e')).toBeLessThan(links.indexOf('Integrações'));
    await page.getByTestId('dce-settings-padrao').waitFor();
    expect(await page.getByLabel('Emitida como').inputValue()).toBe('marketplace');
    expect(await page.getByLabel('Série da DC-e').inputValue()).toBe('1');

    // Faulty site and series: both refused in one answer, each beside its field; nothing saved.
    await page.getByLabel('Site da loja').fill('ab');
    await page.getByLabel('Série da DC-e').fill('1000');
    await page.getByTestId('dce-settings-save').click();
    await expect.poll(() => fieldErrorOf(page, 'Série da DC-e').textContent()).toBe('um número de 0 a 999');
    expect(await fieldErrorOf(page, 'Site da loja').textContent()).toBe('mínimo de 3 caracteres');
    expect(await page.getByTestId('dce-settings-saved').count()).toBe(0);
    expect((await product.api<Settings>('GET', settingsUrl)).body.padrao).toBe(true);

    // A carrier issuing on series 5, with the shop's site kept for when it issues as a marketplace.
    await page.getByLabel('Emitida como').selectOption('transportadora');
    await page.getByLabel('Site da loja').fill('https://loja.example.com.br');
    await page.getByLabel('Série da DC-e').fill('5');
    await page.getByTestId('dce-settings-save').click();
    await page.getByTestId('dce-settings-saved').waitFor();
    expect(await page.getByTestId('dce-settings-padrao').count()).toBe(0);
    expect((await product.api<Settings>('GET', settingsUrl)).body).toEqual({
      tipo_emitente: 'transportadora',
      site: 'https://loja.example.com.br',
      serie: 5,
      padrao: false,
    });
    await saveScreenshot(page, 'dce-settings.png');

    // Read back by a fresh page: the form starts from what the service holds.
    await page.reload();
    await page.getByTestId('dce-settings-form').waitFor();
    await expect.poll(() => page.getByLabel('Emitida como').inputValue()).toBe('transportadora');
    expect(await page.getByLabel('Série da DC-e').inputValue()).toBe('5');
    expect(await page.getByLabel('Site da loja').inputValue()).toBe('https://loja.example.com.br');

    // A new DC-e starts as the company issues them.
    await page.goto(page.url().replace(/#.*$/, '#/dce/nova'));
    await page.getByTestId('dce-form').waitFor();
    await expect.poll(() => page.getByLabel('Emitida como').inputValue()).toBe('transportadora');
    // A carrier carries the goods itself.
    expect(await page.getByLabel('Modalidade de transporte').inputValue()).toBe('transportadora');
    // A carrier carries the goods itself.
    expect(await page.getByLabel('Modalidade de transporte').inputValue()).toBe('transportadora');
    expect(
      await page.locator('.field', { has: page.getByLabel('Série', { exact: true }) }).textContent(),
    ).toContain('vazio: série 5 das configurações');
    await page.close();
  }, 120_000);
});
