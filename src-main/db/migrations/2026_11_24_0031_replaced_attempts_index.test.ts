// Migration 0031: the start-up look-up of attempts that still owe their cancellation by substitution reads
// the replaced documents from an index of their own instead of scanning every document of the store.
import { describe, expect, it } from 'vitest';
import { documentsRepository } from '../../documents/repository.ts';
import { plansOf } from '../query-plans.ts';
import { migrateTo, migrationBefore, useScratchDatabase, type ScratchDb } from './scratch-database.ts';

const scratchDb = useScratchDatabase();
const NAME = '2026_11_24_0031_replaced_attempts_index';

describe(`migration ${NAME}`, () => {
  it('finds the replaced attempts by index, where before it scanned the documents', async () => {
    const db = scratchDb();
    await migrateTo(db, await migrationBefore(NAME));
    const lookUp = (on: ScratchDb) => documentsRepository.authorizedReplacedWithoutEvent(on);
    expect((await plansOf(db, lookUp))[0]).toMatch(/^SCAN documents\b/);

    await migrateTo(db, NAME);
    const [plan] = await plansOf(db, lookUp);
    expect(plan).toMatch(/^SEARCH documents USING INDEX documents_replaced \(status=\?\)/);
    expect(plan).not.toContain('SCAN documents');
  });
});
