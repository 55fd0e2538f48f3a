// Ids are random RFC 4122 UUIDs, and an id in the form of earlier releases (`doc_` + the UUID's 32 hex
// digits) still names its row wherever an id enters the API: the path, the query, X-Company-Id, a body field.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The id an earlier release gave the same row. */
const old = (prefix: string, id: string) => `${prefix}_${id.replaceAll('-', '')}`;

interface Created {
  id: string;
}

const note = {
  naturezaOperacao: 'VENDA DE MERCADORIA',
  serie: 1,
  itens: [
    {
      codigo: 'CAF-500',
      descricao: 'Cafe torrado 500 g',
      ncm: '09012100',
      quantidade: 2,
      valorUnitario: 18.9,
    },
  ],
  pagamentos: [{ forma: '17', valor: 37.8 }],
  ambiente: 'homologacao',
};

const customerBody = {
  cpf: '52998224725',
  xNome: 'Maria da Silva',
  endereco: { xLgr: 'Rua Direita', nro: '100', xBairro: 'Se', cMun: '3550308', uf: 'SP', cep: '01002000' },
};

async function create(url: string, json: unknown, key = h.companyKey): Promise<Created> {
  const res = await h.request('POST', url, { key, json });
  expect(res.status, res.text).toBe(201);
  return res.body as Created;
}

describe('ids', () => {
  it('new rows get random RFC 4122 UUIDs', async () => {
    const customer = await create('/v1/customers', customerBody);
    const product = await create('/v1/products', {
      cProd: 'CAF-500',
      xProd: 'Cafe torrado 500 g',
      NCM: '09012100',
      uCom: 'UN',
      vUnCom: '18.90',
    });
    const nfe = await create('/v1/nfe', { ...note, customerId: customer.id });
    const company = (await h.request('GET', `/v1/companies/${h.companyId}`)).body as {
      id: string;
      defaultFiscalProfileId: string;
    };
    for (const id of [customer.id, product.id, nfe.id, company.id, company.defaultFiscalProfileId]) {
      expect(id).toMatch(UUID_V4);
    }
  });

  it('an old-form id resolves in the path, the query, X-Company-Id and an id field of a body', async () => {
    const customer = await create('/v1/customers', { ...customerBody, cpf: '11144477735' });
    const nfe = await create('/v1/nfe', { ...note, customerId: old('cus', customer.id) });
    const byPath = await h.request('GET', `/v1/nfe/${old('doc', nfe.id)}`, { key: h.companyKey });
    expect(byPath.status, byPath.text).toBe(200);
    expect((byPath.body as Created).id).toBe(nfe.id);

    // The organization key names its company: an unknown companyId would be 404.
    const byQuery = await h.request(
      'GET',
      `/v1/customers/${customer.id}?companyId=${old('cmp', h.companyId)}`,
    );
    expect(byQuery.status, byQuery.text).toBe(200);
    const byHeader = await h.request('GET', `/v1/customers/${old('cus', customer.id)}`, {
      headers: { 'X-Company-Id': old('cmp', h.companyId) },
    });
    expect(byHeader.status, byHeader.text).toBe(200);
    expect((byHeader.body as Created).id).toBe(customer.id);

    const { defaultFiscalProfileId } = (await h.request('GET', `/v1/companies/${old('cmp', h.companyId)}`))
      .body as { defaultFiscalProfileId: string };
    const product = await create('/v1/products', {
      cProd: 'AGUA-500',
      xProd: 'Agua mineral 500 ml',
      NCM: '22021000',
      uCom: 'UN',
      vUnCom: '2.50',
      fiscalProfileId: old('fpr', defaultFiscalProfileId),
    });
    const stored = await h.request('GET', `/v1/products/${old('prd', product.id)}`, { key: h.companyKey });
    expect(stored.body).toMatchObject({ id: product.id, fiscalProfileId: defaultFiscalProfileId });
  });

  it('text that only looks like an old id is passed on as sent', async () => {
    const sku = `sku_${randomUUID().replaceAll('-', '')}`;
    await create('/v1/products', {
      cProd: sku,
      xProd: 'Cha mate 250 g',
      NCM: '09030090',
      uCom: 'UN',
      vUnCom: '7.00',
    });
    const found = await h.request('GET', `/v1/products?q=${sku}`, { key: h.companyKey });
    expect(found.status, found.text).toBe(200);
    expect(JSON.stringify(found.body)).toContain(`"cProd":"${sku}"`);
  });
});
