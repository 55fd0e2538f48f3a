// Settings › NFS-e in Chromium against `npm start`: the provider's tax regime of the DPS (Simples Nacional
// option, regime of apuração, special regime) shown with its names, saved and read back from the service, a
// combination the layout forbids refused with its field message in Portuguese, and the municipal inscription.
import { describe, expect, it } from 'vitest';
import { fieldErrorOf, saveScreenshot, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

interface Settings {
  op_simp_nac: number;
  reg_ap_trib_sn: number | null;
  reg_esp_trib: number;
  padrao: boolean;
}

describe('Settings › NFS-e', () => {
  it('saves the tax regime of the NFS-e, reads it back, refuses a regime of apuração outside ME/EPP and shows the municipal inscription', async () => {
    const { product } = ui;
    const settingsUrl = `/companies/${product.companyId}/nfse-settings`;
    // The municipal inscription the DPS carries is edited in Settings › Empresa; here it is only shown.
    const company = await product.api<{ im: string | null; crt: number }>(
      'PUT',
      `/companies/${product.companyId}`,
      { im: '12345678' },
    );
    expect(company.status).toBe(200);
    const before = await product.api<Settings>('GET', settingsUrl);
    expect(before.body.padrao).toBe(true);

    const page = await ui.newPage('/configuracoes/nfse');
    // A store setting next to the NFC-e's, before the Integrações group.
    const nav = page.getByRole('navigation', { name: 'Seções de configuração' });
    const links = await nav.locator('a, .settings-nav-group').allTextContents();
    expect(links.indexOf('NFS-e')).toBe(links.indexOf('NFC-e (CSC)') + 1);
    expect(links.indexOf('NFS-e')).toBeLessThan(links.indexOf('Integrações'));

    // Nothing saved yet: the values the service derives from the CRT, said to be defaults.
    await page.getByTestId('nfse-settings-padrao').waitFor();
    expect(await page.getByTestId('nfse-settings-padrao').textContent()).toContain(`CRT ${company.body.crt}`);
    expect(await page.getByLabel('Opção pelo Simples Nacional').inputValue()).toBe(
      String(before.body.op_simp_nac),
    );
    const im = page.getByTestId('nfse-settings-im');
    expect(await im.textContent()).toBe('12345678 (alterar em Empresa)');
    expect(await page.getByTestId('nfse-settings-no-im').count()).toBe(0);
    expect(await im.getByRole('link', { name: 'alterar em Empresa' }).getAttribute('href')).toBe(
      '#/configuracoes/empresa',
    );

    // ME/EPP over a sublimit with ISS outside the Simples, society of professionals.
    await page.getByLabel('Opção pelo Simples Nacional').selectOption('3');
    await page.getByLabel('Regime de apuração').selectOption('2');
    await page.getByLabel('Regime especial de tributação').selectOption('6');
    // The options carry the layout's names.
    expect(
      await page.getByLabel('Regime especial de tributação').locator('option:checked').textContent(),
    ).toBe('6 – Sociedade de Profissionais');
    await page.getByTestId('nfse-settings-save').click();
    await page.getByTestId('nfse-settings-saved').waitFor();
    expect(await page.getByTestId('nfse-settings-padrao').count()).toBe(0);
    expect(await page.getByTestId('nfse-settings-op').textContent()).toBe(
      '3 – Optante – Microempresa ou Empresa de Pequeno Porte (ME/EPP)',
    );
    expect(await page.getByTestId('nfse-settings-apuracao').textContent()).toBe(
      '2 – Tributos federais pelo Simples Nacional e ISSQN por fora, pela legislação municipal',
    );
    expect(await page.getByTestId('nfse-settings-especial').textContent()).toBe(
      '6 – Sociedade de Profissionais',
    );
    expect((await product.api<Settings>('GET', settingsUrl)).body).toEqual({
      op_simp_nac: 3,
      reg_ap_trib_sn: 2,
      reg_esp_trib: 6,
      padrao: false,
    });
    await saveScreenshot(page, 'settings-nfse.png');

    // Read back by a fresh page: the form starts from what the service holds.
    await page.reload();
    await page.getByTestId('nfse-settings-op').waitFor();
    expect(await page.getByLabel('Opção pelo Simples Nacional').inputValue()).toBe('3');
    expect(await page.getByLabel('Regime de apuração').inputValue()).toBe('2');
    expect(await page.getByLabel('Regime especial de tributação').inputValue()).toBe('6');

    // Not in the Simples while a regime of apuração is still chosen: the layout has it only for ME/EPP, so
    // the service refuses it, and the reason stands beside the field; nothing changes.
    await page.getByLabel('Opção pelo Simples Nacional').selectOption('1');
    expect(await page.getByLabel('Regime de apuração').inputValue()).toBe('2');
    await page.getByTestId('nfse-settings-save').click();
    await expect
      .poll(() => fieldErrorOf(page, 'Regime de apuração').textContent())
      .toBe(
        'só existe para optante ME/EPP (opção 3 do Simples Nacional): escolha “Não informar” ou mude a opção',
      );
    expect(await page.getByTestId('nfse-settings-saved').count()).toBe(0);
    expect(await page.getByTestId('error-banner').textContent()).toBe('Há campos inválidos.');
    expect((await product.api<Settings>('GET', settingsUrl)).body).toMatchObject({
      op_simp_nac: 3,
      reg_ap_trib_sn: 2,
    });

    // "Não informar" settles it; once blank, the field leaves the form of a company outside ME/EPP.
    await page.getByLabel('Regime de apuração').selectOption('');
    await page.getByTestId('nfse-settings-save').click();
    await page.getByTestId('nfse-settings-saved').waitFor();
    expect(await page.getByLabel('Regime de apuração').count()).toBe(0);
    expect(await page.getByTestId('nfse-settings-apuracao').textContent()).toBe('não informado');
    expect((await product.api<Settings>('GET', settingsUrl)).body).toEqual({
      op_simp_nac: 1,
      reg_ap_trib_sn: null,
      reg_esp_trib: 6,
      padrao: false,
    });

    // Without a municipal inscription the screen says so and where it is edited.
    const cleared = await product.api('PUT', `/companies/${product.companyId}`, { im: null });
    expect(cleared.status).toBe(200);
    await page.reload();
    await page.getByTestId('nfse-settings-no-im').waitFor();
    expect(await page.getByTestId('nfse-settings-im').textContent()).toContain('não informada');
    expect(
      await page
        .getByTestId('nfse-settings-no-im')
        .getByRole('link', { name: 'Configurações › Empresa' })
        .getAttribute('href'),
    ).toBe('#/configuracoes/empresa');
    await page.close();
  }, 120_000);
});
