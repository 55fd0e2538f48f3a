// The sandbox authority's own state: server identity, registry of companies, notes, events, inutilizações,
// asynchronous lotes, distribution documents (NSU per interested party) and a log of exchanges.
import { sql, type Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on the schema type that later migrations change.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('server_identity')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('key_pem', 'text', (c) => c.notNull())
    .addColumn('cert_pem', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sequences')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('companies')
    .addColumn('cnpj', 'text', (c) => c.primaryKey())
    .addColumn('emitter_denied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('recipient_denied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('cscs')
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('csc_id', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cscs_pk', ['cnpj', 'csc_id'])
    .execute();

  await db.schema
    .createTable('notes')
    .addColumn('chave', 'text', (c) => c.primaryKey())
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('c_uf', 'integer', (c) => c.notNull())
    .addColumn('mod', 'integer', (c) => c.notNull())
    .addColumn('serie', 'integer', (c) => c.notNull())
    .addColumn('n_nf', 'integer', (c) => c.notNull())
    .addColumn('tp_emis', 'integer', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    // "Chave natural" (MOC 7.0, rule 539; Ajuste SINIEF 19/19 adds tpEmis for the NFC-e).
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
    .addColumn('v_nf', 'text', (c) => c.notNull())
    .addColumn('tp_nf', 'text', (c) => c.notNull())
    .addColumn('x_nome', 'text', (c) => c.notNull())
    .addColumn('ie', 'text', (c) => c.notNull())
    .addColumn('dest_id', 'text')
    .addColumn('n_rec', 'text')
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('prot_xml', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notes_number').on('notes').columns(['cnpj', 'mod', 'serie', 'n_nf']).execute();
  await db.schema.createIndex('notes_dest').on('notes').column('dest_id').execute();

  await db.schema
    .createTable('protocols')
    .addColumn('n_prot', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('autorizacao','denegacao','evento','inutilizacao')`),
    )
    .addColumn('chave', 'text')
    .addColumn('issued_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('protocols_chave').on('protocols').column('chave').execute();

  await db.schema
    .createTable('lotes')
    .addColumn('n_rec', 'text', (c) => c.primaryKey())
    .addColumn('c_uf', 'integer', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    .addColumn('client_cnpj', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('ready_at', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'text')
    .addColumn('nfes', 'text', (c) => c.notNull())
    .addColumn('results', 'text')
    .execute();

  await db.schema
    .createTable('events')
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
    .addColumn('linked', 'integer', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('ret_xml', 'text', (c) => c.notNull())
    .addUniqueConstraint('events_unique', ['chave', 'tp_evento', 'n_seq_evento', 'tp_amb'])
    .execute();

  await db.schema
    .createTable('inutilizacoes')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('c_uf', 'integer', (c) => c.notNull())
    .addColumn('ano', 'integer', (c) => c.notNull())
    .addColumn('mod', 'integer', (c) => c.notNull())
    .addColumn('serie', 'integer', (c) => c.notNull())
    .addColumn('n_nf_ini', 'integer', (c) => c.notNull())
    .addColumn('n_nf_fin', 'integer', (c) => c.notNull())
    .addColumn('tp_amb', 'integer', (c) => c.notNull())
    .addColumn('n_prot', 'text', (c) => c.notNull())
    .addColumn('dh_recbto', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('ret_xml', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inutilizacoes_number')
    .on('inutilizacoes')
    .columns(['cnpj', 'mod', 'serie'])
    .execute();

  await db.schema
    .createTable('dfe_docs')
    .addColumn('interested', 'text', (c) => c.notNull())
    .addColumn('nsu', 'integer', (c) => c.notNull())
    .addColumn('schema', 'text', (c) => c.notNull())
    .addColumn('chave', 'text', (c) => c.notNull())
    .addColumn('xml', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('dfe_docs_pk', ['interested', 'nsu'])
    .execute();

  await db.schema
    .createTable('dist_queries')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('interested', 'text', (c) => c.notNull())
    .addColumn('ult_nsu', 'integer', (c) => c.notNull())
    .addColumn('c_stat', 'integer', (c) => c.notNull())
    .addColumn('answered_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('dist_queries_interested')
    .on('dist_queries')
    .columns(['interested', 'ult_nsu'])
    .execute();

  await db.schema
    .createTable('exchanges')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('client_cnpj', 'text')
    .addColumn('c_stat', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
