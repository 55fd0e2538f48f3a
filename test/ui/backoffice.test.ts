// The back office in a real Chromium against `npm start`: the documents list with its filters, a note's
// detail and its cancellation within the deadline, an NF-e created and sent from the form, and a received
// note manifested.
import { describe, expect, it } from 'vitest';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { companyBody } from '../api/harness.ts';
import { openUi, saveScreenshot, useRunningProduct } from './harness.ts';

interface Note {
  id: string;
  status: string;
  numero: number;
  modelo: number;
  itens: { codigo: string | null; quantidade: string | null }[];
  valor_total: string;
}

const ui = useRunningProduct({ catalog: true });

async function sale(productIndex: number, quantity: string): Promise<Note> {
  const p = ui.catalog.products[productIndex];
  if (p === undefined) throw new Error('catalog');
  const total = (BigInt(Math.round(Number(quantity))) * BigInt(p.vUnCom.replace('.', ''))).toString();
  const valor = `${total.slice(0, -2)}.${total.slice(-2)}`;
  const res = await ui.product.api<Note>('POST', `/nfce/venda?companyId=${ui.product.companyId}`, {
    itens: [{ productId: p.id, quantidade: quantity }],
    pagamentos: [{ forma: 'pix', valor }],
  });
  expect(res.status).toBe(201);
  return res.body;
}

describe('back office', () => {
  it(
    'lists notes with filters and cancels an NFC-e within the deadline with a justification',
    { timeout: 90_000 },
    async () => {
      const first = await sale(0, '1');
      const second = await sale(3, '2');
      expect([first.status, second.status]).toEqual(['autorizada', 'autorizada']);

      const page = await openUi(ui.browser, ui.product, '/documentos');
      const rows = page.getByTestId('documents').locator('tbody tr[data-doc-id]');
      await expect.poll(() => rows.count()).toBe(2);
      await page.getByLabel('Modelo', { exact: true }).selectOption('65');
      await page.getByLabel('Situação', { exact: true }).selectOption('autorizada');
      await expect
        .poll(() => page.evaluate('location.hash'))
        .toBe('#/documentos?modelo=65&status=autorizada');
      await expect.poll(() => rows.count()).toBe(2);
      // Period filter typed the Brazilian way: the notes' day keeps them, a period that ended the day before
      // has none. The day is the notes' own (Brasília calendar), which differs from UTC's from 00:00 to 03:00 UTC.
      const issued = await ui.product.api<{ dh_emissao: string }>('GET', `/nfce/${first.id}`);
      const today = new Date(`${issued.body.dh_emissao.slice(0, 10)}T12:00:00Z`);
      const br = (d: Date) =>
        `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
      await page.getByLabel('Data inicial').fill(br(today));
      await expect.poll(() => page.evaluate<string>('location.hash')).toContain('data_inicio=');
      await expect.poll(() => rows.count()).toBe(2);
      const yesterday = new Date(today.getTime() - 86_400_000);
      await page.getByLabel('Data inicial').fill(br(yesterday));
      await page.getByLabel('Data final').fill(br(yesterday));
      await expect.poll(() => rows.count()).toBe(0);
      await page.getByLabel('Data final').fill('');
      await expect.poll(() => rows.count()).toBe(2);

      await page.locator(`tr[data-doc-id="${second.id}"]`).click();
      const detail = page.getByTestId('document-detail');
      await detail.waitFor();
      expect(await detail.getAttribute('data-status')).toBe('autorizada');
      // An authorized NFC-e offers cancellation, not edit/send, correction letter or devolução.
      expect(await page.getByRole('button', { name: 'Cancelar nota' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Enviar à SEFAZ' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Carta de correção' }).count()).toBe(0);

      await page.getByRole('button', { name: 'Cancelar nota' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Justificativa (15 a 255 caracteres)').fill('curta');
      await dialog.getByRole('button', { name: 'Cancelar nota' }).click();
      // The API's field message, in Portuguese, next to the field.
      await expect.poll(() => dialog.locator('.field-error').textContent()).toBe('mínimo de 15 caracteres');
      await dialog
        .getByLabel('Justificativa (15 a 255 caracteres)')
        .fill('Cliente desistiu da compra no caixa');
      await dialog.getByRole('button', { name: 'Cancelar nota' }).click();
      await expect.poll(() => detail.getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelada');
      expect(await page.getByRole('button', { name: 'Cancelar nota' }).count()).toBe(0);
      expect((await ui.product.api<Note>('GET', `/nfce/${second.id}`)).body.status).toBe('cancelada');
      expect((await ui.product.api<Note>('GET', `/nfce/${first.id}`)).body.status).toBe('autorizada');
      await page.close();
    },
  );

  it(
    'creates an NF-e for a registered customer from the form and sends it: authorized',
    { timeout: 90_000 },
    async () => {
      const page = await openUi(ui.browser, ui.product, '/nfe/nova');
      await page.getByTestId('nfe-form').waitFor();
      await page.getByLabel('Buscar cliente').fill('MERCADO');
      await page
        .getByRole('option', { name: /MERCADO EXEMPLO LTDA/ })
        .getByRole('button')
        .click();
      await expect
        .poll(() => page.getByTestId('chosen-customer').textContent())
        .toContain('11.222.333/0001-81');

      await page.getByLabel('Adicionar produto').fill('ARROZ');
      await page
        .getByRole('option', { name: /ARROZ TIPO 1/ })
        .getByRole('button')
        .click();
      await page.getByLabel('Quantidade do item 1').fill('3');
      await page.getByLabel('Adicionar produto').fill('CAFE');
      await page
        .getByRole('option', { name: /CAFE TORRADO/ })
        .getByRole('button')
        .click();
      await page.getByLabel('Desconto do item 2').fill('1,90');
      // 3 × 27.80 + (18.90 − 1.90) = 100.40
      await expect.poll(() => page.getByTestId('nfe-total').textContent()).toBe('R$ 100,40');
      await page.getByRole('button', { name: 'Completar com o total' }).click();
      expect(await page.getByLabel('Valor do pagamento 1').inputValue()).toBe('100,40');

      await page.getByRole('button', { name: 'Salvar e enviar à SEFAZ' }).click();
      const detail = page.getByTestId('document-detail');
      await detail.waitFor({ timeout: 30_000 });
      await expect.poll(() => detail.getAttribute('data-status'), { timeout: 30_000 }).toBe('autorizada');
      const id = (await page.evaluate<string>('location.hash')).split('/')[3]?.split('?')[0] ?? '';
      const note = await ui.product.api<Note>('GET', `/nfe/${id}`);
      expect(note.body.modelo).toBe(55);
      expect(note.body.valor_total).toBe('100.40');
      expect(note.body.itens.map((i) => [i.codigo, Number(i.quantidade)])).toEqual([
        ['4', 3],
        ['1', 1],
      ]);
      // An authorized NF-e offers cancellation, correction letter and devolução; its DANFE opens as a PDF.
      for (const name of ['Cancelar nota', 'Carta de correção', 'Devolução'])
        expect(await page.getByRole('button', { name }).count()).toBe(1);
      const danfe = await page.getByRole('link', { name: 'DANFE (PDF)' }).getAttribute('href');
      expect(danfe).toContain(`/v1/nfe/${id}/danfe?api_key=`);

      // The list now holds NF-e and NFC-e: the screenshot of the documents list.
      await page.getByRole('link', { name: 'Documentos', exact: true }).click();
      await expect.poll(() => page.getByTestId('documents').locator('tbody tr[data-doc-id]').count()).toBe(3);
      await saveScreenshot(page, 'documents.png');
      await page.close();
    },
  );

  it('sends a correction letter and a devolução of an authorized NF-e', { timeout: 90_000 }, async () => {
    const [cafe] = ui.catalog.products;
    if (cafe === undefined) throw new Error('catalog');
    const draft = await ui.product.api<Note>('POST', `/nfe?companyId=${ui.product.companyId}`, {
      naturezaOperacao: 'VENDA',
      customerId: ui.catalog.customerId,
      itens: [{ productId: cafe.id, quantidade: '4' }],
      pagamentos: [{ forma: '15', valor: '75.60' }],
    });
    expect(draft.status).toBe(201);
    const sent = await ui.product.api<{ status: string }>('POST', `/nfe/${draft.body.id}/send?sync=true`);
    expect(sent.body.status).toBe('autorizada');

    const page = await openUi(ui.browser, ui.product, `/documentos/55/${draft.body.id}`);
    const detail = page.getByTestId('document-detail');
    await detail.waitFor();
    await page.getByRole('button', { name: 'Carta de correção' }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByLabel('Correção (15 a 1000 caracteres)')
      .fill('Corrige o complemento do endereço de entrega: fundos.');
    await dialog.getByRole('button', { name: 'Enviar carta de correção' }).click();
    const events = page.getByTestId('events');
    await expect.poll(() => events.textContent(), { timeout: 30_000 }).toContain('110110');
    await expect.poll(() => events.textContent(), { timeout: 30_000 }).toContain('135');

    // Devolução: a draft with finalidade 4 referencing the note, opened in the form, sent from there.
    await page.getByRole('button', { name: 'Devolução' }).click();
    const form = page.getByTestId('nfe-form');
    await form.waitFor();
    await expect.poll(() => page.getByTestId('chosen-customer').textContent()).toContain('MERCADO EXEMPLO');
    expect(await form.getByLabel('Finalidade').inputValue()).toBe('4');
    expect(await form.locator('input.mono').inputValue()).toHaveLength(44);
    await page.getByLabel('Quantidade do item 1').fill('1');
    await page.getByRole('button', { name: 'Salvar e enviar à SEFAZ' }).click();
    const returned = page.getByTestId('document-detail');
    await expect.poll(() => returned.getAttribute('data-status'), { timeout: 30_000 }).toBe('autorizada');
    const id = (await page.evaluate<string>('location.hash')).split('/')[3]?.split('?')[0] ?? '';
    expect(id).not.toBe(draft.body.id);
    const xml = await (
      await fetch(`${ui.product.apiBase}/nfe/${id}/xml`, { headers: { 'X-API-Key': ui.product.apiKey } })
    ).text();
    expect(xml).toContain('<finNFe>4</finNFe>');
    expect(xml).toMatch(/<CFOP>[12]202<\/CFOP>/);
    expect(xml).toContain('<qCom>1.00</qCom>');
    // The quantity changed in the form: the values come back prorated from the sale for 1 of the 4 units.
    expect(xml).toContain('<pDevol>25.00</pDevol>');
    await page.close();
  });

  it(
    'uploads a batch of NF-e from a JSON file and follows its progress to the end',
    { timeout: 90_000 },
    async () => {
      const [cafe, leite] = ui.catalog.products;
      if (cafe === undefined || leite === undefined) throw new Error('catalog');
      const notas = [
        {
          naturezaOperacao: 'VENDA',
          customerId: ui.catalog.customerId,
          itens: [{ productId: cafe.id, quantidade: '1' }],
          pagamentos: [{ forma: '15', valor: '18.90' }],
        },
        {
          naturezaOperacao: 'VENDA',
          customerId: ui.catalog.customerId,
          itens: [{ productId: leite.id, quantidade: '2' }],
          pagamentos: [{ forma: '15', valor: '10.98' }],
        },
      ];
      const page = await openUi(ui.browser, ui.product, '/lotes');
      await page.getByLabel('Arquivo do lote').setInputFiles({
        name: 'lote.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify({ notas })),
      });
      const progress = page.getByTestId('batch-progress');
      await progress.waitFor();
      await expect.poll(() => progress.textContent(), { timeout: 60_000 }).toContain('Concluído');
      expect(await progress.textContent()).toContain('2 de 2 concluídas · 2 autorizadas · 0 rejeitadas');
      await page.close();
    },
  );

  it('shows the API field errors next to the NF-e form fields', async () => {
    const page = await openUi(ui.browser, ui.product, '/nfe/nova');
    await page.getByLabel('Adicionar produto').fill('LEITE');
    await page
      .getByRole('option', { name: /LEITE INTEGRAL/ })
      .getByRole('button')
      .click();
    await page.getByLabel('Quantidade do item 1').fill('0');
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    const quantityError = page
      .locator('td', { has: page.getByLabel('Quantidade do item 1') })
      .locator('.field-error');
    await expect.poll(() => quantityError.textContent()).toBe('deve ser maior que zero');
    await page.getByLabel('Quantidade do item 1').fill('2');
    await page.getByRole('button', { name: 'Salvar rascunho' }).click();
    const customerError = page
      .locator('.field', { has: page.getByLabel('Buscar cliente') })
      .locator('.field-error');
    await expect.poll(() => customerError.textContent()).toBe('a NF-e precisa de um destinatário');
    expect(await quantityError.count()).toBe(0);
    await page.close();
  });

  it('brings a note addressed to the company from the authority and registers the ciência', async () => {
    // A supplier on the same sandbox authority issues an NF-e to the demo company.
    const supplierCnpj = '998877660001' + cnpjCheckDigits('998877660001');
    // The supplier is another company of the organization: its key creates and acts on it.
    const asOrg = ui.product.organizationApiKey;
    const created = await ui.product.api<{ id: string }>(
      'POST',
      '/companies',
      { ...companyBody(supplierCnpj, { xNome: 'FORNECEDOR DE EMBALAGENS LTDA', crt: 1 }) },
      asOrg,
    );
    expect(created.status).toBe(201);
    const supplierId = created.body.id;
    const pfx = generateTestA1({ cnpj: supplierCnpj, legalName: 'FORNECEDOR', password: 'pw123456' });
    const upload = await ui.product.api(
      'POST',
      `/companies/${supplierId}/certificate`,
      {
        certificate: Buffer.from(pfx).toString('base64'),
        password: 'pw123456',
      },
      asOrg,
    );
    expect(upload.status).toBe(201);
    await ui.product.api(
      'PUT',
      `/companies/${supplierId}/config`,
      {
        csc_nfce: 'ABCDEF0123456789ABCDEF0123456789ABCD',
        id_csc: '000001',
      },
      asOrg,
    );
    const demo = await ui.product.api<{ cnpj: string }>('GET', `/companies/${ui.product.companyId}`);
    const draft = await ui.product.api<{ id: string }>(
      'POST',
      `/nfe?companyId=${supplierId}`,
      {
        naturezaOperacao: 'Venda de mercadoria',
        customer: {
          cnpj: demo.body.cnpj,
          nome: 'Balcao Demonstracao Ltda',
          ie: '111222330446',
          endereco: {
            logradouro: 'Avenida Paulista',
            numero: '1000',
            bairro: 'Bela Vista',
            codigoMunicipio: '3550308',
            uf: 'SP',
            cep: '01310100',
          },
        },
        itens: [
          {
            codigo: 'CX10',
            descricao: 'Caixa de papelao 10 unidades',
            ncm: '48191000',
            unidade: 'CX',
            quantidade: 3,
            valor_unitario: '12.00',
            cfop: '5102',
            tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
          },
        ],
        pagamentos: [{ forma: '15', valor: '36.00' }],
      },
      asOrg,
    );
    const sent = await ui.product.api<{ status: string }>(
      'POST',
      `/nfe/${draft.body.id}/send?sync=true`,
      undefined,
      asOrg,
    );
    expect(sent.body.status).toBe('autorizada');

    const page = await openUi(ui.browser, ui.product, '/recebidas');
    await page.getByRole('button', { name: 'Consultar SEFAZ agora' }).click();
    await page.getByText('Consulta à SEFAZ concluída.').waitFor();
    const row = page.locator('tr', { hasText: '36,00' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Ciência' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Registrar manifestação' }).click();
    // The queue sends the event to the national environment; the list shows it registered.
    for (let i = 0; i < 40; i++) {
      await page.reload();
      await row.waitFor();
      if ((await row.textContent())?.includes('Ciência da operação (registrada)')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await row.textContent()).toContain('Ciência da operação (registrada)');
    await page.close();
  });
});
