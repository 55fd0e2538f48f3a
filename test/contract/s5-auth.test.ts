// Conformance, specification §5 (authentication): the company key in X-API-Key, api_key on the DANFE,
// 401 for a missing, invalid or expired key, 403 for another company's resource.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyBody } from '../api/harness.ts';
import {
  authorizedNfe,
  cnpjOf,
  createNfe,
  expectErrorBody,
  startContract,
  type Contract,
} from './harness.ts';

let c: Contract;
beforeAll(async () => {
  c = await startContract();
});
afterAll(() => c.stop());

describe('§5 Authentication', () => {
  it('§5 every operational call carries the company API key in X-API-Key (no company named)', async () => {
    const draft = await createNfe(c);
    const read = await c.call('GET', '/v1/nfe/:id', { params: { id: draft.id } });
    expect(read.status).toBe(200);
    const list = await c.call('GET', '/v1/nfe');
    expect(list.status, list.text).toBe(200);
    const sequences = await c.call('GET', '/v1/companies/:id/nfe-sequences', { params: { id: c.companyId } });
    expect(sequences.status, sequences.text).toBe(200);
  });

  it('§5 the DANFE download also accepts the key as query parameter api_key', async () => {
    const doc = await authorizedNfe(c);
    const res = await c.call('GET', '/v1/nfe/:id/danfe', {
      params: { id: doc.id },
      query: { api_key: c.key },
      key: null,
    });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/pdf');
    const wrong = await c.call('GET', '/v1/nfe/:id/danfe', {
      params: { id: doc.id },
      query: { api_key: 'blc_0000000000000000_wrong' },
      key: null,
    });
    expectErrorBody(wrong, 401);
  });

  it('§5 a missing key gives 401', async () => {
    expectErrorBody(await c.call('GET', '/v1/nfe', { key: null }), 401);
    expectErrorBody(await c.call('POST', '/v1/nfe', { key: null, json: {} }), 401);
  });

  it('§5 an invalid key gives 401', async () => {
    expectErrorBody(await c.call('GET', '/v1/nfe', { key: 'not-a-key' }), 401);
    expectErrorBody(await c.call('GET', '/v1/nfe', { key: `${c.key.slice(0, -4)}AAAA` }), 401);
  });

  it('§5 an expired key gives 401', async () => {
    // How keys are issued is "not shown"; the service's key route makes one that expires in an hour.
    const expiresAt = new Date(c.h.clock.now().getTime() + 3600_000).toISOString();
    const created = await c.call('POST', '/v1/api-keys', {
      key: c.orgKey,
      json: { name: 'expira', scope: 'company', companyId: c.companyId, expiresAt },
    });
    expect(created.status, created.text).toBe(201);
    const key = (created.body as { key: string }).key;
    expect((await c.call('GET', '/v1/nfe', { key })).status).toBe(200);
    c.h.clock.advance(2 * 3600_000);
    expectErrorBody(await c.call('GET', '/v1/nfe', { key }), 401);
  });

  it('§5 a key without permission for the requested company resource gives 403', async () => {
    const other = await c.call('POST', '/v1/companies', {
      key: c.orgKey,
      json: companyBody(cnpjOf('445566770001'), { xNome: 'OUTRA EMPRESA LTDA' }),
    });
    expect(other.status, other.text).toBe(201);
    const otherId = (other.body as { id: string }).id;
    expectErrorBody(await c.call('GET', '/v1/companies/:id/nfe-sequences', { params: { id: otherId } }), 403);
    expectErrorBody(
      await c.call('PUT', '/v1/companies/:id/config', {
        params: { id: otherId },
        json: { ambiente: 'homologacao' },
      }),
      403,
    );
  });
});
