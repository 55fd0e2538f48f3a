// The authority's answer to an event or inutilização (retEvento / retInutNFe and its protocol) is part of
// the legal record (procEventoNFe / ProcInutNFe), so the queue keeps it beside the message it sent.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('answer_xml', 'text').execute();
  await db.schema.alterTable('outbox').addColumn('answer_n_prot', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
