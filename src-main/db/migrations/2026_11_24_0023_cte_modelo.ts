// CT-e (model 57) lives in the one documents table: the CHECKs that allowed only 55 and 65 on documents,
// number_sequences and number_voids now allow 57 too (and a void may have no queue row: a CT-e range is
// recorded without one, its authorities offering no inutilização); the carrier's CT-e settings (RNTRC, ICMS of the
// service) get a table of their own, typed where it is used (documents/kinds/cte/settings.ts), and so does
// the cache of printable files (documents/outputs-cache.ts).
import { sql, type Kysely } from 'kysely';
import { isPostgres, replaceColumnCheck } from '../dialect.ts';

const TABLES = ['documents', 'number_sequences', 'number_voids'] as const;
const OLD_CHECK = 'check (modelo in (55, 65))';
const NEW_CHECK = 'check (modelo in (55, 57, 65))';

/**
 * SQLite cannot change a CHECK in place: the table is rebuilt from its own stored DDL with only the CHECK
 * changed (the 12-step procedure of the SQLite ALTER TABLE page), its rows copied as they are and its indexes
 * recreated from their stored DDL. Foreign keys are off meanwhile (migrations run outside a transaction on
 * SQLite) so dropping the old table does not touch the rows that reference it; they are checked at the end.
 */
async function widenModeloCheck(db: Kysely<unknown>, table: string): Promise<void> {
  const found = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ${table}
  `.execute(db);
  const ddl = found.rows[0]?.sql;
  if (ddl === undefined) throw new Error(`table ${table} not found`);
  if (!ddl.includes(OLD_CHECK)) return;
  const indexes = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL
  `.execute(db);
  const temp = `${table}_cte_new`;
  const created = ddl
    .replace(OLD_CHECK, NEW_CHECK)
    // A CT-e range is voided without a queue row: CT-e 4.00 authorities have no inutilização service.
    .replace('"outbox_id" integer not null references', '"outbox_id" integer references')
    .replace(new RegExp(`^CREATE TABLE "?${table}"?`), `CREATE TABLE "${temp}"`);
  await sql.raw(created).execute(db);
  await sql.raw(`INSERT INTO "${temp}" SELECT * FROM "${table}"`).execute(db);
  await sql.raw(`DROP TABLE "${table}"`).execute(db);
  await sql.raw(`ALTER TABLE "${temp}" RENAME TO "${table}"`).execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
}

/** SQLite's rebuild of the tables, foreign keys off meanwhile and checked at the end. */
async function rebuildTables(db: Kysely<unknown>): Promise<void> {
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      for (const table of TABLES) await widenModeloCheck(trx, table);
      const broken = await sql`PRAGMA foreign_key_check`.execute(trx);
      if (broken.rows.length > 0) throw new Error('foreign keys broken by the rebuild of the CT-e tables');
    });
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    // PostgreSQL (server mode) changes the CHECK in place.
    for (const table of TABLES)
      await replaceColumnCheck(db, table, 'modelo', NEW_CHECK.slice('check '.length));
    // A CT-e range is voided without a queue row.
    await sql`ALTER TABLE number_voids ALTER COLUMN outbox_id DROP NOT NULL`.execute(db);
  } else await rebuildTables(db);
  await db.schema
    .createTable('company_cte_settings')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    /** Registro Nacional de Transportadores Rodoviários de Carga: 8 digits or ISENTO (rodo/RNTRC). */
    .addColumn('rntrc', 'text', (c) => c.notNull())
    /** ICMS of the service: '00' (with icms_aliquota), '40', '41', '51' or 'SN'; null = by the CRT. */
    .addColumn('icms_cst', 'text')
    .addColumn('icms_aliquota', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Printable files built once and served again (the DACTE): `fingerprint` says what they were built from
  // (state, protocol, logo), so a CT-e authorized or cancelled since gets a new file.
  await db.schema
    .createTable('document_outputs')
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id').onDelete('cascade'))
    .addColumn('output', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('data', 'blob', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_outputs_pk', ['document_id', 'output'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
