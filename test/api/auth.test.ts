// The authentication matrix of seed §5 against the running service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';

const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);

let h: Harness;
let otherCompanyId: string;
let ownCompanyKey: string;

beforeAll(async () => {
  h = await startHarness();
  const created = await h.request('POST', '/v1/companies', { json: companyBody(cnpj('222333440001')) });
  expect(created.status).toBe(201);
  otherCompanyId = (created.body as { id: string }).id;
  const key = await h.request('POST', '/v1/api-keys', {
    json: { name: 'caixa-01', scope: 'company', companyId: h.companyId, plan: 'standard' },
  });
  expect(key.status).toBe(201);
  ownCompanyKey = (key.body as { key: string }).key;
});
afterAll(() => h.stop());

describe('authentication', () => {
  it('answers /healthz without a key', async () => {
    const res = await h.request('GET', '/healthz', { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok' });
  });

  it('refuses a request without X-API-Key with 401', async () => {
    const res = await h.request('GET', `/v1/companies/${h.companyId}`, { key: null });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'Missing X-API-Key header.', details: [] });
  });

  it('takes ?api_key= only on GETs of document files a browser opens by link', async () => {
    const sale = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
      json: {
        itens: [
          {
            codigo: 'L1',
            descricao: 'Produto de link',
            ncm: '22011000',
            unidade: 'UN',
            quantidade: 1,
            valor_unitario: '2.00',
            cfop: '5102',
            tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
          },
        ],
        pagamentos: [{ metodo: 'dinheiro', valor: '2.00' }],
      },
    });
    expect(sale.status).toBe(201);
    const id = (sale.body as { id: string }).id;
    const key = encodeURIComponent(h.apiKey);
    const xml = await h.request('GET', `/v1/nfce/${id}/xml?api_key=${key}`, { key: null });
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<nfeProc');
    expect(xml.headers.get('referrer-policy')).toBe('no-referrer');
    expect(xml.headers.get('cache-control')).toBe('private, no-store');
    // Not for anything else: JSON reads, and never for a change of state.
    expect((await h.request('GET', `/v1/nfce/${id}?api_key=${key}`, { key: null })).status).toBe(401);
    expect((await h.request('GET', `/v1/companies?api_key=${key}`, { key: null })).status).toBe(401);
    expect(
      (await h.request('POST', `/v1/nfe/${id}/cancel?api_key=${key}`, { key: null, json: {} })).status,
    ).toBe(401);
    expect((await h.request('GET', `/v1/nfce/${id}/xml?api_key=blc_x_y`, { key: null })).status).toBe(401);
  });

  it('refuses a malformed key and a well-formed unknown key with the same 401', async () => {
    const malformed = await h.request('GET', '/v1/companies', { key: 'nonsense' });
    const unknown = await h.request('GET', '/v1/companies', {
      key: `blc_0123456789abcdef_${'A'.repeat(43)}`,
    });
    // A tampered secret with a real lookup part must not be told apart from an unknown key.
    const tampered = await h.request('GET', '/v1/companies', { key: `${h.apiKey.slice(0, -3)}AAA` });
    for (const res of [malformed, unknown, tampered]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: 'The API key is not valid.', details: [] });
    }
  });

  it('refuses an expired key with 401', async () => {
    const expiresAt = new Date(h.clock.now().getTime() + 60_000).toISOString();
    const created = await h.request('POST', '/v1/api-keys', {
      json: { name: 'temporary', scope: 'organization', expiresAt },
    });
    expect(created.status).toBe(201);
    const key = (created.body as { key: string }).key;
    expect((await h.request('GET', '/v1/companies', { key })).status).toBe(200);
    h.clock.advance(61_000);
    const res = await h.request('GET', '/v1/companies', { key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'The API key has expired.', details: [] });
  });

  it('keeps a rotated key working through the grace period, then 401; the new key works', async () => {
    const created = await h.request('POST', '/v1/api-keys', {
      json: { name: 'to-rotate', scope: 'organization' },
    });
    const old = created.body as { id: string; key: string };
    const rotated = await h.request('POST', `/v1/api-keys/${old.id}/rotate`, { json: { graceSeconds: 300 } });
    expect(rotated.status).toBe(201);
    const successor = rotated.body as { id: string; key: string };
    expect(successor.key).not.toBe(old.key);
    expect((await h.request('GET', '/v1/companies', { key: old.key })).status).toBe(200);
    expect((await h.request('GET', '/v1/companies', { key: successor.key })).status).toBe(200);
    const oldView = await h.request('GET', `/v1/api-keys/${old.id}`);
    expect(oldView.body).toMatchObject({ replacedBy: successor.id });
    h.clock.advance(301_000);
    expect((await h.request('GET', '/v1/companies', { key: old.key })).status).toBe(401);
    expect((await h.request('GET', '/v1/companies', { key: successor.key })).status).toBe(200);
  });

  it('refuses a revoked key with 401 and cannot rotate it (409)', async () => {
    const created = await h.request('POST', '/v1/api-keys', {
      json: { name: 'to-revoke', scope: 'organization' },
    });
    const key = created.body as { id: string; key: string };
    const revoked = await h.request('POST', `/v1/api-keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: key.id, revokedAt: expect.any(String) });
    const res = await h.request('GET', '/v1/companies', { key: key.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: 'unauthorized',
      message: 'The API key has been revoked.',
      details: [],
    });
    const rotate = await h.request('POST', `/v1/api-keys/${key.id}/rotate`, { json: {} });
    expect(rotate.status).toBe(409);
    expect(rotate.body).toMatchObject({ error: 'invalid_state' });
  });

  it("gives 403 when a company key asks for another company's resource, 404 for a company that does not exist", async () => {
    const own = await h.request('GET', `/v1/companies/${h.companyId}`, { key: ownCompanyKey });
    expect(own.status).toBe(200);
    // §7: 404 "company not found"; ids are random UUIDs, so this tells nothing guessable.
    const missing = await h.request('GET', '/v1/companies/00000000-0000-4000-8000-000000000000', {
      key: ownCompanyKey,
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'not_found' });
    for (const id of [otherCompanyId]) {
      const res = await h.request('GET', `/v1/companies/${id}`, { key: ownCompanyKey });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: 'forbidden',
        message: 'This API key cannot access that resource.',
        details: [],
      });
    }
    const seqs = await h.request('GET', `/v1/companies/${otherCompanyId}/nfe-sequences`, {
      key: ownCompanyKey,
    });
    expect(seqs.status).toBe(403);
  });

  it('lets an organization key reach every company of its organization but not create from a company key', async () => {
    const list = await h.request('GET', '/v1/companies');
    expect((list.body as { total: number }).total).toBe(2);
    const scoped = await h.request('GET', '/v1/companies', { key: ownCompanyKey });
    expect((scoped.body as { items: { id: string }[] }).items.map((c) => c.id)).toEqual([h.companyId]);
    const create = await h.request('POST', '/v1/companies', {
      key: ownCompanyKey,
      json: companyBody(cnpj('333444550001')),
    });
    expect(create.status).toBe(403);
  });

  it('keeps customers of one company away from a key of another (403), 404 for unknown ids', async () => {
    const created = await h.request('POST', `/v1/customers?companyId=${otherCompanyId}`, {
      json: { cpf: '529.982.247-25', xNome: 'Maria da Silva' },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await h.request('GET', `/v1/customers/${id}`, { key: ownCompanyKey })).status).toBe(403);
    expect((await h.request('GET', `/v1/customers/${id}`)).status).toBe(200);
    expect((await h.request('GET', '/v1/customers/cus_nope', { key: ownCompanyKey })).status).toBe(404);
    const other = await h.request('GET', `/v1/customers?companyId=${otherCompanyId}`, { key: ownCompanyKey });
    expect(other.status).toBe(403);
  });

  it('never stores the key in clear', async () => {
    const rows = await h.service.db.selectFrom('api_keys').select(['secret_hash', 'lookup']).execute();
    for (const row of rows) {
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(h.apiKey.includes(row.secret_hash)).toBe(false);
    }
  });
});
