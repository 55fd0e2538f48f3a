// The DC-e (Declaração de Conteúdo eletrônica, model 99) lives in the one documents table: the CHECKs of
// documents, number_sequences and number_voids take 99 as well; the company's DC-e settings (its issuer
// type, the marketplace site, the default series) get their table, typed where used (kinds/dce/settings.ts).
import { sql, type Kysely } from 'kysely';
import { widenModeloChecks } from './widen-modelo-check.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await widenModeloChecks(db, 'check (modelo in (55, 57, 65, 98))', 'check (modelo in (55, 57, 65, 98, 99))');
  await db.schema
    .createTable('company_dce_settings')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    /** tpEmit of the DC-e the company issues: 1 marketplace, 2 own system (emissor próprio), 3 carrier. */
    .addColumn('tp_emit', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(1)
        .check(sql`tp_emit in (1, 2, 3)`),
    )
    /** Marketplace/Site: the shop's address, written when the company issues as a marketplace. */
    .addColumn('site', 'text')
    .addColumn('serie', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(1)
        .check(sql`serie between 0 and 999`),
    )
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
