// Foundation tables: organizations, companies, API keys, certificates, numbering, customers, products.
import { sql, type Kysely } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on the schema type that later migrations change.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('companies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('cnpj', 'text', (c) => c.notNull().unique())
    .addColumn('ie', 'text', (c) => c.notNull())
    .addColumn('im', 'text')
    .addColumn('x_nome', 'text', (c) => c.notNull())
    .addColumn('x_fant', 'text')
    .addColumn('crt', 'integer', (c) => c.notNull().check(sql`crt between 1 and 4`))
    .addColumn('x_lgr', 'text', (c) => c.notNull())
    .addColumn('nro', 'text', (c) => c.notNull())
    .addColumn('x_cpl', 'text')
    .addColumn('x_bairro', 'text', (c) => c.notNull())
    .addColumn('c_mun', 'text', (c) => c.notNull())
    .addColumn('x_mun', 'text', (c) => c.notNull())
    .addColumn('uf', 'text', (c) => c.notNull())
    .addColumn('cep', 'text', (c) => c.notNull())
    .addColumn('fone', 'text')
    .addColumn('email', 'text')
    .addColumn('ambiente', 'text', (c) => c.notNull().check(sql`ambiente in ('homologacao','producao')`))
    .addColumn('authority', 'text', (c) => c.notNull().check(sql`authority in ('sandbox','sefaz')`))
    .addColumn('csc_id', 'text')
    .addColumn('csc_token_enc', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('companies_organization').on('companies').column('organization_id').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('lookup', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('company','organization')`))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('company_id', 'text', (c) => c.references('companies.id'))
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('rate_per_second', 'integer', (c) => c.notNull())
    .addColumn('rate_per_minute', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('replaced_by', 'text')
    .addColumn('last_used_at', 'text')
    .addCheckConstraint('api_keys_scope_company', sql`(scope = 'company') = (company_id is not null)`)
    .execute();

  await db.schema
    .createTable('certificates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('pfx_enc', 'text', (c) => c.notNull())
    .addColumn('password_enc', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('serial_number', 'text', (c) => c.notNull())
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('not_after', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // At most one active certificate per company.
  await sql`create unique index certificates_one_active on certificates(company_id) where active = 1`.execute(
    db,
  );

  await db.schema
    .createTable('number_sequences')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('modelo', 'integer', (c) => c.notNull().check(sql`modelo in (55, 65)`))
    .addColumn('serie', 'integer', (c) => c.notNull().check(sql`serie between 0 and 999`))
    .addColumn('ambiente', 'text', (c) => c.notNull().check(sql`ambiente in ('homologacao','producao')`))
    .addColumn('next_number', 'integer', (c) => c.notNull().check(sql`next_number between 1 and 1000000000`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('number_sequences_pk', ['company_id', 'modelo', 'serie', 'ambiente'])
    .execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('cpf', 'text')
    .addColumn('cnpj', 'text')
    .addColumn('id_estrangeiro', 'text')
    .addColumn('x_nome', 'text', (c) => c.notNull())
    .addColumn('ie', 'text')
    .addColumn('ind_ie_dest', 'integer', (c) => c.notNull().check(sql`ind_ie_dest in (1, 2, 9)`))
    .addColumn('email', 'text')
    .addColumn('fone', 'text')
    .addColumn('x_lgr', 'text')
    .addColumn('nro', 'text')
    .addColumn('x_cpl', 'text')
    .addColumn('x_bairro', 'text')
    .addColumn('c_mun', 'text')
    .addColumn('x_mun', 'text')
    .addColumn('uf', 'text')
    .addColumn('cep', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index customers_cpf on customers(company_id, cpf) where cpf is not null`.execute(
    db,
  );
  await sql`create unique index customers_cnpj on customers(company_id, cnpj) where cnpj is not null`.execute(
    db,
  );

  await db.schema
    .createTable('fiscal_profiles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('cfop', 'text', (c) => c.notNull())
    .addColumn('taxes_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('fiscal_profiles_name', ['company_id', 'name'])
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
    .addColumn('c_prod', 'text', (c) => c.notNull())
    .addColumn('c_ean', 'text')
    .addColumn('x_prod', 'text', (c) => c.notNull())
    .addColumn('ncm', 'text', (c) => c.notNull())
    .addColumn('cest', 'text')
    .addColumn('u_com', 'text', (c) => c.notNull())
    .addColumn('v_un_com', 'text', (c) => c.notNull())
    .addColumn('fiscal_profile_id', 'text', (c) => c.references('fiscal_profiles.id'))
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('products_code', ['company_id', 'c_prod'])
    .execute();
  await db.schema.createIndex('products_ean').on('products').columns(['company_id', 'c_ean']).execute();
}

export async function down(): Promise<void> {
  // Append-only history: a fiscal database is never migrated downwards.
  throw new Error('down migrations are not supported');
}
