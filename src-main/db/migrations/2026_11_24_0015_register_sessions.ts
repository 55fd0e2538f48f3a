// Register sessions (issue 13 item 2): a cash register opened with a counted float, its sangrias and
// suprimentos, the voids the cashier reports, the blind count at closing and the shift report kept with it.
// Each row is written in the transaction of the action it records, so a crash never loses a movement.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('register_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    /** The register (terminal) number as text, like the operator's sign-in. */
    .addColumn('caixa', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('aberta', 'fechada')`))
    // Operators are referenced by id without a foreign key: an operator is deactivated, never deleted.
    .addColumn('opened_by', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'text', (c) => c.notNull())
    /** The opening float as exact decimal text. */
    .addColumn('fundo_troco', 'text', (c) => c.notNull())
    .addColumn('closed_by', 'text')
    .addColumn('closed_at', 'text')
    /** {metodo: "decimal"} as counted, as expected, and the whole shift report, fixed at closing. */
    .addColumn('contagem', 'text')
    .addColumn('esperado', 'text')
    .addColumn('report', 'text')
    .execute();
  // One open session per register of a company, enforced by the database.
  await db.schema
    .createIndex('register_sessions_one_open')
    .on('register_sessions')
    .columns(['company_id', 'caixa'])
    .unique()
    .where(sql.ref('status'), '=', 'aberta')
    .execute();
  await db.schema
    .createIndex('register_sessions_company')
    .on('register_sessions')
    .columns(['company_id', 'opened_at'])
    .execute();

  await db.schema
    .createTable('register_movements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('register_sessions.id'))
    .addColumn('tipo', 'text', (c) => c.notNull().check(sql`tipo in ('suprimento', 'sangria')`))
    .addColumn('valor', 'text', (c) => c.notNull())
    .addColumn('motivo', 'text', (c) => c.notNull())
    .addColumn('operator_id', 'text', (c) => c.notNull())
    .addColumn('authorized_by', 'text')
    .addColumn('print_job_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('register_movements_session')
    .on('register_movements')
    .columns(['session_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('register_voids')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('register_sessions.id'))
    .addColumn('tipo', 'text', (c) => c.notNull().check(sql`tipo in ('item', 'venda')`))
    .addColumn('descricao', 'text', (c) => c.notNull())
    .addColumn('valor', 'text', (c) => c.notNull())
    .addColumn('operator_id', 'text', (c) => c.notNull())
    .addColumn('authorized_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('register_voids_session')
    .on('register_voids')
    .columns(['session_id', 'created_at'])
    .execute();

  /** The session a sale made by a signed-in operator belongs to; null for other POS software's sales. */
  await db.schema
    .alterTable('documents')
    .addColumn('register_session_id', 'text', (c) => c.references('register_sessions.id'))
    .execute();
  await db.schema
    .createIndex('documents_register_session')
    .on('documents')
    .column('register_session_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('documents_register_session').execute();
  await db.schema.alterTable('documents').dropColumn('register_session_id').execute();
  await db.schema.dropTable('register_voids').execute();
  await db.schema.dropTable('register_movements').execute();
  await db.schema.dropTable('register_sessions').execute();
}
