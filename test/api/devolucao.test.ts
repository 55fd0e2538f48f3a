// Devolução over the real service and its sandbox authority: a sale by boleto with instalments, carrier and
// volumes is authorized; its partial return carries impostoDevol, leaves the sale's invoice and carrier out,
// and is authorized too.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const req = (...args: Parameters<Harness['request']>) => {
  h.clock.advance(25);
  return h.request(...args);
};

/** A date `days` after the harness clock's, as the emitter (São Paulo) reads it. */
const day = (days: number) =>
  new Date(h.clock.now().getTime() - 3 * 3600_000 + days * 86400_000).toISOString().slice(0, 10);

const sale = () => ({
  naturezaOperacao: 'Venda de mercadoria',
  customer: SP_CONTRIBUTOR,
  itens: [
    {
      codigo: 'A1',
      descricao: 'Produto A1',
      ncm: '22011000',
      quantidade: 3,
      valor_unitario: '10.00',
      cfop: '5102',
      tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
    },
  ],
  pagamentos: [{ forma: 'boleto', valor: '30.00' }],
  transporte: {
    modFrete: 0,
    transportadora: { cnpj: '11222333000181', nome: 'Transportes Rapidos Ltda', uf: 'SP' },
    volumes: [{ quantidade: 1, especie: 'CAIXA', pesoBruto: '2.5' }],
  },
  cobranca: {
    parcelas: [
      { vencimento: day(30), valor: '15.00' },
      { vencimento: day(60), valor: '15.00' },
    ],
  },
});

/**
 * What the back office's form sends for a devolução of `quantidade` units of the sale's item by code and
 * quantity, without impostos, impostoDevol or the discount (the NF-e kind prorates them).
 */
function devolucaoOf(body: ReturnType<typeof sale>, chave: string, quantidade: string) {
  return {
    naturezaOperacao: 'Devolucao de venda',
    tipoOperacao: 0,
    finalidade: 4,
    nfeReferenciada: [chave],
    customer: body.customer,
    itens: [
      { ...body.itens[0], quantidade, valor_unitario: undefined, valorUnitario: '10.00', cfop: '1202' },
    ],
  };
}

describe('devolução of a sale by boleto', () => {
  it('the sale and its partial return are authorized; the return carries impostoDevol, no cobr', async () => {
    const draft = await req('POST', `/v1/nfe?companyId=${h.companyId}`, { json: sale() });
    expect(draft.status).toBe(201);
    const id = (draft.body as { id: string }).id;
    const saleXml = (await req('GET', `/v1/nfe/${id}/xml`)).text;
    expect(saleXml).toContain('<dup><nDup>002</nDup>');
    expect(saleXml).toContain('<detPag><indPag>1</indPag><tPag>15</tPag>');
    expect((await req('POST', `/v1/nfe/${id}/send?sync=true`)).body).toMatchObject({ status: 'autorizada' });

    const dev = await req('POST', `/v1/nfe/${id}/devolucao`, {
      json: { itens: [{ nItem: 1, quantidade: 1 }] },
    });
    expect(dev.status).toBe(201);
    const devId = (dev.body as { id: string }).id;
    const xml = (await req('GET', `/v1/nfe/${devId}/xml`)).text;
    expect(xml).toContain(
      '<impostoDevol><pDevol>33.33</pDevol><IPI><vIPIDevol>0.00</vIPIDevol></IPI></impostoDevol>',
    );
    expect(xml).not.toContain('<cobr>');
    expect(xml).toContain('<transp><modFrete>0</modFrete></transp>');
    expect((await req('POST', `/v1/nfe/${devId}/send?sync=true`)).body).toMatchObject({
      status: 'autorizada',
    });
  });
});

describe('devolução draft changed by PUT', () => {
  it("items sent with a new quantity and no values get the sale's values prorated again", async () => {
    const body = sale();
    const item = { ...body.itens[0], valorDesconto: '1.00' };
    const draft = await req('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: { ...body, itens: [item], pagamentos: [{ forma: 'pix', valor: '29.00' }], cobranca: undefined },
    });
    expect(draft.status).toBe(201);
    const id = (draft.body as { id: string }).id;
    expect((await req('POST', `/v1/nfe/${id}/send?sync=true`)).body).toMatchObject({ status: 'autorizada' });
    const chave = ((await req('GET', `/v1/nfe/${id}`)).body as { chave_acesso: string }).chave_acesso;

    // The whole sale comes back in the draft; the back office's form then sends 2 of the 3 units by code and
    // quantity, without impostos, impostoDevol or the discount.
    const dev = await req('POST', `/v1/nfe/${id}/devolucao`, { json: {} });
    expect(dev.status).toBe(201);
    const devId = (dev.body as { id: string }).id;
    const edited = (quantidade: string) => devolucaoOf(body, chave, quantidade);
    const put = await req('PUT', `/v1/nfe/${devId}`, { json: edited('2') });
    expect(put.status).toBe(200);
    const xml = (await req('GET', `/v1/nfe/${devId}/xml`)).text;
    expect(xml).toContain('<qCom>2.00</qCom>');
    expect(xml).toContain('<vDesc>0.67</vDesc>');
    expect(xml).toContain('<pDevol>66.67</pDevol>');
    expect(xml).toContain('<tpNF>0</tpNF>');

    // More than was sold is refused on the quantity's field.
    const over = await req('PUT', `/v1/nfe/${devId}`, { json: edited('4') });
    expect(over.status).toBe(400);
    expect(JSON.stringify(over.body)).toContain('itens[0].quantidade');

    expect((await req('POST', `/v1/nfe/${devId}/send?sync=true`)).body).toMatchObject({
      status: 'autorizada',
    });
  });
});

describe('devolução in a batch', () => {
  it("gets the sale's values prorated like a devolução sent alone (the NF-e kind amends every path)", async () => {
    const body = sale();
    const draft = await req('POST', `/v1/nfe?companyId=${h.companyId}`, {
      json: { ...body, pagamentos: [{ forma: 'pix', valor: '30.00' }], cobranca: undefined },
    });
    const id = (draft.body as { id: string }).id;
    expect((await req('POST', `/v1/nfe/${id}/send?sync=true`)).body).toMatchObject({ status: 'autorizada' });
    const chave = ((await req('GET', `/v1/nfe/${id}`)).body as { chave_acesso: string }).chave_acesso;

    const devolucao = devolucaoOf(body, chave, '2');
    const batch = await req('POST', `/v1/nfe/batch?companyId=${h.companyId}`, {
      json: { notas: [devolucao] },
      headers: { 'Idempotency-Key': `batch-devolucao-${id}` },
    });
    expect(batch.status).toBe(202);
    const batchId = (batch.body as { batchId: string }).batchId;
    const { rows } = await sql<{ xml: string; payload_json: string }>`
      SELECT documents.xml, documents.payload_json FROM batch_items
      JOIN documents ON documents.id = batch_items.document_id WHERE batch_items.batch_id = ${batchId}`.execute(
      h.service.db,
    );
    const item = rows[0];
    if (item === undefined) throw new Error('the batch has no note');
    expect(item.xml).toContain('<pDevol>66.67</pDevol>');
    expect(item.xml).toContain('<tpNF>0</tpNF>');
    // What is stored is the amended request, so a later re-sign builds the same note.
    expect(item.payload_json).toContain('impostoDevol');
  });
});
