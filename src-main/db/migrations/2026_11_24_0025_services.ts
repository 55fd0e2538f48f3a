// The services a company sells (installation, repair, delivery as a service): the catalogue the NFS-e form
// picks from, each with its national tax code (cTribNac) and, when the shop knows it, its ISS rate.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('services')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    // The shop's own code, unique within the company (like products.c_prod).
    .addColumn('codigo', 'text', (c) => c.notNull())
    .addColumn('descricao', 'text', (c) => c.notNull())
    // cTribNac: item, subitem and desdobro of the national service list (src-shared/nfse-service-code.ts).
    .addColumn('codigo_tributacao_nacional', 'text', (c) =>
      c.notNull().check(sql`length(codigo_tributacao_nacional) = 6`),
    )
    // Percent as exact decimal text with 2 places ('5.00'); null = whatever the municipality registers.
    .addColumn('aliquota_iss', 'text')
    // Default price as exact decimal text; null = typed on each note.
    .addColumn('valor', 'text')
    .addColumn('active', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(1)
        .check(sql`active in (0, 1)`),
    )
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('services_company_codigo', ['company_id', 'codigo'])
    .execute();
  // The NFS-e reads the rate of a note's national code from the catalogue on every issue.
  await db.schema
    .createIndex('services_company_national_code')
    .on('services')
    .columns(['company_id', 'codigo_tributacao_nacional'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
