// Server mode on PostgreSQL: the migrations from an empty database, a NFC-e sold end to end through /v1 and
// the lists, on a throwaway cluster (initdb + pg_ctl; the server binaries come with Debian's postgresql).
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrateToLatest, openDatabase } from '../../src-main/db/client.ts';
import { isPostgres, isUniqueViolation } from '../../src-main/db/dialect.ts';
import {
  describeOnPostgres,
  startHarness,
  testPostgresDatabase,
  tempDataDir,
  type Harness,
} from '../api/harness.ts';

const item = {
  codigo: 'A1',
  descricao: 'Agua mineral 500 ml',
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 2,
  valor_unitario: '3.50',
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
};
const nfce = { itens: [item], pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }] };

describeOnPostgres('PostgreSQL store: migrations', () => {
  it('run from an empty database, then apply nothing; numbers come back as numbers', async () => {
    const url = await testPostgresDatabase(tempDataDir());
    const { db, close } = openDatabase('unused.sqlite', url);
    try {
      expect(isPostgres(db)).toBe(true);
      const first = await migrateToLatest(db);
      expect(first.applied.length).toBeGreaterThanOrEqual(30);
      expect((await migrateToLatest(db)).applied).toEqual([]);
      // SQLite's INTEGER is bigint here, read back as a number (as are COUNTs).
      const counted = await sql<{ n: number }>`SELECT count(*) AS n FROM documents`.execute(db);
      expect(counted.rows[0]?.n).toBe(0);
      const checks = await sql<{ def: string }>`
        SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE conrelid = 'documents'::regclass AND contype = 'c'`.execute(db);
      // The model CHECK widened by later migrations, in place.
      expect(checks.rows.map((r) => r.def).join(' ')).toMatch(/modelo.*57.*98.*99/);
    } finally {
      await close();
    }
  });
});

describeOnPostgres('PostgreSQL store: errors', () => {
  it('a unique index refusing a row is told apart on both stores (isUniqueViolation)', async () => {
    const stores = [
      openDatabase(path.join(tempDataDir(), 'balcao.sqlite')),
      openDatabase('unused.sqlite', await testPostgresDatabase(tempDataDir())),
    ];
    for (const { db, close } of stores) {
      try {
        await sql`CREATE TABLE probe (code text UNIQUE, n integer CHECK (n > 0))`.execute(db);
        await sql`INSERT INTO probe (code, n) VALUES ('a', 1)`.execute(db);
        const duplicate = await sql`INSERT INTO probe (code, n) VALUES ('a', 2)`
          .execute(db)
          .catch((e: unknown) => e);
        expect(isUniqueViolation(duplicate)).toBe(true);
        const checked = await sql`INSERT INTO probe (code, n) VALUES ('b', 0)`
          .execute(db)
          .catch((e: unknown) => e);
        expect(checked).toBeInstanceOf(Error);
        expect(isUniqueViolation(checked)).toBe(false);
      } finally {
        await close();
      }
    }
  });
});

describeOnPostgres('PostgreSQL store: the service', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      dataDir: tempDataDir(),
      databaseUrl: await testPostgresDatabase(tempDataDir()),
    });
  });
  afterAll(() => h.stop());

  it('sells a NFC-e: authorized by the sandbox, numbered from 1, its XML the nfeProc', async () => {
    expect(isPostgres(h.service.db)).toBe(true);
    const res = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce });
    expect(res.status).toBe(201);
    const doc = res.body as { id: string; status: string; numero: number; protocolo: string };
    expect(doc.status).toBe('autorizada');
    expect(doc.numero).toBe(1);
    expect(doc.protocolo).toMatch(/^\d{15}$/);
    const xml = await h.request('GET', `/v1/nfce/${doc.id}/xml`);
    expect(xml.text).toContain(`<nProt>${doc.protocolo}</nProt>`);
  });

  it('lists the NFC-e, paged and filtered, with totals from the counters', async () => {
    h.clock.advance(60_000);
    await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce });
    const page = await h.request('GET', `/v1/nfce?companyId=${h.companyId}&limit=1&offset=1`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    const authorized = await h.request('GET', `/v1/nfce?companyId=${h.companyId}&status=autorizada`);
    const items = (authorized.body as { items: { numero: number }[] }).items;
    expect(items.map((d) => d.numero)).toEqual([2, 1]);
  });
});
