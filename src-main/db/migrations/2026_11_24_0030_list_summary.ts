// The NF-e/NFC-e lists without XML and without a count of every row (issue 18, item 0): each note keeps the
// part of its view read from the XML (totals and items) as a JSON summary written with the XML, and the store
// keeps the lists' totals per company, model, status and emission day, kept exact by triggers, so a total
// sums a few hundred counters instead of counting every listed row.
import { sql, type Kysely, type QueryExecutorProvider } from 'kysely';
import { listSummaryColumn, SUMMARIZED_MODELOS } from '../../documents/list-summary.ts';
import { createCounts, createCountTriggers, dropCountTriggers, KEY_0030 } from './document-counts.ts';

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

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE documents ADD COLUMN list_summary TEXT`.execute(db);
  await createCounts(db, 'document_counts', KEY_0030);
  await createCountTriggers(db, KEY_0030);
  await backfillListSummaries(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropCountTriggers(db);
  await sql`DROP TABLE document_counts`.execute(db);
  await sql`ALTER TABLE documents DROP COLUMN list_summary`.execute(db);
}
