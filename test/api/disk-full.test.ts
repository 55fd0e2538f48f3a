// Disk full (issue 12 item 10): SQLite's page limit makes the database full deterministically, with no mount;
// a small tmpfs (where mounting is allowed: root) fills the real file system, where SQLite fails at COMMIT.
// Every write then answers 507 insufficient_storage, keeps nothing, and the log names the cause.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { itSqliteOnly, startHarness, tempDataDir, type Harness } from './harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const customer = (n: number) => ({
  idEstrangeiro: `EST${n}`,
  xNome: `Cliente ${n} ${'x'.repeat(40)}`,
  endereco: {
    xLgr: `Rua ${'y'.repeat(50)}`,
    nro: String(n),
    xBairro: 'Centro',
    cMun: '3550308',
    uf: 'SP',
    cep: '01002-000',
  },
});

async function customerCount(): Promise<number> {
  const row = await h.service.db
    .selectFrom('customers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('disk full', () => {
  itSqliteOnly("it fills the store by SQLite's max_page_count")(
    'answers 507 with the error body, keeps no row, logs SQLITE_FULL, and recovers once there is room',
    async () => {
      const pages = await sql<{ page_count: number }>`PRAGMA page_count`.execute(h.service.db);
      const pageCount = Number(pages.rows[0]?.page_count);
      // No page may be added: the free room left in existing pages fills after a few customers.
      await sql.raw(`PRAGMA max_page_count = ${pageCount}`).execute(h.service.db);
      let full: { status: number; body: unknown } | undefined;
      let n = 0;
      try {
        for (; n < 500 && full === undefined; n++) {
          const before = await customerCount();
          const res = await h.request('POST', '/v1/customers', { json: customer(n) });
          expect([201, 507], res.text).toContain(res.status);
          if (res.status === 507) {
            full = res;
            expect(await customerCount()).toBe(before);
          }
        }
      } finally {
        await sql.raw('PRAGMA max_page_count = 1073741823').execute(h.service.db);
      }
      expect(full, 'the database never became full').toBeDefined();
      expect(full?.body).toEqual({
        error: 'insufficient_storage',
        message:
          'The disk holding the service data is full: the request was not saved. Free disk space and retry.',
        details: [],
      });
      const logged = h.logs.map(
        (line) => JSON.parse(line) as { level: string; msg: string; error?: unknown },
      );
      const cause = logged.find(
        (l) => l.level === 'error' && l.msg === 'disk full: a write to the database failed',
      );
      expect(JSON.stringify(cause?.error)).toContain('SQLITE_FULL');
      expect(JSON.stringify(cause?.error)).toContain('database or disk is full');
      expect(logged.some((l) => JSON.stringify(l).includes('cannot rollback'))).toBe(false);

      // With room again the same request is saved: no transaction was left open by the failure.
      const retry = await h.request('POST', '/v1/customers', { json: customer(n - 1) });
      expect(retry.status, retry.text).toBe(201);
    },
  );
});

/** A 3 MiB tmpfs: a fresh service takes about 1.4 MiB of it (mostly its WAL), customers fill the rest. */
function mountSmallTmpfs(): { dir: string } | { skip: string } {
  const dir = tempDataDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
    return { dir };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { skip: `cannot mount a tmpfs here (needs root): ${String(error).split('\n')[0]}` };
  }
}

describe('disk full on a real file system', () => {
  // Mounted by the test itself, so that a run that does not take it (PostgreSQL, a filter) mounts nothing,
  // and unmounted in its finally, so that no tmpfs outlives it.
  itSqliteOnly('it fills the tmpfs holding the SQLite file')(
    'a full tmpfs answers 507 (SQLite fails at COMMIT there), logs SQLITE_FULL and keeps no row',
    async (context) => {
      const mounted = mountSmallTmpfs();
      if ('skip' in mounted) {
        context.skip(mounted.skip);
        return;
      }
      const { dir } = mounted;
      let service: Harness | undefined;
      try {
        service = await startHarness({ dataDir: dir });
        const s = service;
        let full: { status: number; body: unknown } | undefined;
        for (let n = 0; n < 2000 && full === undefined; n++) {
          s.clock.advance(1000); // the key's per-second budget
          const before = await s.service.db
            .selectFrom('customers')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          const res = await s.request('POST', '/v1/customers', { json: customer(n) });
          expect([201, 507], res.text).toContain(res.status);
          if (res.status === 507) {
            full = res;
            const after = await s.service.db
              .selectFrom('customers')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .executeTakeFirstOrThrow();
            expect(Number(after.n)).toBe(Number(before.n));
          }
        }
        expect(full, 'the file system never became full').toBeDefined();
        expect((full?.body as { error: string }).error).toBe('insufficient_storage');
        const logged = s.logs.map(
          (line) => JSON.parse(line) as { level: string; msg: string; error?: unknown },
        );
        expect(
          logged.some(
            (l) =>
              l.msg === 'disk full: a write to the database failed' &&
              JSON.stringify(l).includes('SQLITE_FULL'),
          ),
        ).toBe(true);
        expect(logged.some((l) => JSON.stringify(l).includes('cannot rollback'))).toBe(false);
      } finally {
        await service?.stop().catch(() => undefined);
        execFileSync('umount', ['-l', dir]);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
