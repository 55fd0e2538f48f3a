// Fiscal documents (NF-e/NFC-e), the persistent transmission queue (outbox) and the contingency mode rows.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('modelo', 'integer', (c) => c.notNull().check(sql`modelo in (55, 65)`))
    .addColumn('serie', 'integer', (c) => c.notNull())
    .addColumn('n_nf', 'integer', (c) => c.notNull())
    .addColumn('ambiente', 'text', (c) => c.notNull().check(sql`ambiente in ('homologacao','producao')`))
    .addColumn('tp_emis', 'integer', (c) => c.notNull())
    .addColumn('chave', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payload_json', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('digest_value', 'text', (c) => c.notNull())
    .addColumn('v_nf', 'text', (c) => c.notNull())
    .addColumn('dh_emi', 'text', (c) => c.notNull())
    .addColumn('qr_code', 'text')
    .addColumn('url_chave', 'text')
    .addColumn('c_stat', 'text')
    .addColumn('x_motivo', 'text')
    .addColumn('n_prot', 'text')
    .addColumn('authorized_at', 'text')
    .addColumn('prot_xml', 'text')
    .addColumn('proc_xml', 'text')
    /** The contingency re-issue that replaced this attempt, and the attempt a re-issue replaces. */
    .addColumn('replaced_by', 'text')
    .addColumn('replaces', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One document per number and key layout: a second row for the same number must be a deliberate re-issue.
  await db.schema
    .createIndex('documents_number')
    .on('documents')
    .columns(['company_id', 'modelo', 'serie', 'ambiente', 'n_nf', 'tp_emis'])
    .unique()
    .execute();
  await db.schema.createIndex('documents_status').on('documents').columns(['company_id', 'status']).execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('document_id', 'text', (c) => c.references('documents.id'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    /** Exact signed XML to transmit, stored once and never re-serialized. */
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_try_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('last_c_stat', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('outbox_due').on('outbox').columns(['state', 'next_try_at']).execute();

  await db.schema
    .createTable('contingency_modes')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('modelo', 'integer', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('since', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contingency_modes_pk', ['company_id', 'modelo'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
