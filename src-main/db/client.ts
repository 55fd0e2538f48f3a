// The only module that opens the store: better-sqlite3 with its pragmas (the terminal's embedded store) or a
// PostgreSQL pool (server mode, BALCAO_DATABASE_URL); the Kysely instance and migrations at start.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import {
  ColumnDefinitionNode,
  DataTypeNode,
  GeneratedNode,
  Kysely,
  Migrator,
  OperationNodeTransformer,
  PostgresDialect,
  SqliteDialect,
  sql,
  CompiledQuery,
  PostgresDriver,
  type DatabaseConnection,
  type Driver,
  type KyselyPlugin,
  type PostgresDialectConfig,
  type TransactionSettings,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type Transaction,
  type UnknownRow,
} from 'kysely';
import { DomainError } from '../errors.ts';
import type { Database } from './schema.ts';
import { migrationProvider } from './migrations/index.ts';
import { isPostgres, isPostgresUrl } from './dialect.ts';
import { STATEMENT_CACHE_SIZE, withStatementCache } from './statement-cache.ts';
import { BoundedPool, boundedPoolConfig, DEFAULT_STORE_TIMEOUT_MS } from './bounded-pool.ts';

export type Db = Kysely<Database>;
export type DbTransaction = Transaction<Database>;

export interface OpenedDatabase {
  db: Db;
  close(): Promise<void>;
}

/**
 * Opens the product's store: the SQLite file `file`, or the PostgreSQL database `url` names when it is a
 * postgres:// URL (server mode: several service instances may share it).
 */
export function openDatabase(
  file: string,
  url?: string,
  options: { timeoutMs?: number } = {},
): OpenedDatabase {
  return isPostgresUrl(url) ? openPostgres<Database>(url, options.timeoutMs) : openSqlite<Database>(file);
}

/**
 * The migrations' DDL as SQLite takes it, in PostgreSQL's words: SQLite's INTEGER is 64-bit (bigint: epoch
 * milliseconds, sums of cents), an INTEGER PRIMARY KEY AUTOINCREMENT is an identity column, a BLOB is bytea.
 */
class PostgresDdl extends OperationNodeTransformer {
  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const done = super.transformColumnDefinition(node);
    if (!done.autoIncrement) return done;
    return ColumnDefinitionNode.cloneWith(done, {
      autoIncrement: false,
      generated: GeneratedNode.create({ byDefault: true, identity: true }),
    });
  }
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    if (node.dataType === 'integer') return DataTypeNode.create('bigint');
    if (node.dataType === 'blob') return DataTypeNode.create('bytea');
    return node;
  }
}

class PostgresDdlPlugin implements KyselyPlugin {
  readonly #ddl = new PostgresDdl();
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const kind = args.node.kind;
    return kind === 'CreateTableNode' || kind === 'AlterTableNode'
      ? this.#ddl.transformNode(args.node)
      : args.node;
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

/** pg's text parsers, but bigint (int8: SQLite's INTEGER columns, COUNT, SUM) as a number, as SQLite gives it. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? (text: string) => Number(text)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** The advisory lock every write transaction of the store takes on PostgreSQL (see SerialTransactions). */
export const STORE_WRITE_LOCK = 0x62616c63; // 'balc'
/** The first key of a company's write lock (two-key advisory locks; the leases use 1-4, see leaseSpace). */
export const COMPANY_WRITE_LOCK_SPACE = 5;

/** The company a transaction about to begin is scoped to (inCompanyTransaction); unset: the whole store. */
const beginningScope = new AsyncLocalStorage<string>();
/** The scope of the transaction `work` runs in: a company's id, or null for the whole store. */
const transactionScope = new AsyncLocalStorage<string | null>();

/**
 * Transactions one at a time, as on SQLite, except between companies: each takes the store's advisory lock
 * first (held to its COMMIT or ROLLBACK), so every instance sharing the database sees the others' transactions
 * whole, in one order. The product's transactions were written for SQLite's single writer (read a row, decide,
 * write: a series' next number, a draft's state): under PostgreSQL's READ COMMITTED they would race, across
 * processes too. A transaction scoped to one company (whose reads and writes decide only on that company's
 * rows) takes the store's lock shared and its company's exclusively: two companies' sales go on side by side,
 * and a transaction of the whole store still waits for them all and they for it. Reads outside a transaction
 * do not wait.
 */
class SerialTransactionsDriver extends PostgresDriver {
  override async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    await super.beginTransaction(connection, settings);
    const company = beginningScope.getStore();
    await connection.executeQuery(
      company === undefined
        ? CompiledQuery.raw(`SELECT pg_advisory_xact_lock(${STORE_WRITE_LOCK})`)
        : CompiledQuery.raw(
            `SELECT pg_advisory_xact_lock_shared(${STORE_WRITE_LOCK}), pg_advisory_xact_lock(${COMPANY_WRITE_LOCK_SPACE}, hashtext($1))`,
            [company],
          ),
    );
  }
}

class SerialTransactionsDialect extends PostgresDialect {
  readonly #config: PostgresDialectConfig;
  constructor(config: PostgresDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new SerialTransactionsDriver(this.#config);
  }
}

/**
 * Server mode: a pool of connections to the PostgreSQL database `url` names, each wait on it bounded by
 * `timeoutMs` (BALCAO_DATABASE_TIMEOUT_MS; 0: unbounded). Migrations run on a connection of their own without
 * that bound: a migration over a large store may take longer than a request should.
 */
export function openPostgres<Schema>(
  url: string,
  timeoutMs: number = DEFAULT_STORE_TIMEOUT_MS,
): { db: Kysely<Schema>; close(): Promise<void> } {
  const pool = new BoundedPool({ ...boundedPoolConfig(url, timeoutMs), types: pgTypes, max: 10 });
  // The leases' connections, apart: a lease holds its connection while its work queries through `pool`.
  const leasePool = new pg.Pool({ ...boundedPoolConfig(url, timeoutMs), max: 20 });
  leasePool.on('error', () => undefined);
  const db = new Kysely<Schema>({
    dialect: new SerialTransactionsDialect({ pool }),
    plugins: [new PostgresDdlPlugin()],
  });
  const migrationDb = new Kysely<Schema>({
    dialect: new SerialTransactionsDialect({
      pool: new BoundedPool({ connectionString: url, types: pgTypes, max: 1, idleTimeoutMillis: 1000 }),
    }),
    plugins: [new PostgresDdlPlugin()],
  });
  migrationStores.set(db, migrationDb);
  leases.set(db, async (space, id, onLost) => {
    // The lock's two int4 keys: the space, and the row's id (a UUID's hash: two rows sharing one only wait
    // for each other, one of them taken at the next poll).
    const key = typeof id === 'number' ? '$2::int4' : 'hashtext($2)';
    const client = await leasePool.connect();
    // A held lease's connection that fails (the server restarted, the session was ended) emits 'error' on a
    // client the pool does not listen to while it is checked out: without this the process would crash. The
    // lock went with the session; the release below finds the connection gone and drops it.
    const lost = (): void => onLost?.();
    client.on('error', lost);
    const free = (broken: boolean): void => {
      client.removeListener('error', lost);
      client.release(broken);
    };
    try {
      const got = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock($1, ${key}) AS ok`, [
        leaseSpace(space),
        id,
      ]);
      if (got.rows[0]?.ok !== true) {
        free(false);
        return null;
      }
    } catch (error) {
      free(true);
      throw error;
    }
    return async () => {
      try {
        await client.query(`SELECT pg_advisory_unlock($1, ${key})`, [leaseSpace(space), id]);
        free(false);
      } catch {
        // The connection is gone, and its session's locks with it.
        free(true);
      }
    };
  });
  // This run's own lease, held while the store is open: the other instances tell by it that a row this run
  // owns (a pending idempotency key) is still being worked on (see runIsLive).
  const runLease = new RunLease(randomUUID(), leaseOf(db));
  runs.set(db, runLease.run);
  runLeases.set(db, runLease);
  return {
    db,
    close: async () => {
      await db.destroy();
      await migrationDb.destroy();
      await runLease.close();
      await leasePool.end();
    },
  };
}

/** How long a claim waits for its run's lease: a store that answers grants it in milliseconds. */
const RUN_LEASE_WAIT_MS = 3000;

/** `attempt`'s outcome, or false once `ms` have passed (the attempt itself goes on). */
function within(attempt: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  return Promise.race([attempt, late]).finally(() => clearTimeout(timer));
}

/**
 * A PostgreSQL store's run lease, taken as the store opens without waiting. One that could not be taken (the
 * database did not answer) or was lost (its connection ended) is taken again by the next claim that needs it;
 * until it is held, claims are refused rather than made under a run the other instances see as dead. A claim
 * waits for it at most RUN_LEASE_WAIT_MS: a store that accepts connections and never answers would otherwise
 * hold every keyed request until the operating system gives up on the connection.
 */
class RunLease {
  /** The current attempt: whether it took the lease. */
  #attempt: Promise<boolean>;
  /** The current attempt has not settled; no other is started meanwhile. */
  #pending = false;
  #release: (() => Promise<void>) | null = null;
  #closed = false;

  constructor(
    readonly run: string,
    private readonly take: LeaseFn,
  ) {
    this.#attempt = this.#take();
  }

  #take(): Promise<boolean> {
    this.#pending = true;
    let mine: (() => Promise<void>) | null = null;
    let gone = false;
    // Only this attempt's own lease is dropped: a late error of an earlier connection leaves a newer one.
    const lost = (): void => {
      gone = true;
      if (mine === null || this.#release !== mine) return;
      this.#release = null;
      // Gives the broken connection back to its pool (the unlock fails and the client is dropped).
      void mine();
    };
    return this.take('run', this.run, lost).then(
      (release) => {
        this.#pending = false;
        mine = release;
        if (release !== null && (gone || this.#closed)) {
          void release();
          return false;
        }
        this.#release = release;
        return release !== null;
      },
      () => {
        this.#pending = false;
        return false;
      },
    );
  }

  /** Held right now, as far as this process knows (a lost connection is noticed as its socket closes). */
  get held(): boolean {
    return this.#release !== null;
  }

  /** Whether the lease is held once this returns: taken again (one attempt shared by every caller) if not. */
  async hold(): Promise<boolean> {
    if (this.#release !== null) return true;
    if (this.#closed) return false;
    if (!this.#pending) this.#attempt = this.#take();
    return (await within(this.#attempt, RUN_LEASE_WAIT_MS)) && this.#release !== null;
  }

  async close(): Promise<void> {
    this.#closed = true;
    // An attempt still unanswered releases its lease itself if it ever gets one.
    await within(this.#attempt, RUN_LEASE_WAIT_MS);
    const release = this.#release;
    this.#release = null;
    await release?.();
  }
}

/** A claim needs this run's lease and it could not be held: the store did not answer. Nothing was done. */
export const runLeaseUnavailable = (): DomainError =>
  new DomainError(
    'store_unavailable',
    'The PostgreSQL store did not answer: this instance cannot hold the lease its requests are claimed under. Nothing was done; retry.',
    [],
    { retryAfterSeconds: 1 },
  );

function leaseOf(db: object): LeaseFn {
  const lease = leases.get(db);
  if (lease === undefined) throw new Error('no leases for this store');
  return lease;
}

/** Each PostgreSQL store's store for migrations: the same database, without the requests' time bound. */
const migrationStores = new WeakMap<object, object>();
/** Each open store's run: a random id (per process and store; a restarted service is a new run). */
const runs = new WeakMap<object, string>();
/** Each PostgreSQL store's run lease (opening the store does not wait for it). */
const runLeases = new WeakMap<object, RunLease>();

/**
 * This run, once the other instances can see it alive: a row this run claims (a pending idempotency key)
 * while its run lease is not held could be taken over by another instance as a dead run's. On SQLite at once.
 * Throws `store_unavailable` when the lease cannot be held (taken again once if it was not).
 */
export async function liveStoreRun(db: Db): Promise<string> {
  const lease = runLeases.get(db);
  if (lease !== undefined && !(await lease.hold())) throw runLeaseUnavailable();
  return storeRun(db);
}

/** Whether this run's lease is held now: always on SQLite; on PostgreSQL until its connection is lost. */
export function runLeaseHeld(db: Db): boolean {
  return runLeases.get(db)?.held ?? true;
}

/**
 * This run of the service on `db`, the owner named by the rows it is working on for a request (pending
 * idempotency keys): a key owned by a run that is gone died with it and may be taken over.
 */
export function storeRun(db: Db): string {
  let run = runs.get(db);
  if (run === undefined) {
    run = randomUUID();
    runs.set(db, run);
  }
  return run;
}

/**
 * Whether `run` is alive: this run, or on PostgreSQL (server mode) another instance's whose run lease is held
 * (it ends with the instance's connections). On SQLite another run is an earlier start of the only process.
 */
export async function runIsLive(db: Db, run: string | null): Promise<boolean> {
  if (run === null) return false;
  if (run === storeRun(db)) return true;
  if (leases.get(db) === undefined) return false;
  const probe = await leaseRow(db, 'run', run);
  if (probe === null) return true;
  await probe();
  return false;
}

/** Takes a row's lease: its release, or null when another session holds it; `onLost` if its connection ends. */
type LeaseFn = (
  space: LeaseSpace,
  id: number | string,
  onLost?: () => void,
) => Promise<(() => Promise<void>) | null>;
const leases = new WeakMap<object, LeaseFn>();

/** The kinds of rows that one instance at a time may work on (the first key of the advisory lock). */
export type LeaseSpace = 'outbox' | 'webhook_delivery' | 'print_job' | 'run';
function leaseSpace(space: LeaseSpace): number {
  return { outbox: 1, webhook_delivery: 2, print_job: 3, run: 4 }[space];
}

/**
 * Takes the lease of one row (an outbox message, a webhook delivery, a print job) for as long as a worker
 * works on it: null when another instance holds it. On PostgreSQL (server mode: several instances take rows
 * from one queue) a session advisory lock, freed by `release` or by the end of the instance's connection
 * (a crash); on SQLite the data dir's lock already makes the process the only one, so the lease is free.
 */
export async function leaseRow(
  db: Db,
  space: LeaseSpace,
  id: number | string,
): Promise<(() => Promise<void>) | null> {
  const lease = leases.get(db);
  return lease === undefined ? () => Promise.resolve() : lease(space, id);
}

/**
 * Runs `work` on the row under its lease and returns its result; undefined, without running it, when another
 * instance holds the lease (it is working on the row). `work` must read the row's state again: the caller's
 * copy may predate the other instance's work.
 */
export async function whileLeased<T>(
  db: Db,
  space: LeaseSpace,
  id: number | string,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const release = await leaseRow(db, space, id);
  if (release === null) return undefined;
  try {
    return await work();
  } finally {
    await release();
  }
}

/**
 * Opens any SQLite file of the product with the same pragmas (the sandbox authority keeps its own file with
 * its own schema). WAL lets readers proceed during a write; busy_timeout covers the CLI writing while the
 * service runs; synchronous NORMAL in WAL mode loses no committed transaction on a process crash.
 */
/** `statementCache`: how many SQL texts stay prepared (0 prepares every query anew; benchmarks compare). */
export function openSqlite<Schema>(
  file: string,
  { statementCache = STATEMENT_CACHE_SIZE }: { statementCache?: number } = {},
): { db: Kysely<Schema>; close(): Promise<void> } {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // Store data and sealed secrets: owner only. SQLite gives the -wal and -shm it creates the database's mode.
  // A file of another owner (EPERM) keeps its mode: the data dir's 0700 still guards it.
  try {
    fs.chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<Schema>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite, statementCache) }),
  });
  return {
    db,
    close: async () => {
      await db.destroy();
    },
  };
}

export interface MigrationReport {
  applied: string[];
}

export interface MigrateOptions {
  /**
   * Called with the pending migrations' names before the first of them runs, when the database already
   * holds data (has run migrations before): the service backs the database up there.
   */
  beforePending?: (pending: string[]) => Promise<unknown>;
}

/** Runs every pending migration; a second run applies nothing (migrations are idempotent by bookkeeping). */
export async function migrateToLatest(db0: Db, options: MigrateOptions = {}): Promise<MigrationReport> {
  const db = (migrationStores.get(db0) as Db | undefined) ?? db0;
  const migrator = new Migrator({ db, provider: migrationProvider });
  if (options.beforePending !== undefined) {
    const known = await migrator.getMigrations();
    const pending = known.filter((m) => m.executedAt === undefined).map((m) => m.name);
    if (pending.length > 0 && pending.length < known.length) await options.beforePending(pending);
  }
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    throw error instanceof Error ? error : new Error(`migration failed: ${String(error)}`);
  }
  if (isPostgres(db)) await addPostgresRowids(db);
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/**
 * The tables whose rows are read back in the order they were written, by SQLite's implicit rowid (ids are
 * random UUIDs; times may tie): PostgreSQL has no such column, so there they get one, an identity.
 */
export const ROWID_TABLES = [
  'documents',
  'operator_actions',
  'register_movements',
  'register_voids',
  'ncm_tables',
  'ibpt_tables',
  'print_jobs',
] as const;

/**
 * Gives each of ROWID_TABLES its `rowid` on PostgreSQL (server mode), once: idempotent, and serialized by an
 * advisory lock so that instances starting together do not race.
 */
async function addPostgresRowids(db: Db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('balcao rowid'))`.execute(trx);
    for (const table of ROWID_TABLES)
      await sql`ALTER TABLE ${sql.table(table)}
        ADD COLUMN IF NOT EXISTS rowid bigint GENERATED BY DEFAULT AS IDENTITY`.execute(trx);
  });
}

/**
 * Runs `work` in a transaction, joining the caller's when there is one, so services compose into one
 * atomic unit (Kysely does not nest transactions). The transaction is the whole store's: on PostgreSQL it waits
 * for every other write transaction, and they for it.
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return transact(db, null, work);
}

/**
 * inTransaction for work whose reads (those it decides on) and writes are all of one company: its series,
 * documents, queue rows, keys, register. On PostgreSQL it waits only for that company's transactions and the
 * whole store's, so other companies' sales go on beside it.
 */
export function inCompanyTransaction<T>(
  db: Db,
  companyId: string,
  work: (trx: Db) => Promise<T>,
): Promise<T> {
  return transact(db, companyId, work);
}

/**
 * Joining the caller's transaction needs its scope to cover this one's: work for the whole store, or for another
 * company, inside a transaction scoped to one company would decide without the lock it needs, so it throws
 * instead (on SQLite too, where the tests reach most of these paths).
 */
async function transact<T>(db: Db, company: string | null, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) {
    const outer = transactionScope.getStore() ?? null;
    if (outer !== null && outer !== company) {
      throw new Error(
        `a transaction scoped to company ${outer} cannot run work for ${company === null ? 'the whole store' : `company ${company}`}`,
      );
    }
    return work(db);
  }
  const trx =
    company === null
      ? await db.startTransaction().execute()
      : await beginningScope.run(company, () => db.startTransaction().execute());
  let result: T;
  try {
    result = await transactionScope.run(company, () => work(trx));
    await trx.commit().execute();
  } catch (error) {
    // SQLite ends a transaction by itself on some failures (SQLITE_FULL, SQLITE_IOERR), in a statement or at
    // COMMIT: the ROLLBACK then fails with "cannot rollback - no transaction is active", and that error must
    // not replace the failure that caused it. (rollback releases the connection either way.)
    await trx
      .rollback()
      .execute()
      .catch(() => undefined);
    throw error;
  }
  return result;
}
