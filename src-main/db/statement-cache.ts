// better-sqlite3 as Kysely's SqliteDialect sees it, with each SQL text prepared once: Kysely asks the driver to
// prepare every query it runs, and on the sale path preparing cost as much as running (measured 2.0–2.8x per
// select + update without the cache).
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** How many distinct SQL texts stay prepared: the service runs a few hundred; ad-hoc lists add a few each. */
export const STATEMENT_CACHE_SIZE = 400;

export interface CachedStatements extends SqliteDatabase {
  /** How many prepared statements the cache holds now (tests and benchmarks read it). */
  readonly size: number;
}

/**
 * Wraps `sqlite` so that `prepare(text)` returns the statement prepared for that text before, least recently used
 * ones dropped past `capacity`. Kysely runs a statement to completion (`all`/`run`) before it prepares the next, so
 * one statement per text is enough; a statement still iterating (Kysely's `stream()`) is `busy`, and the caller then
 * gets a fresh one instead of sharing it. SQLite re-prepares a statement by itself when a migration changes the
 * schema under it, so a cached statement never runs against a stale plan.
 */
export function withStatementCache(
  sqlite: SQLite.Database,
  capacity = STATEMENT_CACHE_SIZE,
): CachedStatements {
  const prepared = new Map<string, SQLite.Statement>();
  return {
    get size() {
      return prepared.size;
    },
    close() {
      prepared.clear();
      sqlite.close();
    },
    prepare(text: string): SqliteStatement {
      const cached = prepared.get(text);
      if (cached !== undefined) {
        if (cached.busy) return sqlite.prepare(text);
        // Map order is insertion order: moving the hit to the end keeps the oldest-used first for eviction.
        prepared.delete(text);
        prepared.set(text, cached);
        return cached;
      }
      const statement = sqlite.prepare(text);
      prepared.set(text, statement);
      if (prepared.size > capacity) {
        const oldest = prepared.keys().next().value;
        if (oldest !== undefined) prepared.delete(oldest);
      }
      return statement;
    },
  };
}
