// The company's technical responsible (infRespTec, NT 2018.005): one row per company, its CSRT token sealed
// with the data-dir master key like the CSC token (companies.csc_token_enc).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('company_resp_tec')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('x_contato', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('fone', 'text', (c) => c.notNull())
    .addColumn('id_csrt', 'text')
    .addColumn('csrt_enc', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
