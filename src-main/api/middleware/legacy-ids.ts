// Old ids keep resolving: ids of earlier releases (`doc_<32 hex>`) that arrive in a path, the query, the
// X-Company-Id header or an id field of a JSON body are turned into the UUIDs the rows carry now, once,
// before any route sees them.
import type { RequestHandler } from 'express';
import { canonicalId, canonicalIdsIn } from '../../ids.ts';

/** Body fields that name a row: `id`, `customerId`, `fiscal_profile_id`, `documentos` lists of ids… */
const ID_FIELD = /(^id$|Id$|_id$|Ids$|_ids$)/;

function canonicalBody(node: unknown, key: string | null): unknown {
  if (typeof node === 'string') return key !== null && ID_FIELD.test(key) ? canonicalId(node) : node;
  if (Array.isArray(node)) return node.map((child) => canonicalBody(child, key));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = canonicalBody(v, k);
  return out;
}

export function canonicalLegacyIds(): RequestHandler {
  return (req, _res, next) => {
    const url = canonicalIdsIn(req.url);
    if (url !== req.url) req.url = url;
    const company = req.headers['x-company-id'];
    if (typeof company === 'string') req.headers['x-company-id'] = canonicalId(company);
    if (typeof req.body === 'object' && req.body !== null) req.body = canonicalBody(req.body, null);
    next();
  };
}
