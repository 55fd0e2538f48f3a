// Conformance, specification §8 (limits): batch size, page sizes, justification and correction lengths,
// cancellation deadlines, access key length and the rate-limit headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedNfce,
  authorizedNfe,
  expectErrorBody,
  expectFieldError,
  nfeA,
  once,
  startContract,
  waitFor,
  type Contract,
  type Doc,
} from './harness.ts';
import { createCteCustomer, ctePayload } from '../api/cte-helpers.ts';
import { issueNfse } from './nfse.ts';

let c: Contract;
beforeAll(async () => {
  c = await startContract();
});
afterAll(() => c.stop());

/** An authorized CT-e: a fresh one when `fresh`, else one shared by the rows. */
const sharedCte = once(() => newAuthorizedCte());
const authorizedCte = (fresh = false): Promise<Doc> => (fresh ? newAuthorizedCte() : sharedCte());
async function newAuthorizedCte(): Promise<Doc> {
  const res = await c.call('POST', '/v1/cte', {
    json: ctePayload(await createCteCustomer(c.h, c.companyId)),
  });
  expect(res.status, res.text).toBe(201);
  const id = (res.body as Doc).id;
  await c.call('POST', '/v1/cte/:id/send', { params: { id } });
  return waitFor(c, '/v1/cte/:id', id, (d) => d.status === 'autorizada');
}

const note = once(() => authorizedNfe(c));
const receipt = once(() => authorizedNfce(c));
const text = (length: number) => 'Justificativa longa '.repeat(60).slice(0, length);

describe('§8 Limits', () => {
  it('§8 Batch size — up to 50 notes (POST /v1/nfe/batch)', async () => {
    const over = await c.call('POST', '/v1/nfe/batch', {
      json: { notas: Array.from({ length: 51 }, () => nfeA()) },
    });
    expectFieldError(over, 'notas');
    const fifty = await c.call('POST', '/v1/nfe/batch', {
      json: { notas: Array.from({ length: 50 }, () => nfeA()) },
    });
    expect(fifty.status, fifty.text).toBe(202);
  });

  it('§8 Page size — max 100; default 20 (all lists)', async () => {
    const nfe = await c.call('GET', '/v1/nfe');
    expect(nfe.body).toMatchObject({ pageSize: 20 });
    expect((await c.call('GET', '/v1/nfe', { query: { pageSize: 100 } })).status).toBe(200);
    expectFieldError(await c.call('GET', '/v1/nfe', { query: { pageSize: 101 } }), 'pageSize');
    const nfce = await c.call('GET', '/v1/nfe', { query: { modelo: 65 } });
    expect(nfce.body).toMatchObject({ limit: 20 });
    expectFieldError(await c.call('GET', '/v1/nfe', { query: { modelo: 65, limit: 101 } }), 'limit');
    const customers = await c.call('GET', '/v1/customers');
    expect(customers.body).toMatchObject({ meta: { limit: 20 } });
    expectFieldError(await c.call('GET', '/v1/customers', { query: { limit: 101 } }), 'limit');
  });

  it('§8 Cancel justification — min 15 chars (NF-e cancel, NFC-e cancel)', async () => {
    const nfe = await note();
    const nfce = await receipt();
    for (const id of [nfe.id, nfce.id]) {
      expectFieldError(
        await c.call('POST', '/v1/nfe/:id/cancel', { params: { id }, json: { justificativa: text(14) } }),
        'justificativa',
      );
      expectFieldError(
        await c.call('POST', '/v1/nfe/:id/cancel', { params: { id }, json: {} }),
        'justificativa',
      );
    }
  });

  it('§8 CT-e cancel justification — 15 to 255 chars', async () => {
    const { id } = await authorizedCte();
    for (const justificativa of [text(14), 'x'.repeat(256)]) {
      expectFieldError(
        await c.call('POST', '/v1/cte/:id/cancel', { params: { id }, json: { justificativa } }),
        'justificativa',
      );
    }
    const longest = await c.call('POST', '/v1/cte/:id/cancel', {
      params: { id },
      json: { justificativa: 'x'.repeat(255) },
    });
    expect(longest.status, longest.text).toBe(202);
  });

  it('§8 CC-e text — NF-e 15 to 1000 chars', async () => {
    const { id } = await note();
    for (const correcao of [text(14), 'x'.repeat(1001)]) {
      expectFieldError(
        await c.call('POST', '/v1/nfe/:id/correction-letter', { params: { id }, json: { correcao } }),
        'correcao',
      );
    }
    const longest = await c.call('POST', '/v1/nfe/:id/correction-letter', {
      params: { id },
      json: { correcao: `Corrige ${'o endereco '.repeat(99)}`.slice(0, 1000) },
    });
    expect(longest.status, longest.text).toBe(202);
  });

  it('§8 Void justification — min 15 chars (all void operations)', async () => {
    const res = await c.call('POST', '/v1/nfe/inutilizar', {
      json: { serie: 1, numeroInicial: 600, numeroFinal: 600, justificativa: text(14), modelo: '55' },
    });
    expectFieldError(res, 'justificativa');
  });

  it('§8 Access key length — 44 digits (NF-e, NFC-e)', async () => {
    expect((await note()).chave_acesso).toMatch(/^\d{44}$/);
    expect((await receipt()).chave_acesso).toMatch(/^\d{44}$/);
  });

  it('§8 Access key length — 50 digits (NFS-e)', async () => {
    const doc = await issueNfse(c);
    expect(doc.chave_acesso_50).toMatch(/^\d{50}$/);
    // The key is the one the national environment wrote in the note it returned.
    const xml = await c.call('GET', '/v1/nfse/:id/xml', {
      params: { id: doc.id },
      query: { formato: 'nfse' },
    });
    expect(xml.text).toContain(`Id="NFS${String(doc.chave_acesso_50)}"`);
  });

  it('§8 Rate limit — X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset (Unix epoch seconds), Retry-After on 429', async () => {
    const res = await c.call('GET', '/v1/nfe');
    const limit = Number(res.headers.get('X-RateLimit-Limit'));
    const remaining = Number(res.headers.get('X-RateLimit-Remaining'));
    const reset = Number(res.headers.get('X-RateLimit-Reset'));
    expect(limit).toBeGreaterThan(0);
    expect(remaining).toBeGreaterThanOrEqual(0);
    expect(remaining).toBeLessThan(limit);
    const nowSeconds = Math.floor(c.h.clock.now().getTime() / 1000);
    expect(reset).toBeGreaterThanOrEqual(nowSeconds);
    expect(reset).toBeLessThanOrEqual(nowSeconds + 3600);
    let limited: Awaited<ReturnType<Contract['call']>> | undefined;
    for (let i = 0; i < 200 && limited === undefined; i++) {
      const r = await c.call('GET', '/v1/nfe', { query: { pageSize: 1 }, keep429: true });
      if (r.status === 429) limited = r;
    }
    expect(limited).toBeDefined();
    if (limited === undefined) return;
    expectErrorBody(limited, 429);
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
    c.h.clock.advance(Number(limited.headers.get('Retry-After')) * 1000);
  });

  // The deadlines move the clock: they come last.
  it('§8 NFC-e cancel deadline — 30 minutes after authorization', async () => {
    const within = await authorizedNfce(c);
    c.h.clock.advance(31 * 60_000);
    const late = await c.call('POST', '/v1/nfe/:id/cancel', {
      params: { id: within.id },
      json: { justificativa: 'Consumidor desistiu da compra' },
    });
    expectErrorBody(late, 422);
  });

  it('§8 NF-e cancel deadline — 24 h after authorization', async () => {
    const doc: Doc = await authorizedNfe(c);
    c.h.clock.advance(23 * 3600_000);
    const inTime = await c.call('POST', '/v1/nfe/:id/cancel', {
      params: { id: doc.id },
      json: { justificativa: 'Pedido cancelado pelo cliente' },
    });
    expect(inTime.status, inTime.text).toBe(202);
    const other = await authorizedNfe(c);
    c.h.clock.advance(25 * 3600_000);
    const late = await c.call('POST', '/v1/nfe/:id/cancel', {
      params: { id: other.id },
      json: { justificativa: 'Pedido cancelado pelo cliente' },
    });
    expectErrorBody(late, 422);
  });

  it('§8 CT-e cancel deadline — generally up to 7 days', async () => {
    const inTime = await authorizedCte(true);
    c.h.clock.advance(6 * 24 * 3600_000);
    const ok = await c.call('POST', '/v1/cte/:id/cancel', {
      params: { id: inTime.id },
      json: { justificativa: 'Frete contratado em duplicidade' },
    });
    expect(ok.status, ok.text).toBe(202);
    const late = await authorizedCte(true);
    c.h.clock.advance(7 * 24 * 3600_000 + 60_000);
    const res = await c.call('POST', '/v1/cte/:id/cancel', {
      params: { id: late.id },
      json: { justificativa: 'Frete contratado em duplicidade' },
    });
    const body = expectErrorBody(res, 422);
    expect(body).toMatchObject({ error: 'fiscal_rejection', cStat: '220' });
  });

  it('§8 CT-e void communication — by the 10th day of the next month', async () => {
    c.h.clock.set(new Date('2027-02-20T12:00:00Z'));
    const res = await c.call('POST', '/v1/cte/inutilizar', {
      json: {
        serie: 1,
        numeroInicial: 900001,
        numeroFinal: 900002,
        justificativa: 'Numeracao pulada por falha',
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, prazo: '2027-03-10' });
    expect((res.body as { message: string }).message).toContain('2027-03-10');
  });
});
