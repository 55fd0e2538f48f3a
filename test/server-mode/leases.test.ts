// Server mode: a row's lease (outbox message, webhook delivery, print job) belongs to one instance at a time,
// and an instance's start-up recovery leaves alone the rows another live instance is working on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOnPostgres } from '../api/harness.ts';
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { leaseRow, openDatabase, runLeaseHeld, type Db } from '../../src-main/db/client.ts';
import { fromDomainError } from '../../src-main/api/errors.ts';
import { createLogger } from '../../src-main/logger.ts';
import { outboxRepository } from '../../src-main/outbox/repository.ts';
import { claimKey } from '../../src-main/documents/idempotency.ts';
import { PrintWorker } from '../../src-main/printing/worker.ts';
import { WebhookDeliveryWorker } from '../../src-main/webhooks/delivery.ts';
import type { WebhookRequest } from '../../src-main/webhooks/sender.ts';
import { startCluster, type Cluster } from './instances.ts';

describeOnPostgres('server mode: leases', () => {
  let cluster: Cluster;
  /** A second instance's store: its leases are another PostgreSQL session's. */
  let other: { db: Db; close(): Promise<void> };
  let db: Db;

  beforeAll(async () => {
    cluster = await startCluster(1, { startWorker: false });
    db = cluster.instances[0]!.service.db;
    other = openDatabase('unused.sqlite', cluster.url);
  });
  afterAll(async () => {
    await other.close();
    await cluster.stop();
  });

  const at = '2026-11-24T12:00:00.000Z';

  describe('leaseRow on PostgreSQL', () => {
    it('is held by one instance at a time, for numeric and UUID ids, until released', async () => {
      for (const [space, id] of [
        ['outbox', 41],
        ['webhook_delivery', randomUUID()],
        ['print_job', randomUUID()],
      ] as const) {
        const mine = await leaseRow(db, space, id);
        expect(mine).not.toBeNull();
        expect(await leaseRow(other.db, space, id)).toBeNull();
        // One instance's own workers do not share a lease either (each lease is a session of its own).
        expect(await leaseRow(db, space, id)).toBeNull();
        await mine?.();
        const theirs = await leaseRow(other.db, space, id);
        expect(theirs).not.toBeNull();
        await theirs?.();
      }
    });

    it('does not mix spaces: the same id in two spaces are two leases', async () => {
      const a = await leaseRow(db, 'outbox', 7);
      const b = await leaseRow(other.db, 'print_job', '7');
      expect(a).not.toBeNull();
      expect(b).not.toBeNull();
      await a?.();
      await b?.();
    });
  });

  describe('start-up recovery beside a live instance', () => {
    it('marks only the rows whose lease it can take; the held ones once their holder lets go', async () => {
      const companyId = cluster.companyId;
      const outboxIds: number[] = [];
      for (let i = 0; i < 2; i++) {
        outboxIds.push(
          await outboxRepository.enqueue(db, {
            document_id: null,
            company_id: companyId,
            kind: 'inutilizacao',
            message: '<inutNFe/>',
            state: 'in_flight',
            attempts: 1,
            next_try_at: at,
            last_error: null,
            last_c_stat: null,
            created_at: at,
            updated_at: at,
          }),
        );
      }
      const webhookId = randomUUID();
      await db
        .insertInto('webhooks')
        .values({
          id: webhookId,
          company_id: companyId,
          url: 'http://127.0.0.1:9/hook',
          events_json: '["*"]',
          ativo: 1,
          descricao: null,
          permitir_rede_local: 1,
          secret_enc: 'unused',
          secret_rotated_at: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const deliveryIds = [randomUUID(), randomUUID()];
      for (const id of deliveryIds) {
        await db
          .insertInto('webhook_deliveries')
          .values({
            id,
            webhook_id: webhookId,
            company_id: companyId,
            event: 'nfce.autorizada',
            event_id: randomUUID(),
            payload: '{}',
            status: 'in_flight',
            attempts: 1,
            next_try_at: at,
            expires_at: '2099-01-01T00:00:00.000Z',
            last_status_code: null,
            last_error: null,
            last_duration_ms: null,
            redelivery_of: null,
            dedupe_key: null,
            created_at: at,
            updated_at: at,
            delivered_at: null,
          })
          .execute();
        await db
          .insertInto('webhook_attempts')
          .values({
            delivery_id: id,
            attempt: 1,
            started_at: at,
            finished_at: null,
            status_code: null,
            error: null,
            duration_ms: null,
            response_excerpt: null,
          })
          .execute();
      }
      const jobIds = [randomUUID(), randomUUID()];
      for (const id of jobIds) {
        await db
          .insertInto('print_jobs')
          .values({
            id,
            company_id: companyId,
            printer_id: null,
            printer_nome: 'Caixa 1',
            document_id: null,
            reason: 'test',
            kind: 'test',
            bytes: Buffer.from('x'),
            status: 'printing',
            attempts: 1,
            last_error: null,
            next_try_at: at,
            expires_at: '2099-01-01T00:00:00.000Z',
            dedupe_key: null,
            created_at: at,
            updated_at: at,
            printed_at: null,
          })
          .execute();
      }

      // The live instance works on the first row of each kind: it holds their leases.
      const held = [
        await leaseRow(other.db, 'outbox', outboxIds[0]!),
        await leaseRow(other.db, 'webhook_delivery', deliveryIds[0]!),
        await leaseRow(other.db, 'print_job', jobIds[0]!),
      ];
      expect(held).not.toContain(null);

      const clock = { now: () => new Date(at) };
      const logger = createLogger('silent');
      const webhooks = new WebhookDeliveryWorker({
        db,
        clock,
        logger,
        secrets: cluster.instances[0]!.service.secrets,
      });
      const printing = new PrintWorker({ db, clock, logger });
      const recoverAll = async () => [
        await outboxRepository.recoverInterrupted(db, at),
        await webhooks.recover(),
        await printing.recover(),
      ];
      expect(await recoverAll()).toEqual([1, 1, 1]);

      const outbox = await db
        .selectFrom('outbox')
        .select(['id', 'state'])
        .where('id', 'in', outboxIds)
        .execute();
      expect(new Map(outbox.map((r) => [r.id, r.state]))).toEqual(
        new Map([
          [outboxIds[0], 'in_flight'],
          [outboxIds[1], 'unknown'],
        ]),
      );
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'status'])
        .where('id', 'in', deliveryIds)
        .execute();
      expect(new Map(deliveries.map((r) => [r.id, r.status]))).toEqual(
        new Map([
          [deliveryIds[0], 'in_flight'],
          [deliveryIds[1], 'pending'],
        ]),
      );
      const open = await db
        .selectFrom('webhook_attempts')
        .select('delivery_id')
        .where('delivery_id', 'in', deliveryIds)
        .where('finished_at', 'is', null)
        .execute();
      // The held delivery's request is still out: its attempt stays open.
      expect(open.map((r) => r.delivery_id)).toEqual([deliveryIds[0]]);
      const jobs = await db
        .selectFrom('print_jobs')
        .select(['id', 'status'])
        .where('id', 'in', jobIds)
        .execute();
      expect(new Map(jobs.map((r) => [r.id, r.status]))).toEqual(
        new Map([
          [jobIds[0], 'printing'],
          [jobIds[1], 'pending'],
        ]),
      );

      // The holder finished one row (its state moved on), then let go of every lease: only the row still
      // in flight is taken for an interrupted one.
      await db.updateTable('outbox').set({ state: 'done' }).where('id', '=', outboxIds[0]!).execute();
      for (const release of held) await release?.();
      expect(await recoverAll()).toEqual([0, 1, 1]);
      const done = await outboxRepository.findById(db, outboxIds[0]!);
      expect(done?.state).toBe('done');
    });
  });

  describe('a live instance takes back what a dead one left in flight', () => {
    it("as its workers poll: the dead instance's rows (leases ended with its connections), not a live one's", async () => {
      const companyId = cluster.companyId;
      const secrets = cluster.instances[0]!.service.secrets;
      // Only this test's webhooks are active.
      await db.updateTable('webhooks').set({ ativo: 0 }).execute();
      const hook = async () => {
        const id = randomUUID();
        await db
          .insertInto('webhooks')
          .values({
            id,
            company_id: companyId,
            url: 'http://127.0.0.1:9/hook',
            events_json: '["*"]',
            ativo: 1,
            descricao: null,
            permitir_rede_local: 1,
            secret_enc: secrets.seal('segredo'),
            secret_rotated_at: null,
            created_at: at,
            updated_at: at,
          })
          .execute();
        return id;
      };
      const delivery = async (webhookId: string) => {
        const id = randomUUID();
        await db
          .insertInto('webhook_deliveries')
          .values({
            id,
            webhook_id: webhookId,
            company_id: companyId,
            event: 'nfce.autorizada',
            event_id: randomUUID(),
            payload: '{}',
            status: 'in_flight',
            attempts: 1,
            next_try_at: at,
            expires_at: '2099-01-01T00:00:00.000Z',
            last_status_code: null,
            last_error: null,
            last_duration_ms: null,
            redelivery_of: null,
            dedupe_key: null,
            created_at: at,
            updated_at: at,
            delivered_at: null,
          })
          .execute();
        return id;
      };
      const job = async () => {
        const id = randomUUID();
        await db
          .insertInto('print_jobs')
          .values({
            id,
            company_id: companyId,
            printer_id: null,
            printer_nome: 'Caixa 1',
            document_id: null,
            reason: 'test',
            kind: 'test',
            bytes: Buffer.from('x'),
            status: 'printing',
            attempts: 1,
            last_error: null,
            next_try_at: at,
            expires_at: '2099-01-01T00:00:00.000Z',
            dedupe_key: null,
            created_at: at,
            updated_at: at,
            printed_at: null,
          })
          .execute();
        return id;
      };
      const orphanDelivery = await delivery(await hook());
      const liveDelivery = await delivery(await hook());
      const orphanJob = await job();
      const liveJob = await job();

      // One instance dies while sending: its sessions end, and its leases with them.
      const dead = openDatabase('unused.sqlite', `${cluster.url}?application_name=dead-instance`);
      const deadLeases = [
        await leaseRow(dead.db, 'webhook_delivery', orphanDelivery),
        await leaseRow(dead.db, 'print_job', orphanJob),
      ];
      expect(deadLeases).not.toContain(null);
      // (With a timeout, pg_terminate_backend returns once the session is gone.)
      await sql`SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
        WHERE application_name = 'dead-instance'`.execute(db);
      // Another is alive and still sending its rows.
      const held = [
        await leaseRow(other.db, 'webhook_delivery', liveDelivery),
        await leaseRow(other.db, 'print_job', liveJob),
      ];
      expect(held).not.toContain(null);

      try {
        const sent: WebhookRequest[] = [];
        const logger = createLogger('silent');
        const clock = { now: () => new Date() };
        const webhooks = new WebhookDeliveryWorker(
          {
            db,
            clock,
            logger,
            secrets,
            sender: {
              send: (request) => {
                sent.push(request);
                return Promise.resolve({ statusCode: 200, excerpt: 'ok' });
              },
            },
          },
          { orphanSweepMs: 0 },
        );
        await webhooks.tick();
        expect(sent.map((r) => r.headers['X-SVC-Delivery'])).toEqual([orphanDelivery]);
        const states = await db
          .selectFrom('webhook_deliveries')
          .select(['id', 'status', 'attempts'])
          .where('id', 'in', [orphanDelivery, liveDelivery])
          .execute();
        expect(new Map(states.map((r) => [r.id, [r.status, r.attempts]]))).toEqual(
          new Map([
            [orphanDelivery, ['delivered', 2]],
            [liveDelivery, ['in_flight', 1]],
          ]),
        );

        await new PrintWorker({ db, clock, logger }, { orphanSweepMs: 0 }).tick();
        const jobs = await db
          .selectFrom('print_jobs')
          .select(['id', 'status'])
          .where('id', 'in', [orphanJob, liveJob])
          .execute();
        expect(new Map(jobs.map((r) => [r.id, r.status]))).toEqual(
          new Map([
            [orphanJob, 'pending'],
            [liveJob, 'printing'],
          ]),
        );
      } finally {
        for (const release of held) await release?.();
        // The dead instance's handles: their connections are gone (no crash from them), and the pool closes.
        for (const release of deadLeases) await release?.();
        await dead.close();
      }
    });
  });

  describe('an Idempotency-Key pending on another instance', () => {
    it('is waited on while that instance lives, and taken over once it is gone', async () => {
      const clock = { now: () => new Date() };
      const scope = (key: string) => ({ company_id: cluster.companyId, key, route: 'POST /v1/nfce/venda' });
      const ttl = 3600_000;

      // A live instance is still selling under the key: a retry on this instance waits, and never runs the
      // sale a second time.
      expect(await claimKey({ db: other.db, clock }, scope('live'), 'h', ttl, 100)).toMatchObject({
        kind: 'claimed',
      });
      await expect(claimKey({ db, clock }, scope('live'), 'h', ttl, 200)).rejects.toMatchObject({
        code: 'conflict',
      });

      // An instance died while selling under the key: the retry takes it over.
      const dead = openDatabase('unused.sqlite', `${cluster.url}?application_name=dead-seller`);
      expect(await claimKey({ db: dead.db, clock }, scope('dead'), 'h', ttl, 100)).toMatchObject({
        kind: 'claimed',
      });
      await sql`SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
        WHERE application_name = 'dead-seller'`.execute(db);
      expect(await claimKey({ db, clock }, scope('dead'), 'h', ttl, 200)).toMatchObject({
        kind: 'claimed',
        takenOver: true,
      });
      await dead.close();
    });

    it("is not claimed while this instance's run lease is lost: it is taken again first, or the claim is refused", async () => {
      const clock = { now: () => new Date() };
      const scope = (key: string) => ({ company_id: cluster.companyId, key, route: 'POST /v1/nfce/venda' });
      const ttl = 3600_000;

      // The instance's sessions end (the database restarted, a network cut) while it sells under a key.
      const cut = openDatabase('unused.sqlite', `${cluster.url}?application_name=cut-seller`);
      expect(await claimKey({ db: cut.db, clock }, scope('cut-1'), 'h', ttl, 100)).toMatchObject({
        kind: 'claimed',
      });
      await sql`SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
        WHERE application_name = 'cut-seller'`.execute(db);
      // The lease's session is gone; the instance notices as the socket closes (bounded wait, no timing).
      for (let waited = 0; runLeaseHeld(cut.db); waited += 10) {
        if (waited > 10_000) throw new Error('the lost lease was never noticed');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Its next claim takes the run's lease again before it claims: the other instances see the run alive,
      // so the key it was selling under is waited on, not taken over and sold a second time.
      expect(await claimKey({ db: cut.db, clock }, scope('cut-2'), 'h', ttl, 100)).toMatchObject({
        kind: 'claimed',
      });
      expect(runLeaseHeld(cut.db)).toBe(true);
      await expect(claimKey({ db, clock }, scope('cut-1'), 'h', ttl, 200)).rejects.toMatchObject({
        code: 'conflict',
      });
      await cut.close();

      // A store that cannot take its run's lease at all refuses the claim before anything is written:
      // 503 store_unavailable, to be retried.
      const unreachable = openDatabase('unused.sqlite', cluster.url.replace(/:(\d+)\//, ':1/'));
      const refused = await claimKey({ db: unreachable.db, clock }, scope('nowhere'), 'h', ttl, 100).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: 'store_unavailable' });
      const answer = fromDomainError(refused as Parameters<typeof fromDomainError>[0]);
      expect([answer.status, answer.headers]).toEqual([503, { 'Retry-After': '1' }]);
      await unreachable.close();

      // A store that takes the connection and never answers: the claim is refused after its bounded wait for
      // the lease, instead of waiting as long as the connection lasts (here, for ever).
      const silent = net.createServer();
      const sockets = new Set<net.Socket>();
      silent.on('connection', (socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      const mute = openDatabase('unused.sqlite', cluster.url.replace(/:(\d+)\//, `:${port}/`));
      const unanswered = await claimKey({ db: mute.db, clock }, scope('silent'), 'h', ttl, 100).then(
        () => null,
        (error: unknown) => error,
      );
      expect(unanswered).toMatchObject({ code: 'store_unavailable' });
      expect(sockets.size).toBeGreaterThan(0);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await mute.close();
    });
  });
});
