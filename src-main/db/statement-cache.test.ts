// The prepared-statement cache under Kysely: one statement per SQL text, eviction, streams and schema changes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withStatementCache, type CachedStatements } from './statement-cache.ts';

interface Schema {
  item: { id: number; name: string; extra?: string | null };
}

let dir: string;
let sqlite: SQLite.Database;
let cache: CachedStatements;
let db: Kysely<Schema>;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-stmt-cache-'));
  sqlite = new SQLite(path.join(dir, 'store.sqlite'));
  cache = withStatementCache(sqlite, 3);
  db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: cache }) });
  await sql`CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`.execute(db);
  await db
    .insertInto('item')
    .values([1, 2, 3, 4, 5].map((id) => ({ id, name: `n${id}` })))
    .execute();
});

afterEach(async () => {
  await db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('withStatementCache', () => {
  it('hands back the statement prepared for the same text, and a new one for another text', () => {
    const first = cache.prepare('SELECT id FROM item WHERE id = ?');
    expect(cache.prepare('SELECT id FROM item WHERE id = ?')).toBe(first);
    expect(cache.prepare('SELECT name FROM item WHERE id = ?')).not.toBe(first);
  });

  it('runs the same query with different parameters correctly through Kysely', async () => {
    const byId = (id: number) => db.selectFrom('item').select('name').where('id', '=', id).executeTakeFirst();
    expect(await byId(2)).toEqual({ name: 'n2' });
    expect(await byId(4)).toEqual({ name: 'n4' });
    await db.updateTable('item').set({ name: 'changed' }).where('id', '=', 4).execute();
    expect(await byId(4)).toEqual({ name: 'changed' });
    expect(await byId(99)).toBeUndefined();
  });

  it('keeps at most its capacity, dropping the least recently used text', () => {
    const texts = ['SELECT 1', 'SELECT 2', 'SELECT 3'];
    const statements = texts.map((text) => cache.prepare(text));
    cache.prepare('SELECT 1'); // used again: now the most recent
    cache.prepare('SELECT 4'); // evicts SELECT 2, the least recently used
    expect(cache.size).toBe(3);
    expect(cache.prepare('SELECT 1')).toBe(statements[0]);
    expect(cache.prepare('SELECT 3')).toBe(statements[2]);
    expect(cache.prepare('SELECT 2')).not.toBe(statements[1]);
  });

  it('gives a fresh statement while the cached one is still iterating, and both read every row', () => {
    // Kysely's stream() holds its statement this way (its one connection makes other queries wait meanwhile).
    const text = 'SELECT id FROM item ORDER BY id';
    const first = cache.prepare(text);
    const streamed: number[] = [];
    let inside: unknown[] = [];
    for (const row of first.iterate([]) as IterableIterator<{ id: number }>) {
      streamed.push(row.id);
      if (row.id === 2) {
        const again = cache.prepare(text);
        expect(again).not.toBe(first);
        inside = again.all([]);
      }
    }
    expect(streamed).toEqual([1, 2, 3, 4, 5]);
    expect(inside).toEqual([1, 2, 3, 4, 5].map((id) => ({ id })));
    expect(cache.prepare(text)).toBe(first);
  });

  it('sees a schema change under a statement prepared before it', async () => {
    const all = () => sql<Record<string, unknown>>`SELECT * FROM item WHERE id = 1`.execute(db);
    expect(Object.keys((await all()).rows[0] ?? {})).toEqual(['id', 'name']);
    await sql`ALTER TABLE item ADD COLUMN extra TEXT DEFAULT 'x'`.execute(db);
    expect((await all()).rows[0]).toEqual({ id: 1, name: 'n1', extra: 'x' });
  });

  it('rolls a failed transaction back with its cached statements reused after', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('item').set({ name: 'lost' }).where('id', '=', 1).execute();
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('item').set({ name: 'kept' }).where('id', '=', 1).execute();
    });
    expect(await db.selectFrom('item').select('name').where('id', '=', 1).executeTakeFirst()).toEqual({
      name: 'kept',
    });
  });
});
