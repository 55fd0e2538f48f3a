// The Idempotency-Key store: the first answer to a request that transmits is kept per (company, key, route) for
// 24 h, a pending key belongs to the run of the service that handles it, and a key whose run died names what
// its request made (linked by that request's transaction, idempotency-link.ts). The HTTP side (reading the
// header, replaying the answer) is the API's middleware (api/middleware/idempotency.ts).
import type { Clock } from '../clock.ts';
import { liveStoreRun, runIsLive, storeRun, type Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { conflict } from '../errors.ts';
import type { LinkKind } from './idempotency-link.ts';

/** The key's name as the caller sends it, for the fields of the errors. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const POLL_MS = 25;
const SWEEP_EVERY_MS = 10 * 60_000;

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

/** A key as it is scoped: the company the request acts on, the key and the route's pattern. */
export interface KeyScope {
  company_id: string;
  key: string;
  route: string;
}

/**
 * This run of the service, per open database: a pending key owned by another run died with it, unless that
 * run is alive (runIsLive: on SQLite one service at a time holds a data dir, db/data-dir-lock.ts; on
 * PostgreSQL several instances share the store, each holding its run's lease while it is open).
 */
export function runOf(db: Db): string {
  return storeRun(db);
}

function parseResource(text: string | null): LinkedResource | null {
  if (text === null) return null;
  const at = text.indexOf(':');
  const kind = text.slice(0, at);
  return kind === 'document' || kind === 'batch' ? { kind, id: text.slice(at + 1) } : null;
}

const lastSweep = new WeakMap<Db, number>();

/** Deletes expired keys, at most once every ten minutes per database. */
export async function sweepKeys(db: Db, now: Date): Promise<void> {
  const last = lastSweep.get(db) ?? 0;
  if (now.getTime() - last < SWEEP_EVERY_MS) return;
  lastSweep.set(db, now.getTime());
  await withKeys(db).deleteFrom('idempotency_keys').where('expires_at', '<=', now.toISOString()).execute();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The keys this process is handling a request for, per store: claimed, and their answer not yet stored nor
 * the key released. A pending key of this run that is not here lost its request's end to a store that
 * failed meanwhile (the answer could not be stored, the key not released): the next retry takes it over, as
 * it would a dead run's, instead of waiting on a request that has already ended.
 */
const handling = new WeakMap<Db, Set<string>>();
const scopeId = (scope: KeyScope): string => JSON.stringify([scope.company_id, scope.key, scope.route]);

function handled(db: Db): Set<string> {
  let keys = handling.get(db);
  if (keys === undefined) {
    keys = new Set();
    handling.set(db, keys);
  }
  return keys;
}

export type Claim =
  | { kind: 'claimed'; resource: LinkedResource | null; takenOver: boolean }
  | { kind: 'replay'; row: StoredRow };

/**
 * Claims the key for this run, or finds the answer to replay. The same key with another request is a conflict;
 * one still running in this run (or another live instance's) is waited on for at most `waitMs`; one owned by
 * a dead run is taken over.
 */
export async function claimKey(
  deps: IdempotencyDeps,
  scope: KeyScope,
  hash: string,
  ttlMs: number,
  waitMs: number,
): Promise<Claim> {
  const db = withKeys(deps.db);
  const run = await liveStoreRun(deps.db);
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
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) {
      handled(deps.db).add(scopeId(scope));
      return { kind: 'claimed', resource: null, takenOver: false };
    }

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
    // This run's key whose request ended without storing its answer or releasing the key (see handling): one
    // retry of this process takes it (the check and the add are one step of the event loop).
    if (row.owner_run === run && !handled(deps.db).has(scopeId(scope))) {
      handled(deps.db).add(scopeId(scope));
      return { kind: 'claimed', resource: parseResource(row.resource), takenOver: true };
    }
    // A key another live instance is working on (server mode) is waited on like one of this run.
    if (row.owner_run !== run && !(await runIsLive(deps.db, row.owner_run))) {
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
      if (Number(taken.numUpdatedRows) === 1) {
        handled(deps.db).add(scopeId(scope));
        return { kind: 'claimed', resource: parseResource(row.resource), takenOver: true };
      }
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
 * Frees a key whose request made nothing; one linked to what its request made stays, ownerless, so the next
 * retry answers from that instead of making it twice.
 */
export async function releaseKey(db0: Db, scope: KeyScope): Promise<void> {
  const db = withKeys(db0);
  // The key's pending row, held by this run.
  const held = {
    company_id: scope.company_id,
    key: scope.key,
    route: scope.route,
    state: 'pending',
    owner_run: runOf(db0),
  } as const;
  try {
    await db
      .updateTable('idempotency_keys')
      .set({ owner_run: null })
      .where((eb) => eb.and(held))
      .where('resource', 'is not', null)
      .execute();
    await db
      .deleteFrom('idempotency_keys')
      .where((eb) => eb.and(held))
      .where('resource', 'is', null)
      .execute();
  } finally {
    handled(db0).delete(scopeId(scope));
  }
}

/** Keeps the answer of the key's request, for the retries to get it back. */
export async function storeAnswer(
  db0: Db,
  scope: KeyScope,
  answer: { status: number; contentType: string | null; body: string },
): Promise<void> {
  try {
    await withKeys(db0)
      .updateTable('idempotency_keys')
      .set({ state: 'done', status_code: answer.status, content_type: answer.contentType, body: answer.body })
      .where('company_id', '=', scope.company_id)
      .where('key', '=', scope.key)
      .where('route', '=', scope.route)
      .where('owner_run', '=', runOf(db0))
      .execute();
  } finally {
    handled(db0).delete(scopeId(scope));
  }
}
