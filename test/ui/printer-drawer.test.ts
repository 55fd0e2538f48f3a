// The cash drawer on the printers settings page, in a real Chromium against `npm start`: a printer saved with
// its drawer on pin 5 and a 120 ms pulse, "Abrir gaveta" reaching the TCP printer as exactly that ESC p, and a
// switched-off drawer shown as such with its button disabled.
import { afterAll, describe, expect, it } from 'vitest';
import { FakePrinter } from '../printing/fake-printer.ts';
import { openUi, useRunningProduct } from './harness.ts';

const printer = new FakePrinter();

const ui = useRunningProduct({
  setup: async () => {
    await printer.listen();
  },
});

afterAll(async () => {
  await printer.close();
});

describe('printer drawer settings', () => {
  it('saves the drawer pin and pulse, opens the drawer from the button, and disables it when switched off', async () => {
    const page = await openUi(ui.browser, ui.product, '/configuracoes/impressoras');
    await page.getByRole('button', { name: 'Nova impressora' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Nome da impressora').fill('Caixa gaveta');
    await dialog.getByLabel('Endereço da impressora').fill('127.0.0.1');
    await dialog.getByLabel('Porta').fill(String(printer.port));
    await dialog.getByLabel('Permitir endereço local').check();
    // A new printer starts with the usual drawer: on, pin 2, 100 ms.
    expect(await dialog.getByLabel('Gaveta ativa').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Pino da gaveta').inputValue()).toBe('2');
    expect(await dialog.getByLabel('Pulso da gaveta').inputValue()).toBe('100');

    // A pulse out of range is refused beside its field.
    await dialog.getByLabel('Pulso da gaveta').fill('900');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const pulseField = dialog.locator('.field', { has: page.getByLabel('Pulso da gaveta') });
    expect(await pulseField.locator('.field-error').textContent()).toContain('500');

    await dialog.getByLabel('Pino da gaveta').selectOption('5');
    await dialog.getByLabel('Pulso da gaveta').fill('120');
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    const row = page.getByTestId('printers').locator('tr', { hasText: 'Caixa gaveta' });
    await row.getByText('Pino 5 · 120 ms').waitFor();

    await row.getByRole('button', { name: 'Abrir gaveta' }).click();
    await page.getByText('Gaveta de Caixa gaveta: comando de abertura enviado.').waitFor();
    const [kick] = await printer.waitForJobs(1, 20_000);
    // ESC @, then ESC p with m = 1 (pin 5), t1 = 60 (120 ms), t2 = 250 (500 ms off).
    expect(kick).toEqual(Buffer.of(0x1b, 0x40, 0x1b, 0x70, 0x01, 60, 250));

    await row.getByRole('button', { name: 'Editar' }).click();
    await dialog.getByLabel('Gaveta ativa').uncheck();
    await dialog.getByRole('button', { name: 'Salvar' }).click();
    await row.getByText('Desativada').waitFor();
    expect(await row.getByRole('button', { name: 'Abrir gaveta' }).isDisabled()).toBe(true);
    await page.close();
  });
});
