// The services screen in a real Chromium against `npm start`: reached from the menu, a service created from
// the form (national code checked while typing, the ISS rate's bounds from the API on the field, pt-BR
// numbers stored as exact text), found by a search without accents, deactivated and found among the inactive.
import { describe, expect, it } from 'vitest';
import type { ServiceView } from '../../src-shared/contracts/services.ts';
import type { DataList } from '../../src-shared/contracts/common.ts';
import { saveScreenshot, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

async function services(query: string): Promise<ServiceView[]> {
  const res = await ui.product.api<DataList<ServiceView>>(
    'GET',
    `/services?companyId=${ui.product.companyId}&${query}`,
  );
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('services screen', () => {
  it(
    'creates, finds, edits and deactivates services of the NFS-e catalogue',
    { timeout: 120_000 },
    async () => {
      const page = await ui.newPage('/produtos');
      // Products and services share the menu's Catálogo heading (the menu stays on one line at 1024 px).
      const menu = page.getByRole('navigation', { name: 'Menu' });
      const heading = menu.getByRole('button', { name: 'Catálogo' });
      await heading.click();
      const menuLink = menu.getByRole('link', { name: 'Serviços' });
      await menuLink.click();
      await expect.poll(() => page.evaluate<string>('location.hash')).toBe('#/servicos');
      // The list closes once a link is chosen; the heading and the hidden link still say where we are.
      const hiddenLink = menu.getByRole('link', { name: 'Serviços', includeHidden: true });
      await page.getByText('Nenhum serviço. Cadastre os serviços que a loja presta').waitFor();
      await expect.poll(() => hiddenLink.getAttribute('aria-current')).toBe('page');
      await expect.poll(() => heading.getAttribute('class')).toContain('active');

      await page.getByRole('button', { name: 'Novo serviço' }).click();
      const dialog = page.getByRole('dialog', { name: 'Novo serviço' });
      await dialog.getByLabel('Código', { exact: true }).fill('INST-AR');
      await dialog.getByLabel('Código de tributação nacional').fill('410101');
      // The structural check speaks before any request.
      await dialog.getByText('o item 41 não está na lista nacional de serviços').waitFor();
      await dialog.getByLabel('Código de tributação nacional').fill('140101');
      await expect.poll(() => dialog.getByText('o item 41').count()).toBe(0);
      await dialog.getByLabel('Descrição').fill('Instalação de ar-condicionado split');
      await dialog.getByLabel('Alíquota ISS (%)').fill('6');
      await dialog.getByLabel('Preço (R$)').fill('1.250,00');
      // The IBS/CBS classification: blank cIndOp is the one of the service's nature (annex C), named.
      await dialog
        .getByRole('option', { name: 'Pela natureza do serviço (050101)' })
        .waitFor({ state: 'attached' });
      await dialog.getByLabel('cClassTrib (IBS/CBS)').fill('000001');
      await dialog.getByLabel('Indicador da operação (cIndOp)').selectOption('030101');
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.getByText('deve estar entre 2,00% e 5,00% (LC 116/2003)').waitFor();
      expect(await services('')).toEqual([]);
      await saveScreenshot(page, 'services-form-errors.png');

      await dialog.getByLabel('Alíquota ISS (%)').fill('3,5');
      await dialog.getByRole('button', { name: 'Salvar' }).click();
      await dialog.waitFor({ state: 'hidden' });
      const [created] = await services('');
      expect(created).toMatchObject({
        codigo: 'INST-AR',
        codigoTributacaoNacional: '140101',
        aliquotaIss: '3.50',
        valor: '1250.00',
        cstIbsCbs: '000',
        cClassTrib: '000001',
        cIndOp: '030101',
        cstPisCofins: null,
        ativo: true,
      });
      const table = page.getByTestId('services');
      const row = table.locator(`tr[data-service-id="${created!.id}"]`);
      await row.waitFor();
      expect((await row.locator('td').allInnerTexts()).map((t) => t.trim())).toEqual([
        'INST-AR',
        'Instalação de ar-condicionado split',
        '14.01.01',
        '3,50%',
        'R$ 1.250,00',
        'Sim',
      ]);

      // A service without a rate takes the municipality's; the list says so.
      const other = await ui.product.api<ServiceView>('POST', `/services?companyId=${ui.product.companyId}`, {
        codigo: 'REP-GEL',
        descricao: 'Reparo de geladeira',
        codigoTributacaoNacional: '140102',
      });
      expect(other.status).toBe(201);
      await page.getByLabel('Buscar (descrição, código ou código nacional)').fill('instalacao');
      await expect.poll(() => table.locator('tbody tr[data-service-id]').count()).toBe(1);
      await page.getByLabel('Buscar (descrição, código ou código nacional)').fill('');
      const otherRow = table.locator(`tr[data-service-id="${other.body.id}"]`);
      await otherRow.getByText('do município').waitFor();
      await saveScreenshot(page, 'services.png');

      // A second active service of the same national code with another rate is refused on the rate field.
      await page.getByRole('button', { name: 'Novo serviço' }).click();
      const second = page.getByRole('dialog', { name: 'Novo serviço' });
      await second.getByLabel('Código', { exact: true }).fill('INST-AR2');
      await second.getByLabel('Código de tributação nacional').fill('14.01.01');
      await second.getByLabel('Descrição').fill('Instalação de ar-condicionado janela');
      await second.getByLabel('Alíquota ISS (%)').fill('2');
      await second.getByRole('button', { name: 'Salvar' }).click();
      await second.getByText('outro serviço ativo (INST-AR) tem o mesmo código nacional com 3,50%').waitFor();
      await second.getByRole('button', { name: 'Voltar' }).click();
      await second.waitFor({ state: 'hidden' });

      // Editing shows the stored values the pt-BR way; Desativar keeps the service among the inactive.
      await row.click();
      const edit = page.getByRole('dialog', { name: 'Serviço INST-AR' });
      expect(await edit.getByLabel('Alíquota ISS (%)').inputValue()).toBe('3,50');
      expect(await edit.getByLabel('Preço (R$)').inputValue()).toBe('1250,00');
      expect(await edit.getByLabel('cClassTrib (IBS/CBS)').inputValue()).toBe('000001');
      expect(await edit.getByLabel('Indicador da operação (cIndOp)').inputValue()).toBe('030101');
      await edit.getByLabel('Preço (R$)').fill('1300');
      await edit.getByRole('button', { name: 'Salvar' }).click();
      await edit.waitFor({ state: 'hidden' });
      await row.getByText('R$ 1.300,00').waitFor();
      await row.click();
      await page
        .getByRole('dialog', { name: 'Serviço INST-AR' })
        .getByRole('button', { name: 'Desativar' })
        .click();
      await row.waitFor({ state: 'detached' });
      expect((await services('ativo=false')).map((s) => s.codigo)).toEqual(['INST-AR']);
      await page.getByLabel('Situação', { exact: true }).selectOption('inativos');
      await row.getByText('Não', { exact: true }).waitFor();
      expect(await table.locator('tbody tr[data-service-id]').count()).toBe(1);
    },
  );
});
