// Deliveries against real HTTP receivers on 127.0.0.1: signatures checked by docs/webhooks.md's own code,
// secret rotation, replay protection, retries with backoff on the manual clock, the 24 h limit, redelivery,
// pausing, pings, wildcards and crash recovery.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src-main/db/client.ts';
import { publishDocumentEvent, publishEvent } from '../../src-main/webhooks/publisher.ts';
import type { DocumentRow } from '../../src-main/documents/repository.ts';
import type { DeliveryDetailView, WebhookEvent } from '../../src-shared/contracts/webhooks.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { companyBody } from '../api/harness.ts';
import {
  CaptureReceiver,
  HOUR,
  MINUTE,
  loadDocReceiver,
  startDocReceiver,
  startWebhookEnv,
  waitFor,
  type DocReceiver,
  type WebhookEnv,
} from './helpers.ts';

let env: WebhookEnv;
let doc: DocReceiver;
let receiver: CaptureReceiver;

beforeAll(async () => {
  // A short timeout keeps the dead-receiver tests quick; the default is 10 s.
  env = await startWebhookEnv({ timeoutMs: 800 });
  doc = await loadDocReceiver();
  receiver = await CaptureReceiver.start();
});
/** Waits until the worker has no request out (each ends within the env's 800 ms timeout). */
async function nothingInFlight(): Promise<void> {
  for (let i = 0; i < 200 && env.worker.inFlight > 0; i++) await new Promise((r) => setTimeout(r, 25));
}

afterEach(async () => {
  // A delivery a test left on its way would reach the shared receiver during the next test.
  await nothingInFlight();
  // In a transaction: on PostgreSQL it then takes the store's lock, as every writer of these rows does. Alone, the
  // delete (cascading to deliveries and attempts, webhook after webhook) met a worker's transaction on those rows
  // and PostgreSQL reported a deadlock.
  await inTransaction(env.h.service.db, (trx) => trx.deleteFrom('webhooks').execute());
  // A delivery the worker claimed just before the delete (it had read the due rows while nothing was in flight)
  // is out now: its request ends before the receiver is reset, or it would reach the next test.
  await nothingInFlight();
  receiver.respond = () => 200;
  receiver.requests.length = 0;
});
afterAll(async () => {
  await receiver.close();
  await env.stop();
});

const db = () => env.h.service.db;
const clockSeconds = () => Math.floor(env.h.clock.now().getTime() / 1000);

async function createHook(
  url: string,
  events: string[] = ['*'],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const res = await env.api('POST', '/v1/webhooks', {
    json: { url, eventos: events, permitirRedeLocal: true, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

function publish(event: Exclude<WebhookEvent, 'ping'>, data: unknown = { chave: '3526'.padEnd(44, '0') }) {
  return publishEvent(db(), env.h.clock, { companyId: env.h.companyId, event, data });
}

const deliveryRow = (id: string) =>
  db().selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Ticks this test's worker, then waits until the delivery has settled after `attempts` attempts. */
async function attempted(id: string, attempts: number) {
  await env.worker.tick();
  return waitFor(async () => {
    const row = await deliveryRow(id);
    return row.attempts >= attempts && row.status !== 'in_flight' ? row : undefined;
  });
}

async function detail(hookId: string, deliveryId: string): Promise<DeliveryDetailView> {
  const res = await env.api('GET', `/v1/webhooks/${hookId}/deliveries/${deliveryId}`);
  expect(res.status).toBe(200);
  return res.body as DeliveryDetailView;
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

describe('signed deliveries', () => {
  it('POSTs the stored JSON with the documented headers; the doc snippet verifies the signature', async () => {
    const hook = await createHook(receiver.url, ['nfe.*']);
    const published = await publish('nfe.autorizada');
    expect(published.deliveryIds).toHaveLength(1);
    const [deliveryId = ''] = published.deliveryIds;
    const row = await attempted(deliveryId, 1);
    expect(row.status).toBe('delivered');

    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    if (req === undefined) throw new Error('no request');
    expect(req.rawBody.toString('utf8')).toBe(row.payload);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-svc-event']).toBe('nfe.autorizada');
    expect(req.headers['x-svc-delivery']).toBe(deliveryId);
    expect(req.headers['x-svc-attempt']).toBe('1');
    expect(req.headers['x-svc-timestamp']).toBe(String(clockSeconds()));
    expect(req.headers['x-svc-signature']).toMatch(new RegExp(`^t=${clockSeconds()},v1=[0-9a-f]{64}$`));
    expect(JSON.parse(row.payload)).toEqual({
      id: published.eventId,
      event: 'nfe.autorizada',
      createdAt: env.h.clock.now().toISOString(),
      companyId: env.h.companyId,
      data: { chave: '3526'.padEnd(44, '0') },
    });

    const verify = (secrets: string[], rawBody = req.rawBody) =>
      doc.verifySvcSignature({ rawBody, headers: req.headers, secrets, nowSeconds: clockSeconds() });
    expect(verify([hook.secret])).toBeNull();
    expect(verify([`${hook.secret}x`])).toBe('signature does not match');
    expect(verify([hook.secret], Buffer.from(row.payload.replace('nfe.autorizada', 'nfe.cancelada')))).toBe(
      'signature does not match',
    );

    const view = await detail(hook.id, deliveryId);
    expect(view).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200, nextTryAt: null });
    expect(view.payload).toBe(row.payload);
    expect(view.attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 200, error: null, responseExcerpt: 'status 200' }),
    ]);
    expect(view.attemptLog[0]?.durationMs).toEqual(expect.any(Number));
  });

  it('the documented receiver accepts real deliveries and refuses a replay older than 5 minutes', async () => {
    expect(doc.TOLERANCE_SECONDS).toBe(300);
    const hook = await createHook(receiver.url);
    const received: unknown[] = [];
    const server = doc.createReceiver({
      secrets: [hook.secret],
      onEvent: async (event) => {
        received.push(event);
      },
      now: () => env.h.clock.now().getTime(),
    });
    const docReceiver = await startDocReceiver(server);
    try {
      const [id = ''] = (await publish('nfce.autorizada')).deliveryIds;
      await attempted(id, 1);
      const [captured] = receiver.requests;
      if (captured === undefined) throw new Error('no request');
      const replay = () =>
        fetch(docReceiver.url, {
          method: 'POST',
          headers: Object.fromEntries(
            ['content-type', 'x-svc-event', 'x-svc-delivery', 'x-svc-timestamp', 'x-svc-signature'].map(
              (h) => [h, header(captured.headers[h]) ?? ''],
            ),
          ),
          body: captured.rawBody,
        });
      const fresh = await replay();
      expect(fresh.status).toBe(200);
      expect(received).toHaveLength(1);

      env.h.clock.advance(5 * MINUTE + 1000);
      const late = await replay();
      expect(late.status).toBe(401);
      expect(await late.text()).toBe('timestamp outside the 5-minute tolerance');

      // Pointed at the documented receiver, the service's own deliveries pass it.
      await env.api('PUT', `/v1/webhooks/${hook.id}`, { json: { url: docReceiver.url } });
      const [second = ''] = (await publish('nfce.cancelada')).deliveryIds;
      expect((await attempted(second, 1)).status).toBe('delivered');
      expect(received).toHaveLength(2);
      expect(received[1]).toMatchObject({ event: 'nfce.cancelada', companyId: env.h.companyId });
    } finally {
      await docReceiver.close();
    }
  });

  it('after rotate-secret deliveries verify with the new secret only, retries of older ones included', async () => {
    const hook = await createHook(receiver.url);
    const ping = (await env.api('POST', `/v1/webhooks/${hook.id}/test-connection`)).body as { jobId: string };
    await attempted(ping.jobId, 1);

    receiver.respond = () => 500;
    const [queued = ''] = (await publish('nfe.cancelada')).deliveryIds;
    await attempted(queued, 1);
    const rotated = (await env.api('POST', `/v1/webhooks/${hook.id}/rotate-secret`)).body as {
      secret: string;
    };
    receiver.respond = () => 200;
    env.h.clock.advance(MINUTE);
    expect((await attempted(queued, 2)).status).toBe('delivered');

    const [before, failedBefore, after] = receiver.requests;
    if (before === undefined || failedBefore === undefined || after === undefined) throw new Error('missing');
    const verify = (r: typeof before, secrets: string[]) =>
      doc.verifySvcSignature({ rawBody: r.rawBody, headers: r.headers, secrets, nowSeconds: clockSeconds() });
    expect(verify(before, [hook.secret])).toBeNull();
    expect(verify(after, [hook.secret])).toBe('signature does not match');
    expect(verify(after, [rotated.secret])).toBeNull();
    // A receiver deploying the new secret may hold both for a while.
    expect(verify(after, [hook.secret, rotated.secret])).toBeNull();
    expect(after.headers['x-svc-delivery']).toBe(failedBefore.headers['x-svc-delivery']);
  });
});

describe('retries', () => {
  it('retries a non-2xx answer with exponential backoff and jitter, recording every attempt', async () => {
    const hook = await createHook(receiver.url);
    const answers = [500, 503, 200];
    receiver.respond = () => answers[receiver.requests.length - 1] ?? 200;
    const [id = ''] = (await publish('nfe.rejeitada')).deliveryIds;

    let row = await attempted(id, 1);
    let now = env.h.clock.now().getTime();
    expect(row.status).toBe('pending');
    let next = Date.parse(row.next_try_at ?? '');
    expect(next).toBeGreaterThanOrEqual(now + 30_000);
    expect(next).toBeLessThanOrEqual(now + 60_000);
    expect(await env.worker.tick()).toBe(0);
    expect(receiver.requests).toHaveLength(1);

    env.h.clock.set(new Date(next));
    row = await attempted(id, 2);
    now = env.h.clock.now().getTime();
    next = Date.parse(row.next_try_at ?? '');
    expect(row).toMatchObject({ status: 'pending', last_status_code: 503 });
    expect(next).toBeGreaterThanOrEqual(now + 60_000);
    expect(next).toBeLessThanOrEqual(now + 120_000);

    env.h.clock.set(new Date(next));
    row = await attempted(id, 3);
    expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, next_try_at: null });

    expect(receiver.requests.map((r) => r.headers['x-svc-delivery'])).toEqual([id, id, id]);
    expect(receiver.requests.map((r) => r.headers['x-svc-attempt'])).toEqual(['1', '2', '3']);
    const view = await detail(hook.id, id);
    expect(view.attemptLog.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, 'receiver answered HTTP 500'],
      [2, 503, 'receiver answered HTTP 503'],
      [3, 200, null],
    ]);
    const list = await env.api('GET', `/v1/webhooks/${hook.id}/deliveries?status=delivered`);
    expect(list.body).toMatchObject({ meta: { page: 1, limit: 20, total: 1, totalPages: 1 } });
    expect((list.body as { data: unknown[] }).data[0]).toMatchObject({
      id,
      event: 'nfe.rejeitada',
      status: 'delivered',
      attempts: 3,
      lastStatusCode: 200,
      nextTryAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      deliveredAt: expect.any(String),
    });
  });

  it('gives up 24 h after the delivery was queued, backing off up to 1 h', async () => {
    await createHook(receiver.url);
    receiver.respond = () => 500;
    const created = env.h.clock.now().getTime();
    const [id = ''] = (await publish('nfe.denegada')).deliveryIds;
    let row = await attempted(id, 1);
    const gaps: number[] = [];
    while (row.status === 'pending') {
      const next = Date.parse(row.next_try_at ?? '');
      gaps.push(next - env.h.clock.now().getTime());
      env.h.clock.set(new Date(next));
      row = await attempted(id, row.attempts + 1);
    }
    expect(row).toMatchObject({ status: 'failed', next_try_at: null, last_status_code: 500 });
    expect(env.h.clock.now().getTime()).toBe(created + 24 * HOUR);
    expect(row.attempts).toBeGreaterThanOrEqual(25);
    expect(row.attempts).toBeLessThanOrEqual(60);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(HOUR);
    expect(gaps[0]).toBeLessThanOrEqual(MINUTE);
  });

  it('a timeout is a failed attempt, retried later', async () => {
    const hook = await createHook(receiver.url);
    receiver.respond = () => 'hang';
    const [id = ''] = (await publish('nfe.cce')).deliveryIds;
    const row = await attempted(id, 1);
    expect(row).toMatchObject({ status: 'pending', last_status_code: null });
    expect(row.last_error).toMatch(/timeout/);
    expect((await detail(hook.id, id)).attemptLog[0]?.error).toMatch(/timeout after \d+ ms/);
  });

  it('a dead receiver holds one slot: other webhooks are delivered meanwhile and the API answers', async () => {
    const dead = await CaptureReceiver.start();
    dead.respond = () => 'hang';
    try {
      const deadHook = await createHook(dead.url, ['nfe.*']);
      await createHook(receiver.url, ['nfe.*']);
      await createHook(`${receiver.url}?second`, ['nfe.*']);
      for (let i = 0; i < 3; i++) await publish('nfe.autorizada');
      const ticking = env.worker.tick();
      await waitFor(() => receiver.requests.length >= 2 && dead.requests.length >= 1);
      expect(dead.requests).toHaveLength(1);
      const started = Date.now();
      expect((await env.api('GET', '/v1/webhooks')).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(500);
      await ticking;
      const stuck = await db()
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts'])
        .where('webhook_id', '=', deadHook.id)
        .execute();
      expect(stuck.map((r) => r.attempts).sort()).toEqual([0, 0, 1]);
    } finally {
      await dead.close();
    }
  });
});

describe('redelivery, pausing and pings', () => {
  it('test-connection sends a ping and answers {message, jobId}', async () => {
    const hook = await createHook(receiver.url, ['nfe.autorizada']);
    const res = await env.api('POST', `/v1/webhooks/${hook.id}/test-connection`);
    expect(res.status).toBe(202);
    const { jobId, message } = res.body as { jobId: string; message: string };
    expect(message).toEqual(expect.any(String));
    expect((await attempted(jobId, 1)).status).toBe('delivered');
    // Picked by its delivery id: pings go out ahead of other deliveries, so a delivery of an earlier test
    // still on its way may reach the shared receiver first.
    const req = receiver.requests.find((r) => r.headers['x-svc-delivery'] === jobId);
    expect(req?.headers['x-svc-event']).toBe('ping');
    expect(JSON.parse(req?.rawBody.toString('utf8') ?? '')).toMatchObject({
      event: 'ping',
      companyId: env.h.companyId,
      data: { webhookId: hook.id },
    });
  });

  it('redelivers a finished delivery as a new delivery with the same body', async () => {
    const hook = await createHook(receiver.url);
    const [original = ''] = (await publish('nfe.autorizada')).deliveryIds;
    await attempted(original, 1);
    const res = await env.api('POST', `/v1/webhooks/${hook.id}/deliveries/${original}/redeliver`);
    expect(res.status).toBe(202);
    const { jobId } = res.body as { jobId: string };
    expect(jobId).not.toBe(original);
    expect((await attempted(jobId, 1)).status).toBe('delivered');
    const [first, again] = receiver.requests;
    expect(again?.rawBody.equals(first?.rawBody ?? Buffer.alloc(0))).toBe(true);
    expect(again?.headers['x-svc-delivery']).toBe(jobId);
    expect(await detail(hook.id, jobId)).toMatchObject({ redeliveryOf: original, attempts: 1 });
    const list = await env.api('GET', `/v1/webhooks/${hook.id}/deliveries`);
    expect((list.body as { meta: { total: number } }).meta.total).toBe(2);
    // §4.6 offset: the second row of the history, alone.
    const ids = (list.body as { data: { id: string }[] }).data.map((d) => d.id);
    expect(ids.sort()).toEqual([original, jobId].sort());
    const second = await env.api('GET', `/v1/webhooks/${hook.id}/deliveries?offset=1&limit=1`);
    expect(second.body).toMatchObject({ meta: { page: 2, limit: 1, total: 2, totalPages: 2 } });
    expect((second.body as { data: { id: string }[] }).data.map((d) => d.id)).toEqual([
      (list.body as { data: { id: string }[] }).data[1]?.id,
    ]);

    receiver.respond = () => 500;
    const [pending = ''] = (await publish('nfe.autorizada')).deliveryIds;
    await attempted(pending, 1);
    const busy = await env.api('POST', `/v1/webhooks/${hook.id}/deliveries/${pending}/redeliver`);
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({
      error: 'invalid_state',
      details: [{ field: 'status', error: "current state is 'pending'" }],
    });
    const unknown = await env.api('POST', `/v1/webhooks/${hook.id}/deliveries/whd_nope/redeliver`);
    expect(unknown.status).toBe(404);
    expect((await env.api('GET', `/v1/webhooks/${hook.id}/deliveries?status=sent`)).status).toBe(400);
  });

  it('ativo:false pauses: nothing new is queued, queued retries wait, pings still go; resuming sends', async () => {
    const hook = await createHook(receiver.url);
    receiver.respond = () => 500;
    const [id = ''] = (await publish('nfce.contingencia')).deliveryIds;
    await attempted(id, 1);
    expect((await env.api('PUT', `/v1/webhooks/${hook.id}`, { json: { ativo: false } })).status).toBe(200);

    expect((await publish('nfce.autorizada')).deliveryIds).toEqual([]);
    receiver.respond = () => 200;
    env.h.clock.advance(2 * HOUR);
    expect(await env.worker.tick()).toBe(0);
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveryRow(id)).toMatchObject({ status: 'pending', attempts: 1 });

    const ping = (await env.api('POST', `/v1/webhooks/${hook.id}/test-connection`)).body as { jobId: string };
    expect((await attempted(ping.jobId, 1)).status).toBe('delivered');
    expect(await deliveryRow(id)).toMatchObject({ status: 'pending', attempts: 1 });

    await env.api('PUT', `/v1/webhooks/${hook.id}`, { json: { ativo: true } });
    expect((await attempted(id, 2)).status).toBe('delivered');
    expect(receiver.requests.map((r) => r.headers['x-svc-event'])).toEqual([
      'nfce.contingencia',
      'ping',
      'nfce.contingencia',
    ]);
  });
});

describe('publishing', () => {
  it('matches events and wildcards, only for active webhooks of the company', async () => {
    const nfeAll = await createHook(receiver.url, ['nfe.*']);
    const everything = await createHook(receiver.url, ['*']);
    const nfceAuth = await createHook(receiver.url, ['nfce.autorizada']);
    const nfse = await createHook(receiver.url, ['nfse.autorizada']);
    await createHook(receiver.url, ['nfce.*'], { ativo: false });

    const other = await env.api('POST', '/v1/companies', {
      key: env.h.apiKey,
      json: companyBody(`${'445566770001'}${cnpjCheckDigits('445566770001')}`),
    });
    const otherId = (other.body as { id: string }).id;
    const foreign = await env.api('POST', `/v1/webhooks?companyId=${otherId}`, {
      key: env.h.apiKey,
      json: { url: receiver.url, events: ['*'], permitirRedeLocal: true },
    });
    expect(foreign.status).toBe(201);

    const targets = async (event: Exclude<WebhookEvent, 'ping'>) => {
      const { deliveryIds } = await publish(event);
      const rows = await Promise.all(deliveryIds.map(deliveryRow));
      return rows.map((r) => r.webhook_id).sort();
    };
    expect(await targets('nfe.autorizada')).toEqual([nfeAll.id, everything.id].sort());
    expect(await targets('nfce.autorizada')).toEqual([everything.id, nfceAuth.id].sort());
    expect(await targets('nfce.contingencia')).toEqual([everything.id]);
    expect(await targets('nfse.autorizada')).toEqual([everything.id, nfse.id].sort());
    const theirs = await publishEvent(db(), env.h.clock, {
      companyId: otherId,
      event: 'nfe.cce',
      data: {},
    });
    expect(theirs.deliveryIds).toHaveLength(1);
    expect((await deliveryRow(theirs.deliveryIds[0] ?? '')).webhook_id).toBe(
      (foreign.body as { id: string }).id,
    );
  });

  it("joins the caller's transaction and never fails the caller's work", async () => {
    const hook = await createHook(receiver.url);
    await expect(
      inTransaction(db(), async (trx) => {
        const { deliveryIds } = await publishEvent(trx, env.h.clock, {
          companyId: env.h.companyId,
          event: 'nfe.autorizada',
          data: {},
        });
        expect(deliveryIds).toHaveLength(1);
        throw new Error('the caller rolls back');
      }),
    ).rejects.toThrow('the caller rolls back');
    expect(await db().selectFrom('webhook_deliveries').select('id').execute()).toEqual([]);

    // A broken subscription makes publishing fail: logged, and the caller's work still commits.
    await db().updateTable('webhooks').set({ events_json: 'not json' }).where('id', '=', hook.id).execute();
    const result = await inTransaction(db(), async (trx) => {
      await trx.updateTable('webhooks').set({ descricao: 'kept' }).where('id', '=', hook.id).execute();
      return publishEvent(
        trx,
        env.h.clock,
        { companyId: env.h.companyId, event: 'nfe.autorizada', data: {} },
        { logger: { debug() {}, info() {}, warn() {}, error: (m) => env.h.logs.push(m) } },
      );
    });
    expect(result.deliveryIds).toEqual([]);
    expect(env.h.logs).toContain('webhook event not queued');
    const row = await db()
      .selectFrom('webhooks')
      .select('descricao')
      .where('id', '=', hook.id)
      .executeTakeFirst();
    expect(row?.descricao).toBe('kept');
  });

  it('publishes a document state once, however often it is reported', async () => {
    await createHook(receiver.url, ['nfce.*']);
    const docRow = {
      id: 'doc_1',
      company_id: env.h.companyId,
      modelo: 65,
      serie: 1,
      n_nf: 7,
      ambiente: 'homologacao',
      tp_emis: 9,
      chave: '3'.repeat(44),
      status: 'contingencia',
      v_nf: '10.00',
      dh_emi: '2026-11-22T12:00:00-03:00',
      c_stat: null,
      x_motivo: null,
      n_prot: null,
      authorized_at: null,
    } as unknown as DocumentRow;
    const first = await publishDocumentEvent(db(), env.h.clock, docRow);
    expect(first?.deliveryIds).toHaveLength(1);
    expect((await publishDocumentEvent(db(), env.h.clock, docRow))?.deliveryIds).toEqual([]);
    const row = await deliveryRow(first?.deliveryIds[0] ?? '');
    expect(row.event).toBe('nfce.contingencia');
    expect(JSON.parse(row.payload)).toMatchObject({ data: { chave: '3'.repeat(44), tpEmis: 9, nNF: 7 } });
    // A kind without its own webhook data (only the NFS-e has one) keeps the generic data, key for key.
    const data = JSON.stringify((JSON.parse(row.payload) as { data: unknown }).data);
    expect(data).toBe(
      `{"documentId":"doc_1","chave":"${'3'.repeat(44)}","modelo":65,"serie":1,"nNF":7,"ambiente":"homologacao",` +
        '"tpEmis":9,"status":"contingencia","cStat":null,"xMotivo":null,"nProt":null,"vNF":"10.00",' +
        '"dhEmi":"2026-11-22T12:00:00-03:00","authorizedAt":null}',
    );
    expect(await publishDocumentEvent(db(), env.h.clock, { ...docRow, status: 'rascunho' })).toBeNull();
  });
});

describe('crash safety', () => {
  it('a delivery left in flight by a crash is recorded as interrupted and sent again with the same id', async () => {
    const hook = await createHook(receiver.url);
    const now = env.h.clock.now().toISOString();
    // What a worker that died mid-request leaves behind: the row in flight and its attempt still open.
    const id = await inTransaction(db(), async (trx) => {
      const [deliveryId = ''] = (
        await publishEvent(trx, env.h.clock, {
          companyId: env.h.companyId,
          event: 'nfe.autorizada',
          data: {},
        })
      ).deliveryIds;
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'in_flight', attempts: 1 })
        .where('id', '=', deliveryId)
        .execute();
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: deliveryId,
          attempt: 1,
          started_at: now,
          finished_at: null,
          status_code: null,
          error: null,
          duration_ms: null,
          response_excerpt: null,
        })
        .execute();
      return deliveryId;
    });
    expect(await env.worker.tick()).toBe(0);
    expect(await env.worker.recover()).toBe(1);
    expect((await attempted(id, 2)).status).toBe('delivered');
    expect(receiver.requests.map((r) => [r.headers['x-svc-delivery'], r.headers['x-svc-attempt']])).toEqual([
      [id, '2'],
    ]);
    expect((await detail(hook.id, id)).attemptLog.map((a) => a.error)).toEqual([
      'interrupted: the service stopped during the request',
      null,
    ]);
  });

  it('refuses at send time a URL the rules no longer allow, without sending', async () => {
    const hook = await createHook(receiver.url);
    await db().updateTable('webhooks').set({ permitir_rede_local: 0 }).where('id', '=', hook.id).execute();
    const [id = ''] = (await publish('nfe.autorizada')).deliveryIds;
    const row = await attempted(id, 1);
    expect(row.status).toBe('pending');
    expect(row.last_error).toBe('refused: must use https:// (http:// only with permitirRedeLocal)');
    expect(receiver.requests).toHaveLength(0);
  });
});
