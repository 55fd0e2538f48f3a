// Dynamic PIX: each company's PSP settings (secrets and the client certificate sealed like the A1) and the
// charges (cob) created with it, with the sale that used each one.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pix_configs')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id'))
    .addColumn('provedor', 'text', (c) => c.notNull())
    .addColumn('chave', 'text', (c) => c.notNull())
    .addColumn('base_url', 'text')
    .addColumn('token_url', 'text')
    .addColumn('client_id', 'text')
    .addColumn('client_secret_enc', 'text')
    .addColumn('certificado_enc', 'text')
    .addColumn('senha_certificado_enc', 'text')
    .addColumn('cnpj_psp', 'text')
    .addColumn('expiracao_segundos', 'integer', (c) => c.notNull())
    .addColumn('webhook_secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('webhook_secret_enc', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('pix_charges')
    .addColumn('txid', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('valor', 'text', (c) => c.notNull())
    .addColumn('descricao', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('pix_copia_e_cola', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .addColumn('end_to_end_id', 'text')
    .addColumn('valor_pago', 'text')
    .addColumn('cnpj_psp', 'text')
    .addColumn('document_id', 'text', (c) => c.references('documents.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pix_charges_company_created')
    .on('pix_charges')
    .columns(['company_id', 'created_at'])
    .execute();
  await db.schema.createIndex('pix_charges_document').on('pix_charges').column('document_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
