// Server mode with a database that fails the way networks do (through a relay, store-proxy.ts): every wait
// is bounded and answered 503 store_unavailable, a connection reset mid-request does not take the process
// down, the server frees the write lock of a transaction whose instance vanished, and an Idempotency-Key whose
// answer could not be stored is taken by the next retry instead of holding it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'kysely';
import {
  describeOnPostgres,
  startHarness,
  tempDataDir,
  testPostgresDatabase,
  type Harness,
} from '../api/harness.ts';
import { inTransaction, STORE_WRITE_LOCK } from '../../src-main/db/client.ts';
import { claimKey, releaseKey } from '../../src-main/documents/idempotency.ts';
import { salesOfCompany } from './sales-count.ts';
import { saleBody } from '../reliability/service-process.ts';
import { startStoreProxy, type StoreProxy } from './store-proxy.ts';

/** The instance's bound on each wait for the database, short so that the test waits it out quickly. */
const TIMEOUT_MS = 1000;

describeOnPostgres('server mode: a store that stops answering', () => {
  let proxy: StoreProxy;
  let h: Harness;
  let directUrl: string;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => {
    uncaught.push(error);
  };

  beforeAll(async () => {
    const dataDir = tempDataDir();
    directUrl = await testPostgresDatabase(dataDir);
    proxy = await startStoreProxy(directUrl);
    h = await startHarness({ dataDir, databaseUrl: proxy.url, databaseTimeoutMs: TIMEOUT_MS });
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    proxy.resume();
    await h.stop();
    await proxy.close();
  });

  const list = () => h.request('GET', `/v1/nfe?companyId=${h.companyId}&limit=5`);
  const sell = (key: string) =>
    h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
      json: saleBody(),
      headers: { 'Idempotency-Key': key },
    });

  it('answers 503 store_unavailable while the store is silent, and serves again once it answers', async () => {
    expect((await list()).status).toBe(200);
    const before = await salesOfCompany(h.service.db, h.companyId);
    proxy.silence();
    const listed = await list();
    expect(listed.status).toBe(503);
    expect(listed.body).toMatchObject({ error: 'store_unavailable' });
    expect(listed.headers.get('Retry-After')).toBe('1');
    const sold = await sell('silent-1');
    expect(sold.status).toBe(503);
    expect(sold.body).toMatchObject({ error: 'store_unavailable' });

    proxy.resume();
    expect((await list()).status).toBe(200);
    // The retry under the same key sells once.
    const retried = await sell('silent-1');
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ status: 'autorizada' });
    const replayed = await sell('silent-1');
    expect(replayed.status).toBe(201);
    expect((replayed.body as { id: string }).id).toBe((retried.body as { id: string }).id);
    expect(await salesOfCompany(h.service.db, h.companyId)).toBe(before + 1);
  });

  it('survives connections reset under requests in progress', async () => {
    proxy.silence();
    const pending = [list(), sell('reset-1')];
    // Both requests are now waiting on the database.
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.reset();
    const answers = await Promise.all(pending);
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: 'store_unavailable' });
    }
    proxy.resume();
    expect((await list()).status).toBe(200);
    expect((await sell('reset-1')).status).toBe(201);
    expect(uncaught).toEqual([]);
  });

  it("frees the write lock of a transaction whose instance stopped answering, and fails that transaction's work", async () => {
    const work = inTransaction(h.service.db, async (trx) => {
      await sql`SELECT 1`.execute(trx);
      proxy.silence();
      await sql`SELECT 1`.execute(trx);
    });
    await expect(work).rejects.toMatchObject({ code: 'store_unavailable' });
    // The instance's session still holds the store's write lock on the server, which has heard nothing of it;
    // another instance's transaction gets the lock once the server ends the idle session.
    const other = new pg.Client({ connectionString: directUrl, statement_timeout: 20_000 });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT pg_advisory_xact_lock(${STORE_WRITE_LOCK})`);
      await other.query('COMMIT');
    } finally {
      await other.end();
    }
    proxy.resume();
    expect((await list()).status).toBe(200);
  });

  describe('an Idempotency-Key whose request ended while the store was unreachable', () => {
    const clock = { now: () => new Date() };
    const scope = (key: string) => ({ company_id: h.companyId, key, route: 'POST /test' });

    it('is taken over at once by the next retry of this instance, not waited on', async () => {
      const db = h.service.db;
      expect(await claimKey({ db, clock }, scope('orphan'), 'h', 60_000, 100)).toMatchObject({
        kind: 'claimed',
        takenOver: false,
      });
      // While its request runs, a retry waits for it (and gives up after its wait).
      await expect(claimKey({ db, clock }, scope('orphan'), 'h', 60_000, 100)).rejects.toMatchObject({
        code: 'conflict',
      });
      proxy.silence();
      await expect(releaseKey(db, scope('orphan'))).rejects.toMatchObject({ code: 'store_unavailable' });
      proxy.resume();
      expect(await claimKey({ db, clock }, scope('orphan'), 'h', 60_000, 100)).toMatchObject({
        kind: 'claimed',
        takenOver: true,
      });
      await releaseKey(db, scope('orphan'));
    });
  });
});
