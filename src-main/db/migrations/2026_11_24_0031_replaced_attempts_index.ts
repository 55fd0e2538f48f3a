// An index of the few documents replaced by a re-issued sale, so that the look-up every start makes for
// attempts still owing their cancellation by substitution reads those rows only, not the whole table
// (issue 18, item 4: at 100k notes that scan was the one start-up cost that grew with the store).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Partial: a document gets replaced_by only when its sale was issued again under another number.
  await sql`CREATE INDEX documents_replaced ON documents (status) WHERE replaced_by IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX documents_replaced`.execute(db);
}
