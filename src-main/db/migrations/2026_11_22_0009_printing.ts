// Thermal printers of each company and the persisted print queue (the ESC/POS bytes travel with the job, so
// a restart or a printer back from an outage prints exactly what was queued).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('printers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('nome', 'text', (c) => c.notNull())
    .addColumn('tipo', 'text', (c) => c.notNull().check(sql`tipo in ('rede', 'usb', 'serial')`))
    /** {host, porta} | {vendorId, productId} | {caminho, baudRate}, as validated by the contract. */
    .addColumn('conexao_json', 'text', (c) => c.notNull())
    .addColumn('largura', 'integer', (c) => c.notNull().check(sql`largura in (58, 80)`))
    .addColumn('qr', 'text', (c) => c.notNull().check(sql`qr in ('nativo', 'raster')`))
    .addColumn('code_page', 'text', (c) => c.notNull())
    .addColumn('impressao_automatica', 'integer', (c) =>
      c.notNull().check(sql`impressao_automatica in (0, 1)`),
    )
    /** When automatic printing was last switched on: older notes are never printed automatically. */
    .addColumn('auto_since', 'text')
    .addColumn('padrao', 'integer', (c) => c.notNull().check(sql`padrao in (0, 1)`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('printers_company')
    .on('printers')
    .columns(['company_id', 'created_at'])
    .execute();
  // One default printer per company, enforced by the database.
  await db.schema
    .createIndex('printers_one_default')
    .on('printers')
    .column('company_id')
    .unique()
    .where(sql.ref('padrao'), '=', 1)
    .execute();

  await db.schema
    .createTable('print_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    // A deleted printer's history stays; its unfinished jobs are cancelled first.
    .addColumn('printer_id', 'text', (c) => c.references('printers.id').onDelete('set null'))
    .addColumn('printer_nome', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.references('documents.id'))
    .addColumn('reason', 'text', (c) =>
      c.notNull().check(sql`reason in ('auto', 'print', 'reprint', 'test')`),
    )
    /** The exact ESC/POS bytes sent to the printer. */
    .addColumn('bytes', 'blob', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'printing', 'done', 'failed', 'cancelled')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('next_try_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    /** `auto:<document id>`: a note is printed automatically once, whatever states it goes through. */
    .addColumn('dedupe_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('printed_at', 'text')
    .execute();
  await db.schema
    .createIndex('print_jobs_queue')
    .on('print_jobs')
    .columns(['status', 'printer_id'])
    .execute();
  await db.schema
    .createIndex('print_jobs_company')
    .on('print_jobs')
    .columns(['company_id', 'created_at'])
    .execute();
  await db.schema.createIndex('print_jobs_document').on('print_jobs').column('document_id').execute();
  await db.schema
    .createIndex('print_jobs_dedupe')
    .on('print_jobs')
    .column('dedupe_key')
    .unique()
    .where(sql.ref('dedupe_key'), 'is not', null)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
