// Ids become the UUIDs the specification types them as: every id of an earlier release, `doc_<32 hex>` (a
// random UUID without its dashes, behind a type prefix), is rewritten as that same UUID with dashes, in every
// key, every reference and every stored JSON text that quotes one. The old form keeps resolving through
// canonicalId (src-main/ids.ts), so links and integrations that kept an old id still work.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect.ts';

/**
 * The type prefixes of the previous release's row ids (its src-main/ids.ts and the generators beside it),
 * frozen here: a migration must not change meaning when the application's code does. Only these are
 * rewritten, so a customer's or product's own text that merely looks alike (`sku_<32 hex>`) stays as typed.
 * `req_` named requests, never a row.
 */
const PREFIXES = 'org cmp key crt cus prd fpr doc evt bat rcv inu whk whd prn pjb'.split(' ');
const HEX = '[0-9a-f]';
/** GLOB of a whole old id, and of a text that contains one (the prefix is checked apart: GLOB has no `|`). */
const WHOLE = `[a-z][a-z][a-z]_${HEX.repeat(32)}`;
const INSIDE = `*[a-z][a-z][a-z]_${HEX.repeat(32)}*`;
const IN_TEXT = new RegExp(
  `\\b(?:${PREFIXES.join('|')})_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})\\b`,
  'g',
);

/**
 * Columns that hold signed XML, stored byte for byte and never rewritten (conventions §5); they carry the
 * authority's data, never our ids.
 */
const isSignedXml = (column: string) => column === 'xml' || column.endsWith('_xml') || column === 'message';

/**
 * Text the caller chose, not an id of ours: an Idempotency-Key that happens to be one of our old ids (a
 * client keying its retries by the note's id) must still find its record when the client retries with it.
 */
const CALLER_CHOSEN = new Set(['idempotency_keys.key']);

interface Column {
  name: string;
  type: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // A PostgreSQL store (server mode) starts empty under the UUID ids: there is no old id to rewrite.
  if (isPostgres(db)) return;
  // SQLite migrations run outside a transaction (Kysely's adapter has no transactional DDL): keys and the
  // references to them change in this one, with the foreign-key checks deferred to its end.
  await db.transaction().execute(async (trx) => {
    await sql`PRAGMA defer_foreign_keys = ON`.execute(trx);
    await rewriteIds(trx);
  });
}

async function rewriteIds(db: Kysely<unknown>): Promise<void> {
  const tables = await sql<{ name: string }>`
    SELECT name FROM sqlite_master
    WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%'
  `.execute(db);
  for (const { name: table } of tables.rows) {
    const columns = await sql<Column>`SELECT name, type FROM pragma_table_info(${table})`.execute(db);
    for (const { name: column, type } of columns.rows) {
      if (
        !/text|char|clob|^$/i.test(type) ||
        isSignedXml(column) ||
        CALLER_CHOSEN.has(`${table}.${column}`)
      ) {
        continue;
      }
      const t = sql.table(table);
      const c = sql.ref(column);
      // A whole id (keys and references): rewritten in SQL, as fast as the table can be read.
      await sql`
        UPDATE ${t} SET ${c} =
          substr(${c}, 5, 8) || '-' || substr(${c}, 13, 4) || '-' || substr(${c}, 17, 4) || '-' ||
          substr(${c}, 21, 4) || '-' || substr(${c}, 25, 12)
        WHERE ${c} GLOB ${WHOLE} AND substr(${c}, 1, 3) IN (${sql.join(PREFIXES)})
      `.execute(db);
      // Ids quoted inside a text (stored payloads and answers, webhook bodies).
      const quoting = await sql<{ rid: number; value: string }>`
        SELECT rowid AS rid, ${c} AS value FROM ${t} WHERE ${c} GLOB ${INSIDE}
      `.execute(db);
      for (const { rid, value } of quoting.rows) {
        const rewritten = value.replace(IN_TEXT, (_m, a, b, cc, d, e) => `${a}-${b}-${cc}-${d}-${e}`);
        if (rewritten !== value)
          await sql`UPDATE ${t} SET ${c} = ${rewritten} WHERE rowid = ${rid}`.execute(db);
      }
    }
  }
  const orphans = await sql<{ table: string }>`SELECT "table" FROM pragma_foreign_key_check`.execute(db);
  if (orphans.rows.length > 0) {
    throw new Error(
      `id migration would orphan rows in ${[...new Set(orphans.rows.map((r) => r.table))].join(', ')}`,
    );
  }
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
