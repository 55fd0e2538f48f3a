// The NF-e/NFC-e lists without XML and without a count of every row (issue 18, item 0): each note keeps the
// part of its view read from the XML (totals and items) as a JSON summary written with the XML, and the store
// keeps the lists' totals per company, model, status and emission day, kept exact by triggers, so a total
// sums a few hundred counters instead of counting every listed row.
import { PostgresAdapter, sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import { listSummaryColumn, SUMMARIZED_MODELOS } from '../../documents/list-summary.ts';

/** Rows summarized per batch: each batch reads and writes a few MB, however large the store. */
export const SUMMARY_BATCH = 500;

/**
 * Writes the summary of every NF-e/NFC-e stored without one, in batches in id order; idempotent (a row
 * already summarized is skipped), so it may run again after an interruption. Returns the rows written.
 */
export async function backfillListSummaries(
  db: QueryExecutorProvider,
  batch = SUMMARY_BATCH,
): Promise<number> {
  let written = 0;
  for (let after = ''; ;) {
    const rows = await sql<{ id: string; modelo: number; xml: string }>`
      SELECT id, modelo, xml FROM documents
      WHERE id > ${after} AND list_summary IS NULL AND modelo IN (${sql.join(SUMMARIZED_MODELOS)})
      ORDER BY id LIMIT ${batch}`.execute(db);
    if (rows.rows.length === 0) return written;
    for (const row of rows.rows) {
      await sql`UPDATE documents SET list_summary = ${listSummaryColumn(row.modelo, row.xml)}
        WHERE id = ${row.id}`.execute(db);
    }
    written += rows.rows.length;
    after = rows.rows[rows.rows.length - 1]?.id ?? after;
  }
}

/** The emission day of a row as the list's date filters compare it (dh_emi's date part). */
const day = (row: 'new' | 'old') => `substr(${row}.dh_emi, 1, 10)`;
const countUp = (row: 'new' | 'old') => `
  INSERT INTO document_counts (company_id, modelo, status, dia, n)
  VALUES (${row}.company_id, ${row}.modelo, ${row}.status, ${day(row)}, 1)
  ON CONFLICT (company_id, modelo, status, dia) DO UPDATE SET n = n + 1;`;
const countDown = (row: 'new' | 'old') => `
  UPDATE document_counts SET n = n - 1
  WHERE company_id = ${row}.company_id AND modelo = ${row}.modelo AND status = ${row}.status
    AND dia = ${day(row)};`;

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(`CREATE TRIGGER document_counts_insert AFTER INSERT ON documents BEGIN ${countUp('new')} END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER document_counts_delete AFTER DELETE ON documents BEGIN ${countDown('old')} END`)
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER document_counts_update AFTER UPDATE OF company_id, modelo, status, dh_emi ON documents
      WHEN old.company_id IS NOT new.company_id OR old.modelo IS NOT new.modelo
        OR old.status IS NOT new.status OR ${day('old')} IS NOT ${day('new')}
      BEGIN ${countDown('old')} ${countUp('new')} END`,
    )
    .execute(db);
}

/** The same triggers in PostgreSQL's form (server mode): one row-level function for the three. */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `CREATE FUNCTION document_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN ${countDown('old').replace('n = n - 1', 'n = document_counts.n - 1')} END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN ${countUp('new').replace('n = n + 1', 'n = document_counts.n + 1')} END IF;
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
      `CREATE TRIGGER document_counts_update AFTER UPDATE OF company_id, modelo, status, dh_emi ON documents
      FOR EACH ROW WHEN (old.company_id IS DISTINCT FROM new.company_id OR old.modelo IS DISTINCT FROM new.modelo
        OR old.status IS DISTINCT FROM new.status OR ${day('old')} IS DISTINCT FROM ${day('new')})
      EXECUTE FUNCTION document_counts_move()`,
    )
    .execute(db);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE documents ADD COLUMN list_summary TEXT`.execute(db);
  await sql`CREATE TABLE document_counts (
    company_id TEXT NOT NULL,
    modelo INTEGER NOT NULL,
    status TEXT NOT NULL,
    dia TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (company_id, modelo, status, dia)
  )`.execute(db);
  await sql`INSERT INTO document_counts (company_id, modelo, status, dia, n)
    SELECT company_id, modelo, status, substr(dh_emi, 1, 10), count(*) FROM documents
    GROUP BY company_id, modelo, status, substr(dh_emi, 1, 10)`.execute(db);
  // Every write of a row's company, model, status or emission date moves it between counters, in the
  // write's own transaction: whatever path writes the row, the totals stay exact.
  if (db.getExecutor().adapter instanceof PostgresAdapter) await postgresTriggers(db);
  else await sqliteTriggers(db);
  await backfillListSummaries(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const name of ['document_counts_update', 'document_counts_delete', 'document_counts_insert'])
    await sql`DROP TRIGGER ${sql.ref(name)}${postgres ? sql` ON documents` : sql``}`.execute(db);
  if (postgres) await sql`DROP FUNCTION document_counts_move()`.execute(db);
  await sql`DROP TABLE document_counts`.execute(db);
  await sql`ALTER TABLE documents DROP COLUMN list_summary`.execute(db);
}
