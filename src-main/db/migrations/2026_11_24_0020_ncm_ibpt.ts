// Tables of reference the store imports: newer NCM tables (rule 778; the newest import is the one in use) and
// the IBPT approximate-tax rates per NCM of each company (Lei 12.741/2012, the tributos line of the notes).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ncm_tables')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('versao', 'text', (c) => c.notNull())
    .addColumn('ato', 'text')
    // 'siscomex' (the official export) or 'ibpt' (the NCM codes, tipo 0, of an IBPT table).
    .addColumn('origem', 'text', (c) => c.notNull())
    .addColumn('quantidade', 'integer', (c) => c.notNull())
    // The 8-digit codes, sorted and written one after the other (about 87 kB for a whole table).
    .addColumn('codigos', 'text', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ncm_tables_imported_at').on('ncm_tables').column('imported_at').execute();

  await db.schema
    .createTable('ibpt_tables')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('uf', 'text', (c) => c.notNull())
    .addColumn('versao', 'text', (c) => c.notNull())
    .addColumn('chave', 'text', (c) => c.notNull())
    .addColumn('fonte', 'text', (c) => c.notNull())
    .addColumn('vigencia_inicio', 'text', (c) => c.notNull())
    .addColumn('vigencia_fim', 'text', (c) => c.notNull())
    .addColumn('quantidade', 'integer', (c) => c.notNull())
    .addColumn('imported_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('ibpt_tables_company')
    .on('ibpt_tables')
    .columns(['company_id', 'imported_at'])
    .execute();
  await db.schema
    .createTable('ibpt_rates')
    .addColumn('table_id', 'text', (c) => c.notNull().references('ibpt_tables.id').onDelete('cascade'))
    .addColumn('codigo', 'text', (c) => c.notNull())
    // '' when the line has no ex-tarifário.
    .addColumn('ex', 'text', (c) => c.notNull())
    .addColumn('tipo', 'integer', (c) => c.notNull())
    .addColumn('descricao', 'text', (c) => c.notNull())
    // Percentages as exact decimal text, as written in the file ("4.20").
    .addColumn('nacional_federal', 'text', (c) => c.notNull())
    .addColumn('importados_federal', 'text', (c) => c.notNull())
    .addColumn('estadual', 'text', (c) => c.notNull())
    .addColumn('municipal', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('ibpt_rates_pk', ['table_id', 'tipo', 'codigo', 'ex'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
