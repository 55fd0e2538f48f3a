// Rule 778 "Informado NCM inexistente" before signing (sales and the product API) against the NCM table in
// use: the shipped 2016 table until the store imports a newer Siscomex table, which then wins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedNcmTable } from '../../src-main/reference/ncm.ts';
import { startHarness, type Harness } from './harness.ts';
import { siscomexJson, SHIPPED_CODES } from '../fixtures/ncm.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

/** In force since 2022 (Resolução Gecex 272/2021): absent from the shipped 2016 table. */
const NEW_CODE = '02109911';
/** Split into 0210.99.1x/9x in 2022: in the 2016 table, gone from today's. */
const OLD_CODE = '02109900';

const item = (ncm: string) => ({
  codigo: 'A1',
  descricao: 'Lombo suino salgado',
  ncm,
  unidade: 'KG',
  quantidade: 1,
  valor_unitario: '30.00',
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
});
const sale = (...ncms: string[]) => ({
  itens: ncms.map(item),
  pagamentos: [{ metodo: 'dinheiro', valor: (30 * ncms.length).toFixed(2) }],
});
const sell = (body: unknown) => h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: body });

type ErrorBody = {
  error: string;
  cStat?: string;
  xMotivo?: string;
  details: { field: string; error: string }[];
};

describe('NCM table (rule 778)', () => {
  it('the shipped table is the RFB table of 2016-08-01 with its 10,072 codes', async () => {
    expect(shippedNcmTable().size).toBe(10072);
    const res = await h.request('GET', '/v1/reference/ncm');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ versao: 'RFB 2016-08-01', origem: 'embarcada', quantidade: 10072 });
  });

  it('a sale with an NCM the table lacks is refused before signing: 422 cStat 778 naming every such item', async () => {
    const res = await sell(sale('22011000', '12345678', NEW_CODE));
    expect(res.status).toBe(422);
    const body = res.body as ErrorBody;
    expect(body).toMatchObject({
      error: 'fiscal_rejection',
      cStat: '778',
      xMotivo: 'Rejeicao: Informado NCM inexistente',
    });
    expect(body.details.map((d) => d.field)).toEqual(['itens[1].ncm', 'itens[2].ncm']);
    expect(body.details[0]?.error).toContain('NCM 12345678 is not in the NCM table in use (RFB 2016-08-01)');
    expect(body.details[0]?.error).toContain('POST /v1/reference/ncm');
    expect(body.details[0]?.error).toContain('cStat 778');
    // Nothing was numbered: the next valid sale is note 1.
    const ok = await sell(sale('22011000'));
    expect(ok.status).toBe(201);
    expect((ok.body as { numero: number }).numero).toBe(1);
  });

  it('NCM 00 stays allowed (an item that is not goods)', async () => {
    const res = await sell(sale('00'));
    expect(res.status).toBe(201);
  });

  it('the product API refuses an unknown NCM with 400 on NCM, with the other faults of the body', async () => {
    const res = await h.request('POST', `/v1/products?companyId=${h.companyId}`, {
      json: { cProd: 'P-778', xProd: 'Lombo', NCM: NEW_CODE, uCom: 'KG', vUnCom: 'x' },
    });
    expect(res.status).toBe(400);
    const body = res.body as ErrorBody;
    expect(body.error).toBe('validation_error');
    expect(body.details.map((d) => d.field).sort()).toEqual(['NCM', 'vUnCom']);
    expect(body.details.find((d) => d.field === 'NCM')?.error).toContain(
      `NCM ${NEW_CODE} is not in the NCM table in use (RFB 2016-08-01)`,
    );
  });

  it('a faulty Siscomex file is refused with every faulty entry at once, and the table in use stays', async () => {
    const res = await h.request('POST', '/v1/reference/ncm', {
      body: JSON.stringify({
        Data_Ultima_Atualizacao_NCM: 'Vigente em 01/04/2024',
        Nomenclaturas: [
          { Codigo: '0101.21.00', Data_Fim: '31/12/9999' },
          { Codigo: 'xx', Data_Fim: '31/12/9999' },
          { Codigo: '0101.29.00', Data_Fim: '2099-01-01' },
        ],
      }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).details).toEqual([
      { field: 'Nomenclaturas[1].Codigo', error: 'required: an NCM code such as 0101.21.00' },
      { field: 'Nomenclaturas[2].Data_Fim', error: 'must be a date dd/mm/aaaa' },
    ]);
    const small = await h.request('POST', '/v1/reference/ncm', {
      body: siscomexJson(['01012100', '01012900']),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(small.status).toBe(400);
    expect((small.body as ErrorBody).details[0]?.error).toContain('only 2 codes in force');
    expect((await h.request('GET', '/v1/reference/ncm')).body).toMatchObject({ origem: 'embarcada' });
  });

  it('an imported Siscomex table (over the 1 MB JSON limit) becomes the one in use: new codes sell, removed ones are refused', async () => {
    const codes = [...SHIPPED_CODES.filter((c) => c !== OLD_CODE), NEW_CODE];
    const file = siscomexJson(codes, { expired: ['01019000'], padTo: 1_200_000 });
    expect(file.length).toBeGreaterThan(1024 * 1024);
    const res = await h.request('POST', '/v1/reference/ncm', {
      body: file,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      versao: 'Siscomex Vigente em 01/04/2024',
      ato: 'Resolução Gecex nº 272/2021',
      origem: 'siscomex',
      quantidade: codes.length,
      expirados: 1,
    });
    expect((await h.request('GET', '/v1/reference/ncm')).body).toEqual({
      versao: 'Siscomex Vigente em 01/04/2024',
      origem: 'importada',
      quantidade: codes.length,
    });
    const sold = await sell(sale(NEW_CODE));
    expect(sold.status).toBe(201);
    expect((sold.body as { status: string }).status).toBe('autorizada');
    const refused = await sell(sale(OLD_CODE));
    expect(refused.status).toBe(422);
    expect((refused.body as ErrorBody).details[0]?.error).toContain('(Siscomex Vigente em 01/04/2024)');
    const product = await h.request('POST', `/v1/products?companyId=${h.companyId}`, {
      json: { cProd: 'P-NEW', xProd: 'Lombo', NCM: NEW_CODE, uCom: 'KG', vUnCom: '30.00' },
    });
    expect(product.status).toBe(201);
    // Updating a product to a code the table in use no longer has is refused the same way.
    const id = (product.body as { id: string }).id;
    const updated = await h.request('PUT', `/v1/products/${id}`, {
      json: { cProd: 'P-NEW', xProd: 'Lombo', NCM: OLD_CODE, uCom: 'KG', vUnCom: '30.00' },
    });
    expect(updated.status).toBe(400);
    expect((updated.body as ErrorBody).details).toEqual([
      {
        field: 'NCM',
        error: expect.stringContaining(
          `NCM ${OLD_CODE} is not in the NCM table in use (Siscomex Vigente em 01/04/2024)`,
        ) as unknown as string,
      },
    ]);
  });
});
