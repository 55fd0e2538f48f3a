// Printable files built once and served again (migration 0023, document_outputs): a file is reused while the
// fingerprint of what it was built from is the same, rebuilt when it changes or when the caller asks.
import { createHash } from 'node:crypto';
import type { Db } from '../db/client.ts';

export interface DocumentOutputsTable {
  document_id: string;
  output: string;
  fingerprint: string;
  media_type: string;
  data: Buffer;
  created_at: string;
}

const outputs = (db: Db) => db.withTables<{ document_outputs: DocumentOutputsTable }>();

/** A short stable digest of the parts a file depends on. */
export function fingerprintOf(parts: ReadonlyArray<string | Buffer | null | undefined>): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    hash.update(part === null || part === undefined ? '\u0000' : part);
    hash.update('\u0001');
  }
  return hash.digest('hex');
}

export interface CachedOutput {
  data: Buffer;
  /** true when it came from the cache, false when it was built now. */
  hit: boolean;
}

/** The file `output` of a document: the stored one when its fingerprint matches, else `build()` stored. */
export async function cachedOutput(
  db: Db,
  key: { documentId: string; output: string; fingerprint: string; mediaType: string; now: string },
  build: () => Promise<Buffer>,
  regenerate = false,
): Promise<CachedOutput> {
  if (!regenerate) {
    const row = await outputs(db)
      .selectFrom('document_outputs')
      .select(['fingerprint', 'data'])
      .where('document_id', '=', key.documentId)
      .where('output', '=', key.output)
      .executeTakeFirst();
    if (row !== undefined && row.fingerprint === key.fingerprint)
      return { data: Buffer.from(row.data), hit: true };
  }
  const data = await build();
  const values = {
    document_id: key.documentId,
    output: key.output,
    fingerprint: key.fingerprint,
    media_type: key.mediaType,
    data,
    created_at: key.now,
  };
  await outputs(db)
    .insertInto('document_outputs')
    .values(values)
    .onConflict((oc) => oc.columns(['document_id', 'output']).doUpdateSet(values))
    .execute();
  return { data, hit: false };
}
