// The only module that opens better-sqlite3: pragmas, Kysely instance and migrations at start.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Transaction } from 'kysely';
import type { Database } from './schema.ts';
import { migrationProvider } from './migrations/index.ts';

export type Db = Kysely<Database>;
export type DbTransaction = Transaction<Database>;

export interface OpenedDatabase {
  db: Db;
  close(): Promise<void>;
}

export function openDatabase(file: string): OpenedDatabase {
  return openSqlite<Database>(file);
}

/**
 * Opens any SQLite file of the product with the same pragmas (the sandbox authority keeps its own file with
 * its own schema). WAL lets readers proceed during a write; busy_timeout covers the CLI writing while the
 * service runs; synchronous NORMAL in WAL mode loses no committed transaction on a process crash.
 */
export function openSqlite<Schema>(file: string): { db: Kysely<Schema>; close(): Promise<void> } {
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
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: sqlite }) });
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
export async function migrateToLatest(db: Db, options: MigrateOptions = {}): Promise<MigrationReport> {
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
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}

/**
 * Runs `work` in a transaction, joining the caller's when there is one, so services compose into one
 * atomic unit (Kysely does not nest transactions).
 */
export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  const trx = await db.startTransaction().execute();
  let result: T;
  try {
    result = await work(trx);
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
