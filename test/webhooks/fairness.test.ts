// Fairness of the delivery worker: a backlog of ~1,000 deliveries to receivers that never answer must not
// delay a ping or a delivery to a receiver that does (issue 12, item 12: a ping waited more than 90 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvent } from '../../src-main/webhooks/publisher.ts';
import { CaptureReceiver, startWebhookEnv, waitFor, type WebhookEnv } from './helpers.ts';

/** The test worker's per-request deadline; every bound below is derived from it. */
const TIMEOUT_MS = 5000;
const CONCURRENCY = 4;
/**
 * More webhooks on dead receivers than the worker has slots, and more dead receivers than half of them: the
 * case that starved everyone else (one slot per webhook was the only limit).
 */
const DEAD_RECEIVERS = 3;
const HOOKS_PER_DEAD_RECEIVER = 4;
const DEAD_HOOKS = DEAD_RECEIVERS * HOOKS_PER_DEAD_RECEIVER;
const BACKLOG_PER_HOOK = 85;

let env: WebhookEnv;
let deadReceivers: CaptureReceiver[];
let healthy: CaptureReceiver;

beforeAll(async () => {
  env = await startWebhookEnv({ timeoutMs: TIMEOUT_MS, concurrency: CONCURRENCY });
  deadReceivers = [];
  for (let i = 0; i < DEAD_RECEIVERS; i++) {
    const receiver = await CaptureReceiver.start();
    receiver.respond = () => 'hang';
    deadReceivers.push(receiver);
  }
  healthy = await CaptureReceiver.start();
});
afterAll(async () => {
  await env.worker.stop();
  for (const receiver of deadReceivers) await receiver.close();
  await healthy.close();
  await env.stop();
});

async function createHook(url: string, events: string[]): Promise<string> {
  const res = await env.api('POST', '/v1/webhooks', {
    json: { url, eventos: events, permitirRedeLocal: true },
  });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

/** Milliseconds until `receiver` got a request of `event`, measured from `since`. */
async function arrival(receiver: CaptureReceiver, event: string, since: number): Promise<number> {
  await waitFor(
    () => receiver.requests.some((r) => r.headers['x-svc-event'] === event),
    // Far more than the fair worker needs, far less than draining the backlog would take.
    10 * TIMEOUT_MS,
  );
  return Date.now() - since;
}

describe('a dead receiver with a large backlog', () => {
  it('delays neither a ping nor a delivery to a healthy receiver, nor a ping to the dead one', async () => {
    const deadHooks: string[] = [];
    for (const receiver of deadReceivers)
      for (let i = 0; i < HOOKS_PER_DEAD_RECEIVER; i++)
        deadHooks.push(await createHook(`${receiver.url}?n=${i}`, ['nfe.*']));
    const healthyHook = await createHook(healthy.url, ['nfce.*']);
    const db = env.h.service.db;
    for (let i = 0; i < BACKLOG_PER_HOOK; i++)
      await publishEvent(db, env.h.clock, {
        companyId: env.h.companyId,
        event: 'nfe.autorizada',
        data: { n: i },
      });
    const backlog = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    expect(Number(backlog.n)).toBeGreaterThanOrEqual(DEAD_HOOKS * BACKLOG_PER_HOOK - DEAD_HOOKS);

    env.worker.start();
    // The worker is deep in the backlog: its first requests to the dead receivers have timed out.
    await waitFor(
      () =>
        db
          .selectFrom('webhook_attempts')
          .select('id')
          .where('error', 'like', 'timeout after%')
          .executeTakeFirst(),
      10 * TIMEOUT_MS,
    );
    const dead = deadReceivers[0];
    if (dead === undefined) throw new Error('no dead receiver');

    const started = Date.now();
    const ping = await env.api('POST', `/v1/webhooks/${healthyHook}/test-connection`);
    expect(ping.status).toBe(202);
    await publishEvent(db, env.h.clock, {
      companyId: env.h.companyId,
      event: 'nfce.autorizada',
      data: { healthy: true },
    });
    const deadPing = await env.api('POST', `/v1/webhooks/${deadHooks[0] ?? ''}/test-connection`);
    expect(deadPing.status).toBe(202);

    const [pingMs, deliveryMs, deadPingMs] = await Promise.all([
      arrival(healthy, 'ping', started),
      arrival(healthy, 'nfce.autorizada', started),
      arrival(dead, 'ping', started),
    ]);
    // Measured figures, for the record of the issue.
    console.info(
      `webhook fairness: backlog ${String(backlog.n)} rows to ${DEAD_RECEIVERS} receivers that never answer; ` +
        `ping ${pingMs} ms, healthy delivery ${deliveryMs} ms, ping to the dead receiver ${deadPingMs} ms`,
    );
    // Each well under one request deadline, the least a slot held by a dead receiver would cost; draining
    // the backlog first would take about BACKLOG / CONCURRENCY deadlines (over ten minutes here).
    expect(pingMs).toBeLessThan(TIMEOUT_MS);
    expect(deadPingMs).toBeLessThan(TIMEOUT_MS);
    expect(deliveryMs).toBeLessThan(TIMEOUT_MS);
    // The backlog is still there: fairness, not a drained queue, is what let them through.
    const stillPending = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'pending')
      .where('webhook_id', 'in', deadHooks)
      .executeTakeFirstOrThrow();
    expect(Number(stillPending.n)).toBeGreaterThan(DEAD_HOOKS * BACKLOG_PER_HOOK - 50);
  }, 120_000);
});
