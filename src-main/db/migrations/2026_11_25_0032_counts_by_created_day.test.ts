// Migration 0032: the list counters keyed by creation day too start equal to a count of the rows stored before
// it and stay equal through inserts, changes and deletes; migrated down, the counters of 0030 come back exact.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { KEY_0030, KEY_0032 } from './document-counts.ts';
import { expectCountersExact, migrateTo, useScratchDatabase, type ScratchDb } from './scratch-database.ts';

const scratchDb = useScratchDatabase();
const CMP = '8e9a4b1e-0000-4000-8000-000000000320';

/** Note n, created on `createdAt` (UTC) and emitted on `dhEmi` (Brasília time: its day may be the one before). */
async function insert(db: ScratchDb, n: number, status: string, createdAt: string, dhEmi: string) {
  await sql`INSERT INTO documents (id, company_id, modelo, serie, n_nf, ambiente, tp_emis, chave, status,
      payload_json, xml, digest_value, v_nf, dh_emi, created_at, updated_at)
    VALUES (${`d${n}`}, ${CMP}, 65, 1, ${n}, 'homologacao', 1, ${String(n).padStart(44, '0')},
      ${status}, '{}', '<NFe/>', 'x', '1.00', ${dhEmi}, ${createdAt}, 'x')`.execute(db);
}

describe('migration 2026_11_25_0032_counts_by_created_day', () => {
  it('counts the rows stored before it by creation day, keeps them exact, and migrates down', async () => {
    const db = scratchDb();
    await migrateTo(db, '2026_11_24_0031_replaced_attempts_index');
    // A store of documents alone: the company they name is not what this test is about.
    await sql`PRAGMA foreign_keys = OFF`.execute(db);
    for (let n = 1; n <= 9; n++) {
      const day = `2026-05-0${1 + (n % 4)}`;
      // Created at 01:00 UTC: emitted the evening before in Brasília time.
      await insert(
        db,
        n,
        n % 3 === 0 ? 'erro' : 'autorizada',
        `${day}T01:00:00.000Z`,
        `${day}T22:00:00-03:00`,
      );
    }
    await migrateTo(db, '2026_11_25_0032_counts_by_created_day');
    await expectCountersExact(db, KEY_0032);
    const byDay = await sql<{ created_day: string; n: number }>`SELECT created_day, sum(n) AS n
      FROM document_counts GROUP BY created_day ORDER BY created_day`.execute(db);
    expect(byDay.rows.map((r) => [r.created_day, Number(r.n)])).toEqual([
      ['2026-05-01', 2],
      ['2026-05-02', 3],
      ['2026-05-03', 2],
      ['2026-05-04', 2],
    ]);

    await insert(db, 10, 'rascunho', '2026-05-09T12:00:00.000Z', '2026-05-09T09:00:00-03:00');
    await sql`UPDATE documents SET status = 'cancelada' WHERE n_nf IN (1, 2)`.execute(db);
    await sql`UPDATE documents SET dh_emi = '2026-06-01T10:00:00-03:00' WHERE n_nf = 3`.execute(db);
    // Rows never change their creation instant, but the counters would follow if one did.
    await sql`UPDATE documents SET created_at = '2026-04-30T23:59:59.000Z' WHERE n_nf = 4`.execute(db);
    await sql`UPDATE documents SET status = status, created_at = created_at WHERE n_nf = 5`.execute(db);
    await sql`DELETE FROM documents WHERE n_nf = 6`.execute(db);
    await expectCountersExact(db, KEY_0032);

    await migrateTo(db, '2026_11_24_0031_replaced_attempts_index');
    await expectCountersExact(db, KEY_0030);
    await insert(db, 11, 'autorizada', '2026-05-10T12:00:00.000Z', '2026-05-10T09:00:00-03:00');
    await sql`UPDATE documents SET status = 'erro' WHERE n_nf = 11`.execute(db);
    await expectCountersExact(db, KEY_0030);
  });
});
