// Indexes that serve every §4.x list of documents in its own order (newest first, then id), so that a page
// reads only its rows instead of sorting the whole filtered set (issue 18, item 0), and the queue's rows of
// a document, which every list reads to show a cancellation waiting for the authority.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A kind's list (one model) and the NFC-e list by offset: the model, optionally a creation period.
  await sql`CREATE INDEX documents_list_modelo
    ON documents (company_id, modelo, created_at DESC, id)`.execute(db);
  // A kind's list by status (and period).
  await sql`CREATE INDEX documents_list_modelo_status
    ON documents (company_id, modelo, status, created_at DESC, id)`.execute(db);
  // The NF-e list shows two models at once: the company's documents in list order, the model read from
  // the index, so the page and its count never touch the table for rows they skip.
  await sql`CREATE INDEX documents_list_company
    ON documents (company_id, created_at DESC, id, modelo)`.execute(db);
  // The NF-e list by status: models and emission dates are read from the index; it also serves every
  // (company_id, status) lookup the index it replaces served.
  await sql`CREATE INDEX documents_list_status
    ON documents (company_id, status, created_at DESC, id, modelo, dh_emi)`.execute(db);
  await sql`DROP INDEX documents_status`.execute(db);
  await sql`CREATE INDEX outbox_document ON outbox (document_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX outbox_document`.execute(db);
  await sql`CREATE INDEX documents_status ON documents (company_id, status)`.execute(db);
  for (const name of [
    'documents_list_status',
    'documents_list_company',
    'documents_list_modelo_status',
    'documents_list_modelo',
  ])
    await sql`DROP INDEX ${sql.ref(name)}`.execute(db);
}
