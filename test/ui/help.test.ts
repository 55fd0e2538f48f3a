// Ajuda › Referência da API in a real Chromium against `npm start`: the page reads the service's OpenAPI
// document and shows each route with its parameters, body fields (required ones marked) and answers.
import { describe, expect, it } from 'vitest';
import { openUi, saveScreenshot, useRunningProduct } from './harness.ts';

const ui = useRunningProduct();

describe('API reference', () => {
  it('groups the routes by subject and opens POST /v1/nfe with its payload fields in both spellings', async () => {
    const page = await openUi(ui.browser, ui.product, '/ajuda');
    await page.getByTestId('api-reference').waitFor();
    await expect(page.locator('h2', { hasText: 'NF-e' }).first().isVisible()).resolves.toBe(true);
    await expect(page.getByRole('navigation', { name: 'Assuntos' }).textContent()).resolves.toContain(
      'Impressoras',
    );

    const create = page.getByTestId('op POST /v1/nfe');
    await create.locator('summary').first().click();
    await create.getByText('Corpo da requisição').waitFor();
    const text = (await create.textContent()) ?? '';
    expect(text).toContain('naturezaOperacao');
    expect(text).toContain('natureza_operacao');
    expect(text).toContain('Create an NF-e draft');
    expect(text).toContain('companyId');
    // The answers: the draft (201) and the error body of §7 on the error statuses.
    expect(text).toMatch(/201\s*The NF-e draft/);
    expect(text).toContain('ErrorBody');
    await saveScreenshot(page, 'help-api-reference.png');

    // The filter keeps only the matching routes.
    await page.getByLabel('Filtrar rotas').fill('escpos');
    await page.getByTestId('op GET /v1/nfce/{id}/escpos').waitFor();
    await expect(page.getByTestId('op POST /v1/nfe').count()).resolves.toBe(0);

    // A nested object opens below its field: the customer's address in the company's answer.
    await page.getByLabel('Filtrar rotas').fill('/v1/companies/{id}');
    const company = page.getByTestId('op GET /v1/companies/{id}');
    await company.locator('summary').first().click();
    await company.getByText('endereco', { exact: true }).click();
    await expect(company.getByText('xLgr', { exact: true }).isVisible()).resolves.toBe(true);
    await page.close();
  }, 120_000);
});
