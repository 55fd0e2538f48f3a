// The national NFS-e (internal model 98: the NFS-e has no model number of its own) lives in the one documents
// table: the CHECKs of documents, number_sequences and number_voids take 98 as well, by the same rebuild as
// migration 0023; the provider's NFS-e tax settings (Simples Nacional option, special regime) get their table.
import { sql, type Kysely } from 'kysely';
import { isPostgres, replaceColumnCheck } from '../dialect.ts';

const TABLES = ['documents', 'number_sequences', 'number_voids'] as const;
const OLD_CHECK = 'check (modelo in (55, 57, 65))';
const NEW_CHECK = 'check (modelo in (55, 57, 65, 98))';

/**
 * SQLite cannot change a CHECK in place: the table is rebuilt from its own stored DDL with only the CHECK
 * changed, its rows copied as they are and its indexes recreated from their stored DDL (see migration 0023).
 */
async function widenModeloCheck(db: Kysely<unknown>, table: string): Promise<void> {
  const found = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ${table}
  `.execute(db);
  const ddl = found.rows[0]?.sql;
  if (ddl === undefined) throw new Error(`table ${table} not found`);
  if (!ddl.includes(OLD_CHECK)) throw new Error(`table ${table} lacks the CHECK migration 0023 left`);
  const indexes = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL
  `.execute(db);
  const temp = `${table}_nfse_new`;
  const created = ddl
    .replace(OLD_CHECK, NEW_CHECK)
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
      if (broken.rows.length > 0) throw new Error('foreign keys broken by the rebuild for the NFS-e');
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
  } else await rebuildTables(db);
  // DPS prest/regTrib (TCRegTrib of the layout 1.01); a company without a row takes defaults from its CRT.
  await db.schema
    .createTable('company_nfse_settings')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    /** opSimpNac: 1 not in the Simples Nacional, 2 MEI, 3 ME/EPP. */
    .addColumn('op_simp_nac', 'integer', (c) => c.notNull().check(sql`op_simp_nac in (1, 2, 3)`))
    /** regApTribSN, only with op_simp_nac 3. */
    .addColumn('reg_ap_trib_sn', 'integer', (c) => c.check(sql`reg_ap_trib_sn in (1, 2, 3)`))
    /** regEspTrib (TSRegEspTrib): 0 none, 1-6 the special regimes, 9 others. */
    .addColumn('reg_esp_trib', 'integer', (c) =>
      c.notNull().check(sql`reg_esp_trib in (0, 1, 2, 3, 4, 5, 6, 9)`),
    )
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
