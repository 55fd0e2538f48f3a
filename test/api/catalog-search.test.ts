// GET /v1/products?q= finds products whatever the accents and the case: the cashier types "feijão" for
// "FEIJAO CARIOCA" and "acucar" for "Açúcar"; LIKE's wildcards typed in the query are taken literally.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  const rows = [
    ['fold-1', 'FEIJAO CARIOCA 1 KG'],
    ['fold-2', 'Feijão preto 1 kg'],
    ['fold-3', 'AÇÚCAR REFINADO 1 KG'],
    ['fold-4', 'Pão de queijo 100% polvilho'],
    ['fold-5', 'ARROZ TIPO 1 5 KG'],
  ];
  for (const [cProd, xProd] of rows) {
    const res = await h.request('POST', '/v1/products', {
      key: h.companyKey,
      json: { cProd, xProd, NCM: '07133319', uCom: 'UN', vUnCom: '8.35' },
    });
    expect(res.status, res.text).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

async function names(q: string): Promise<string[]> {
  const res = await h.request('GET', `/v1/products?limit=50&q=${encodeURIComponent(q)}`, {
    key: h.companyKey,
  });
  expect(res.status, res.text).toBe(200);
  return (res.body as { data: { xProd: string }[] }).data.map((p) => p.xProd).sort();
}

describe('product search', () => {
  it('ignores accents and case on both sides', async () => {
    const feijoes = ['FEIJAO CARIOCA 1 KG', 'Feijão preto 1 kg'];
    expect(await names('feijão')).toEqual(feijoes);
    expect(await names('FEIJÃO')).toEqual(feijoes);
    expect(await names('feijao')).toEqual(feijoes);
    expect(await names('acucar')).toEqual(['AÇÚCAR REFINADO 1 KG']);
    expect(await names('Açúcar Refinado')).toEqual(['AÇÚCAR REFINADO 1 KG']);
    expect(await names('PAO DE')).toEqual(['Pão de queijo 100% polvilho']);
  });

  it('takes % and _ literally', async () => {
    expect(await names('100%')).toEqual(['Pão de queijo 100% polvilho']);
    expect(await names('%')).toEqual(['Pão de queijo 100% polvilho']);
    expect(await names('_')).toEqual([]);
  });

  it('still finds by exact code', async () => {
    expect(await names('fold-5')).toEqual(['ARROZ TIPO 1 5 KG']);
  });
});
