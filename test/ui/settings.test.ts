// Settings in a real Chromium against `npm start`: certificate upload (wrong password → the clear message
// beside the field; the right one installs it), a network printer with a test page received by a TCP
// "printer", API keys (secret shown once, rotate, revoke) and a webhook with its delivery history.
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { openUi, saveScreenshot, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

describe('settings', () => {
  it('refuses a certificate with a wrong password with a clear message, then installs it with the right one', async () => {
    const page = await openUi(ui.browser, ui.product, '/configuracoes/certificado');
    await page.getByTestId('certificate-status').getByText('Válido por mais').waitFor();
    const pfx = path.join(ui.product.dataDir, 'sandbox-certificate.pfx');
    expect(fs.existsSync(pfx)).toBe(true);

    await page.getByLabel('Arquivo do certificado').setInputFiles(pfx);
    await page.getByLabel('Senha do certificado').fill('senha-errada');
    await page.getByRole('button', { name: 'Enviar certificado' }).click();
    const banner = page.getByTestId('error-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('A senha do certificado está errada');
    const passwordField = page.locator('.field', { has: page.getByLabel('Senha do certificado') });
    expect(await passwordField.locator('.field-error').textContent()).toBe('senha incorreta');
    await saveScreenshot(page, 'settings-certificate.png');

    // The bootstrap printed the demo certificate's password once, at the first start.
    const password = /certificate\s+\S+\s+password (\S+)/.exec(ui.product.output())?.[1];
    expect(password).toBeDefined();
    await page.getByLabel('Senha do certificado').fill(password ?? '');
    await page.getByRole('button', { name: 'Enviar certificado' }).click();
    await page.getByText(/Certificado de .* instalado; válido até \d{2}\/\d{2}\/\d{4}\./).waitFor();
    expect(await page.getByTestId('error-banner').count()).toBe(0);
    await page.close();
  });

  it('registers a network printer and prints a test page on it', async () => {
    const received: Buffer[] = [];
    const printer = net.createServer((socket) => socket.on('data', (d) => received.push(d)));
    await new Promise<void>((resolve) => printer.listen(0, '127.0.0.1', resolve));
    try {
      const port = (printer.address() as AddressInfo).port;
      const page = await openUi(ui.browser, ui.product, '/configuracoes/impressoras');
      await page.getByRole('button', { name: 'Nova impressora' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Nome da impressora').fill('Caixa 1');
      await dialog.getByLabel('Endereço da impressora').fill('127.0.0.1');
      await dialog.getByLabel('Porta').fill(String(port));
      // The fake printer listens on this machine: a loopback address needs the explicit permission.
      await dialog.getByLabel('Permitir endereço local').check();
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      const row = page.getByTestId('printers').locator('tr', { hasText: 'Caixa 1' });
      await row.waitFor();
      expect(await row.textContent()).toContain(`127.0.0.1:${port}`);
      await row.getByRole('button', { name: 'Imprimir teste' }).click();
      await page.getByText('Página de teste enviada para Caixa 1.').waitFor();
      await expect.poll(() => Buffer.concat(received).length, { timeout: 20_000 }).toBeGreaterThan(100);
      // ESC @ (initialize) starts every page the service sends.
      expect(Buffer.concat(received).includes(Buffer.from([0x1b, 0x40]))).toBe(true);
      await page.close();
    } finally {
      printer.close();
    }
  });

  it('creates an API key showing its secret once, rotates it and revokes the old one', async () => {
    const page = await openUi(ui.browser, ui.product, '/configuracoes/chaves');
    await page.getByRole('button', { name: 'Nova chave' }).click();
    await page.getByRole('dialog').getByLabel('Nome da chave').fill('pdv-balcao-2');
    await page.getByRole('dialog').getByRole('button', { name: 'Criar chave' }).click();
    const secret = page.getByTestId('api-key-secret');
    await secret.waitFor();
    const key = (await secret.locator('code').textContent()) ?? '';
    expect(key).toMatch(/^blc_[0-9a-f]{16}_/);
    const health = await fetch(`${ui.product.apiBase}/companies`, { headers: { 'X-API-Key': key } });
    expect(health.status).toBe(200);
    await secret.getByRole('button', { name: 'Já guardei' }).click();
    expect(await page.getByTestId('api-key-secret').count()).toBe(0);

    const row = page.getByTestId('api-keys').locator('tr', { hasText: 'pdv-balcao-2' });
    await row.getByRole('button', { name: 'Rotacionar' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotacionar' }).click();
    const rotated = (await page.getByTestId('api-key-secret').locator('code').textContent()) ?? '';
    expect(rotated).not.toBe(key);
    expect(
      (await fetch(`${ui.product.apiBase}/companies`, { headers: { 'X-API-Key': rotated } })).status,
    ).toBe(200);

    page.once('dialog', (d) => void d.accept());
    const oldRow = page.getByTestId('api-keys').locator('tr', { hasText: 'Em carência' });
    await oldRow.getByRole('button', { name: 'Revogar' }).click();
    await page.getByTestId('api-keys').locator('tr', { hasText: 'Revogada' }).waitFor();
    expect((await fetch(`${ui.product.apiBase}/companies`, { headers: { 'X-API-Key': key } })).status).toBe(
      401,
    );
    await page.close();
  });

  it('adds a webhook, pings it and shows the delivery in the history, with redelivery', async () => {
    const bodies: string[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        bodies.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const page = await openUi(ui.browser, ui.product, '/configuracoes/webhooks');
      await page.getByRole('button', { name: 'Novo webhook' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('URL do webhook').fill(url);
      await dialog.getByRole('button', { name: 'Criar webhook' }).click();
      // A LAN receiver over http needs the explicit permission: the API's message is shown by the field.
      await dialog.locator('.field-error').first().waitFor();
      await dialog.getByText('Permitir http:// e endereços da rede local').click();
      await dialog.getByRole('button', { name: 'Criar webhook' }).click();
      await page.getByTestId('webhook-secret').locator('code', { hasText: 'whsec_' }).waitFor();

      const row = page.getByTestId('webhooks').locator('tr', { hasText: url });
      await row.getByRole('button', { name: 'Testar' }).click();
      await expect.poll(() => bodies.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      await row.getByRole('button', { name: 'Entregas' }).click();
      const deliveries = page.getByTestId('deliveries');
      await expect.poll(() => deliveries.textContent()).toContain('ping');
      await page.getByRole('dialog').getByRole('button', { name: 'Atualizar' }).click();
      await expect.poll(() => deliveries.textContent()).toContain('Entregue');
      await saveScreenshot(page, 'settings-webhooks.png');
      await deliveries.getByRole('button', { name: 'Reenviar' }).first().click();
      await expect.poll(() => bodies.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(bodies[1] ?? '{}')).toMatchObject({ event: 'ping' });
      await page.close();
    } finally {
      receiver.close();
    }
  });

  it('uploads the DANFE logo, shows it, refuses a file that is not an image, and removes it', async () => {
    const page = await openUi(ui.browser, ui.product, '/configuracoes/empresa');
    await page.getByText('Nenhum logotipo').waitFor();
    const logo = new PNG({ width: 64, height: 32 });
    logo.data.fill(90);
    const file = path.join(ui.product.dataDir, 'logo.png');
    fs.writeFileSync(file, PNG.sync.write(logo));
    const bogus = path.join(ui.product.dataDir, 'logo-falso.png');
    fs.writeFileSync(bogus, 'not an image at all');

    await page.getByLabel('Imagem do logotipo').setInputFiles(bogus);
    await page.getByRole('button', { name: 'Enviar logotipo' }).click();
    const logoField = page.locator('.field', { has: page.getByLabel('Imagem do logotipo') });
    await logoField.locator('.field-error').waitFor();
    expect(await logoField.locator('.field-error').textContent()).toBe('deve ser uma imagem PNG ou JPEG');

    await page.getByLabel('Imagem do logotipo').setInputFiles(file);
    await page.getByRole('button', { name: 'Enviar logotipo' }).click();
    const shown = page.getByTestId('company-logo');
    await shown.waitFor();
    expect(await shown.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(64);

    await page.getByRole('button', { name: 'Remover logotipo' }).click();
    await page.getByText('Nenhum logotipo').waitFor();
    await page.close();
  });
});
