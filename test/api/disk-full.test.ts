// Disk full (issue 12 item 10): SQLite's page limit makes the real database file full deterministically, with
// no mount; every write then answers 507 insufficient_storage, keeps nothing, and the log names the cause.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

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
  it('answers 507 with the error body, keeps no row, logs SQLITE_FULL, and recovers once there is room', async () => {
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
    const logged = h.logs.map((line) => JSON.parse(line) as { level: string; msg: string; error?: unknown });
    const cause = logged.find(
      (l) => l.level === 'error' && l.msg === 'disk full: a write to the database failed',
    );
    expect(JSON.stringify(cause?.error)).toContain('SQLITE_FULL');
    expect(JSON.stringify(cause?.error)).toContain('database or disk is full');
    expect(logged.some((l) => JSON.stringify(l).includes('cannot rollback'))).toBe(false);

    // With room again the same request is saved: no transaction was left open by the failure.
    const retry = await h.request('POST', '/v1/customers', { json: customer(n - 1) });
    expect(retry.status, retry.text).toBe(201);
  });
});
