// The counters of the NF-e/NFC-e lists (table document_counts) and the triggers that keep them exact, written for
// a given key: migration 0030 keyed them by company, model, status and emission day, 0032 adds the creation day.
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** A trigger's row (`new`/`old`), or null for the documents table itself (a SELECT over it). */
type Row = 'new' | 'old' | null;

/** One column of the counters' key: its name, the documents column it comes from, and how from a row. */
export interface CountKey {
  column: string;
  source: string;
  of: (row: Row) => string;
}

const ref = (row: Row, column: string) => (row === null ? column : `${row}.${column}`);
const plain = (column: string): CountKey => ({ column, source: column, of: (row) => ref(row, column) });

/** Migration 0030's key; the emission day as the list's date filters compare it (dh_emi's date part). */
export const KEY_0030: readonly CountKey[] = [
  plain('company_id'),
  plain('modelo'),
  plain('status'),
  { column: 'dia', source: 'dh_emi', of: (row) => `substr(${ref(row, 'dh_emi')}, 1, 10)` },
];

/** Migration 0032's key: the creation day too (created_at's date part, UTC), the list's order. */
export const KEY_0032: readonly CountKey[] = [
  ...KEY_0030,
  { column: 'created_day', source: 'created_at', of: (row) => `substr(${ref(row, 'created_at')}, 1, 10)` },
];

const columns = (key: readonly CountKey[]) => key.map((k) => k.column).join(', ');

/** A table of counters with `key` (`into`), filled from the documents stored now. */
export async function createCounts(
  db: Kysely<unknown>,
  into: string,
  key: readonly CountKey[],
): Promise<void> {
  const defs = key
    .map((k) => `${k.column} ${k.column === 'modelo' ? 'INTEGER' : 'TEXT'} NOT NULL`)
    .join(', ');
  await sql
    .raw(`CREATE TABLE ${into} (${defs}, n INTEGER NOT NULL, PRIMARY KEY (${columns(key)}))`)
    .execute(db);
  const values = key.map((k) => k.of(null)).join(', ');
  await sql
    .raw(
      `INSERT INTO ${into} (${columns(key)}, n) SELECT ${values}, count(*) FROM documents GROUP BY ${values}`,
    )
    .execute(db);
}

const countUp = (key: readonly CountKey[], row: 'new' | 'old') => `
  INSERT INTO document_counts (${columns(key)}, n)
  VALUES (${key.map((k) => k.of(row)).join(', ')}, 1)
  ON CONFLICT (${columns(key)}) DO UPDATE SET n = n + 1;`;
const countDown = (key: readonly CountKey[], row: 'new' | 'old') => `
  UPDATE document_counts SET n = n - 1
  WHERE ${key.map((k) => `${k.column} = ${k.of(row)}`).join(' AND ')};`;

/**
 * Every write of a row's key columns moves it between counters, in the write's own transaction: whatever path
 * writes the row, the totals stay exact.
 */
export async function createCountTriggers(db: Kysely<unknown>, key: readonly CountKey[]): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const sources = key.map((k) => k.source).filter((s, i, all) => all.indexOf(s) === i);
  const distinct = postgres ? 'IS DISTINCT FROM' : 'IS NOT';
  const moved = key.map((k) => `${k.of('old')} ${distinct} ${k.of('new')}`).join(' OR ');
  if (!postgres) {
    await sql
      .raw(`CREATE TRIGGER document_counts_insert AFTER INSERT ON documents BEGIN ${countUp(key, 'new')} END`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER document_counts_delete AFTER DELETE ON documents BEGIN ${countDown(key, 'old')} END`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER document_counts_update AFTER UPDATE OF ${sources.join(', ')} ON documents
        WHEN ${moved}
        BEGIN ${countDown(key, 'old')} ${countUp(key, 'new')} END`,
      )
      .execute(db);
    return;
  }
  // PostgreSQL (server mode): one row-level function for the three.
  await sql
    .raw(
      `CREATE FUNCTION document_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN ${countDown(key, 'old').replace('n = n - 1', 'n = document_counts.n - 1')} END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN ${countUp(key, 'new').replace('n = n + 1', 'n = document_counts.n + 1')} END IF;
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  for (const [name, event] of [
    ['document_counts_insert', 'INSERT'],
    ['document_counts_delete', 'DELETE'],
  ])
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER ${event} ON documents FOR EACH ROW EXECUTE FUNCTION document_counts_move()`,
      )
      .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER document_counts_update AFTER UPDATE OF ${sources.join(', ')} ON documents
      FOR EACH ROW WHEN (${moved})
      EXECUTE FUNCTION document_counts_move()`,
    )
    .execute(db);
}

export async function dropCountTriggers(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const name of ['document_counts_update', 'document_counts_delete', 'document_counts_insert'])
    await sql`DROP TRIGGER ${sql.ref(name)}${postgres ? sql` ON documents` : sql``}`.execute(db);
  if (postgres) await sql`DROP FUNCTION document_counts_move()`.execute(db);
}

/** Re-keys the counters: a new table with `key` filled from the documents, triggers written for it. */
export async function rekeyCounts(db: Kysely<unknown>, key: readonly CountKey[]): Promise<void> {
  await dropCountTriggers(db);
  await createCounts(db, 'document_counts_rekeyed', key);
  await sql`DROP TABLE document_counts`.execute(db);
  await sql`ALTER TABLE document_counts_rekeyed RENAME TO document_counts`.execute(db);
  await createCountTriggers(db, key);
}
