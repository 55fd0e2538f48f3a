// /v1/webhooks over HTTP: create/read/update/delete, the secret shown once, URL rules, validation that lists
// every field, company scoping and the §4.6 list shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { companyBody } from '../api/harness.ts';
import { startWebhookEnv, type WebhookEnv } from './helpers.ts';

const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);

interface Webhook {
  id: string;
  companyId: string;
  url: string;
  eventos: string[];
  ativo: boolean;
  descricao: string | null;
  permitirRedeLocal: boolean;
  secret?: string;
}
interface ErrorBody {
  error: string;
  details: { field: string; error: string }[];
}

let env: WebhookEnv;
let otherCompanyId: string;
let otherCompanyKey: string;

beforeAll(async () => {
  env = await startWebhookEnv();
  const created = await env.api('POST', '/v1/companies', {
    key: env.h.apiKey,
    json: companyBody(cnpj('333444550001')),
  });
  otherCompanyId = (created.body as { id: string }).id;
  const key = await env.api('POST', '/v1/api-keys', {
    key: env.h.apiKey,
    json: { name: 'other', scope: 'company', companyId: otherCompanyId },
  });
  otherCompanyKey = (key.body as { key: string }).key;
});
afterAll(() => env.stop());

const create = (json: unknown, key?: string) =>
  env.api('POST', '/v1/webhooks', { json, ...(key ? { key } : {}) });
const fields = (body: unknown) => (body as ErrorBody).details.map((d) => d.field);

describe('webhook CRUD', () => {
  it('creates a webhook, returns the secret once and never again', async () => {
    const res = await create({
      url: 'https://erp.example.com.br/balcao/hook',
      eventos: ['nfe.autorizada', 'nfce.*', 'nfe.autorizada'],
      descricao: 'ERP',
    });
    expect(res.status).toBe(201);
    const hook = res.body as Webhook;
    expect(hook).toMatchObject({
      companyId: env.h.companyId,
      url: 'https://erp.example.com.br/balcao/hook',
      eventos: ['nfe.autorizada', 'nfce.*'],
      ativo: true,
      descricao: 'ERP',
      permitirRedeLocal: false,
    });
    expect(hook.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // 32 random bytes in base64url are 43 characters.
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(hook).not.toHaveProperty('events');
    expect((hook as Webhook & { message: string }).message).toBe(
      'Webhook created. Store the secret now: it is not shown again.',
    );

    const read = await env.api('GET', `/v1/webhooks/${hook.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.text).not.toContain(hook.secret);
    const list = await env.api('GET', '/v1/webhooks');
    expect(list.text).not.toContain(hook.secret);
    const row = await env.h.service.db
      .selectFrom('webhooks')
      .select('secret_enc')
      .where('id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(hook.secret?.slice(6));
  });

  it('lists in the §4.6 shape {data, meta}, by page or offset, and validates paging', async () => {
    await create({ url: 'https://a.example.com/1', eventos: ['*'] });
    await create({ url: 'https://a.example.com/2', eventos: ['*'] });
    type List = { data: Webhook[]; meta: { page: number; limit: number; total: number; totalPages: number } };
    const page = await env.api('GET', '/v1/webhooks?page=1&limit=2');
    expect(page.status).toBe(200);
    const body = page.body as List;
    expect(body.data).toHaveLength(2);
    const total = body.meta.total;
    expect(total).toBeGreaterThanOrEqual(3);
    expect(body.meta).toEqual({ page: 1, limit: 2, total, totalPages: Math.ceil(total / 2) });
    // Offset is another way to the same rows: offset 1 with limit 2 holds the second and third.
    const all = ((await env.api('GET', '/v1/webhooks?limit=100')).body as List).data.map((w) => w.id);
    const shifted = (await env.api('GET', '/v1/webhooks?offset=1&limit=2')).body as List;
    expect(shifted.data.map((w) => w.id)).toEqual(all.slice(1, 3));
    expect(shifted.meta.page).toBe(1);
    // pageSize stays accepted as the older name of limit.
    const old = (await env.api('GET', '/v1/webhooks?page=2&pageSize=2')).body as List;
    expect(old.data.map((w) => w.id)).toEqual(all.slice(2, 4));
    expect(old.meta).toMatchObject({ page: 2, limit: 2 });
    const bad = await env.api('GET', '/v1/webhooks?page=0&limit=500&offset=-2');
    expect(bad.status).toBe(400);
    expect(fields(bad.body).sort()).toEqual(['limit', 'offset', 'page']);
  });

  it('PUT changes only the fields it names; ativo:false pauses; DELETE answers 204', async () => {
    const hook = (await create({ url: 'https://b.example.com/x', eventos: ['nfe.*'], descricao: 'd' }))
      .body as Webhook;
    const paused = await env.api('PUT', `/v1/webhooks/${hook.id}`, { json: { ativo: false } });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ ativo: false, eventos: ['nfe.*'], url: hook.url, descricao: 'd' });
    const changed = await env.api('PUT', `/v1/webhooks/${hook.id}`, {
      json: { url: 'https://c.example.com/y', eventos: ['nfce.autorizada'], descricao: null, ativo: true },
    });
    expect(changed.body).toMatchObject({
      url: 'https://c.example.com/y',
      eventos: ['nfce.autorizada'],
      descricao: null,
      ativo: true,
    });
    const empty = await env.api('PUT', `/v1/webhooks/${hook.id}`, { json: {} });
    expect(empty.status).toBe(400);

    const deleted = await env.api('DELETE', `/v1/webhooks/${hook.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await env.api('GET', `/v1/webhooks/${hook.id}`)).status).toBe(404);
    expect((await env.api('DELETE', `/v1/webhooks/${hook.id}`)).status).toBe(404);
  });

  it('takes events as the older name of eventos, on create and on PUT; both at once is 400', async () => {
    const old = await create({ url: 'https://h.example.com/old', events: ['nfe.autorizada'] });
    expect(old.status).toBe(201);
    expect(old.body).toMatchObject({ eventos: ['nfe.autorizada'], ativo: true });
    const id = (old.body as Webhook).id;
    const put = await env.api('PUT', `/v1/webhooks/${id}`, { json: { events: ['nfe.*'] } });
    expect(put.status).toBe(200);
    // Seed §4.5: the PUT answer carries id, url and ativo.
    expect(put.body).toMatchObject({ id, url: 'https://h.example.com/old', ativo: true, eventos: ['nfe.*'] });
    const both = await create({ url: 'https://h.example.com/both', eventos: ['*'], events: ['*'] });
    expect(both.status).toBe(400);
    expect(fields(both.body)).toEqual(['events']);
    const badAlias = await env.api('PUT', `/v1/webhooks/${id}`, { json: { events: ['nope'] } });
    expect(fields(badAlias.body)).toEqual(['events[0]']);
  });

  it('rotate-secret returns a new secret once', async () => {
    const hook = (await create({ url: 'https://d.example.com/', eventos: ['*'] })).body as Webhook;
    const rotated = await env.api('POST', `/v1/webhooks/${hook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const body = rotated.body as Webhook & { secretRotatedAt: string };
    expect(body.secret).toMatch(/^whsec_/);
    expect(body.secret).not.toBe(hook.secret);
    expect(body.secretRotatedAt).toEqual(expect.any(String));
    expect((await env.api('GET', `/v1/webhooks/${hook.id}`)).body).not.toHaveProperty('secret');
  });
});

describe('validation', () => {
  it('lists every faulty field at once', async () => {
    const res = await create({
      url: 'ftp://files.example.com/',
      eventos: ['nfe.autorizada', 'nfe.inexistente', 'nfe*', 'mdfe.*'],
      ativo: 'sim',
      descricao: 'x'.repeat(201),
      extra: true,
    });
    expect(res.status).toBe(400);
    const body = res.body as ErrorBody;
    expect(body.error).toBe('validation_error');
    expect(fields(body).sort()).toEqual(
      ['ativo', 'body', 'descricao', 'eventos[1]', 'eventos[2]', 'eventos[3]', 'url'].sort(),
    );
    expect(body.details.find((d) => d.field === 'eventos[1]')?.error).toMatch(/^unknown event/);
    expect(body.details.find((d) => d.field === 'url')?.error).toBe('must be an https:// URL');
  });

  it('requires a body, a url and at least one event', async () => {
    const none = await env.api('POST', '/v1/webhooks');
    expect(none.status).toBe(400);
    expect(fields(none.body)).toEqual(['body']);
    const empty = await create({ eventos: [] });
    expect(fields(empty.body).sort()).toEqual(['eventos', 'url']);
  });

  it('reports a broken URL and a broken event together on PUT', async () => {
    const hook = (await create({ url: 'https://e.example.com/', eventos: ['*'] })).body as Webhook;
    const res = await env.api('PUT', `/v1/webhooks/${hook.id}`, {
      json: { url: 'https://10.0.0.5/hook', eventos: ['nope'] },
    });
    expect(res.status).toBe(400);
    expect(fields(res.body).sort()).toEqual(['eventos[0]', 'url']);
  });
});

describe('URL rules', () => {
  const refused = [
    'http://erp.example.com/hook',
    'https://127.0.0.1/hook',
    'https://localhost:8443/hook',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://172.31.255.255/',
    'https://192.168.0.10/',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/',
    'https://[fd00::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://0x7f.0.0.1/',
    'https://2130706433/',
    'https://impressora.local/',
    'https://pdv/',
  ];

  it.each(refused)('refuses %s without permitirRedeLocal', async (url) => {
    const res = await create({ url, eventos: ['*'] });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['url']);
  });

  it.each(refused)('accepts %s with permitirRedeLocal', async (url) => {
    const res = await create({ url, eventos: ['*'], permitirRedeLocal: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ permitirRedeLocal: true });
  });

  it('accepts public hosts that only look private, and refuses what is never a receiver', async () => {
    for (const url of ['https://172.32.0.1/', 'https://192.169.1.1/', 'https://[2001:4860::8888]/']) {
      expect((await create({ url, eventos: ['*'] })).status).toBe(201);
    }
    for (const url of [
      'https://0.0.0.0/',
      'https://224.0.0.1/',
      'https://[ff02::1]/',
      'https://user:pass@erp.example.com/',
      'not a url',
    ]) {
      const res = await create({ url, eventos: ['*'], permitirRedeLocal: true });
      expect(res.status, url).toBe(400);
      expect(fields(res.body)).toEqual(['url']);
    }
  });

  it('turning permitirRedeLocal off under a LAN URL is refused, naming permitirRedeLocal', async () => {
    const hook = (
      await create({ url: 'http://192.168.1.20:8080/hook', eventos: ['*'], permitirRedeLocal: true })
    ).body as Webhook;
    const res = await env.api('PUT', `/v1/webhooks/${hook.id}`, { json: { permitirRedeLocal: false } });
    expect(res.status).toBe(400);
    expect(fields(res.body)).toEqual(['permitirRedeLocal']);
    const moved = await env.api('PUT', `/v1/webhooks/${hook.id}`, {
      json: { permitirRedeLocal: false, url: 'https://erp.example.com/' },
    });
    expect(moved.status).toBe(200);
  });
});

describe('company scoping', () => {
  it("answers 403 to another company's key, whatever the route, and 404 for unknown ids", async () => {
    const hook = (await create({ url: 'https://f.example.com/', eventos: ['*'] })).body as Webhook;
    const key = otherCompanyKey;
    const routes: [string, string][] = [
      ['GET', `/v1/webhooks/${hook.id}`],
      ['PUT', `/v1/webhooks/${hook.id}`],
      ['DELETE', `/v1/webhooks/${hook.id}`],
      ['POST', `/v1/webhooks/${hook.id}/rotate-secret`],
      ['POST', `/v1/webhooks/${hook.id}/test-connection`],
      ['GET', `/v1/webhooks/${hook.id}/deliveries`],
      ['POST', `/v1/webhooks/${hook.id}/deliveries/whd_x/redeliver`],
    ];
    for (const [method, url] of routes) {
      const res = await env.api(method, url, { key, json: { ativo: false } });
      expect(res.status, `${method} ${url}`).toBe(403);
      expect((res.body as ErrorBody).error).toBe('forbidden');
    }
    expect((await env.api('GET', `/v1/webhooks/${hook.id}`)).body).toMatchObject({ ativo: true });
    const theirs = await env.api('GET', '/v1/webhooks', { key });
    expect((theirs.body as { meta: { total: number } }).meta.total).toBe(0);
    expect((await env.api('GET', `/v1/webhooks?companyId=${env.h.companyId}`, { key })).status).toBe(403);
    expect((await env.api('GET', '/v1/webhooks/whk_unknown')).status).toBe(404);
  });

  it('an organization key names the company with ?companyId= or X-Company-Id', async () => {
    const org = env.h.apiKey;
    const missing = await env.api('GET', '/v1/webhooks', { key: org });
    expect(missing.status).toBe(400);
    expect(fields(missing.body)).toEqual(['companyId']);
    const made = await env.api('POST', `/v1/webhooks?companyId=${otherCompanyId}`, {
      key: org,
      json: { url: 'https://g.example.com/', eventos: ['nfe.*'] },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ companyId: otherCompanyId });
    const listed = await env.api('GET', '/v1/webhooks', {
      key: org,
      headers: { 'X-Company-Id': otherCompanyId },
    });
    expect((listed.body as { data: Webhook[] }).data.map((w) => w.url)).toEqual(['https://g.example.com/']);
    // The organization key reaches both companies' webhooks by id.
    expect((await env.api('GET', `/v1/webhooks/${(made.body as Webhook).id}`, { key: org })).status).toBe(
      200,
    );
  });
});
