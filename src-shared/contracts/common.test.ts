// The §4.6 paging rules: which window page, limit, offset and the older pageSize name select.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listQuerySchema, listWindow } from './common.ts';

describe('listWindow', () => {
  it('defaults to the first page of 20', () => {
    expect(listWindow({})).toEqual({ page: 1, limit: 20, offset: 0 });
  });

  it('turns a page into its offset', () => {
    expect(listWindow({ page: 3, limit: 10 })).toEqual({ page: 3, limit: 10, offset: 20 });
  });

  it('lets offset win over page, with page = floor(offset / limit) + 1', () => {
    expect(listWindow({ page: 1, offset: 25, limit: 10 })).toEqual({ page: 3, limit: 10, offset: 25 });
    expect(listWindow({ offset: 0, limit: 10 })).toEqual({ page: 1, limit: 10, offset: 0 });
    expect(listWindow({ offset: 19 })).toEqual({ page: 1, limit: 20, offset: 19 });
  });

  it('reads pageSize as the older name of limit', () => {
    expect(listWindow({ page: 2, pageSize: 5 })).toEqual({ page: 2, limit: 5, offset: 5 });
  });
});

describe('listQuerySchema', () => {
  const schema = listQuerySchema({ q: z.string().optional() });

  it('coerces the query strings and keeps the filters', () => {
    expect(schema.parse({ page: '2', limit: '5', q: 'cafe' })).toEqual({ page: 2, limit: 5, q: 'cafe' });
  });

  it('reports every faulty parameter, and a pageSize that disagrees with limit', () => {
    const bad = schema.safeParse({ page: '0', limit: '101', offset: '-1' });
    expect(bad.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['limit', 'offset', 'page']);
    const conflict = schema.safeParse({ limit: '5', pageSize: '10' });
    expect(conflict.error?.issues.map((i) => i.path.join('.'))).toEqual(['pageSize']);
    expect(schema.safeParse({ limit: '5', pageSize: '5' }).success).toBe(true);
  });
});
