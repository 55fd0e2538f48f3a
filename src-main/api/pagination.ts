// The three list shapes of the seed: §4.1 page/pageSize, §4.2 limit/offset, §4.6 data/meta.
import type { NextFunction, Request, Response } from 'express';
import type { z } from 'zod';
import {
  listQuerySchema,
  listWindow,
  offsetQuerySchema,
  pageQuerySchema,
  type ListWindow,
  type DataList,
  type OffsetList,
  type PageList,
} from '../../src-shared/contracts/common.ts';
import { validationError } from './errors.ts';
import { zodDetails } from './validation.ts';

/**
 * `?status=a&status=b` arrives as an array, which no /v1 parameter takes: reading one of the values would
 * silently drop the other, and code expecting a string would fail. Every repeated parameter is named at once.
 */
function repeatedParameters(query: Request['query']): { field: string; error: string }[] {
  return Object.entries(query)
    .filter(([, value]) => typeof value !== 'string' && value !== undefined)
    .map(([field]) => ({ field, error: 'must be given once, as a single value' }));
}

/** Mounted on /v1 so that routes reading `req.query` directly get the same answer as parseQuery's callers. */
export function singleValuedQuery() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const details = repeatedParameters(req.query);
    if (details.length > 0) throw validationError(details, 'Invalid query parameters.');
    next();
  };
}

/** Parses query parameters with `schema`; every faulty parameter is reported at once. */
export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  const repeated = repeatedParameters(req.query);
  const result = schema.safeParse(req.query);
  if (repeated.length > 0) {
    const fields = new Set(repeated.map((d) => d.field));
    const others = result.success ? [] : zodDetails(result.error).filter((d) => !fields.has(d.field));
    throw validationError([...repeated, ...others], 'Invalid query parameters.');
  }
  if (!result.success) throw validationError(zodDetails(result.error), 'Invalid query parameters.');
  return result.data;
}

export function pageQuery(req: Request) {
  return parseQuery(req, pageQuerySchema);
}

export function offsetQuery(req: Request) {
  return parseQuery(req, offsetQuerySchema);
}

/**
 * The §4.6 paging parameters (`page`, `limit`, `offset`, and `pageSize` as the older name of `limit`) and
 * the list's own `filters`, parsed together; the answer is the window to read plus the parsed filters.
 */
export function pageLimitQuery<S extends z.ZodRawShape = Record<never, never>>(
  req: Request,
  filters: S = {} as S,
): ListWindow & Omit<z.output<z.ZodObject<S>>, keyof ListWindow | 'pageSize'> {
  const parsed = parseQuery(req, listQuerySchema(filters));
  // The paging keys are replaced by the resolved window; what is left are the filters.
  const { page, limit, offset, pageSize, ...rest } = parsed as Record<string, unknown> & {
    page?: number;
    limit?: number;
    offset?: number;
    pageSize?: number;
  };
  return {
    ...(rest as Omit<z.output<z.ZodObject<S>>, keyof ListWindow | 'pageSize'>),
    ...listWindow({ page, limit, offset, pageSize }),
  };
}

export function pageList<T>(items: T[], total: number, page: number, pageSize: number): PageList<T> {
  return { items, total, page, pageSize };
}

export function offsetList<T>(items: T[], total: number, limit: number, offset: number): OffsetList<T> {
  return { items, total, limit, offset };
}

/** The §4.6 body for one window of a list of `total` rows. */
export function dataList<T>(
  data: T[],
  total: number,
  window: Pick<ListWindow, 'page' | 'limit'>,
): DataList<T> {
  const { page, limit } = window;
  return { data, meta: { page, limit, total, totalPages: Math.ceil(total / limit) } };
}
