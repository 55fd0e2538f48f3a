// Transactions scoped to one company (inCompanyTransaction) and the whole store's (inTransaction): joining a
// caller's transaction is allowed only when its scope covers the work, on either store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { inCompanyTransaction, inTransaction, openDatabase, type OpenedDatabase } from './client.ts';

describe('transaction scopes', () => {
  let dir: string;
  let store: OpenedDatabase;
  const one = async (trx: OpenedDatabase['db']) =>
    (await sql<{ one: number }>`SELECT 1 AS one`.execute(trx)).rows;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-scopes-'));
    store = openDatabase(path.join(dir, 'balcao.sqlite'));
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("joins a whole store's transaction from work of any scope", async () => {
    const rows = await inTransaction(store.db, (trx) =>
      inCompanyTransaction(trx, 'cmp_a', (inner) => inTransaction(inner, one)),
    );
    expect(rows).toEqual([{ one: 1 }]);
  });

  it("joins a company's transaction from work for that company", async () => {
    expect(
      await inCompanyTransaction(store.db, 'cmp_a', (trx) => inCompanyTransaction(trx, 'cmp_a', one)),
    ).toEqual([{ one: 1 }]);
  });

  it("refuses work for the whole store or another company inside a company's transaction, and rolls it back", async () => {
    await expect(inCompanyTransaction(store.db, 'cmp_a', (trx) => inTransaction(trx, one))).rejects.toThrow(
      /scoped to company cmp_a cannot run work for the whole store/,
    );
    await expect(
      inCompanyTransaction(store.db, 'cmp_a', (trx) => inCompanyTransaction(trx, 'cmp_b', one)),
    ).rejects.toThrow(/scoped to company cmp_a cannot run work for company cmp_b/);
    // The refused transactions ended: the store takes a new one.
    expect(await inTransaction(store.db, one)).toEqual([{ one: 1 }]);
  });

  it("does not carry a finished transaction's scope into a new one started from its work", async () => {
    let later: Promise<unknown> = Promise.resolve();
    await inCompanyTransaction(store.db, 'cmp_a', async (trx) => {
      await one(trx);
      // Started during the company's transaction, run after it: a transaction of its own, of the whole store.
      later = new Promise((resolve) => setTimeout(resolve, 10)).then(() => inTransaction(store.db, one));
    });
    expect(await later).toEqual([{ one: 1 }]);
  });
});
