// Server mode: a sale takes its company's write lock and the store's shared, so one company's transactions do
// not hold up another's, while a transaction of the whole store still waits for every company's and they for it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'kysely';
import {
  describeOnPostgres,
  startHarness,
  tempDataDir,
  testPostgresDatabase,
  type Harness,
} from '../api/harness.ts';
import { createCompany } from '../fixtures/outputs/notes.ts';
import { FakePrinter } from '../printing/fake-printer.ts';
import { saleBody } from '../reliability/service-process.ts';
import {
  COMPANY_WRITE_LOCK_SPACE,
  inCompanyTransaction,
  inTransaction,
  STORE_WRITE_LOCK,
} from '../../src-main/db/client.ts';

describeOnPostgres('server mode: write locks per company', () => {
  let h: Harness;
  let url: string;
  let other: string;
  /** Another instance's session, holding a company's write lock as its sale would, until `release`. */
  let holder: pg.Client;
  let watcher: pg.Client;
  /** The second company's receipt printer (printing each sale on its own). */
  const printer = new FakePrinter();
  /** The second company's webhook receiver: the events it got, by name. */
  const received: string[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push((JSON.parse(body) as { event: string }).event);
      res.writeHead(200).end('ok');
    });
  });

  beforeAll(async () => {
    const dataDir = tempDataDir();
    url = await testPostgresDatabase(dataDir);
    h = await startHarness({ dataDir, databaseUrl: url });
    other = await createCompany(h, '11444777000161', 1, 'OUTRA LOJA LTDA');
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = await h.request('POST', `/v1/webhooks?companyId=${other}`, {
      json: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        eventos: ['nfce.autorizada'],
        permitirRedeLocal: true,
      },
    });
    expect(hook.status).toBe(201);
    await printer.listen();
    const made = await h.request('POST', `/v1/companies/${other}/printers`, {
      json: {
        nome: 'Caixa 1',
        tipo: 'rede',
        conexao: { host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true },
        impressaoAutomatica: true,
      },
    });
    expect(made.status).toBe(201);
    holder = new pg.Client({ connectionString: url });
    watcher = new pg.Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
  });
  afterAll(async () => {
    await holder.end();
    await watcher.end();
    await h.stop();
    await printer.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const sell = (companyId: string) =>
    h.request('POST', `/v1/nfce/venda?companyId=${companyId}`, { json: saleBody() });

  async function holdCompany(companyId: string): Promise<void> {
    await holder.query('BEGIN');
    await holder.query(
      `SELECT pg_advisory_xact_lock_shared(${STORE_WRITE_LOCK}), pg_advisory_xact_lock(${COMPANY_WRITE_LOCK_SPACE}, hashtext($1))`,
      [companyId],
    );
  }
  const release = () => holder.query('COMMIT');

  async function settledDeliveries(companyId: string): Promise<number> {
    const { rows } = await watcher.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE company_id = $1 AND status = 'delivered'`,
      [companyId],
    );
    return Number(rows[0]?.n);
  }

  /** Resolves once a session of the store waits for an advisory lock (a write lock held by `holder`). */
  async function someoneWaits(): Promise<void> {
    for (;;) {
      const { rows } = await watcher.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
      );
      if (Number(rows[0]?.n) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("sells for one company while another company's write lock is held, and waits for its own", async () => {
    await holdCompany(h.companyId);
    try {
      // The other company's sale, its authorization settled, its receipt queued and printed, its webhook event
      // queued, claimed, sent and settled: none of it waits.
      const theirs = await sell(other);
      expect(theirs.status).toBe(201);
      expect(theirs.body).toMatchObject({ status: 'autorizada' });
      while (printer.jobs.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      while (!received.includes('nfce.autorizada')) await new Promise((resolve) => setTimeout(resolve, 20));
      while ((await settledDeliveries(other)) < 1) await new Promise((resolve) => setTimeout(resolve, 20));

      const mine = sell(h.companyId);
      await someoneWaits();
      await release();
      expect((await mine).status).toBe(201);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
    }
  });

  it("makes a transaction of the whole store wait for a company's, and a company's for the whole store's", async () => {
    const db = h.service.db;
    await holdCompany(other);
    const whole = inTransaction(
      db,
      async (trx) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(trx)).rows,
    );
    await someoneWaits();
    await release();
    expect(await whole).toEqual([{ one: 1 }]);

    await holder.query('BEGIN');
    await holder.query(`SELECT pg_advisory_xact_lock(${STORE_WRITE_LOCK})`);
    const company = inCompanyTransaction(
      db,
      h.companyId,
      async (trx) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(trx)).rows,
    );
    await someoneWaits();
    await release();
    expect(await company).toEqual([{ one: 1 }]);
  });
});
