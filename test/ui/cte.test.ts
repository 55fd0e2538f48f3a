// The CT-e screens of the back office in a real Chromium against `npm start`: a road CT-e typed in the form
// (taker from the customers, CFOP from the route, components against the total, NF-e keys checked before
// sending), the API's field errors and rejection 512 beside their fields, then sent to the embedded sandbox
// authority, found in the list, corrected (CC-e) and cancelled from its page.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Page, Route } from 'playwright-core';
import { supplierNfeKey } from '../fixtures/cte-sample.ts';
import { openUi, saveScreenshot, useRunningProduct } from './harness.ts';

interface Cte {
  id: string;
  numero: number;
  status: string;
  valor_total: string;
  cfop: string;
  eventos: { tpEvento: string; status: string }[];
}

const ui = useRunningProduct({ catalog: true });

/** A model 55 key of a supplier in SP with a right check digit, issued in the month of the drafts. */
const nfeKey = (nNF: number): string => supplierNfeKey(nNF, { aamm: '2611' });

/** A draft CT-e within SP made through the API (the form is tested on its own), carrying `key`. */
function createDraft(key: string) {
  return ui.product.api<Cte>('POST', `/cte?companyId=${ui.product.companyId}`, {
    customerId: ui.catalog.customerId,
    modal: '01',
    cfop: '5353',
    natOp: 'PRESTACAO DE SERVICO DE TRANSPORTE',
    ufIni: 'SP',
    xMunIni: 'São Paulo',
    ufFim: 'SP',
    xMunFim: 'Campinas',
    toma: '0',
    remetente: { nome: 'MERCADO EXEMPLO LTDA', cpfCnpj: '11222333000181' },
    destinatario: {
      nome: 'Comercio Campinas Ltda',
      cpfCnpj: '52998224725',
      endereco: {
        xLgr: 'Rua Barao de Jaguara',
        nro: '10',
        xBairro: 'Centro',
        cMun: '3509502',
        uf: 'SP',
        cep: '13015000',
      },
    },
    valorTotal: 300,
    componentesValor: [{ nome: 'FRETE PESO', valor: 300 }],
    docsOriginarios: [key],
  });
}

/** Fills the form's route, recipient, components and keys; the taker comes from the registered customer. */
async function fillForm(page: Page, keys: string): Promise<void> {
  await page.getByLabel('Buscar cliente').fill('MERCADO');
  await page
    .getByRole('option', { name: /MERCADO EXEMPLO LTDA/ })
    .getByRole('button')
    .click();
  await expect.poll(() => page.getByTestId('chosen-customer').textContent()).toContain('11.222.333/0001-81');
  // The customer takes the service (toma 0, the sender): its data fill the sender's fields.
  await expect
    .poll(() => page.getByLabel('Remetente: Nome / razão social').inputValue())
    .toBe('MERCADO EXEMPLO LTDA');
  await expect.poll(() => page.getByLabel('Remetente: CEP').inputValue()).toBe('01001000');

  await page.getByLabel('UF de início').selectOption('SP');
  await page.getByLabel('Município de início').fill('São Paulo');
  await page.getByLabel('UF de término').selectOption('SP');
  await expect.poll(() => page.getByLabel('CFOP').inputValue()).toBe('5353');
  await page.getByLabel('UF de término').selectOption('PR');
  await expect.poll(() => page.getByLabel('CFOP').inputValue()).toBe('6353');
  await page.getByLabel('Município de término').fill('Curitiba');

  const dest = (field: string) => page.getByLabel(`Destinatário: ${field}`, { exact: true });
  await dest('Nome / razão social').fill('Comercio Curitiba Ltda');
  await dest('CPF ou CNPJ').fill('529.982.247-25');
  await dest('Logradouro').fill('Rua XV de Novembro');
  await dest('Número').fill('700');
  await dest('Bairro').fill('Centro');
  await dest('Município').fill('Curitiba');
  await dest('Código IBGE do município').fill('4106902');
  await dest('UF').selectOption('PR');
  await dest('CEP').fill('80020310');

  await page.getByLabel('Valor do componente 1').fill('1.000,20');
  await page.getByRole('button', { name: '+ Componente' }).click();
  await page.getByLabel('Nome do componente 2').fill('PEDAGIO');
  await page.getByLabel('Valor do componente 2').fill('250,30');
  await expect.poll(() => page.getByTestId('cte-sum').inputValue()).toBe('R$ 1.250,50');
  await page.getByLabel('Chaves das NF-e').fill(keys);
  await page.getByLabel('Placa').fill('ABC1D23');
  await page.getByLabel('UF do veículo').selectOption('SP');
}

describe('CT-e in the back office', () => {
  it(
    'creates a CT-e from the form with every error beside its field, sends it, corrects and cancels it',
    { timeout: 180_000 },
    async () => {
      const page = await openUi(ui.browser, ui.product, '/cte/novo');
      await page.getByTestId('cte-form').waitFor();
      const requests: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && /\/v1\/cte(\?|$)/.test(r.url())) requests.push(r.url());
      });

      const good = nfeKey(101);
      const badDigit = `${good.slice(0, 43)}${(Number(good[43]) + 1) % 10}`;
      await fillForm(page, `${nfeKey(100)}\n${badDigit}`);

      // A wrong check digit is caught in the page: nothing goes to the API.
      await page.getByRole('button', { name: 'Salvar rascunho' }).click();
      await expect.poll(() => page.getByTestId('key-problems').textContent()).toContain('Linha 2');
      expect(await page.getByTestId('key-problems').textContent()).toContain(
        'dígito verificador não confere',
      );
      expect(await page.getByTestId('key-banner').textContent()).toContain('Uma chave de NF-e é inválida');
      expect(requests).toEqual([]);
      await page.getByLabel('Chaves das NF-e').fill(`${nfeKey(100)}\n${good}`);

      // The total typed apart from the components: the form warns, the API answers 422 with cStat 512.
      const total = page.getByLabel('Valor total');
      await total.fill('1.250,00');
      const totalField = page.locator('label.field', { has: total });
      await expect
        .poll(() => totalField.locator('.field-error').textContent())
        .toBe('difere da soma dos componentes (R$ 1.250,50)');
      // And a bad CPF of the recipient: the API reports both at once, each beside its own field.
      await page.getByLabel('Destinatário: CPF ou CNPJ', { exact: true }).fill('529.982.247-24');
      await page.getByRole('button', { name: 'Salvar rascunho' }).click();
      await expect
        .poll(() => page.getByTestId('error-banner').textContent())
        .toContain('Há campos inválidos');
      const cpfField = page.locator('label.field', {
        has: page.getByLabel('Destinatário: CPF ou CNPJ', { exact: true }),
      });
      expect(await cpfField.locator('.field-error').textContent()).toBe('CPF ou CNPJ inválido');
      expect(requests.length).toBe(1);
      await page.getByLabel('Destinatário: CPF ou CNPJ', { exact: true }).fill('529.982.247-25');
      await page.getByRole('button', { name: 'Salvar rascunho' }).click();
      await expect.poll(() => page.getByTestId('error-banner').textContent()).toMatch(/^Rejeição 512: /);
      // Said once: the authority's own "Rejeição:" prefix is not repeated after the code.
      expect(await page.getByTestId('error-banner').textContent()).not.toMatch(/^Rejeição 512: Rejeição/);
      expect(await totalField.locator('.field-error').textContent()).not.toBe('');
      await saveScreenshot(page, 'cte-form-errors.png');

      await page.getByRole('button', { name: 'Usar a soma' }).click();
      await expect.poll(() => total.inputValue()).toBe('1250,50');
      await expect.poll(() => totalField.locator('.field-error').count()).toBe(0);
      await page.getByRole('heading', { name: 'Novo CT-e' }).scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'cte-form.png');
      await page.getByRole('button', { name: 'Salvar e enviar à SEFAZ' }).click();

      const detail = page.getByTestId('cte-detail');
      await detail.waitFor();
      const id = (await page.evaluate<string>('location.hash')).replace('#/cte/', '');
      await expect.poll(() => detail.getAttribute('data-status'), { timeout: 60_000 }).toBe('autorizada');
      const saved = (await ui.product.api<Cte>('GET', `/cte/${id}`)).body;
      expect(saved).toMatchObject({ status: 'autorizada', valor_total: '1250.50', cfop: '6353' });
      expect(await page.getByTestId('cte-total').textContent()).toBe('R$ 1.250,50');
      expect(await page.getByTestId('cte-route').textContent()).toBe('São Paulo/SP → Curitiba/PR');
      expect(await page.getByTestId('protocol').textContent()).toMatch(/^\d{15}$/);
      // What the view does not carry is read from the CT-e itself: components, carried keys, vehicle.
      expect(await page.getByTestId('cte-components-view').textContent()).toContain('PEDAGIOR$ 250,30');
      expect((await page.getByTestId('cte-keys').textContent())?.replace(/\s/g, '')).toBe(
        `${nfeKey(100)}${good}`,
      );
      // An authorized CT-e is no longer sent or deleted: it is corrected or cancelled.
      expect(await page.getByRole('button', { name: 'Enviar à SEFAZ' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Excluir' }).count()).toBe(0);
      await saveScreenshot(page, 'cte-detail.png');

      // The DACTE link opens the PDF; the download link asks for an attachment named after the key.
      const chave = (await ui.product.api<{ chave_acesso: string }>('GET', `/cte/${id}`)).body.chave_acesso;
      const dacteHref = await page.getByRole('link', { name: 'Baixar DACTE' }).getAttribute('href');
      const dacte = await page.request.get(dacteHref ?? '');
      expect(dacte.headers()['content-type'], await dacte.text()).toBe('application/pdf');
      expect(dacte.headers()['content-disposition']).toContain(`${chave}-dacte.pdf`);
      expect((await dacte.body()).subarray(0, 5).toString()).toBe('%PDF-');
      // The XML button saves the cteProc (CTe with its protCTe).
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Baixar XML' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${chave}-cteProc.xml`);
      const xml = fs.readFileSync((await download.path()) ?? '', 'utf8');
      expect(xml).toContain('<protCTe');
      expect(xml).toContain(`Id="CTe${chave}"`);

      // In the list, and under its status filter.
      await page.getByRole('link', { name: '‹ CT-e' }).click();
      const rows = page.getByTestId('cte-list').locator('tbody tr[data-cte-id]');
      await expect.poll(() => rows.count()).toBe(1);
      await page.getByLabel('Situação', { exact: true }).selectOption('rascunho');
      await expect.poll(() => page.evaluate('location.hash')).toBe('#/cte?status=rascunho');
      await expect.poll(() => rows.count()).toBe(0);
      await page.getByLabel('Situação', { exact: true }).selectOption('autorizada');
      await expect.poll(() => rows.count()).toBe(1);
      // The period filter on created_at, typed the Brazilian way (far from today: no time zone edge).
      await page.getByLabel('Data inicial').fill('01/01/2099');
      await expect.poll(() => page.evaluate('location.hash')).toBe('#/cte?status=autorizada&from=2099-01-01');
      await expect.poll(() => rows.count()).toBe(0);
      await page.getByLabel('Data inicial').fill('01/01/2020');
      await expect.poll(() => rows.count()).toBe(1);
      await saveScreenshot(page, 'cte-list.png');
      await rows.first().click();
      await detail.waitFor();

      // CC-e: the text becomes the event's observation, sequence 1.
      await page.getByRole('button', { name: 'Carta de correção' }).click();
      const cce = page.getByRole('dialog');
      expect(await cce.getByLabel('Sequência (1 a 20)').inputValue()).toBe('1');
      await cce.getByLabel('Correção (15 a 500 caracteres)').fill('Entrega no portao 2 do galpao');
      await cce.getByRole('button', { name: 'Enviar carta de correção' }).click();
      const cceRow = page.locator('tr[data-event-type="110110"]').first();
      await expect.poll(() => cceRow.textContent(), { timeout: 30_000 }).toContain('Registrado');

      // A second CC-e naming the field: a tax value is refused in the page, a permitted field is registered.
      await page.getByRole('button', { name: 'Carta de correção' }).click();
      const cce2 = page.getByRole('dialog');
      await cce2.getByLabel('Campos do CT-e').check();
      expect(await cce2.getByLabel('Sequência (1 a 20)').inputValue()).toBe('2');
      await cce2.getByLabel('Grupo da correção 1').fill('vPrest');
      await cce2.getByLabel('Campo da correção 1').fill('vTPrest');
      await cce2.getByLabel('Valor da correção 1').fill('1300.00');
      await expect
        .poll(() => cce2.getByTestId('cce-row-1').locator('.field-error').textContent())
        .toBe('a CC-e não corrige valor que determina o imposto ou a prestação');
      await expect
        .poll(() => cce2.getByRole('button', { name: 'Enviar carta de correção' }).isDisabled())
        .toBe(true);
      await saveScreenshot(page, 'cte-cce.png');
      await cce2.getByLabel('Grupo da correção 1').fill('ide');
      await cce2.getByLabel('Campo da correção 1').fill('natOp');
      await cce2.getByLabel('Valor da correção 1').fill('PRESTACAO DE SERVICO DE TRANSPORTE RODOVIARIO');
      await cce2.getByRole('button', { name: 'Enviar carta de correção' }).click();
      await expect
        .poll(() => page.locator('tr[data-event-type="110110"]').count(), { timeout: 30_000 })
        .toBe(2);
      await expect
        .poll(() => page.locator('tr[data-event-type="110110"]').last().textContent(), { timeout: 30_000 })
        .toContain('Registrado');

      // Cancellation: the API's minimum length beside the field, then the authority cancels it.
      await page.getByRole('button', { name: 'Cancelar CT-e' }).click();
      const dialog = page.getByRole('dialog');
      const justification = dialog.getByLabel('Justificativa (15 a 255 caracteres)');
      await justification.fill('curta');
      await dialog.getByRole('button', { name: 'Cancelar CT-e' }).click();
      await expect.poll(() => dialog.locator('.field-error').textContent()).toBe('mínimo de 15 caracteres');
      await justification.fill('Carga devolvida antes da saida do veiculo');
      await dialog.getByRole('button', { name: 'Cancelar CT-e' }).click();
      await expect.poll(() => detail.getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelada');
      expect(await page.getByRole('button', { name: 'Cancelar CT-e' }).count()).toBe(0);
      const after = (await ui.product.api<Cte>('GET', `/cte/${id}`)).body;
      expect(after.status).toBe('cancelada');
      expect(after.eventos.map((e) => [e.tpEvento, e.status]).sort()).toEqual([
        ['110110', 'registrada'],
        ['110110', 'registrada'],
        ['110111', 'registrada'],
      ]);
      await page.getByRole('button', { name: 'Diagnóstico (suporte)' }).click();
      await expect
        .poll(() => page.getByTestId('cte-debug-logs').locator('tbody tr').count())
        .toBeGreaterThan(0);
      await saveScreenshot(page, 'cte-cancelled.png');
      await page.getByTestId('cte-debug').scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'cte-debug.png');
      await page.close();
    },
  );

  it(
    'fits a 1024 px screen, asks for the recebedor when it takes the service, deletes a draft',
    { timeout: 90_000 },
    async () => {
      const page = await ui.newPage('/cte/novo');
      await page.getByTestId('cte-form').waitFor();
      await fillForm(page, nfeKey(200));
      await page.getByLabel('Tomador', { exact: true }).selectOption('2');
      await page.getByTestId('cte-recebedor').waitFor();
      await expect.poll(() => page.getByTestId('cte-expedidor').count()).toBe(0);
      // Evaluated in the page (a string: this file is compiled without the DOM's types).
      const sideways = () =>
        page.evaluate<number[]>(`['.content', '.content > .page'].map((sel) => {
          const box = document.querySelector(sel);
          return box === null ? -1 : box.scrollWidth - box.clientWidth;
        })`);
      expect(await sideways()).toEqual([0, 0]);
      await page.getByTestId('cte-recebedor').scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'cte-form-1024.png');
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - innerWidth')).toBe(0);
      await page.getByLabel('Tomador', { exact: true }).selectOption('0');
      await expect.poll(() => page.getByTestId('cte-recebedor').count()).toBe(0);
      await page.getByRole('button', { name: 'Usar a soma' }).click();
      // The send after the save is refused (the service answers 503 here): the draft stays, and its page says
      // the send did not go, instead of the form saving a second draft on the next click.
      await page.route('**/v1/cte/*/send', (route) =>
        route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({ error: 'authority_unavailable', message: 'down', details: [] }),
        }),
      );
      await page.getByRole('button', { name: 'Salvar e enviar à SEFAZ' }).click();
      const detail = page.getByTestId('cte-detail');
      await detail.waitFor();
      expect(await detail.getAttribute('data-status')).toBe('rascunho');
      expect(await page.getByTestId('send-failed').textContent()).toContain('salvo como rascunho');
      await page.unroute('**/v1/cte/*/send');
      expect(await page.getByRole('link', { name: 'DACTE (PDF)' }).count()).toBe(0);
      const id = (await page.evaluate<string>('location.hash')).replace(/^#\/cte\/|\?.*$/g, '');
      const drafts = await ui.product.api<{ data: { id: string }[] }>(
        'GET',
        `/cte?status=rascunho&companyId=${ui.product.companyId}`,
      );
      expect(drafts.body.data.map((c) => c.id)).toContain(id);
      await page.getByRole('button', { name: 'Excluir' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Excluir' }).click();
      await page.getByTestId('cte-list').waitFor();
      expect((await ui.product.api('GET', `/cte/${id}`)).status).toBe(404);
      await page.close();
    },
  );

  it(
    'shows the authority rejection of a sent CT-e with its cStat, and sends it again',
    { timeout: 90_000 },
    async () => {
      const created = await createDraft(nfeKey(300));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      // The next CT-e the authority receives is refused once (signature differs, 297).
      const fault = await ui.product.api(
        'POST',
        '/sandbox/faults',
        { reject: { cStat: 297, times: 1, services: ['CTeRecepcaoSincV4'] } },
        ui.product.organizationApiKey,
      );
      expect(fault.status, JSON.stringify(fault.body)).toBe(200);

      const page = await openUi(ui.browser, ui.product, `/cte/${created.body.id}`);
      const detail = page.getByTestId('cte-detail');
      await detail.waitFor();
      await page.getByRole('button', { name: 'Enviar à SEFAZ' }).click();
      await expect.poll(() => detail.getAttribute('data-status'), { timeout: 30_000 }).toBe('erro');
      // Said once, with the code: the authority's own "Rejeição:" is not repeated.
      expect(await page.getByTestId('rejection').textContent()).toBe(
        'Rejeição 297: Assinatura difere do calculado',
      );
      // Answered by the authority: it is corrected and sent again, not deleted; no DACTE without authorization.
      expect(await page.getByRole('button', { name: 'Excluir' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'DACTE (PDF)' }).count()).toBe(0);
      await saveScreenshot(page, 'cte-rejected.png');
      await page.getByRole('button', { name: 'Reenviar à SEFAZ' }).click();
      await expect.poll(() => detail.getAttribute('data-status'), { timeout: 30_000 }).toBe('autorizada');
      expect(await page.getByTestId('rejection').count()).toBe(0);
      await page.close();
    },
  );

  it('marks a CT-e issued in SVC contingency on its page and in the list', { timeout: 60_000 }, async () => {
    const list = await ui.product.api<{ data: Cte[] }>(
      'GET',
      `/cte?status=autorizada&companyId=${ui.product.companyId}`,
    );
    const cte = list.body.data[0];
    if (cte === undefined) throw new Error('an authorized CT-e from the tests above');
    const page = await openUi(ui.browser, ui.product, '/cte');
    // The service's answer as it is, with the emission type of a CT-e authorized by SVC-RS (tpEmis 7).
    const svc = async (route: Route) => {
      const res = await route.fetch();
      const body: unknown = await res.json();
      const patch = (v: Cte) => (v.id === cte.id ? { ...v, tipo_emissao: 7 } : v);
      const json =
        typeof body === 'object' && body !== null && 'data' in body
          ? { ...body, data: (body as { data: Cte[] }).data.map(patch) }
          : patch(body as Cte);
      await route.fulfill({ response: res, json });
    };
    await page.route(/\/v1\/cte(\/[^/?]+)?(\?.*)?$/, svc);
    await page.evaluate(`location.hash = '#/cte?status=autorizada'`);
    const row = page.locator(`tr[data-cte-id="${cte.id}"]`);
    await expect.poll(() => row.textContent()).toContain('contingência SVC');
    await row.click();
    await expect
      .poll(() => page.getByTestId('contingency').textContent())
      .toContain('Emitido em contingência SVC-RS');
    await page.close();
  });

  it('pages the list by 20 with the totals of {data, meta}', { timeout: 90_000 }, async () => {
    for (let n = 0; n < 21; n++) expect((await createDraft(nfeKey(400 + n))).status).toBe(201);
    const all = await ui.product.api<{ meta: { total: number } }>(
      'GET',
      `/cte?status=rascunho&limit=1&companyId=${ui.product.companyId}`,
    );
    const total = all.body.meta.total;
    expect(total).toBeGreaterThanOrEqual(21);
    const page = await ui.newPage('/cte?status=rascunho');
    const rows = page.getByTestId('cte-list').locator('tbody tr[data-cte-id]');
    await expect.poll(() => rows.count()).toBe(20);
    // A full page of rows still fits 1024 px without scrolling sideways.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - innerWidth')).toBe(0);
    await saveScreenshot(page, 'cte-list-1024.png');
    const pager = page.getByRole('navigation', { name: 'Paginação' });
    expect(await pager.textContent()).toContain(`Página 1 de ${Math.ceil(total / 20)} · ${total} registros`);
    await pager.getByRole('button', { name: 'Próxima ›' }).click();
    await expect.poll(() => page.evaluate('location.hash')).toBe('#/cte?status=rascunho&page=2');
    await expect.poll(() => rows.count()).toBe(Math.min(20, total - 20));
    await page.close();
  });

  it('voids a range of CT-e numbers and says what was done and until when', { timeout: 60_000 }, async () => {
    const page = await openUi(ui.browser, ui.product, '/cte');
    await page.getByTestId('cte-list').waitFor();
    await page.getByRole('button', { name: 'Inutilizar numeração' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Número inicial').fill('900');
    await dialog.getByLabel('Número final').fill('902');
    await dialog.getByLabel('Justificativa (15 a 255 caracteres)').fill('curta');
    await dialog.getByRole('button', { name: 'Inutilizar' }).click();
    await expect.poll(() => dialog.locator('.field-error').textContent()).toBe('mínimo de 15 caracteres');
    await dialog
      .getByLabel('Justificativa (15 a 255 caracteres)')
      .fill('Numeracao pulada por falha no sistema');
    await dialog.getByRole('button', { name: 'Inutilizar' }).click();
    const result = await dialog.getByTestId('void-result').textContent();
    // CT-e 4.00 authorities have no inutilização service: the answer says nothing went to them, and the deadline.
    expect(result).toContain('CT-e 900 a 902 da série 1');
    expect(result).toContain('nada foi enviado à SEFAZ');
    expect(result).toMatch(/Prazo para comunicar: 10\/\d{2}\/\d{4}\.$/);
    await page.close();
  });
});
