// PUT /v1/companies/:id: the owner edits the company's registration data from Settings › Empresa. The CNPJ,
// regime and environment stay; the address is checked against the IBGE table; every fault is named at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

interface View {
  cnpj: string;
  xNome: string;
  xFant: string | null;
  ie: string;
  im: string | null;
  email: string | null;
  crt: number;
  endereco: { xLgr: string; nro: string; xMun: string; uf: string; cep: string; cMun: string };
}

describe('PUT /v1/companies/:id', () => {
  it('changes the registration data and keeps the rest', async () => {
    const before = (await h.request('GET', `/v1/companies/${h.companyId}`, { key: h.companyKey }))
      .body as View;
    const res = await h.request('PUT', `/v1/companies/${h.companyId}`, {
      key: h.companyKey,
      json: {
        xNome: 'Mercadinho Bom Preço Ltda',
        xFant: 'Bom Preço',
        im: '12345',
        email: 'contato@bompreco.example',
        endereco: {
          xLgr: 'Avenida Brasil',
          nro: '1500',
          xBairro: 'Jardim América',
          cMun: '3509502',
          uf: 'SP',
          cep: '13010-000',
        },
      },
    });
    expect(res.status, res.text).toBe(200);
    const view = res.body as View;
    expect(view).toMatchObject({
      cnpj: before.cnpj,
      crt: before.crt,
      ie: before.ie,
      xNome: 'Mercadinho Bom Preço Ltda',
      xFant: 'Bom Preço',
      im: '12345',
      email: 'contato@bompreco.example',
      endereco: {
        xLgr: 'Avenida Brasil',
        nro: '1500',
        cMun: '3509502',
        xMun: 'Campinas',
        uf: 'SP',
        cep: '13010000',
      },
    });
    const read = (await h.request('GET', `/v1/companies/${h.companyId}`, { key: h.companyKey })).body as View;
    expect(read).toMatchObject({ xFant: 'Bom Preço', endereco: { xMun: 'Campinas' } });

    const cleared = await h.request('PUT', `/v1/companies/${h.companyId}`, {
      key: h.companyKey,
      json: { xFant: null, im: null },
    });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toMatchObject({ xFant: null, im: null, xNome: 'Mercadinho Bom Preço Ltda' });
  });

  it('names every faulty field at once, and refuses what is not editable here', async () => {
    const res = await h.request('PUT', `/v1/companies/${h.companyId}`, {
      key: h.companyKey,
      json: {
        xNome: 'X',
        email: 'not-an-email',
        endereco: { xLgr: 'Rua A', nro: '1', xBairro: 'Centro', cMun: '3399999', uf: 'SP', cep: '123' },
      },
    });
    expect(res.status).toBe(400);
    const fields = (res.body as { details: { field: string }[] }).details.map((d) => d.field).sort();
    expect(fields).toEqual(['email', 'endereco.cMun', 'endereco.cep', 'xNome']);

    const cnpj = await h.request('PUT', `/v1/companies/${h.companyId}`, {
      key: h.companyKey,
      json: { cnpj: '11222333000181' },
    });
    expect(cnpj.status).toBe(400);
    expect(JSON.stringify(cnpj.body)).toContain('cnpj');

    const empty = await h.request('PUT', `/v1/companies/${h.companyId}`, { key: h.companyKey, json: {} });
    expect(empty.status).toBe(400);
  });

  it('answers 403 for a company outside the key and 404 for none', async () => {
    const other = await h.request('POST', '/v1/companies', {
      json: {
        cnpj: '11222333000181',
        ie: '111111110110',
        xNome: 'Outra Loja Ltda',
        crt: 1,
        endereco: { xLgr: 'Rua B', nro: '2', xBairro: 'Centro', cMun: '3550308', uf: 'SP', cep: '01001000' },
      },
    });
    expect(other.status, other.text).toBe(201);
    const id = (other.body as { id: string }).id;
    const denied = await h.request('PUT', `/v1/companies/${id}`, {
      key: h.companyKey,
      json: { xFant: 'Nope' },
    });
    expect(denied.status).toBe(403);
    const missing = await h.request('PUT', '/v1/companies/00000000-0000-4000-8000-000000000000', {
      json: { xFant: 'Nope' },
    });
    expect(missing.status).toBe(404);
  });
});
