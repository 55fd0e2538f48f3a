// Each error kind of seed §7 with its exact body, plus limits and pagination edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';

const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

describe('error bodies', () => {
  it('malformed JSON → 400 invalid_json', async () => {
    const res = await h.request('POST', '/v1/customers', {
      body: '{"xNome": "Ana",',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; message: string; details: { field: string }[] };
    expect(body.error).toBe('invalid_json');
    expect(body.message).toBe('The request body is not valid JSON.');
    expect(body.details).toHaveLength(1);
    expect(body.details[0]?.field).toBe('body');
  });

  it('lists every faulty field at once with its path', async () => {
    const res = await h.request('POST', '/v1/companies', {
      json: {
        cnpj: '12.345.678/0001-00',
        ie: 'abc',
        xNome: 'X',
        crt: 7,
        endereco: { xLgr: 'Rua A', nro: '1', xBairro: 'Centro', cMun: '3550309', uf: 'SP', cep: '123' },
        extra: true,
      },
    });
    expect(res.status).toBe(400);
    const body = res.body as { error: string; message: string; details: { field: string; error: string }[] };
    expect(body.error).toBe('validation_error');
    expect(body.message).toBe('The request has invalid fields.');
    const fields = body.details.map((d) => d.field).sort();
    expect(fields).toEqual(['body', 'cnpj', 'crt', 'endereco.cMun', 'endereco.cep', 'ie', 'xNome'].sort());
    expect(body.details.find((d) => d.field === 'endereco.cMun')?.error).toBe(
      'unknown IBGE municipality code',
    );
    expect(body.details.find((d) => d.field === 'body')?.error).toMatch(/extra/);
  });

  it('reports nested fields by their dotted path, once per field', async () => {
    const res = await h.request('POST', '/v1/fiscal-profiles', {
      json: {
        name: 'Revenda',
        CFOP: '5102',
        taxes: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '07' }, COFINS: { CST: '99', pCOFINS: 'x' } },
      },
      headers: { 'X-Company-Id': h.companyId },
    });
    expect(res.status).toBe(400);
    expect((res.body as { details: { field: string }[] }).details.map((d) => d.field)).toEqual([
      'taxes.COFINS.pCOFINS',
    ]);
  });

  it('a body without JSON content type is a validation error on body', async () => {
    const res = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, { body: 'cpf=1' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_error',
      message: 'The request has invalid fields.',
      details: [{ field: 'body', error: 'a JSON body with Content-Type application/json is required' }],
    });
  });

  it('unknown route → 404 not_found in the same shape, with and without a key', async () => {
    const res = await h.request('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: 'not_found',
      message: 'No route for GET /v1/nothing-here.',
      details: [],
    });
    const outside = await h.request('DELETE', '/somewhere', { key: null });
    expect(outside.status).toBe(404);
    expect(outside.body).toEqual({
      error: 'not_found',
      message: 'No route for DELETE /somewhere.',
      details: [],
    });
  });

  it('unknown resource id → 404 not_found', async () => {
    const res = await h.request('GET', '/v1/products/prd_missing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'Product not found.', details: [] });
  });

  it('body over 1 MiB → 413 payload_too_large', async () => {
    const big = JSON.stringify({ xNome: 'x'.repeat(1024 * 1024 + 10) });
    const res = await h.request('POST', '/v1/customers', {
      body: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: 'payload_too_large',
      message: 'The request body is larger than the 1 MiB limit.',
      details: [],
    });
  });

  it('duplicate → 409 conflict naming the field', async () => {
    const body = companyBody(cnpj('444555660001'));
    expect((await h.request('POST', '/v1/companies', { json: body })).status).toBe(201);
    const again = await h.request('POST', '/v1/companies', { json: body });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: 'conflict',
      message: 'A company with this CNPJ already exists.',
      details: [{ field: 'cnpj', error: 'already registered' }],
    });
  });

  it('unexpected failure → 500 internal_error without stack or SQL, logged with the request id', async () => {
    // A row corrupted outside the API makes reading it fail in a way no route expects.
    await h.service.db
      .insertInto('fiscal_profiles')
      .values({
        id: 'fpr_corrupt',
        company_id: h.companyId,
        name: 'corrupt',
        cfop: '5102',
        taxes_json: '{not json',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    const res = await h.request('GET', '/v1/fiscal-profiles/fpr_corrupt');
    expect(res.status).toBe(500);
    const body = res.body as { error: string; message: string; details: unknown[]; requestId: string };
    expect(body.error).toBe('internal_error');
    expect(body.details).toEqual([]);
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(res.text).not.toMatch(/at .*\.ts|SELECT|JSON\.parse|stack/i);
    const logged = h.logs.map((l) => JSON.parse(l) as { requestId?: string; level: string });
    expect(logged.some((l) => l.level === 'error' && l.requestId === body.requestId)).toBe(true);
  });
});

describe('rate limits', () => {
  it('sends the headers on every response and answers 429 with Retry-After over budget', async () => {
    const created = await h.request('POST', '/v1/api-keys', {
      json: { name: 'tiny', scope: 'organization', plan: 'basic' },
    });
    const key = (created.body as { key: string }).key;
    // Freeze the clock at the start of a second so the per-second window cannot roll over mid-test.
    h.clock.set(new Date(Math.ceil(h.clock.now().getTime() / 60_000) * 60_000));
    const minuteReset = String(h.clock.now().getTime() / 1000 + 60);
    for (let i = 0; i < 5; i++) {
      const ok = await h.request('GET', '/v1/companies', { key });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('120');
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(119 - i));
      expect(ok.headers.get('x-ratelimit-reset')).toBe(minuteReset);
    }
    const refused = await h.request('GET', '/v1/companies', { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('115');
    expect(refused.body).toEqual({
      error: 'rate_limited',
      message: 'Too many requests: retry after 1 s.',
      details: [],
    });

    // Per-minute budget: 120 requests spread over seconds, then refused until the minute ends.
    let sent = 5;
    while (sent < 120) {
      h.clock.advance(1000);
      for (let i = 0; i < 5 && sent < 120; i++, sent++) {
        expect((await h.request('GET', '/v1/companies', { key })).status).toBe(200);
      }
    }
    h.clock.advance(1000);
    const minuteOut = await h.request('GET', '/v1/companies', { key });
    expect(minuteOut.status).toBe(429);
    // 5 requests at second 0, then 5 per second for 23 s, refused at second 24.
    expect(Number(minuteOut.headers.get('retry-after'))).toBe(60 - 24);
    expect(minuteOut.headers.get('x-ratelimit-remaining')).toBe('0');
    h.clock.advance(36_000);
    expect((await h.request('GET', '/v1/companies', { key })).status).toBe(200);
  });

  it('budgets are per key', async () => {
    const a = (
      await h.request('POST', '/v1/api-keys', { json: { name: 'a', scope: 'organization', plan: 'basic' } })
    ).body as { key: string };
    const b = (
      await h.request('POST', '/v1/api-keys', { json: { name: 'b', scope: 'organization', plan: 'basic' } })
    ).body as { key: string };
    h.clock.advance(60_000);
    for (let i = 0; i < 5; i++) await h.request('GET', '/v1/companies', { key: a.key });
    expect((await h.request('GET', '/v1/companies', { key: a.key })).status).toBe(429);
    expect((await h.request('GET', '/v1/companies', { key: b.key })).status).toBe(200);
  });

  it('failed authentication is limited per address too', async () => {
    h.clock.advance(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await h.request('GET', '/v1/companies', { key: 'wrong' })).status);
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});

describe('pagination', () => {
  type Page = {
    data: { cProd: string }[];
    meta: { page: number; limit: number; total: number; totalPages: number };
  };
  const products = async (query: string) => {
    const res = await h.request('GET', `/v1/products?companyId=${h.companyId}&q=Produto&${query}`);
    expect(res.status, query).toBe(200);
    return res.body as Page;
  };

  it('§4.6 shape {data, meta} with page/limit, last partial page and a page past the end', async () => {
    h.clock.advance(60_000);
    for (let i = 0; i < 7; i++) {
      const res = await h.request('POST', `/v1/products?companyId=${h.companyId}`, {
        json: { cProd: `P${i}`, xProd: `Produto ${i}`, NCM: '22030000', uCom: 'UN', vUnCom: '4.99' },
      });
      expect(res.status).toBe(201);
    }
    const first = await products('');
    expect(first.meta).toEqual({ page: 1, limit: 20, total: 7, totalPages: 1 });
    expect(first.data.map((p) => p.cProd)).toEqual(['P0', 'P1', 'P2', 'P3', 'P4', 'P5', 'P6']);
    const page2 = await products('page=2&limit=5');
    expect(page2.meta).toEqual({ page: 2, limit: 5, total: 7, totalPages: 2 });
    expect(page2.data.map((p) => p.cProd)).toEqual(['P5', 'P6']);
    const past = await products('page=9&limit=5');
    expect(past).toEqual({ data: [], meta: { page: 9, limit: 5, total: 7, totalPages: 2 } });
    const max = await h.request('GET', `/v1/products?companyId=${h.companyId}&limit=100`);
    expect(max.status).toBe(200);
  });

  it('offset starts anywhere and wins over page; meta.page is floor(offset / limit) + 1', async () => {
    const fromThree = await products('offset=3&limit=2');
    expect(fromThree.data.map((p) => p.cProd)).toEqual(['P3', 'P4']);
    expect(fromThree.meta).toEqual({ page: 2, limit: 2, total: 7, totalPages: 4 });
    const both = await products('page=1&offset=6&limit=5');
    expect(both.data.map((p) => p.cProd)).toEqual(['P6']);
    expect(both.meta.page).toBe(2);
    const zero = await products('offset=0&limit=3');
    expect(zero.data.map((p) => p.cProd)).toEqual(['P0', 'P1', 'P2']);
    expect(zero.meta.page).toBe(1);
    expect((await products('offset=7')).data).toEqual([]);
  });

  it('pageSize is still accepted as the older name of limit; the answer is the §4.6 shape', async () => {
    const old = await products('page=2&pageSize=5');
    expect(old.meta).toEqual({ page: 2, limit: 5, total: 7, totalPages: 2 });
    expect(old.data.map((p) => p.cProd)).toEqual(['P5', 'P6']);
    expect((await products('limit=5&pageSize=5')).meta.limit).toBe(5);
  });

  it('out-of-range values → 400 naming each parameter', async () => {
    const cases: [string, string[]][] = [
      ['limit=0', ['limit']],
      ['limit=101', ['limit']],
      ['pageSize=101', ['pageSize']],
      ['page=0', ['page']],
      ['offset=-1', ['offset']],
      ['page=abc&limit=1.5&offset=x', ['page', 'limit', 'offset']],
      ['limit=5&pageSize=10', ['pageSize']],
    ];
    for (const [query, fields] of cases) {
      const res = await h.request('GET', `/v1/products?${query}`, {
        headers: { 'X-Company-Id': h.companyId },
      });
      expect(res.status, query).toBe(400);
      const body = res.body as { error: string; message: string; details: { field: string }[] };
      expect(body.error).toBe('validation_error');
      expect(body.message).toBe('Invalid query parameters.');
      expect(body.details.map((d) => d.field)).toEqual(fields);
    }
  });
});
