// §2.7 "Numbering and series are reserved automatically from company settings": the CT-e series a company is
// created with (`series.cte`) is the one its CT-e are numbered in; a company without one numbers in series 1.
import { describe, expect, it } from 'vitest';
import { companyBody, useHarness } from './harness.ts';
import { createCteCustomer, ctePayload } from './cte-helpers.ts';
import { cnpjSequence, uploadTestA1 } from './fiscal-helpers.ts';

const h = useHarness();
const nextCnpj = cnpjSequence('57575757');

async function carrier(series?: Record<string, number>): Promise<string> {
  const cnpj = nextCnpj();
  const created = await h.request('POST', '/v1/companies', {
    json: companyBody(cnpj, { crt: 1, ...(series === undefined ? {} : { series }) }),
  });
  expect(created.status, created.text).toBe(201);
  const companyId = (created.body as { id: string }).id;
  expect((await uploadTestA1(h, companyId, cnpj)).status).toBe(201);
  return companyId;
}

describe('CT-e series from the company settings', () => {
  it('a company created with series.cte numbers its CT-e in that series, in its own sequence', async () => {
    const companyId = await carrier({ nfe: 2, nfce: 3, cte: 7 });
    const sequences = await h.request('GET', `/v1/companies/${companyId}/nfe-sequences?environment=all`);
    expect((sequences.body as { sequences: { modelo: string; serie: number }[] }).sequences).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ modelo: '57', serie: 7, proximo_numero: 1, environment: 'homologacao' }),
        expect.objectContaining({ modelo: '57', serie: 7, proximo_numero: 1, environment: 'producao' }),
      ]),
    );
    const customerId = await createCteCustomer(h, companyId);
    const res = await h.request('POST', `/v1/cte?companyId=${companyId}`, { json: ctePayload(customerId) });
    expect(res.status, res.text).toBe(201);
    const cte = res.body as { serie: number; numero: number; chave_acesso: string };
    expect(cte).toMatchObject({ serie: 7, numero: 1 });
    expect(cte.chave_acesso.slice(20, 25)).toBe('57007');
  });

  it('a company created without series.cte keeps no CT-e sequence until its first CT-e, in series 1', async () => {
    const companyId = await carrier({ nfe: 2, nfce: 3 });
    const before = await h.request('GET', `/v1/companies/${companyId}/nfe-sequences?environment=all`);
    const models = (before.body as { sequences: { modelo: string }[] }).sequences.map((s) => s.modelo);
    expect(models.sort()).toEqual(['55', '55', '65', '65']);
    const customerId = await createCteCustomer(h, companyId);
    const res = await h.request('POST', `/v1/cte?companyId=${companyId}`, { json: ctePayload(customerId) });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ serie: 1, numero: 1 });
  });

  it('400 names a CT-e series outside 0–999', async () => {
    const res = await h.request('POST', '/v1/companies', {
      json: companyBody(nextCnpj(), { series: { cte: 1000 } }),
    });
    expect(res.status).toBe(400);
    expect((res.body as { details: { field: string }[] }).details.map((d) => d.field)).toEqual([
      'series.cte',
    ]);
  });
});
