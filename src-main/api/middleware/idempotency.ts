// `Idempotency-Key` for the requests that transmit (POST /v1/nfe/:id/send, POST /v1/nfce, POST /v1/nfe/batch):
// the first answer (status and body) is stored per (company, key, route) for 24 h and a retry gets it back
// without running the handler again, so a retry never transmits twice. The same key with another request is
// 409 `conflict`; a retry that arrives while the first is still running waits for its answer (bounded).
// A key whose request died with an earlier run of the service (killed while waiting for the authority) is
// never waited on: it is taken over and answered from the document or batch the request had made, linked to
// the key in the transaction that made it, so the retry gets what the first call would have answered.
// This is the HTTP side (header, fingerprint, replay); the keys themselves are kept by documents/idempotency.ts.
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Db } from '../../db/client.ts';
import { conflict, validationError } from '../errors.ts';
import { documentsRepository } from '../../documents/repository.ts';
import {
  claimKey,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_TTL_MS,
  releaseKey,
  runOf,
  storeAnswer,
  sweepKeys,
  type IdempotencyDeps,
  type LinkedResource,
} from '../../documents/idempotency.ts';
import { keyInFlight, type LinkKind } from '../../documents/idempotency-link.ts';
import { authOf } from './auth.ts';
import { companyOfRequestAhead, reachableBy } from '../routes/scoping.ts';

export { IDEMPOTENCY_HEADER, type IdempotencyDeps, type LinkedResource };

const MAX_KEY_LENGTH = 255;
/** How long a retry waits for the answer of a first request that is still running. */
const DEFAULT_WAIT_MS = 15_000;
/** Marks a request whose key is already handled, so nested applications of the middleware pass through. */
const APPLIED = 'idempotencyApplied';

export interface IdempotencyOptions {
  /**
   * The company the request acts on, which scopes the key. Default: the company of the request (`companyId`
   * or `X-Company-Id`, or the company key's own). Returning null lets the request through without
   * idempotency (the handler then answers its own 403/404).
   */
  companyOf?: (req: Request, res: Response) => Promise<string | null>;
  ttlMs?: number;
  waitMs?: number;
  /** What the route's transaction links to the key (default `document`). */
  links?: LinkKind;
  /**
   * Answers a retry whose first request died after it made `resource` (the service was killed meanwhile):
   * from the resource's current state, with the status and body shape the first call would have answered.
   */
  resume?: (resource: LinkedResource, req: Request, res: Response) => Promise<void>;
}

/** Key scope for routes that act on a document by `:id` (e.g. POST /v1/nfe/:id/send). */
export function documentCompanyOf(db: Db) {
  return async (req: Request, res: Response): Promise<string | null> => {
    const doc = await documentsRepository.findById(db, String(req.params['id']));
    if (doc === undefined) return null;
    return (await reachableBy(db, authOf(res))(doc.company_id)) ? doc.company_id : null;
  };
}

/** JSON with object keys sorted, so two spellings of the same body hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function fingerprint(req: Request): string {
  const query = { ...(req.query as Record<string, unknown>) };
  // The company is part of the key's scope already, however it was named.
  delete query['companyId'];
  return createHash('sha256')
    .update(canonical([req.method, `${req.baseUrl}${req.path}`, query, req.body ?? null]))
    .digest('hex');
}

function routeOf(req: Request): string {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  return `${req.method} ${req.baseUrl}${typeof pattern === 'string' ? pattern : req.path}`;
}

function keyProblem(key: string): string | null {
  if (key.length === 0) return 'must not be empty';
  if (key.length > MAX_KEY_LENGTH) return `must have at most ${MAX_KEY_LENGTH} characters`;
  if (!/^[\x20-\x7e]+$/.test(key)) return 'must be printable ASCII';
  return null;
}

/**
 * Answers that are not kept, because nothing ran and a retry with the same key must be able to go through:
 * 400 (a corrected body), 401/403/423 (a new operator token or a supervisor's approval in the headers: issue 13),
 * 503 (the queue was not running yet) and the refusals of a sale that waits on the store, not on the request:
 * the register opened (caixa_fechado) or the PIX charge paid (pix_nao_pago). Everything else, other errors
 * included, is replayed.
 */
const NOT_KEPT_STATUS: ReadonlySet<number> = new Set([400, 401, 403, 423, 503]);
const NOT_KEPT_CODES: ReadonlySet<string> = new Set(['caixa_fechado', 'pix_nao_pago']);

function notKept(status: number, body: string): boolean {
  if (NOT_KEPT_STATUS.has(status)) return true;
  if (status < 400) return false;
  try {
    const parsed: unknown = JSON.parse(body);
    const code = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : null;
    return typeof code === 'string' && NOT_KEPT_CODES.has(code);
  } catch {
    return false;
  }
}

/**
 * The middleware. Apply it per route, before the handler (`router.post('/x', idempotency(deps), handler)`);
 * requests without the header go straight through.
 */
export function idempotency(deps: IdempotencyDeps, options: IdempotencyOptions = {}): RequestHandler {
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const companyOf =
    options.companyOf ??
    (async (req: Request, res: Response) => (await companyOfRequestAhead(deps.db, req, res)).id);

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get(IDEMPOTENCY_HEADER);
    if (key === undefined || res.locals[APPLIED] === true) {
      next();
      return;
    }
    const problem = keyProblem(key);
    if (problem !== null) throw validationError([{ field: IDEMPOTENCY_HEADER, error: problem }]);
    const companyId = await companyOf(req, res);
    if (companyId === null) {
      next();
      return;
    }
    res.locals[APPLIED] = true;
    await sweepKeys(deps.db, deps.clock.now());
    const scope = { company_id: companyId, key, route: routeOf(req) };
    const outcome = await claimKey(deps, scope, fingerprint(req), ttlMs, waitMs);

    if (outcome.kind === 'replay') {
      const { row } = outcome;
      res.setHeader('Idempotent-Replayed', 'true');
      if (row.content_type !== null) res.setHeader('Content-Type', row.content_type);
      res.status(row.status_code ?? 200).send(row.body ?? '');
      return;
    }

    const run = runOf(deps.db);
    // A key that made nothing is freed; one linked to what its request made stays for the next retry.
    const release = () => releaseKey(deps.db, scope);

    let settled = false;
    const originalSend = res.send.bind(res);
    res.send = (body?: unknown): Response => {
      if (settled) return originalSend(body);
      settled = true;
      const status = res.statusCode;
      const text =
        typeof body === 'string'
          ? body
          : Buffer.isBuffer(body)
            ? body.toString('utf8')
            : body === undefined || body === null
              ? ''
              : JSON.stringify(body);
      const header = res.getHeader('Content-Type');
      const contentType =
        typeof header === 'string'
          ? header
          : typeof body === 'object' && body !== null && !Buffer.isBuffer(body)
            ? 'application/json; charset=utf-8'
            : null;
      // Stored before the answer leaves: once the client has it, a retry finds it.
      const persist = notKept(status, text)
        ? release()
        : storeAnswer(deps.db, scope, { status, contentType, body: text });
      persist.then(
        () => originalSend(body),
        (error: unknown) => {
          deps.logger?.error('idempotency: could not store the answer', { error: String(error) });
          originalSend(body);
        },
      );
      return res;
    };
    // An answer written without send() (res.end) is not kept: the key is released once it is finished.
    res.once('finish', () => {
      if (settled) return;
      settled = true;
      void release().catch(() => undefined);
    });
    const inFlight = { ...scope, run, kind: options.links ?? 'document' };
    const resume = options.resume;
    if (outcome.resource !== null) {
      if (resume === undefined) {
        throw conflict('The request with this Idempotency-Key was interrupted; look the document up.', [
          {
            field: IDEMPOTENCY_HEADER,
            error: `interrupted after creating ${outcome.resource.kind} ${outcome.resource.id}`,
          },
        ]);
      }
      deps.logger?.info('idempotency: answering a key whose request died with an earlier run', {
        route: scope.route,
        resource: `${outcome.resource.kind}:${outcome.resource.id}`,
      });
      const resource = outcome.resource;
      await keyInFlight.run(inFlight, () => resume(resource, req, res));
      return;
    }
    keyInFlight.run(inFlight, next);
  };
}
