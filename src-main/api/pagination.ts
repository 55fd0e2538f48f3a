// The three list shapes of the seed: §4.1 page/pageSize, §4.2 limit/offset, §4.6 data/meta.
import type { Request } from 'express';
import type { z } from 'zod';
import {
  offsetQuerySchema,
  pageLimitQuerySchema,
  pageQuerySchema,
  type DataList,
  type OffsetList,
  type PageList,
} from '../../src-shared/contracts/common.ts';
import { validationError } from './errors.ts';
import { zodDetails } from './validation.ts';

/** Parses query parameters with `schema`; every faulty parameter is reported at once. */
export function parseQuery<S extends z.ZodType>(req: Request, schema: S): z.output<S> {
  const result = schema.safeParse(req.query);
  if (!result.success) throw validationError(zodDetails(result.error), 'Invalid query parameters.');
  return result.data;
}

export function pageQuery(req: Request) {
  return parseQuery(req, pageQuerySchema);
}

export function offsetQuery(req: Request) {
  return parseQuery(req, offsetQuerySchema);
}

export function pageLimitQuery(req: Request) {
  return parseQuery(req, pageLimitQuerySchema);
}

export function pageList<T>(items: T[], total: number, page: number, pageSize: number): PageList<T> {
  return { items, total, page, pageSize };
}

export function offsetList<T>(items: T[], total: number, limit: number, offset: number): OffsetList<T> {
  return { items, total, limit, offset };
}

export function dataList<T>(data: T[], total: number, page: number, limit: number): DataList<T> {
  return { data, meta: { page, limit, total, totalPages: Math.ceil(total / limit) } };
}
