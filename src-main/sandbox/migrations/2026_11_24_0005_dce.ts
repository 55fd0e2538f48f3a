// The sandbox authority's DC-e 1.00 (model 99) state: the declarations it authorized and the events (the
// cancellation, 110111) registered for them.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dce_documents')
    .addColumn('chave', 'text', (c) => c.primaryKey())
    // The issuing system's CNPJ as the key carries it (the signer: marketplace, carrier or the declarant).
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('c_uf', 'integer', (c) => c.notNull())
    .addColumn('serie', 'integer', (c) => c.notNull())
    .addColumn('n_dc', 'integer', (c) => c.notNull())
    .addColumn('tp_emit', 'integer', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    // CNPJ, series, number and issuer type (and environment): a second key for them is a duplicate (539).
    .addColumn('natural_key', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('autorizada','cancelada')`))
    .addColumn('n_prot', 'text', (c) => c.notNull())
    .addColumn('dh_recbto', 'text', (c) => c.notNull())
    .addColumn('authorized_at', 'text', (c) => c.notNull())
    .addColumn('dig_val', 'text', (c) => c.notNull())
    .addColumn('dh_emi', 'text', (c) => c.notNull())
    .addColumn('v_dc', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('prot_xml', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('dce_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    // infEvento/@Id: a second request with the same Id is answered with this registration.
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('chave', 'text', (c) => c.notNull())
    .addColumn('tp_evento', 'text', (c) => c.notNull())
    .addColumn('n_seq_evento', 'integer', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    .addColumn('c_orgao', 'integer', (c) => c.notNull())
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('dh_evento', 'text', (c) => c.notNull())
    .addColumn('n_prot', 'text', (c) => c.notNull())
    .addColumn('dh_reg_evento', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('ret_xml', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dce_events_chave').on('dce_events').column('chave').execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
