// Settings › PIX in Chromium against `npm start`: the store's PSP removed and configured again from the screen
// (the embedded sandbox PSP), every missing field of a real PSP shown beside its field, its client certificate
// uploaded as a file, "Testar conexão" getting a token, and a mistyped client secret showing the PSP's refusal.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fieldErrorOf, openUi, saveScreenshot, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

describe('Settings › PIX', () => {
  it('configures the sandbox PSP from the screen, tests the connection, and shows the PSP refusing a wrong secret', async () => {
    const page = await openUi(ui.browser, ui.product, '/configuracoes/pix');
    // A store setting, not an integration: the link sits before the Integrações group.
    const nav = page.getByRole('navigation', { name: 'Seções de configuração' });
    const links = await nav.locator('a, .settings-nav-group').allTextContents();
    expect(links.indexOf('PIX')).toBeGreaterThan(-1);
    expect(links.indexOf('PIX')).toBeLessThan(links.indexOf('Integrações'));
    // The demo company starts on the sandbox PSP.
    await expect.poll(() => page.getByTestId('pix-provedor').textContent()).toContain('PSP de testes');

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Remover PSP' }).click();
    await page.getByText('Nenhum PSP configurado').waitFor();
    expect((await ui.product.api('GET', `/companies/${ui.product.companyId}/pix`)).status).toBe(404);

    // A real PSP without its URL, credentials, certificate and CNPJ: each fault beside its field, at once.
    await page.getByLabel('Provedor').selectOption('psp');
    await page.getByLabel('Chave PIX').fill('pix@loja.com.br');
    await page.getByLabel('URL da API Pix').fill('http://pix.banco.com.br/api/v2');
    await page.getByTestId('pix-save').click();
    await expect
      .poll(() => fieldErrorOf(page, 'URL da API Pix').textContent())
      .toBe('informe um endereço https://');
    await page.getByLabel('URL da API Pix').fill('');
    await page.getByTestId('pix-save').click();
    await expect
      .poll(() => fieldErrorOf(page, 'URL da API Pix').textContent())
      .toBe('obrigatório para o PSP da loja');
    expect(await fieldErrorOf(page, 'Client ID').textContent()).toBe('obrigatório para o PSP da loja');
    expect(await fieldErrorOf(page, 'Client secret').textContent()).toBe('obrigatório para o PSP da loja');
    expect(await fieldErrorOf(page, 'Certificado do cliente').textContent()).toBe(
      'o PSP exige o certificado do cliente (TLS mútuo)',
    );
    expect(await fieldErrorOf(page, 'CNPJ do PSP').textContent()).toMatch(/^obrigatório/);

    // The store's own PSP with its client certificate uploaded as a file: a wrong password is said beside it.
    const pfx = path.join(ui.product.dataDir, 'sandbox-certificate.pfx');
    const password = /certificate\s+\S+\s+password (\S+)/.exec(ui.product.output())?.[1] ?? '';
    expect(password).not.toBe('');
    await page.getByLabel('URL da API Pix').fill('https://pix.banco.com.br/api/v2');
    await page.getByLabel('Client ID').fill('loja-123');
    await page.getByLabel('Client secret').fill('segredo-do-banco');
    await page.getByLabel('Certificado do cliente').setInputFiles(pfx);
    await page.getByLabel('Senha do certificado').fill('senha-errada');
    await page.getByLabel('CNPJ do PSP').fill('11.222.333/0001-81');
    await page.getByTestId('pix-save').click();
    await expect.poll(() => fieldErrorOf(page, 'Senha do certificado').count()).toBe(1);
    expect(await fieldErrorOf(page, 'Senha do certificado').textContent()).toBe('senha incorreta');
    expect(await fieldErrorOf(page, 'URL da API Pix').count()).toBe(0);
    await page.getByLabel('Senha do certificado').fill(password);
    await page.getByTestId('pix-save').click();
    await expect.poll(() => page.getByTestId('pix-provedor').textContent()).toContain('PSP da loja');
    expect(await page.getByTestId('pix-tem-certificado').textContent()).toBe('guardado (cifrado)');
    expect(await page.getByTestId('pix-current').textContent()).toContain(
      'https://pix.banco.com.br/oauth/token',
    );

    // The embedded sandbox PSP: only the key; it issues the credentials and the certificate.
    await page.getByLabel('Provedor').selectOption('sandbox');
    await page.getByLabel('Client ID').fill('');
    await page.getByLabel('Validade da cobrança').fill('120');
    await page.getByTestId('pix-save').click();
    await page.getByTestId('pix-saved').waitFor();
    await expect.poll(() => page.getByTestId('pix-provedor').textContent()).toContain('PSP de testes');
    expect(await page.getByTestId('pix-tem-secret').textContent()).toBe('guardado (cifrado)');
    expect(await page.getByTestId('pix-tem-certificado').textContent()).toBe('guardado (cifrado)');
    expect(await page.getByTestId('pix-current').textContent()).toContain('2 min');
    const saved = await ui.product.api<{ chave: string; expiracao_segundos: number }>(
      'GET',
      `/companies/${ui.product.companyId}/pix`,
    );
    expect(saved.body).toMatchObject({ chave: 'pix@loja.com.br', expiracao_segundos: 120 });

    await page.getByTestId('pix-test').click();
    await expect
      .poll(() => page.getByTestId('pix-test-ok').textContent())
      .toMatch(/^Conexão com o PSP funcionando: token emitido, válido por \d+ (min|s)\.$/);

    // A secret typed wrong is stored as typed, and the PSP refuses it.
    await page.getByLabel('Client secret').fill('segredo-digitado-errado');
    await page.getByTestId('pix-save').click();
    await expect.poll(() => page.getByTestId('pix-saved').count()).toBe(1);
    await expect.poll(() => page.getByTestId('pix-test-ok').count()).toBe(0);
    await page.getByTestId('pix-test').click();
    await expect
      .poll(() => page.getByTestId('pix-test-error').textContent())
      .toBe('O PSP recusou as credenciais da loja: invalid_client — client_id ou client_secret inválido');
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');
    await saveScreenshot(page, 'settings-pix.png');
    await page.close();
  }, 120_000);
});
