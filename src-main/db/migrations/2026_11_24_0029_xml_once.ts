// A note keeps its signed XML once (issue 18, item 0). documents.proc_open lets the authorized copy (nfeProc,
// cteProc, dceProc) be rebuilt from the signed XML and the protocol instead of holding a third copy, and an
// authorization queue row references its document instead of copying the signed XML. Existing rows are
// converted in batches, each in its own transaction: a stop mid-way leaves every row either as it was or
// converted, and the next start converts the rest. A row is converted only when its rebuild gives back the
// stored bytes exactly; any other row keeps its copy.
import { sql, type Kysely, type Transaction } from 'kysely';

/** Rows per transaction: large enough to be quick, small enough that a sale waits only a moment. */
export const XML_ONCE_BATCH = 500;

// Frozen copy of documents/stored-xml.ts at this migration (a migration must not follow the code): the reader
// there rebuilds '' as the protocol itself and an opening tag as tag + signed XML + protocol + closing tag.
const OPENING_TAG = /^<([A-Za-z_][\w.:-]*)(?:\s[^<>]*)?>/;

function compactOf(proc: string, xml: string, protXml: string): string | null {
  if (proc === protXml) return '';
  const match = OPENING_TAG.exec(proc);
  if (match === null || match[0].endsWith('/>')) return null;
  return `${match[0]}${xml}${protXml}</${match[1]}>` === proc ? match[0] : null;
}

// Typed for this migration only: the app's schema may change after it.
interface Tables {
  documents: {
    id: string;
    xml: string;
    prot_xml: string | null;
    proc_xml: string | null;
    proc_open: string | null;
  };
  outbox: { id: number; document_id: string | null; kind: string; message: string };
}

/** One batch in a transaction of its own (inside the migrator's transaction where the dialect has one). */
async function inBatch<T>(db: Kysely<Tables>, work: (trx: Kysely<Tables>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute((trx: Transaction<Tables>) => work(trx));
}

/**
 * Converts up to `limit` batches of documents and of queue rows (all of them by default); returns how many
 * rows were converted. Safe to run again at any point: converted rows are not selected twice.
 */
export async function convertXmlOnce<DB>(
  db: Kysely<DB>,
  options: { batch?: number; limit?: number } = {},
): Promise<{ documents: number; kept: number; messages: number }> {
  const tables = db as unknown as Kysely<Tables>;
  const batch = options.batch ?? XML_ONCE_BATCH;
  let budget = options.limit ?? Number.POSITIVE_INFINITY;
  const done = { documents: 0, kept: 0, messages: 0 };

  let afterId = '';
  while (budget-- > 0) {
    const rows = await tables
      .selectFrom('documents')
      .select(['id', 'xml', 'prot_xml', 'proc_xml'])
      .where('proc_xml', 'is not', null)
      .where('prot_xml', 'is not', null)
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(batch)
      .execute();
    if (rows.length === 0) break;
    afterId = rows[rows.length - 1]!.id;
    await inBatch(tables, async (trx) => {
      for (const row of rows) {
        const open = compactOf(row.proc_xml ?? '', row.xml, row.prot_xml ?? '');
        if (open === null) {
          done.kept++;
          continue;
        }
        // Guarded by the bytes read: a row changed since (by another instance) is left for the next run.
        await trx
          .updateTable('documents')
          .set({ proc_xml: null, proc_open: open })
          .where('id', '=', row.id)
          .where('proc_xml', '=', row.proc_xml)
          .where('xml', '=', row.xml)
          .where('prot_xml', '=', row.prot_xml)
          .execute();
        done.documents++;
      }
    });
  }

  // An authorization row whose message is its document's signed XML, byte for byte, references it instead
  // (the worker sends documents.xml); a row that sent an XML since replaced keeps its own.
  let afterRow = 0;
  while (budget-- > 0) {
    const rows = await tables
      .selectFrom('outbox')
      .innerJoin('documents', 'documents.id', 'outbox.document_id')
      .select('outbox.id')
      .where('outbox.kind', '=', 'autorizacao')
      .where('outbox.id', '>', afterRow)
      .where('outbox.message', '<>', '')
      .whereRef('outbox.message', '=', 'documents.xml')
      .orderBy('outbox.id')
      .limit(batch)
      .execute();
    if (rows.length === 0) break;
    afterRow = rows[rows.length - 1]!.id;
    const ids = rows.map((r) => r.id);
    await inBatch(tables, async (trx) => {
      const result = await trx
        .updateTable('outbox')
        .set({ message: '' })
        .where('id', 'in', ids)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('documents')
              .select('documents.id')
              .whereRef('documents.id', '=', 'outbox.document_id')
              .whereRef('documents.xml', '=', 'outbox.message'),
          ),
        )
        .executeTakeFirst();
      done.messages += Number(result.numUpdatedRows);
    });
  }
  return done;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // The column may exist: a start stopped after adding it and before the batches finished.
  const documents = (await db.introspection.getTables()).find((t) => t.name === 'documents');
  if (documents?.columns.some((c) => c.name === 'proc_open') !== true) {
    await db.schema.alterTable('documents').addColumn('proc_open', 'text').execute();
  }
  await convertXmlOnce(db);
}

/** Writes every copy back whole (the layout before this migration), then drops the column. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE outbox SET message = (SELECT xml FROM documents WHERE documents.id = outbox.document_id)
    WHERE kind = 'autorizacao' AND message = '' AND document_id IS NOT NULL`.execute(db);
  await sql`UPDATE documents SET proc_xml = prot_xml WHERE proc_xml IS NULL AND proc_open = ''`.execute(db);
  // The closing tag is the opening tag's name: what stands between '<' and the first space or '>'.
  const rows = await (db as Kysely<Tables>)
    .selectFrom('documents')
    .select(['id', 'xml', 'prot_xml', 'proc_open'])
    .where('proc_xml', 'is', null)
    .where('proc_open', 'is not', null)
    .execute();
  for (const row of rows) {
    const name = OPENING_TAG.exec(row.proc_open ?? '')?.[1] ?? '';
    await (db as Kysely<Tables>)
      .updateTable('documents')
      .set({ proc_xml: `${row.proc_open ?? ''}${row.xml}${row.prot_xml ?? ''}</${name}>` })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema.alterTable('documents').dropColumn('proc_open').execute();
}
