// A deep page of the NF-e/NFC-e list skips whole creation days by migration 0032's counters before it walks the
// list index: at every offset, for every filter, it must give the very rows and total of the plain walk and of
// the list's order worked out here, on both stores, while statuses move rows between counters.
import { describe, expect, it } from 'vitest';
import { nfListPage, type NfListFilter } from '../../src-main/documents/list.ts';
import { useHarness } from './harness.ts';
import { waterSale } from '../fixtures/nfce-body.ts';

const h = useHarness();
const nfce = waterSale();

interface Listed {
  id: string;
  created_at: string;
  status: string;
  dh_emi: string;
}

describe('deep pages of the NF-e/NFC-e list', () => {
  it('skipping days by their counters gives the rows and total of walking every row', async () => {
    const db = h.service.db;
    // Five creation days; on each, drafts at 02:30 UTC (the day before in Brasília time, so dh_emi's day and
    // created_at's differ) and at 15:00, two of them in the same instant (the id breaks the tie).
    for (const [day, count] of [
      ['2026-10-03', 2],
      ['2026-10-04', 0],
      ['2026-10-05', 4],
      ['2026-10-09', 3],
      ['2026-10-10', 5],
      ['2026-10-12', 1],
    ] as const) {
      for (let i = 0; i < count; i++) {
        h.clock.set(`${day}T${i % 2 === 0 ? '02:30' : '15:00'}:0${i < 2 ? 0 : i}.000Z`);
        const res = await h.request('POST', `/v1/nfce?companyId=${h.companyId}&rascunho=true`, {
          json: nfce,
        });
        expect(res.status).toBe(201);
      }
    }
    // Statuses written behind the service's back move rows between counters (the triggers follow any write).
    const rows = (await db
      .selectFrom('documents')
      .select(['id', 'created_at', 'status', 'dh_emi'])
      .where('company_id', '=', h.companyId)
      .where('modelo', '=', 65)
      .execute()) as Listed[];
    expect(rows.length).toBeGreaterThanOrEqual(15);
    for (const [i, row] of rows.entries()) {
      if (i % 3 === 1) {
        await db.updateTable('documents').set({ status: 'erro' }).where('id', '=', row.id).execute();
        row.status = 'erro';
      }
    }
    const inOrder = [...rows].sort((a, b) =>
      a.created_at !== b.created_at ? (a.created_at < b.created_at ? 1 : -1) : a.id < b.id ? -1 : 1,
    );
    const filters: [NfListFilter, (row: Listed) => boolean][] = [
      [{ modelos: [65] }, () => true],
      [{ modelos: [55, 65] }, () => true],
      [{ modelos: [65], statuses: ['rascunho'] }, (r) => r.status === 'rascunho'],
      [{ modelos: [65], statuses: ['erro', 'autorizada'] }, (r) => r.status === 'erro'],
      [{ modelos: [65], from: '2026-10-04' }, (r) => r.dh_emi.slice(0, 10) >= '2026-10-04'],
      [
        { modelos: [65], from: '2026-10-04', to: '2026-10-09', statuses: ['rascunho'] },
        (r) =>
          r.dh_emi.slice(0, 10) >= '2026-10-04' &&
          r.dh_emi.slice(0, 10) <= '2026-10-09' &&
          r.status === 'rascunho',
      ],
      [{ modelos: [55] }, () => false],
    ];
    const select = (q: Parameters<Parameters<typeof nfListPage>[4]>[0]) => q.select(['id', 'created_at']);
    for (const [filter, listed] of filters) {
      const expected = inOrder.filter(listed).map((r) => r.id);
      for (let offset = 0; offset <= expected.length + 1; offset++) {
        const window = { limit: 3, offset };
        const skipping = await nfListPage(db, h.companyId, filter, window, select, 1);
        const walking = await nfListPage(db, h.companyId, filter, window, select, Infinity);
        const what = `${JSON.stringify(filter)} offset ${offset}`;
        expect(
          skipping.rows.map((r) => r.id),
          what,
        ).toEqual(expected.slice(offset, offset + 3));
        expect(skipping.total, what).toBe(expected.length);
        expect(skipping.rows, what).toEqual(walking.rows);
        expect(skipping.total, what).toBe(walking.total);
        expect(skipping.next, what).toEqual(walking.next);
      }
    }
  });
});
