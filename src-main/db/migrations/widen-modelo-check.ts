// For migrations that let a new fiscal model into the tables keyed on `modelo`: SQLite cannot change a CHECK
// in place, so each table is rebuilt from its own stored DDL with only the CHECK changed (as 0023 and 0024
// did, each writing it out; they stay as they ran, migrations being append-only).
import { sql, type Kysely } from 'kysely';
import { isPostgres, replaceColumnCheck } from '../dialect.ts';

/** The tables whose `modelo` CHECK lists the models the store keeps. */
export const MODELO_TABLES = ['documents', 'number_sequences', 'number_voids'] as const;

/**
 * Rebuilds `table` with `from` replaced by `to` (the 12-step procedure of the SQLite ALTER TABLE page): rows
 * copied as they are, indexes and triggers recreated from their stored DDL. Run inside a transaction with foreign keys
 * off (see widenModeloChecks).
 */
async function rebuildWithCheck(db: Kysely<unknown>, table: string, from: string, to: string): Promise<void> {
  const found = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ${table}
  `.execute(db);
  const ddl = found.rows[0]?.sql;
  if (ddl === undefined) throw new Error(`table ${table} not found`);
  if (!ddl.includes(from)) throw new Error(`table ${table} lacks the CHECK "${from}"`);
  const indexes = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = ${table} AND sql IS NOT NULL
  `.execute(db);
  const temp = `${table}_widened`;
  const created = ddl
    .replace(from, to)
    .replace(new RegExp(`^CREATE TABLE "?${table}"?`), `CREATE TABLE "${temp}"`);
  await sql.raw(created).execute(db);
  await sql.raw(`INSERT INTO "${temp}" SELECT * FROM "${table}"`).execute(db);
  await sql.raw(`DROP TABLE "${table}"`).execute(db);
  await sql.raw(`ALTER TABLE "${temp}" RENAME TO "${table}"`).execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
}

/**
 * Replaces the `modelo` CHECK `from` by `to` on every table of MODELO_TABLES, in one transaction. Foreign keys
 * are off meanwhile (dropping the old table must not touch the rows that reference it) and checked at the end.
 */
export async function widenModeloChecks(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  if (isPostgres(db)) {
    // PostgreSQL (server mode) changes the CHECK in place: `to` is written `check (...)`.
    for (const table of MODELO_TABLES)
      await replaceColumnCheck(db, table, 'modelo', to.replace(/^check /, ''));
    return;
  }
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      for (const table of MODELO_TABLES) await rebuildWithCheck(trx, table, from, to);
      const broken = await sql`PRAGMA foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error(`foreign keys broken by the rebuild for ${to}`);
    });
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
