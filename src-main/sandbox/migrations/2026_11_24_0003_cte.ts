// The sandbox authority's CT-e 4.00 state: the CT-e it authorized (with the "trip started" marker that an
// MDF-e or a checkpoint passage would set) and the events registered for them.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cte_documents')
    .addColumn('chave', 'text', (c) => c.primaryKey())
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('c_uf', 'integer', (c) => c.notNull())
    .addColumn('serie', 'integer', (c) => c.notNull())
    .addColumn('n_ct', 'integer', (c) => c.notNull())
    .addColumn('tp_emis', 'integer', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    // "Chave natural do CT-e" (MOC CT-e 4.00 §2.1.4): emitter, model, series, number (and environment).
    .addColumn('natural_key', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('autorizada','denegada','cancelada')`),
    )
    .addColumn('c_stat', 'integer', (c) => c.notNull())
    .addColumn('n_prot', 'text', (c) => c.notNull())
    .addColumn('dh_recbto', 'text', (c) => c.notNull())
    .addColumn('authorized_at', 'text', (c) => c.notNull())
    .addColumn('dig_val', 'text', (c) => c.notNull())
    .addColumn('dh_emi', 'text', (c) => c.notNull())
    .addColumn('v_tprest', 'text', (c) => c.notNull())
    // 'mdfe' (an MDF-e was authorized for it) or 'circulacao' (a checkpoint registered its passage).
    .addColumn('trip_started', 'text', (c) => c.check(sql`trip_started in ('mdfe','circulacao')`))
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('prot_xml', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('cte_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('chave', 'text', (c) => c.notNull())
    .addColumn('tp_evento', 'text', (c) => c.notNull())
    .addColumn('n_seq_evento', 'integer', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    .addColumn('c_orgao', 'integer', (c) => c.notNull())
    .addColumn('author', 'text', (c) => c.notNull())
    .addColumn('dh_evento', 'text', (c) => c.notNull())
    .addColumn('c_stat', 'integer', (c) => c.notNull())
    .addColumn('n_prot', 'text', (c) => c.notNull())
    .addColumn('dh_reg_evento', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('ret_xml', 'text', (c) => c.notNull())
    .addUniqueConstraint('cte_events_unique', ['chave', 'tp_evento', 'n_seq_evento', 'tp_amb'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
