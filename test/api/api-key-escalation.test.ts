// Keys cannot escalate (issue 12 item 6): scope, plan and lifetime are handed out only downwards, and a key in
// its rotation grace finishes its own work and nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

interface Created {
  id: string;
  key: string;
  plan: string;
  expiresAt: string | null;
}

async function create(json: Record<string, unknown>, key?: string): Promise<Created> {
  const res = await h.request('POST', '/v1/api-keys', { json, ...(key === undefined ? {} : { key }) });
  expect(res.status, res.text).toBe(201);
  return res.body as Created;
}

const inMinutes = (minutes: number) => new Date(h.clock.now().getTime() + minutes * 60_000).toISOString();

describe('API keys cannot escalate', () => {
  it('the attack of the issue: a key in its grace cannot rotate again, revoke its replacement or mint keys', async () => {
    const first = await create({ name: 'caixa', scope: 'organization', plan: 'standard' });
    const rotated = await h.request('POST', `/v1/api-keys/${first.id}/rotate`, {
      key: first.key,
      json: { graceSeconds: 3600 },
    });
    expect(rotated.status).toBe(201);
    const replacement = rotated.body as Created;

    const again = await h.request('POST', `/v1/api-keys/${first.id}/rotate`, { key: first.key, json: {} });
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ error: 'forbidden' });
    const revokeReplacement = await h.request('POST', `/v1/api-keys/${replacement.id}/revoke`, {
      key: first.key,
    });
    expect(revokeReplacement.status).toBe(403);
    const mint = await h.request('POST', '/v1/api-keys', {
      key: first.key,
      json: { name: 'forever', scope: 'organization' },
    });
    expect(mint.status).toBe(403);
    const mintCompanyKey = await h.request('POST', '/v1/api-keys', {
      key: first.key,
      json: { name: 'forever', scope: 'company', companyId: h.companyId, plan: 'basic' },
    });
    expect(mintCompanyKey.status).toBe(403);

    // Its own work goes on until the grace ends, and the replacement is untouched.
    expect((await h.request('GET', `/v1/companies/${h.companyId}`, { key: first.key })).status).toBe(200);
    const replacementView = await h.request('GET', `/v1/api-keys/${replacement.id}`);
    expect(replacementView.body).toMatchObject({ revokedAt: null, replacedBy: null });
    const list = await h.request('GET', '/v1/api-keys?pageSize=100');
    const keys = (list.body as { items: { name: string }[] }).items;
    expect(keys.filter((k) => k.name === 'forever')).toEqual([]);

    // The replacement, not in grace, manages the old key.
    const revokeOld = await h.request('POST', `/v1/api-keys/${first.id}/revoke`, { key: replacement.key });
    expect(revokeOld.status).toBe(200);
  });

  it('a basic key cannot create a standard or terminal key; omitted, the plan is its own', async () => {
    const basic = await create({ name: 'basic', scope: 'company', companyId: h.companyId, plan: 'basic' });
    for (const plan of ['terminal', 'standard']) {
      const res = await h.request('POST', '/v1/api-keys', {
        key: basic.key,
        json: { name: `up-${plan}`, scope: 'company', companyId: h.companyId, plan },
      });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        error: 'forbidden',
        details: [{ field: 'plan', error: "must be 'basic' or lower" }],
      });
    }
    const same = await create(
      { name: 'same', scope: 'company', companyId: h.companyId, plan: 'basic' },
      basic.key,
    );
    expect(same.plan).toBe('basic');
    const omitted = await create({ name: 'omitted', scope: 'company', companyId: h.companyId }, basic.key);
    expect(omitted.plan).toBe('basic');
    expect(omitted.key).toMatch(/^blc_/);
  });

  it('a standard key creates standard and basic keys, and standard when the plan is omitted', async () => {
    const standard = await create({ name: 'std', scope: 'organization', plan: 'standard' });
    const terminal = await h.request('POST', '/v1/api-keys', {
      key: standard.key,
      json: { name: 'up', scope: 'organization', plan: 'terminal' },
    });
    expect(terminal.status).toBe(403);
    expect((await create({ name: 'b', scope: 'organization', plan: 'basic' }, standard.key)).plan).toBe(
      'basic',
    );
    expect((await create({ name: 'd', scope: 'organization' }, standard.key)).plan).toBe('standard');
  });

  it('a company key cannot create an organization key nor a key of another company', async () => {
    const res = await h.request('POST', '/v1/api-keys', {
      key: h.companyKey,
      json: { name: 'org', scope: 'organization', plan: 'basic' },
    });
    expect(res.status).toBe(403);
  });

  it('a basic key cannot rotate a terminal key of its company into a terminal key for itself', async () => {
    const basic = await create({
      name: 'basic-rot',
      scope: 'company',
      companyId: h.companyId,
      plan: 'basic',
    });
    const companyKeys = await h.request('GET', '/v1/api-keys?pageSize=100', { key: basic.key });
    const terminal = (companyKeys.body as { items: { id: string; plan: string }[] }).items.find(
      (k) => k.plan === 'terminal',
    );
    expect(terminal).toBeDefined();
    const res = await h.request('POST', `/v1/api-keys/${terminal?.id}/rotate`, { key: basic.key, json: {} });
    expect(res.status).toBe(403);
    const view = await h.request('GET', `/v1/api-keys/${terminal?.id}`);
    expect(view.body).toMatchObject({ replacedBy: null });
  });

  it('a key that expires creates keys that expire no later; omitted, the expiry is its own', async () => {
    const ownExpiry = inMinutes(60);
    const temporary = await create({
      name: 'temp',
      scope: 'organization',
      plan: 'standard',
      expiresAt: ownExpiry,
    });
    const later = await h.request('POST', '/v1/api-keys', {
      key: temporary.key,
      json: { name: 'later', scope: 'organization', expiresAt: inMinutes(120) },
    });
    expect(later.status).toBe(403);
    expect(later.body).toMatchObject({ details: [{ field: 'expiresAt' }] });
    const inherited = await create({ name: 'inherits', scope: 'organization' }, temporary.key);
    expect(inherited.expiresAt).toBe(ownExpiry);
    const earlier = await create(
      { name: 'earlier', scope: 'organization', expiresAt: inMinutes(30) },
      temporary.key,
    );
    expect(earlier.expiresAt).toBe(new Date(inMinutes(30)).toISOString());

    // Nor can it rotate a key without expiry, whose successor would have none either.
    const forever = await create({ name: 'forever-2', scope: 'organization', plan: 'basic' });
    const rotate = await h.request('POST', `/v1/api-keys/${forever.id}/rotate`, {
      key: temporary.key,
      json: {},
    });
    expect(rotate.status).toBe(403);
  });

  it('refuses an expiresAt in the past with 400 on the field', async () => {
    const res = await h.request('POST', '/v1/api-keys', {
      json: { name: 'past', scope: 'organization', expiresAt: inMinutes(-1) },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'validation_error',
      message: expect.any(String),
      details: [{ field: 'expiresAt', error: 'must be in the future' }],
    });
  });
});
