// Keyset paging of /v1/nfce and /v1/nfe (`cursor`, answered by X-Next-Cursor): walking the list page by page
// shows every stored note exactly once while new notes are written between the pages, in the list's order,
// with the spec's body shapes and totals; a cursor that is not one of ours, or given with offset/page, is a 400.
import { describe, expect, it } from 'vitest';
import { useHarness, type TestResponse } from './harness.ts';
import { waterSale } from '../fixtures/nfce-body.ts';

const h = useHarness();
const nfce = waterSale();

type Listed = { items: { id: string }[]; total: number; limit?: number; offset?: number; page?: number };

async function draft(): Promise<string> {
  const res = await h.request('POST', `/v1/nfce?companyId=${h.companyId}&rascunho=true`, { json: nfce });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

const list = (query: string) => h.request('GET', `/v1/nfce?companyId=${h.companyId}&${query}`);
const next = (res: TestResponse) => res.headers.get('x-next-cursor');
const ids = (res: TestResponse) => (res.body as Listed).items.map((d) => d.id);

describe('keyset paging of the NF-e/NFC-e lists', () => {
  it('walks every note exactly once, in list order, while notes are written between pages', async () => {
    // Some notes share their creation instant: the id orders them, and the cursor carries it.
    for (let i = 0; i < 9; i++) {
      await draft();
      if (i % 3 === 2) h.clock.advance(1000);
    }
    const all = await list('limit=100');
    const stored = ids(all);
    expect(stored).toHaveLength(9);
    expect(next(all)).toBeNull();

    const seen: string[] = [];
    let res = await list('limit=2');
    expect(res.body).toMatchObject({ total: 9, limit: 2, offset: 0 });
    for (let page = 0; ; page++) {
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      const cursor = next(res);
      if (cursor === null) break;
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      // A sale between two pages, now or at an instant already listed, never shifts the pages that follow.
      if (page % 2 === 1) h.clock.advance(500);
      await draft();
      res = await list(`limit=2&cursor=${cursor}`);
      expect((res.body as Listed).offset).toBe(seen.length);
    }
    const written = new Set(ids(await list('limit=100')));
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of seen) expect(written.has(id)).toBe(true);
    // Every note stored before the walk, once and in the order of the list read before it.
    expect(seen.filter((id) => stored.includes(id))).toEqual(stored);
  });

  it('pages /v1/nfe by cursor in the §4.1 shape, page following the rows read', async () => {
    const first = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&pageSize=3`);
    const total = (first.body as Listed).total;
    const cursor = next(first);
    expect(cursor).not.toBeNull();
    const second = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&pageSize=3&cursor=${cursor}`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ total, page: 2, pageSize: 3 });
    const byPage = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&pageSize=3&page=2`);
    expect(ids(second)).toEqual(ids(byPage));
  });

  it('answers 400 validation_error for a cursor that is not one of ours or given with offset or page', async () => {
    const junk = Buffer.from('{"a":1}').toString('base64url');
    for (const cursor of ['not a cursor!', junk, 'x'.repeat(401)]) {
      const res = await list(`limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(res.status, cursor).toBe(400);
      expect(res.body).toMatchObject({
        error: 'validation_error',
        details: [{ field: 'cursor', error: 'must be the X-Next-Cursor of a previous answer' }],
      });
    }
    const cursor = next(await list('limit=1')) ?? '';
    const both = await list(`limit=1&offset=1&cursor=${cursor}`);
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({
      error: 'validation_error',
      details: [{ field: 'offset', error: 'cannot be given with cursor' }],
    });
    const paged = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&page=2&cursor=${cursor}`);
    expect(paged.status).toBe(400);
    expect(paged.body).toMatchObject({ details: [{ field: 'page', error: 'cannot be given with cursor' }] });
  });
});
