// Events of a note (CC-e 110110, and the cancellations the queue sent, adopted from the outbox) and the
// inutilizações of number ranges, each tied to the outbox row that delivers it. The tables are typed
// where they are used (documents/events-service.ts, documents/inutilizar.ts) with Kysely's withTables.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('document_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('tp_evento', 'text', (c) => c.notNull())
    .addColumn('n_seq', 'integer', (c) => c.notNull().check(sql`n_seq between 1 and 20`))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('processando','registrada','rejeitada')`),
    )
    /** What the caller asked for, as JSON: {"correcao": …} for a CC-e, {"justificativa": …} for a cancellation. */
    .addColumn('payload', 'text', (c) => c.notNull())
    /** The signed envEvento exactly as queued. */
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('outbox_id', 'integer', (c) => c.references('outbox.id'))
    .addColumn('c_stat', 'text')
    .addColumn('x_motivo', 'text')
    .addColumn('n_prot', 'text')
    .addColumn('proc_xml', 'text')
    .addColumn('registered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A sequence number is taken while its event is on its way or registered; a rejected one may be reused.
  await sql`create unique index document_events_seq on document_events (document_id, tp_evento, n_seq)
    where status <> 'rejeitada'`.execute(db);
  await db.schema
    .createIndex('document_events_outbox')
    .on('document_events')
    .column('outbox_id')
    .unique()
    .execute();

  await db.schema
    .createTable('number_voids')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('modelo', 'integer', (c) => c.notNull().check(sql`modelo in (55, 65)`))
    .addColumn('serie', 'integer', (c) => c.notNull())
    .addColumn('ambiente', 'text', (c) => c.notNull().check(sql`ambiente in ('homologacao','producao')`))
    .addColumn('n_ini', 'integer', (c) => c.notNull())
    .addColumn('n_fin', 'integer', (c) => c.notNull())
    .addColumn('justificativa', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('processando','homologada','rejeitada')`),
    )
    /** The signed inutNFe exactly as queued. */
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('outbox_id', 'integer', (c) => c.notNull().references('outbox.id'))
    /** next_number of the series before this request advanced it (restored if the authority refuses). */
    .addColumn('sequence_before', 'integer')
    .addColumn('sequence_after', 'integer')
    .addColumn('c_stat', 'text')
    .addColumn('x_motivo', 'text')
    .addColumn('n_prot', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('number_voids_range')
    .on('number_voids')
    .columns(['company_id', 'modelo', 'serie', 'ambiente', 'n_ini'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
