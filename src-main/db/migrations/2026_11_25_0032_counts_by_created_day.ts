// The list counters gain the creation day (issue 18, item 0): a deep page of the NF-e/NFC-e list, which is in
// creation order, then skips whole days by their counters and walks the index within one day only, instead of
// walking every row before its offset.
import type { Kysely } from 'kysely';
import { KEY_0030, KEY_0032, rekeyCounts } from './document-counts.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await rekeyCounts(db, KEY_0032);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rekeyCounts(db, KEY_0030);
}
