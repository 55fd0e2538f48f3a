// Queue rows say what they are instead of the queue reading it out of the messages: the document kind
// (nfe, nfce, cte), the event type, the document a substitution waits for and whether a void covers one
// number. `kind` stays the operation (autorizacao, evento, inutilizacao). Existing rows are filled from
// their messages once, here; from now on the code that queues a message writes the columns.
import { sql, type Kysely } from 'kysely';

interface OldRow {
  id: number;
  kind: string;
  message: string;
  modelo: number | null;
}

/** Model numbers of the kinds at the time of this migration (frozen: a migration must not follow the code). */
const KIND_OF_MODELO: Readonly<Record<string, string>> = { '55': 'nfe', '65': 'nfce', '57': 'cte' };

function modeloOfMessage(message: string): string | undefined {
  const mod = /<mod>(\d\d)<\/mod>/.exec(message)?.[1];
  if (mod !== undefined) return mod;
  const key = /<ch(?:NFe|CTe)>(\d{44})<\/ch(?:NFe|CTe)>/.exec(message)?.[1];
  return key?.slice(20, 22);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('outbox')
    .addColumn('doc_kind', 'text', (c) => c.notNull().defaultTo('nfe'))
    .execute();
  await db.schema.alterTable('outbox').addColumn('event_type', 'text').execute();
  await db.schema.alterTable('outbox').addColumn('waits_for_document_id', 'text').execute();
  await db.schema
    .alterTable('outbox')
    .addColumn('single_number', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  const rows = await sql<OldRow>`
    SELECT outbox.id, outbox.kind, outbox.message, documents.modelo
    FROM outbox LEFT JOIN documents ON documents.id = outbox.document_id`.execute(db);
  for (const row of rows.rows) {
    const modelo = row.modelo === null ? modeloOfMessage(row.message) : String(row.modelo);
    const docKind = KIND_OF_MODELO[modelo ?? '55'] ?? 'nfe';
    const eventType =
      row.kind === 'evento' ? (/<tpEvento>(\d{6})<\/tpEvento>/.exec(row.message)?.[1] ?? null) : null;
    const ref = /<chNFeRef>(\d{44})<\/chNFeRef>/.exec(row.message)?.[1];
    const waitsFor =
      ref === undefined
        ? null
        : ((await sql<{ id: string }>`SELECT id FROM documents WHERE chave = ${ref}`.execute(db)).rows[0]
            ?.id ?? null);
    const singleNumber =
      row.kind === 'inutilizacao' && /<nNFIni>(\d+)<\/nNFIni><nNFFin>\1<\/nNFFin>/.test(row.message) ? 1 : 0;
    await sql`
      UPDATE outbox SET doc_kind = ${docKind}, event_type = ${eventType},
        waits_for_document_id = ${waitsFor}, single_number = ${singleNumber}
      WHERE id = ${row.id}`.execute(db);
  }
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
