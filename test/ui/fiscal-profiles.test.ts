// The default fiscal profile in a real Chromium against `npm start`: the company settings name it, the
// products screen marks it "Padrão", another profile is made the default there and then edited, keeping
// the tax groups the form does not show.
import { describe, expect, it } from 'vitest';
import type { CompanyView } from '../../src-shared/contracts/companies.ts';
import type { FiscalProfileView } from '../../src-shared/contracts/catalog.ts';
import { DEFAULT_FISCAL_PROFILES } from '../../src-shared/tables/default-fiscal-profiles.ts';
import { openUi, saveScreenshot, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

describe('default fiscal profile', () => {
  it('is named in the company settings, marked Padrão, replaced by another profile and edited', async () => {
    const company = (await ui.product.api<CompanyView>('GET', `/companies/${ui.product.companyId}`)).body;
    const first = company.defaultFiscalProfileId;
    expect(first).toEqual(expect.any(String));
    const created = await ui.product.api<FiscalProfileView>(
      'POST',
      `/fiscal-profiles?companyId=${ui.product.companyId}`,
      {
        name: 'Revenda com IBS/CBS',
        CFOP: '5102',
        taxes: {
          ICMS: { orig: 0, CSOSN: '102' },
          PIS: { CST: '49' },
          COFINS: { CST: '49' },
          IBSCBS: { CST: '000', cClassTrib: '000001' },
        },
      },
    );
    expect(created.status).toBe(201);
    const second = created.body;

    const settings = await openUi(ui.browser, ui.product, '/configuracoes/empresa');
    await settings.getByTestId('default-profile').getByText(DEFAULT_FISCAL_PROFILES.simples.name).waitFor();
    await settings.close();

    const page = await openUi(ui.browser, ui.product, '/produtos');
    const card = page.getByRole('region', { name: 'Perfis fiscais' });
    const rowOf = (id: string) => card.locator(`tr[data-profile-id="${id}"]`);
    await rowOf(first!).getByText('Padrão', { exact: true }).waitFor();
    expect(await rowOf(second.id).getByText('Padrão', { exact: true }).count()).toBe(0);
    expect(await rowOf(first!).getByRole('button', { name: 'Tornar padrão' }).count()).toBe(0);
    await saveScreenshot(page, 'products-fiscal-profiles.png');

    await rowOf(second.id).getByRole('button', { name: 'Tornar padrão' }).click();
    await rowOf(second.id).getByText('Padrão', { exact: true }).waitFor();
    await rowOf(first!).getByRole('button', { name: 'Tornar padrão' }).waitFor();
    expect(await rowOf(first!).getByText('Padrão', { exact: true }).count()).toBe(0);
    const after = (await ui.product.api<CompanyView>('GET', `/companies/${ui.product.companyId}`)).body;
    expect(after.defaultFiscalProfileId).toBe(second.id);

    await rowOf(second.id).getByRole('button', { name: 'Editar' }).click();
    const dialog = page.getByRole('dialog', { name: 'Perfil fiscal Revenda com IBS/CBS' });
    await dialog.getByLabel('Nome').fill('Revenda padrão da loja');
    await dialog.getByLabel('Carga tributária aprox. (%)').fill('12,5');
    await dialog.getByRole('button', { name: 'Salvar perfil' }).click();
    await dialog.waitFor({ state: 'detached' });
    await rowOf(second.id).getByText('Revenda padrão da loja').waitFor();
    const edited = (await ui.product.api<FiscalProfileView>('GET', `/fiscal-profiles/${second.id}`)).body;
    expect(edited.name).toBe('Revenda padrão da loja');
    expect(edited.taxes).toEqual({
      ICMS: { orig: 0, CSOSN: '102' },
      PIS: { CST: '49' },
      COFINS: { CST: '49' },
      IBSCBS: { CST: '000', cClassTrib: '000001' },
      pTotTrib: '12.5',
    });
    await page.close();

    const again = await openUi(ui.browser, ui.product, '/configuracoes/empresa');
    await again.getByTestId('default-profile').getByText('Revenda padrão da loja').waitFor();
    await again.close();
  });
});
