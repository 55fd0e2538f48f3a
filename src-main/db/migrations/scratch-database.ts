// For migration tests: a database in a temp dir, migrated up to a named migration so rows can be written
// as an older version would have, then migrated on; closed and removed after each test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterEach, expect } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../client.ts';
import type { CountKey } from './document-counts.ts';
import { migrationProvider } from './index.ts';

export type ScratchDb = OpenedDatabase['db'];

export async function migrateTo(db: ScratchDb, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}

/** The migration that runs just before `name`. */
export async function migrationBefore(name: string): Promise<string> {
  const names = Object.keys(await migrationProvider.getMigrations());
  const before = names[names.indexOf(name) - 1];
  if (before === undefined) throw new Error(`${name} has no predecessor`);
  return before;
}

/** Registers the clean-up; each call of the returned function opens a fresh database for the running test. */
export function useScratchDatabase(): () => ScratchDb {
  const open: { opened: OpenedDatabase; dir: string }[] = [];
  afterEach(async () => {
    for (const { opened, dir } of open.splice(0)) {
      await opened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-migration-'));
    const opened = openDatabase(path.join(dir, 'balcao.sqlite'));
    open.push({ opened, dir });
    return opened.db;
  };
}

/** Inserts one row as an older version wrote it (raw SQL: the typed schema may not have that shape any more). */
export async function insertRow(db: ScratchDb, table: string, row: Record<string, unknown>): Promise<void> {
  await sql`INSERT INTO ${sql.table(table)} (${sql.join(Object.keys(row).map((c) => sql.ref(c)))}) VALUES (${sql.join(
    Object.values(row),
  )})`.execute(db);
}

/** An authorized document row with the columns every version of the table has had. */
export function documentRow(fields: {
  id: string;
  companyId: string;
  modelo: number;
  chave: string;
  stamp: string;
  nNf?: number;
  xml?: string;
}) {
  return {
    id: fields.id,
    company_id: fields.companyId,
    modelo: fields.modelo,
    serie: 1,
    n_nf: fields.nNf ?? 7,
    ambiente: 'homologacao',
    tp_emis: 1,
    chave: fields.chave,
    status: 'autorizada',
    payload_json: '{}',
    xml: fields.xml ?? '<NFe/>',
    digest_value: 'x',
    v_nf: '10.00',
    dh_emi: fields.stamp,
    created_at: fields.stamp,
    updated_at: fields.stamp,
  };
}

/** The list counters (document_counts, keyed by `key`) against a count of the documents by the same key. */
export async function expectCountersExact(db: ScratchDb, key: readonly CountKey[]): Promise<void> {
  const columns = key.map((k) => k.column).join(', ');
  const values = key.map((k) => `${k.of(null)} AS ${k.column}`).join(', ');
  const order = key.map((_, i) => i + 1).join(', ');
  const counted = await sql
    .raw<Record<string, unknown>>(
      `SELECT ${values}, count(*) AS n FROM documents GROUP BY ${order} ORDER BY ${order}`,
    )
    .execute(db);
  const kept = await sql
    .raw<Record<string, unknown>>(`SELECT ${columns}, n FROM document_counts WHERE n > 0 ORDER BY ${order}`)
    .execute(db);
  expect(kept.rows).toEqual(counted.rows);
}
