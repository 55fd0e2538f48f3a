// Server mode: a sale takes its company's write lock and the store's shared, so one company's transactions do
// not hold up another's, while a transaction of the whole store still waits for every company's and they for it.
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
import {
  COMPANY_WRITE_LOCK_SPACE,
  inCompanyTransaction,
  inTransaction,
  STORE_WRITE_LOCK,
} from '../../src-main/db/client.ts';

const sale = {
  itens: [
    {
      codigo: 'P1',
      descricao: 'Agua mineral',
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 1,
      valor_unitario: '3.90',
      cfop: '5102',
      tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
    },
  ],
  pagamentos: [{ metodo: 'dinheiro', valor: '5.00' }],
};

describeOnPostgres('server mode: write locks per company', () => {
  let h: Harness;
  let url: string;
  let other: string;
  /** Another instance's session, holding a company's write lock as its sale would, until `release`. */
  let holder: pg.Client;
  let watcher: pg.Client;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    url = await testPostgresDatabase(dataDir);
    h = await startHarness({ dataDir, databaseUrl: url });
    other = await createCompany(h, '11444777000161', 1, 'OUTRA LOJA LTDA');
    holder = new pg.Client({ connectionString: url });
    watcher = new pg.Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
  });
  afterAll(async () => {
    await holder.end();
    await watcher.end();
    await h.stop();
  });

  const sell = (companyId: string) =>
    h.request('POST', `/v1/nfce/venda?companyId=${companyId}`, { json: sale });

  async function holdCompany(companyId: string): Promise<void> {
    await holder.query('BEGIN');
    await holder.query(
      `SELECT pg_advisory_xact_lock_shared(${STORE_WRITE_LOCK}), pg_advisory_xact_lock(${COMPANY_WRITE_LOCK_SPACE}, hashtext($1))`,
      [companyId],
    );
  }
  const release = () => holder.query('COMMIT');

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
      // The other company's sale, its authorization settled and its webhook event published: none of it waits.
      const theirs = await sell(other);
      expect(theirs.status).toBe(201);
      expect(theirs.body).toMatchObject({ status: 'autorizada' });

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
