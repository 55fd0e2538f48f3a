// `Idempotency-Key` for the requests that transmit (POST /v1/nfe/:id/send, POST /v1/nfce, POST /v1/nfe/batch):
// the first answer (status and body) is stored per (company, key, route) for 24 h and a retry gets it back
// without running the handler again, so a retry never transmits twice. The same key with another request is
// 409 `conflict`; a retry that arrives while the first is still running waits for its answer (bounded).
// A key whose request died with an earlier run of the service (killed while waiting for the authority) is
// never waited on: it is taken over and answered from the document or batch the request had made, linked to
// the key in the transaction that made it, so the retry gets what the first call would have answered.
import { createHash, randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { conflict, validationError } from '../api/errors.ts';
import { authOf } from '../api/middleware/auth.ts';
import { companyOfRequest, reachableBy } from '../api/routes/scoping.ts';
import { documentsRepository } from './repository.ts';
import { keyInFlight, type LinkKind } from './idempotency-link.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const MAX_KEY_LENGTH = 255;
/** How long a retry waits for the answer of a first request that is still running. */
const DEFAULT_WAIT_MS = 15_000;
const POLL_MS = 25;
const SWEEP_EVERY_MS = 10 * 60_000;
/** Marks a request whose key is already handled, so nested applications of the middleware pass through. */
const APPLIED = 'idempotencyApplied';

export interface IdempotencyKeysTable {
  company_id: string;
  key: string;
  route: string;
  request_hash: string;
  state: 'pending' | 'done';
  status_code: number | null;
  content_type: string | null;
  body: string | null;
  created_at: string;
  expires_at: string;
  /** The run processing a pending key (see runOf); null for keys written before runs were recorded. */
  owner_run: string | null;
  /** `document:<id>` or `batch:<id>`, linked by the transaction that created or queued it. */
  resource: string | null;
}

const withKeys = (db: Db) => db.withTables<{ idempotency_keys: IdempotencyKeysTable }>();
type StoredRow = IdempotencyKeysTable;

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  logger?: Logger;
}

/** What a key's request made, and how a route answers from it after the request died. */
export interface LinkedResource {
  kind: LinkKind;
  id: string;
}

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

/**
 * This run of the service, per open database: a pending key owned by another run died with it. Sound because
 * one service at a time holds a data dir (db/data-dir-lock.ts), and a database handle lives as long as its run.
 */
const runs = new WeakMap<Db, string>();
export function runOf(db: Db): string {
  let run = runs.get(db);
  if (run === undefined) {
    run = randomUUID();
    runs.set(db, run);
  }
  return run;
}

function parseResource(text: string | null): LinkedResource | null {
  if (text === null) return null;
  const at = text.indexOf(':');
  const kind = text.slice(0, at);
  return kind === 'document' || kind === 'batch' ? { kind, id: text.slice(at + 1) } : null;
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

const lastSweep = new WeakMap<Db, number>();

async function sweep(db: Db, now: Date): Promise<void> {
  const last = lastSweep.get(db) ?? 0;
  if (now.getTime() - last < SWEEP_EVERY_MS) return;
  lastSweep.set(db, now.getTime());
  await withKeys(db).deleteFrom('idempotency_keys').where('expires_at', '<=', now.toISOString()).execute();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Claim =
  | { kind: 'claimed'; resource: LinkedResource | null; takenOver: boolean }
  | { kind: 'replay'; row: StoredRow };

async function claim(
  deps: IdempotencyDeps,
  scope: { company_id: string; key: string; route: string },
  hash: string,
  ttlMs: number,
  waitMs: number,
): Promise<Claim> {
  const db = withKeys(deps.db);
  const run = runOf(deps.db);
  const started = Date.now();
  for (;;) {
    const now = deps.clock.now();
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({
        ...scope,
        request_hash: hash,
        state: 'pending',
        status_code: null,
        content_type: null,
        body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + ttlMs).toISOString(),
        owner_run: run,
        resource: null,
      })
      .onConflict((oc) => oc.columns(['company_id', 'key', 'route']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1)
      return { kind: 'claimed', resource: null, takenOver: false };

    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('company_id', '=', scope.company_id)
      .where('key', '=', scope.key)
      .where('route', '=', scope.route)
      .executeTakeFirst();
    if (row === undefined) continue; // released meanwhile: claim it
    if (row.expires_at <= now.toISOString()) {
      await db
        .deleteFrom('idempotency_keys')
        .where('company_id', '=', scope.company_id)
        .where('key', '=', scope.key)
        .where('route', '=', scope.route)
        .where('expires_at', '=', row.expires_at)
        .execute();
      continue;
    }
    if (row.request_hash !== hash) {
      throw conflict('This Idempotency-Key was already used with a different request.', [
        { field: IDEMPOTENCY_HEADER, error: 'already used with a different request body or target' },
      ]);
    }
    if (row.state === 'done') return { kind: 'replay', row };
    if (row.owner_run !== run) {
      // Its request died with an earlier run: nothing waits on it. Taken over atomically, so of two retries
      // only one resumes it and the other waits for that one's answer.
      const taken = await db
        .updateTable('idempotency_keys')
        .set({ owner_run: run })
        .where('company_id', '=', scope.company_id)
        .where('key', '=', scope.key)
        .where('route', '=', scope.route)
        .where('state', '=', 'pending')
        .where('owner_run', row.owner_run === null ? 'is' : '=', row.owner_run)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1)
        return { kind: 'claimed', resource: parseResource(row.resource), takenOver: true };
      continue;
    }
    if (Date.now() - started >= waitMs) {
      throw conflict('A request with this Idempotency-Key is still being processed; retry later.', [
        { field: IDEMPOTENCY_HEADER, error: 'a request with this key is still in progress' },
      ]);
    }
    await sleep(POLL_MS);
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
    (async (req: Request, res: Response) => (await companyOfRequest(deps.db, req, res)).id);

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
    await sweep(deps.db, deps.clock.now());
    const scope = { company_id: companyId, key, route: routeOf(req) };
    const outcome = await claim(deps, scope, fingerprint(req), ttlMs, waitMs);

    if (outcome.kind === 'replay') {
      const { row } = outcome;
      res.setHeader('Idempotent-Replayed', 'true');
      if (row.content_type !== null) res.setHeader('Content-Type', row.content_type);
      res.status(row.status_code ?? 200).send(row.body ?? '');
      return;
    }

    const db = withKeys(deps.db);
    const run = runOf(deps.db);
    // A key that made nothing is freed; one linked to what its request made stays, ownerless, so the next
    // retry answers from that instead of making it twice.
    const release = async () => {
      const mine = db
        .updateTable('idempotency_keys')
        .where('company_id', '=', scope.company_id)
        .where('key', '=', scope.key)
        .where('route', '=', scope.route)
        .where('state', '=', 'pending')
        .where('owner_run', '=', run);
      await mine.set({ owner_run: null }).where('resource', 'is not', null).execute();
      await db
        .deleteFrom('idempotency_keys')
        .where('company_id', '=', scope.company_id)
        .where('key', '=', scope.key)
        .where('route', '=', scope.route)
        .where('state', '=', 'pending')
        .where('owner_run', '=', run)
        .where('resource', 'is', null)
        .execute();
    };

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
        : db
            .updateTable('idempotency_keys')
            .set({ state: 'done', status_code: status, content_type: contentType, body: text })
            .where('company_id', '=', scope.company_id)
            .where('key', '=', scope.key)
            .where('route', '=', scope.route)
            .where('owner_run', '=', run)
            .execute();
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
