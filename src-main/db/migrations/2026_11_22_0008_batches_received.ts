// NF-e batches (POST /v1/nfe/batch), stored answers of Idempotency-Key requests, and the notes addressed to
// the company (NFeDistribuicaoDFe, NT 2014.002) with their events, manifestations and distribution cursor.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('batches_company')
    .on('batches')
    .columns(['company_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('batch_items')
    .addColumn('batch_id', 'text', (c) => c.notNull().references('batches.id'))
    /** Index of the note in the request's `notas` array. */
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addPrimaryKeyConstraint('batch_items_pk', ['batch_id', 'position'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    /** Method and route pattern, e.g. `POST /v1/nfe/:id/send`. */
    .addColumn('route', 'text', (c) => c.notNull())
    /** SHA-256 of the concrete path, query and body: the same key with another request is a conflict. */
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending','done')`))
    .addColumn('status_code', 'integer')
    .addColumn('content_type', 'text')
    .addColumn('body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['company_id', 'key', 'route'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expiry')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();

  await db.schema
    .createTable('received_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('chave', 'text', (c) => c.notNull())
    .addColumn('emitente_cnpj', 'text')
    .addColumn('emitente_nome', 'text')
    .addColumn('emitente_ie', 'text')
    .addColumn('tp_nf', 'integer')
    /** vNF as decimal text. */
    .addColumn('valor', 'text')
    .addColumn('dh_emi', 'text')
    .addColumn('situacao', 'text', (c) =>
      c.notNull().check(sql`situacao in ('autorizada','denegada','cancelada')`),
    )
    .addColumn('n_prot', 'text')
    .addColumn('dh_recbto', 'text')
    /** NSU and schema of the document the row was last built from; xml is that document. */
    .addColumn('nsu', 'text', (c) => c.notNull())
    .addColumn('schema', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    /** 1 once the whole NF-e (procNFe) arrived, 0 while only the summary (resNFe) is known. */
    .addColumn('completa', 'integer', (c) => c.notNull().defaultTo(0))
    /** Last manifestation asked: ciencia, confirmacao, desconhecimento, nao_realizada; null for none. */
    .addColumn('manifestacao', 'text')
    /** pendente (queued), registrada (135/136/573), rejeitada. */
    .addColumn('manifestacao_status', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('received_notes_chave')
    .on('received_notes')
    .columns(['company_id', 'chave'])
    .unique()
    .execute();
  await db.schema
    .createIndex('received_notes_list')
    .on('received_notes')
    .columns(['company_id', 'dh_emi'])
    .execute();

  await db.schema
    .createTable('received_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('chave', 'text', (c) => c.notNull())
    .addColumn('tp_evento', 'text')
    .addColumn('n_seq_evento', 'integer')
    .addColumn('nsu', 'text', (c) => c.notNull())
    .addColumn('schema', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('received_events_nsu')
    .on('received_events')
    .columns(['company_id', 'nsu'])
    .unique()
    .execute();
  await db.schema
    .createIndex('received_events_chave')
    .on('received_events')
    .columns(['company_id', 'chave'])
    .execute();

  await db.schema
    .createTable('received_manifestations')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('received_note_id', 'text', (c) => c.notNull().references('received_notes.id'))
    .addColumn('tipo', 'text', (c) => c.notNull())
    .addColumn('tp_evento', 'text', (c) => c.notNull())
    .addColumn('justificativa', 'text')
    .addColumn('outbox_id', 'integer', (c) => c.notNull().references('outbox.id'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pendente','registrada','rejeitada')`))
    .addColumn('c_stat', 'text')
    .addColumn('x_motivo', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('received_manifestations_note')
    .on('received_manifestations')
    .columns(['received_note_id', 'id'])
    .execute();

  await db.schema
    .createTable('distribution_state')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id'))
    /** The NSU cursor (15 digits) and the highest NSU the authority said it has. */
    .addColumn('ult_nsu', 'text', (c) => c.notNull())
    .addColumn('max_nsu', 'text', (c) => c.notNull())
    /** After a 137 (or a 656) the authority must not be asked again before this (rule 656, NT 2014.002). */
    .addColumn('blocked_until', 'text')
    .addColumn('last_sync_at', 'text')
    .addColumn('last_c_stat', 'text')
    .addColumn('last_x_motivo', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
