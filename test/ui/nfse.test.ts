// The NFS-e screens of the back office in a real Chromium against `npm start` and its embedded national
// environment (sandbox): a note typed in the form with the service from the catalogue and the taker from the
// customers, issued and authorized, its DANFSe and XML; the rejections caught before sending (E001, E012)
// beside their fields with nothing created; a draft edited and sent; the list and its status filter; a
// cancellation with its reason code; and a substitution that links the new note to the one it replaces.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { NFSE_CODES } from '../../src-shared/tables/nfse-codes.ts';
import { detailStatus, listTotal, openUi, poll, saveScreenshot, useRunningProduct } from './harness.ts';

interface Nfse {
  id: string;
  status: string;
  numero: number;
  numero_nfse: number | null;
  chave_acesso_50: string | null;
  valor_servico: number;
  substitui_nfse_id: string | null;
  substituida_por_nfse_id: string | null;
  cancelamento: { codigo_motivo: number | null; status: string } | null;
}

const ui = useRunningProduct({
  catalog: true,
  setup: async (run) => {
    const company = run.product.companyId;
    // One service at the municipality's rate (the sandbox registers 5.00 for every service), one at a rate
    // of its own that the municipality does not register: the form's E012.
    for (const body of [
      {
        codigo: 'AC-MANUT',
        descricao: 'Manutenção de ar-condicionado split',
        codigoTributacaoNacional: '140101',
        aliquotaIss: '5.00',
        valor: '350.00',
      },
      {
        codigo: 'ASSIST',
        descricao: 'Assistência técnica em refrigeração',
        codigoTributacaoNacional: '140201',
        aliquotaIss: '2.50',
        valor: null,
      },
    ]) {
      const res = await run.product.api('POST', `/services?companyId=${company}`, body);
      if (res.status !== 201) throw new Error(`service ${body.codigo}: ${JSON.stringify(res.body)}`);
    }
  },
});

const TOMADOR = {
  cpf_cnpj: '52998224725',
  razao_social: 'JOSE DA SILVA',
  email: 'jose@example.com',
  endereco: {
    logradouro: 'Rua das Palmeiras',
    numero: '25',
    bairro: 'Centro',
    municipio: '3550308',
    uf: 'SP',
    cep: '01001000',
  },
};

/** An NFS-e issued through the API (the form is tested on its own), waited until it is authorized. */
async function issued(descricao: string, valor: number): Promise<Nfse> {
  const res = await ui.product.api<Nfse>('POST', `/nfse?companyId=${ui.product.companyId}`, {
    codigo_tributacao_nacional: '140101',
    descricao_servico: descricao,
    valor_servico: valor,
    iss_retido: false,
    tomador: TOMADOR,
  });
  if (res.status !== 200 && res.status !== 202) throw new Error(`nfse: ${JSON.stringify(res.body)}`);
  let n = res.body;
  for (let i = 0; n.status !== 'authorized'; i++) {
    if (i > 100) throw new Error(`nfse ${n.id} stayed ${n.status}`);
    await new Promise((r) => setTimeout(r, 200));
    n = (await ui.product.api<Nfse>('GET', `/nfse/${n.id}`)).body;
  }
  return n;
}

const nfseCount = () => listTotal(ui.product, '/nfse');

const nfseStatus = (page: Page, status: string) => detailStatus(page, 'nfse-detail', status);

/** Sets the embedded sandbox's fault switches (organization key), as support does from the API. */
async function setFaults(body: Record<string, unknown>): Promise<void> {
  const res = await ui.product.api('POST', '/sandbox/faults', body, ui.product.organizationApiKey);
  if (res.status !== 200) throw new Error(`faults: ${JSON.stringify(res.body)}`);
}

/** Fills the form with a service by its national code and a typed taker. */
async function fillTyped(page: Page, descricao: string, valor: string): Promise<void> {
  await page.getByLabel('Código de tributação nacional').fill('140101');
  await page.getByLabel('Descrição do serviço').fill(descricao);
  await page.getByLabel('Valor do serviço').fill(valor);
  await page.getByLabel('Tomador: Nome / razão social').fill(TOMADOR.razao_social);
  await page.getByLabel('Tomador: CPF ou CNPJ').fill(TOMADOR.cpf_cnpj);
}

/** The text of a PDF, as pdftotext reads it. */
function pdfText(pdf: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-danfse-'));
  try {
    const file = path.join(dir, 'danfse.pdf');
    fs.writeFileSync(file, pdf);
    const out = spawnSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(out.stderr);
    return out.stdout;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('NFS-e in the back office', () => {
  it(
    'issues an NFS-e from the form (service from the catalogue, taker from the customers) and opens its DANFSe and XML',
    { timeout: 180_000 },
    async () => {
      const page = await openUi(ui.browser, ui.product, '/nfse/nova');
      await page.getByTestId('nfse-form').waitFor();

      // The catalogue's service fills the national code, the description and the price.
      await page.getByLabel('Buscar serviço').fill('ar-cond');
      await page
        .getByRole('option', { name: /Manutenção de ar-condicionado split/ })
        .getByRole('button')
        .click();
      await poll(() => page.getByLabel('Código de tributação nacional').inputValue()).toBe('140101');
      expect(await page.getByTestId('chosen-service').textContent()).toBe(
        'Do catálogo: AC-MANUT – Manutenção de ar-condicionado split · ISS 5,00 %',
      );
      expect(await page.getByLabel('Descrição do serviço').inputValue()).toBe(
        'Manutenção de ar-condicionado split',
      );
      expect(await page.getByLabel('Valor do serviço').inputValue()).toBe('350,00');
      await page.getByLabel('Valor do serviço').fill('1.250,50');
      await poll(() => page.getByTestId('nfse-form-total').textContent()).toBe('R$ 1.250,50');

      // "+ Novo cliente" opens the customer's dialog beside the form; Voltar closes it.
      const newCustomer = page.getByRole('dialog', { name: 'Novo cliente' });
      await page.getByRole('button', { name: '+ Novo cliente' }).click();
      await newCustomer.waitFor();
      await newCustomer.getByRole('button', { name: 'Voltar' }).click();
      await newCustomer.waitFor({ state: 'detached' });

      // The registered customer takes the service: its data fill the taker's fields, still editable.
      await page.getByLabel('Buscar cliente').fill('MERCADO');
      await page
        .getByRole('option', { name: /MERCADO EXEMPLO LTDA/ })
        .getByRole('button')
        .click();
      await poll(() => page.getByTestId('chosen-customer').textContent()).toContain('11.222.333/0001-81');
      expect(await page.getByLabel('Tomador: Nome / razão social').inputValue()).toBe('MERCADO EXEMPLO LTDA');
      expect(await page.getByLabel('Tomador: CEP').inputValue()).toBe('01001000');
      await page.getByLabel('Tomador: E-mail').fill('compras@mercado.example');
      await saveScreenshot(page, 'nfse-form.png');

      await page.getByRole('button', { name: 'Emitir NFS-e' }).click();
      await page.getByTestId('nfse-detail').waitFor();
      await nfseStatus(page, 'authorized');
      const id = (await page.evaluate('location.hash')) as string;
      const nfseId = id.replace('#/nfse/', '');
      const n = (await ui.product.api<Nfse>('GET', `/nfse/${nfseId}`)).body;
      expect(n.valor_servico).toBe(1250.5);
      expect(n.chave_acesso_50).toMatch(/^\d{50}$/);
      expect(await page.getByTestId('numero-nfse').textContent()).toBe(String(n.numero_nfse));
      expect((await page.getByTestId('access-key').textContent())?.replace(/\s/g, '')).toBe(
        n.chave_acesso_50,
      );
      expect(await page.getByTestId('nfse-total').textContent()).toBe('R$ 1.250,50');
      // An authorized note is no longer edited, sent or deleted: it is cancelled or substituted.
      for (const name of ['Editar', 'Excluir', 'Reenviar', 'Enviar ao ambiente nacional'])
        expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Cancelar NFS-e' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Substituir' }).count()).toBe(1);
      await saveScreenshot(page, 'nfse-detail.png');

      // The DANFSe link opens the PDF of this note: its key, its number, the taker and the value.
      const href = await page.getByRole('link', { name: 'DANFSe (PDF)' }).getAttribute('href');
      const danfse = await page.request.get(href ?? '');
      expect(danfse.headers()['content-type'], await danfse.text()).toBe('application/pdf');
      const pdf = await danfse.body();
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      const text = pdfText(pdf);
      expect(text.replace(/\s/g, '')).toContain(n.chave_acesso_50);
      expect(text).toContain('MERCADO EXEMPLO LTDA');
      expect(text).toContain('1.250,50');
      if (process.env['BALCAO_KEEP_DANFSE'] !== undefined)
        fs.writeFileSync(process.env['BALCAO_KEEP_DANFSE'], pdf);

      // The XML button saves the authorized note as the national environment returned it.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Baixar XML' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${n.chave_acesso_50}-NFSe.xml`);
      const xml = fs.readFileSync((await download.path()) ?? '', 'utf8');
      expect(xml).toContain('<NFSe');
      expect(xml).toContain(`Id="NFS${n.chave_acesso_50}"`);
    },
  );

  it(
    'shows the rejections caught before sending (E001, E012) beside their fields, and creates nothing',
    { timeout: 120_000 },
    async () => {
      const before = await nfseCount();
      const page = await openUi(ui.browser, ui.product, '/nfse/nova');
      await page.getByTestId('nfse-form').waitFor();
      const code = page.getByLabel('Código de tributação nacional');
      const codeField = page.locator('label.field', { has: code });
      // A code outside the national list is flagged while typed.
      await code.fill('410101');
      await poll(() => codeField.locator('.field-error').textContent()).toBe(
        'item 41 não está na lista nacional de serviços',
      );
      await page.getByLabel('Descrição do serviço').fill('Serviço de teste');
      await page.getByLabel('Valor do serviço').fill('100,00');
      await page.getByLabel('Tomador: Nome / razão social').fill(TOMADOR.razao_social);
      await page.getByLabel('Tomador: CPF ou CNPJ').fill('529.982.247-25');
      // Sent anyway, the service answers 422 E001 on the same field.
      await page.getByRole('button', { name: 'Emitir NFS-e' }).click();
      await poll(() => page.getByTestId('error-banner').textContent()).toContain('Rejeição E001');
      expect(await codeField.locator('.field-error').textContent()).toBe(
        'item 41 não está na lista nacional de serviços',
      );
      expect(await page.getByTestId('nfse-form').count()).toBe(1);

      // The catalogue's rate 2,50 % differs from the municipality's 5,00 %: E012 before anything is sent.
      await page.getByLabel('Buscar serviço').fill('Assist');
      await page
        .getByRole('option', { name: /Assistência técnica em refrigeração/ })
        .getByRole('button')
        .click();
      await poll(() => code.inputValue()).toBe('140201');
      await poll(() => codeField.locator('.field-error').count()).toBe(0);
      await page.getByRole('button', { name: 'Emitir NFS-e' }).click();
      await poll(() => page.getByTestId('error-banner').textContent()).toContain('Rejeição E012');
      // The rate follows the code: the reason shows beside it.
      expect(await codeField.locator('.field-error').textContent()).toBe(
        'a alíquota do ISS do serviço no catálogo (2,50 %) difere da cadastrada pelo município para 140201 (5,00 %)',
      );
      await page.getByRole('heading', { name: 'Serviço prestado' }).scrollIntoViewIfNeeded();
      await saveScreenshot(page, 'nfse-form-rejected.png');
      // Nothing was created, and no DPS number was spent.
      expect(await nfseCount()).toBe(before);
    },
  );

  it('keeps a draft, edits it and sends it', { timeout: 120_000 }, async () => {
    const page = await openUi(ui.browser, ui.product, '/nfse/nova');
    await page.getByTestId('nfse-form').waitFor();
    await page.getByLabel('Código de tributação nacional').fill('140101');
    await page.getByLabel('Descrição do serviço').fill('Revisão de compressor');
    await page.getByLabel('Valor do serviço').fill('80,00');
    await page.getByLabel('Tomador: Nome / razão social').fill(TOMADOR.razao_social);
    await page.getByLabel('Tomador: CPF ou CNPJ').fill(TOMADOR.cpf_cnpj);
    // An address begun must be complete: the API names each missing field beside it.
    await page.getByLabel('Tomador: Logradouro').fill(TOMADOR.endereco.logradouro);
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    const cepField = page.locator('label.field', { has: page.getByLabel('Tomador: CEP') });
    await poll(() => cepField.locator('.field-error').count()).toBe(1);
    expect(await page.getByTestId('nfse-form').count()).toBe(1);
    await page.getByLabel('Tomador: Número').fill(TOMADOR.endereco.numero);
    await page.getByLabel('Tomador: Bairro').fill(TOMADOR.endereco.bairro);
    await page.getByLabel('Tomador: Município').fill(TOMADOR.endereco.municipio);
    await page.getByLabel('Tomador: UF').selectOption('SP');
    await page.getByLabel('Tomador: CEP').fill(TOMADOR.endereco.cep);
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    await page.getByTestId('nfse-detail').waitFor();
    await nfseStatus(page, 'rascunho');
    // The municipality typed as its IBGE code reads by its name.
    expect(await page.getByTestId('nfse-tomador-view').textContent()).toContain('Centro, São Paulo/SP – CEP');

    await page.getByRole('link', { name: 'Editar' }).click();
    await page.getByTestId('nfse-form').waitFor();
    await poll(() => page.getByLabel('Valor do serviço').inputValue()).toBe('80,00');
    expect(await page.getByLabel('Tomador: Logradouro').inputValue()).toBe(TOMADOR.endereco.logradouro);
    await page.getByLabel('Valor do serviço').fill('95,00');
    await page.getByRole('button', { name: 'Salvar', exact: true }).click();
    await page.getByTestId('nfse-detail').waitFor();
    await poll(() => page.getByTestId('nfse-total').textContent()).toBe('R$ 95,00');
    await saveScreenshot(page, 'nfse-draft.png');
    await page.getByRole('button', { name: 'Enviar ao ambiente nacional' }).click();
    await nfseStatus(page, 'authorized');
  });

  it('deletes a draft never sent', { timeout: 60_000 }, async () => {
    const draft = await ui.product.api<Nfse>(
      'POST',
      `/nfse?companyId=${ui.product.companyId}&rascunho=true`,
      {
        codigo_tributacao_nacional: '140101',
        descricao_servico: 'Orçamento não aprovado',
        valor_servico: 50,
        iss_retido: false,
        tomador: TOMADOR,
      },
    );
    expect(draft.status).toBe(201);
    const page = await openUi(ui.browser, ui.product, `/nfse/${draft.body.id}`);
    await nfseStatus(page, 'rascunho');
    await page.getByRole('button', { name: 'Excluir' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('nada foi registrado no ambiente nacional');
    await dialog.getByRole('button', { name: 'Excluir' }).click();
    await poll(() => page.evaluate('location.hash')).toBe('#/nfse');
    expect((await ui.product.api('GET', `/nfse/${draft.body.id}`)).status).toBe(404);
    // The list, once loaded with the other notes, does not hold it.
    await poll(() => page.getByTestId('nfse-list').locator('tbody tr[data-nfse-id]').count()).toBeGreaterThan(
      0,
    );
    expect(await page.locator(`tr[data-nfse-id="${draft.body.id}"]`).count()).toBe(0);
  });

  it(
    'cancels an authorized NFS-e with its reason code, and the list filters by status',
    {
      timeout: 120_000,
    },
    async () => {
      const n = await issued('Instalação de split 12000 BTU', 420);
      const page = await openUi(ui.browser, ui.product, `/nfse/${n.id}`);
      await nfseStatus(page, 'authorized');
      await page.getByRole('button', { name: 'Cancelar NFS-e' }).click();
      const dialog = page.getByTestId('nfse-cancel');
      // The reason is asked for before anything is sent; the justification's length is the API's rule.
      await dialog.getByRole('button', { name: 'Cancelar NFS-e' }).click();
      await poll(() => dialog.getByRole('alert').first().textContent()).toBe('escolha o motivo');
      await dialog.getByLabel('2 – Serviço não prestado').check();
      await dialog.getByLabel('Justificativa (15 a 255 caracteres)').fill('curta');
      await dialog.getByRole('button', { name: 'Cancelar NFS-e' }).click();
      await poll(() => dialog.locator('.field-error').textContent()).toBe('mínimo de 15 caracteres');
      await dialog
        .getByLabel('Justificativa (15 a 255 caracteres)')
        .fill('Cliente desistiu antes da visita técnica');
      await saveScreenshot(page, 'nfse-cancel.png');
      await dialog.getByRole('button', { name: 'Cancelar NFS-e' }).click();
      await nfseStatus(page, 'cancelada');
      await poll(() => page.getByTestId('nfse-cancelamento').textContent()).toContain('registrado');
      expect(await page.getByTestId('nfse-cancelamento').textContent()).toContain('2 – Serviço não prestado');
      // The DANFSe opened from the page now says the note is cancelled.
      const href = await page.getByRole('link', { name: 'DANFSe (PDF)' }).getAttribute('href');
      const danfse = await page.request.get(href ?? '');
      expect(danfse.headers()['content-type']).toBe('application/pdf');
      expect(pdfText(await danfse.body())).toMatch(/SITUAÇÃO[\s\S]*CANCELADA/);
      // A cancelled note keeps its DANFSe and XML, and nothing else.
      expect(await page.getByRole('link', { name: 'DANFSe (PDF)' }).count()).toBe(1);
      for (const name of ['Cancelar NFS-e', 'Substituir', 'Editar'])
        expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
      const cancelled = (await ui.product.api<Nfse>('GET', `/nfse/${n.id}`)).body;
      expect(cancelled.cancelamento?.codigo_motivo).toBe(2);
      await saveScreenshot(page, 'nfse-cancelled.png');

      // In the list under its status, and not under the others.
      await page.getByRole('link', { name: '‹ NFS-e' }).click();
      const rows = page.getByTestId('nfse-list').locator('tbody tr[data-nfse-id]');
      await poll(() => rows.count()).toBeGreaterThan(1);
      await page.getByLabel('Situação', { exact: true }).selectOption('cancelada');
      await poll(() => page.evaluate('location.hash')).toBe('#/nfse?status=cancelada');
      // The only cancelled note (the unfiltered list held it too: the filtered one is the one with a single row).
      await poll(() => rows.count()).toBe(1);
      expect(await rows.first().getAttribute('data-nfse-id')).toBe(n.id);
      await page.getByLabel('Situação', { exact: true }).selectOption('authorized');
      await poll(() => page.locator(`tr[data-nfse-id="${n.id}"]`).count()).toBe(0);
      await poll(() => rows.count()).toBeGreaterThan(0);
      for (const badge of await rows.locator('.badge').allTextContents()) expect(badge).toBe('Autorizada');
      await saveScreenshot(page, 'nfse-list.png');
    },
  );

  it(
    'substitutes an authorized NFS-e: a linked draft, sent, and the old note becomes substituída',
    {
      timeout: 120_000,
    },
    async () => {
      const old = await issued('Higienização de evaporadora', 200);
      const page = await openUi(ui.browser, ui.product, `/nfse/${old.id}`);
      await nfseStatus(page, 'authorized');
      await page.getByRole('button', { name: 'Substituir' }).click();
      const dialog = page.getByTestId('nfse-substitute');
      // The new note starts as the old one.
      expect(await dialog.getByLabel('Código de tributação nacional').inputValue()).toBe('140101');
      expect(await dialog.getByLabel('Valor do serviço').inputValue()).toBe('200,00');
      await dialog.getByLabel('Valor do serviço').fill('180,00');
      await dialog.getByLabel('Motivo da substituição').selectOption('99');
      await dialog.getByLabel('Descrição do motivo').fill('Valor cobrado com desconto combinado');
      await saveScreenshot(page, 'nfse-substitute.png');
      await dialog.getByRole('button', { name: 'Substituir NFS-e' }).click();

      // The new draft's own page, linked to the old note.
      await poll(() => page.evaluate('location.hash')).not.toBe(`#/nfse/${old.id}`);
      await nfseStatus(page, 'rascunho');
      await poll(() => page.getByTestId('substitutes').count()).toBe(1);
      expect(await page.getByTestId('nfse-total').textContent()).toBe('R$ 180,00');
      await page.getByRole('button', { name: 'Enviar ao ambiente nacional' }).click();
      await nfseStatus(page, 'authorized');
      const newId = ((await page.evaluate('location.hash')) as string).replace('#/nfse/', '');
      const fresh = (await ui.product.api<Nfse>('GET', `/nfse/${newId}`)).body;
      expect(fresh.substitui_nfse_id).toBe(old.id);

      // The old note, from the link: substituída, pointing at the new one.
      await page.getByTestId('substitutes').getByRole('link').click();
      await nfseStatus(page, 'substituida');
      expect(await page.getByTestId('substituted-by').textContent()).toContain('Substituída pela');
      expect(await page.getByRole('link', { name: 'DANFSe (PDF)' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Substituir' }).count()).toBe(0);
      const replaced = (await ui.product.api<Nfse>('GET', `/nfse/${old.id}`)).body;
      expect(replaced.substituida_por_nfse_id).toBe(newId);
      await saveScreenshot(page, 'nfse-substituted.png');
    },
  );

  it(
    'opens a note the national environment refused on its page, where it is edited and sent again',
    {
      timeout: 120_000,
    },
    async () => {
      // The next DPS is refused by the national environment itself (after the local checks passed).
      const refused = NFSE_CODES.municipioNaoConveniado;
      await setFaults({ reject: refused.code });
      const page = await openUi(ui.browser, ui.product, '/nfse/nova');
      await page.getByTestId('nfse-form').waitFor();
      await fillTyped(page, 'Troca de capacitor', '60,00');
      await page.getByRole('button', { name: 'Emitir NFS-e' }).click();
      // The note was kept in erro: its page says why, and offers editing and sending again.
      await page.getByTestId('nfse-detail').waitFor();
      await nfseStatus(page, 'erro');
      // The code once, then the national environment's text (which repeats the code: shown without it).
      expect(await page.getByTestId('rejection').textContent()).toContain(
        `Rejeição ${refused.code}: ${refused.text}`,
      );
      expect(await page.getByRole('button', { name: 'Reenviar' }).count()).toBe(1);
      // It reached the national environment: no longer deleted, and no DANFSe before authorization.
      expect(await page.getByRole('button', { name: 'Excluir' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'DANFSe (PDF)' }).count()).toBe(0);
      await saveScreenshot(page, 'nfse-rejected.png');
      const id = ((await page.evaluate('location.hash')) as string).replace('#/nfse/', '');
      const numero = (await ui.product.api<Nfse>('GET', `/nfse/${id}`)).body.numero;

      await page.getByRole('link', { name: 'Editar' }).click();
      await page.getByTestId('nfse-form').waitFor();
      await poll(() => page.getByLabel('Descrição do serviço').inputValue()).toBe('Troca de capacitor');
      await page.getByLabel('Descrição do serviço').fill('Troca de capacitor do compressor');
      await page.getByRole('button', { name: 'Salvar e enviar' }).click();
      await page.getByTestId('nfse-detail').waitFor();
      await nfseStatus(page, 'authorized');
      const sent = (await ui.product.api<Nfse>('GET', `/nfse/${id}`)).body;
      // The same note under the same DPS number: a rejection never spends a second one.
      expect(sent.numero).toBe(numero);
      expect(await page.getByTestId('nfse-descricao').textContent()).toBe('Troca de capacitor do compressor');
    },
  );

  it(
    'follows a note queued while the national environment is down until it is authorized',
    {
      timeout: 180_000,
    },
    async () => {
      await setFaults({ online: false });
      let page: Page;
      try {
        page = await openUi(ui.browser, ui.product, '/nfse/nova');
        await page.getByTestId('nfse-form').waitFor();
        await fillTyped(page, 'Carga de gás refrigerante', '150,00');
        await page.getByRole('button', { name: 'Emitir NFS-e' }).click();
        // Answered 202 after the bounded wait: the note's page shows it queued, with nothing to do but wait.
        await page.getByTestId('nfse-detail').waitFor({ timeout: 30_000 });
        await nfseStatus(page, 'processando');
        expect(await page.getByTestId('queued').textContent()).toContain('Na fila de transmissão');
        expect(await page.getByRole('button', { name: 'Atualizar' }).count()).toBe(1);
        for (const name of ['Reenviar', 'Editar', 'Excluir', 'Cancelar NFS-e', 'Substituir'])
          expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
        await saveScreenshot(page, 'nfse-queued.png');
      } finally {
        await setFaults({ online: true });
      }
      // The page polls by itself: the queue sends the DPS (after looking it up) once the service is back.
      await poll(() => page.getByTestId('nfse-detail').getAttribute('data-status'), {
        timeout: 150_000,
      }).toBe('authorized');
      expect(await page.getByTestId('numero-nfse').textContent()).toMatch(/^\d+$/);
    },
  );
});
