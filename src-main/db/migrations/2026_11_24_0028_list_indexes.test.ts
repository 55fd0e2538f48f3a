// Migration 0028: every list query of documents (the NF-e/NFC-e list and a kind's list, with each filter
// they offer) reads its page in index order and counts from an index: no sort of the filtered rows and no
// scan of the whole table, whatever the store holds.
import { CompiledQuery, sql, type Compilable } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kindListQuery, newestFirst, nfListQuery, type KindListQuery } from '../../documents/list.ts';
import { migrateTo, useScratchDatabase, type ScratchDb } from './scratch-database.ts';

const scratchDb = useScratchDatabase();
const CMP = '8e9a4b1e-0000-4000-8000-000000000282';

async function plan(db: ScratchDb, query: Compilable): Promise<string[]> {
  const compiled = query.compile();
  const rows = await db.executeQuery<{ detail: string }>(
    CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
  );
  return rows.rows.map((r) => r.detail);
}

/** The page (deep into the list) and the count a list request runs. */
const pageAndCount = (query: KindListQuery) => [
  newestFirst(query.selectAll()).limit(100).offset(5000),
  query.select(sql<number>`count(*)`.as('n')),
];

const dates = { from: '2026-01-01', to: '2026-03-31' };
const lists: [string, (db: ScratchDb) => KindListQuery][] = [
  ['NFC-e by offset', (db) => nfListQuery(db, CMP, { modelos: [65] })],
  ['NF-e by page', (db) => nfListQuery(db, CMP, { modelos: [55, 65] })],
  ['NF-e of one model', (db) => nfListQuery(db, CMP, { modelos: [55] })],
  ['NF-e by status', (db) => nfListQuery(db, CMP, { modelos: [55, 65], statuses: ['erro'] })],
  [
    'NF-e by status and dates',
    (db) => nfListQuery(db, CMP, { modelos: [55, 65], statuses: ['autorizada'], ...dates }),
  ],
  ['NF-e by dates', (db) => nfListQuery(db, CMP, { modelos: [55, 65], ...dates })],
  ['a kind', (db) => kindListQuery(db, CMP, 57, {})],
  ['a kind by status', (db) => kindListQuery(db, CMP, 57, { status: 'autorizada' })],
  ['a kind by period', (db) => kindListQuery(db, CMP, 99, dates)],
  ['a kind by status and period', (db) => kindListQuery(db, CMP, 99, { status: 'cancelada', ...dates })],
];

describe('migration 2026_11_24_0028_list_indexes', () => {
  it('serves every list filter from an index in the list order, before it the lists sorted', async () => {
    const db = scratchDb();
    await migrateTo(db, '2026_11_24_0027_dce');
    const before = await plan(db, newestFirst(nfListQuery(db, CMP, { modelos: [65] }).selectAll()));
    expect(before).toContain('USE TEMP B-TREE FOR ORDER BY');

    await migrateTo(db, '2026_11_24_0028_list_indexes');
    for (const [name, list] of lists) {
      const [page, count] = pageAndCount(list(db));
      const pagePlan = (await plan(db, page!)).join(' | ');
      const countPlan = (await plan(db, count!)).join(' | ');
      expect(pagePlan, name).toMatch(/^SEARCH documents USING INDEX documents_list_\w+ \(company_id=\?/);
      expect(pagePlan, name).not.toContain('TEMP B-TREE');
      expect(countPlan, name).toMatch(/^SEARCH documents USING (COVERING )?INDEX documents_list_\w+/);
    }
  });

  it("finds a document's queue rows by index (every list asks them for a pending cancellation)", async () => {
    const db = scratchDb();
    await migrateTo(db, '2026_11_24_0028_list_indexes');
    // The question outboxRepository.openEventsFor asks.
    const query = db
      .selectFrom('outbox')
      .select(['document_id', 'message', 'event_type'])
      .where('document_id', 'in', ['a', 'b'])
      .where('kind', '=', 'evento')
      .where('state', 'in', ['pending', 'in_flight', 'unknown']);
    expect((await plan(db, query)).join(' | ')).toBe(
      'SEARCH outbox USING INDEX outbox_document (document_id=?)',
    );
  });
});
