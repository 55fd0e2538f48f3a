// Dynamic PIX switched off on purpose (DELETE /v1/companies/:companyId/pix) is remembered, so the start that
// gives a demo company without a PSP the embedded sandbox PSP leaves that company's choice alone.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pix_config_removals')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id'))
    .addColumn('removed_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
