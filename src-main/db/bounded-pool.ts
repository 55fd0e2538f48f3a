// Server mode's connections to PostgreSQL, with every wait on the database bounded: a database that stops
// answering (or a network that drops its packets) fails the request with `store_unavailable` instead of
// holding it, and a connection lost mid-query fails that query instead of the process.
import pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { DomainError } from '../errors.ts';

/** BALCAO_DATABASE_TIMEOUT_MS's default: the longest a request waits on one step of the database. */
export const DEFAULT_STORE_TIMEOUT_MS = 10_000;

/**
 * The client's own deadline runs this much past the server's statement_timeout: a server that answers cancels
 * the statement itself (and the connection stays usable); only one that does not answer at all meets this one.
 */
const CLIENT_GRACE_MS = 2_000;

/**
 * A session idle inside a transaction for this many times the timeout is ended by the server: its client is
 * gone (no transaction of ours waits on anything but the database and the CPU), and its locks, the store's
 * write lock among them, would otherwise stay held until the server's TCP keepalive notices, for many minutes.
 */
const IDLE_IN_TRANSACTION_FACTOR = 3;

/** The pool settings that bound each wait, from `timeoutMs` (0: none, as node-postgres has it by default). */
export function boundedPoolConfig(url: string, timeoutMs: number): pg.PoolConfig {
  if (timeoutMs === 0) return { connectionString: url };
  return {
    connectionString: url,
    // A free connection from the pool, or a new one made: the same bound.
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    idle_in_transaction_session_timeout: timeoutMs * IDLE_IN_TRANSACTION_FACTOR,
    query_timeout: timeoutMs + CLIENT_GRACE_MS,
  };
}

/** The database did not answer, or the connection to it was lost: whether the request's work was kept is unknown. */
export const storeUnreachable = (cause: unknown): DomainError => {
  const error = new DomainError(
    'store_unavailable',
    'The PostgreSQL store did not answer in time or the connection to it was lost. A write of this request may or may not have been kept: retry with the same Idempotency-Key, or look the document up before issuing it again.',
    [],
    { retryAfterSeconds: 1 },
  );
  error.cause = cause;
  return error;
};

/** SQLSTATEs of a connection that is gone or a statement the server gave up on for time. */
const UNREACHABLE_SQLSTATES = new Set([
  '57014', // query_canceled: statement_timeout
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '25P03', // idle_in_transaction_session_timeout
]);

/** What node and node-postgres say when the socket fails, or when a deadline of boundedPoolConfig passes. */
const UNREACHABLE_SOCKET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNREACHABLE_MESSAGES = [
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'is not queryable',
];

/** Whether `error` says the store is out of reach (as opposed to a statement it refused: a constraint, a type). */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_SOCKET_CODES.has(code) || UNREACHABLE_SQLSTATES.has(code)))
    return true;
  if (typeof code === 'string' && code.startsWith('08')) return true; // connection_exception class
  return UNREACHABLE_MESSAGES.some((m) => error.message.includes(m));
}

/**
 * A checked-out client as Kysely uses it. A query that failed because the store is out of reach is thrown
 * as `store_unavailable`; after a client-side deadline the connection is closed at once (its query may still be
 * running on the server: nothing else may be sent on it) and the pool drops it when it comes back.
 */
class BoundedClient implements PostgresPoolClient {
  constructor(private readonly client: pg.PoolClient) {}

  query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sqlOrCursor: string | PostgresCursor<R>,
    parameters?: ReadonlyArray<unknown>,
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // The dialect is configured without a cursor class, so Kysely never passes one.
    if (typeof sqlOrCursor !== 'string') throw new Error('cursors are not used by this store');
    const running = this.client.query(sqlOrCursor, parameters === undefined ? [] : [...parameters]);
    // node-postgres types rows as QueryResultRow; Kysely gives R, the row type of the query it compiled.
    return (running as unknown as Promise<PostgresQueryResult<R>>).catch((error: unknown) => {
      if (!isUnreachable(error)) throw error;
      // end() with a query still active destroys the socket: later queries fail at once, not after a deadline.
      if (error instanceof Error && error.message.includes('Query read timeout'))
        this.client.end().catch(() => undefined);
      throw storeUnreachable(error);
    });
  }

  release(): void {
    // A client whose connection ended is dropped by the pool (it checks that the client is still queryable).
    this.client.release();
  }
}

/**
 * The pool Kysely draws from: node-postgres's, with each wait bounded (boundedPoolConfig) and a connection
 * that fails while checked out unable to crash the process. node-postgres emits that failure as an 'error'
 * event on the client, which nothing listens to while it is lent (the pool only listens to idle ones), and the
 * query in progress gets the same error anyway.
 */
export class BoundedPool implements PostgresPool {
  readonly #pool: pg.Pool;
  readonly #clients = new WeakMap<pg.PoolClient, BoundedClient>();

  constructor(config: pg.PoolConfig) {
    this.#pool = new pg.Pool(config);
    // An idle client's error (the server restarted) is the pool's to handle: it drops the client.
    this.#pool.on('error', () => undefined);
    this.#pool.on('connect', (client) => client.on('error', () => undefined));
  }

  async connect(): Promise<BoundedClient> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw isUnreachable(error) ? storeUnreachable(error) : error;
    }
    let bounded = this.#clients.get(client);
    if (bounded === undefined) {
      bounded = new BoundedClient(client);
      this.#clients.set(client, bounded);
    }
    return bounded;
  }

  end(): Promise<void> {
    return this.#pool.end();
  }
}
