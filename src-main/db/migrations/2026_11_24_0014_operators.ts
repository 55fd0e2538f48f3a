// Operators (issue 13 item 1): the people who sell, with a slow-hashed PIN and a role; their sign-in sessions,
// the single-use supervisor authorizations, the audit of what each one did, and who issued each note.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operators')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    /** What the operator types at the register: 1 to 6 digits, unique in the company. */
    .addColumn('codigo', 'text', (c) => c.notNull())
    .addColumn('nome', 'text', (c) => c.notNull())
    .addColumn('papel', 'text', (c) => c.notNull().check(sql`papel in ('caixa', 'supervisor', 'gerente')`))
    /** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash so they can be raised later. */
    .addColumn('pin_hash', 'text', (c) => c.notNull())
    .addColumn('ativo', 'integer', (c) => c.notNull().check(sql`ativo in (0, 1)`))
    .addColumn('failed_pins', 'integer', (c) => c.notNull().defaultTo(0))
    /** How many times the operator was locked since the last good PIN: each lock doubles the wait. */
    .addColumn('lock_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bloqueado_ate', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('operators_company_codigo')
    .on('operators')
    .columns(['company_id', 'codigo'])
    .unique()
    .execute();

  await db.schema
    .createTable('operator_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** SHA-256 of the token: tokens carry 256 random bits, so a slow hash adds nothing. */
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id'))
    .addColumn('caixa', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();

  await db.schema
    .createTable('operator_authorizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('supervisor_id', 'text', (c) => c.notNull().references('operators.id'))
    /** The operator who asked for it, when the request carried an operator token. */
    .addColumn('operator_id', 'text', (c) => c.references('operators.id'))
    .addColumn('acao', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('operator_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('operator_id', 'text', (c) => c.notNull().references('operators.id'))
    .addColumn('acao', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text')
    .addColumn('authorized_by', 'text', (c) => c.references('operators.id'))
    .addColumn('detalhe', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('operator_actions_company')
    .on('operator_actions')
    .columns(['company_id', 'created_at'])
    .execute();

  await db.schema.alterTable('documents').addColumn('operator_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('documents').dropColumn('operator_id').execute();
  await db.schema.dropTable('operator_actions').execute();
  await db.schema.dropTable('operator_authorizations').execute();
  await db.schema.dropTable('operator_sessions').execute();
  await db.schema.dropTable('operators').execute();
}
