// What differs between the two stores (embedded SQLite, PostgreSQL in server mode) where SQL text must differ:
// the test of which one a Kysely instance talks to, and the few DDL helpers migrations need on PostgreSQL.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** True when `db` talks to PostgreSQL (server mode, BALCAO_DATABASE_URL). */
export function isPostgres(db: Kysely<unknown> | { getExecutor(): { adapter: unknown } }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** True for a BALCAO_DATABASE_URL that names a PostgreSQL server. */
export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Replaces the CHECK constraints on `column` of `table` by `check` (PostgreSQL changes a CHECK in place, where
 * SQLite rebuilds the table). Constraints that name other columns too are left alone.
 */
export async function replaceColumnCheck(
  db: Kysely<unknown>,
  table: string,
  column: string,
  check: string,
): Promise<void> {
  const found = await sql<{ conname: string }>`
    SELECT c.conname FROM pg_constraint c
    JOIN pg_class t ON t.oid = c.conrelid AND t.relname = ${table}
    JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attname = ${column}
    WHERE c.contype = 'c' AND c.conkey = ARRAY[a.attnum]::smallint[]`.execute(db);
  for (const { conname } of found.rows)
    await sql`ALTER TABLE ${sql.table(table)} DROP CONSTRAINT ${sql.ref(conname)}`.execute(db);
  await sql`ALTER TABLE ${sql.table(table)} ADD CHECK (${sql.raw(check)})`.execute(db);
}

/**
 * True when `error` is a unique index refusing a row, as either store reports it: better-sqlite3's
 * SQLITE_CONSTRAINT_UNIQUE (or _PRIMARYKEY), PostgreSQL's SQLSTATE 23505 (unique_violation).
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
