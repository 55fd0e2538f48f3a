// The NCM table in use, as stored: the newest imported table (migration 0020) or, before any import, the one
// shipped in resources/. Loaded once per import and kept per database; published to the in-process sandbox.
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { newId } from '../ids.ts';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { ncmFault, ncmTableOf, publishNcmTable, shippedNcmTable, type NcmTable } from './ncm.ts';

const loaded = new WeakMap<Db, { id: string | null; table: NcmTable }>();

async function newestId(db: Db): Promise<string | null> {
  const row = await db
    .selectFrom('ncm_tables')
    .select('id')
    .orderBy('imported_at', 'desc')
    // Two imports within the same millisecond (a test clock): the later insert wins.
    .orderBy(sql`rowid`, 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

function codesOf(packed: string): string[] {
  const codes: string[] = [];
  for (let i = 0; i + 8 <= packed.length; i += 8) codes.push(packed.slice(i, i + 8));
  return codes;
}

/** The table every NCM of this database is checked against now (one indexed read when nothing changed). */
export async function activeNcmTable(db: Db): Promise<NcmTable> {
  const id = await newestId(db);
  const cached = loaded.get(db);
  if (cached !== undefined && cached.id === id) return cached.table;
  let table = shippedNcmTable();
  if (id !== null) {
    const row = await db.selectFrom('ncm_tables').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    table = ncmTableOf(row.versao, 'importada', codesOf(row.codigos));
  }
  loaded.set(db, { id, table });
  publishNcmTable(table);
  return table;
}

export interface StoredNcmTable {
  id: string;
  versao: string;
  ato: string | null;
  origem: 'siscomex' | 'ibpt';
  quantidade: number;
  importadoEm: string;
}

/** Stores an imported table; from now on it is the one in use (newest wins). */
export async function storeNcmTable(
  db: Db,
  clock: Clock,
  table: { versao: string; ato: string | null; origem: 'siscomex' | 'ibpt'; codes: readonly string[] },
): Promise<StoredNcmTable> {
  const codes = [...new Set(table.codes)].sort();
  const row = {
    id: newId(),
    versao: table.versao,
    ato: table.ato,
    origem: table.origem,
    quantidade: codes.length,
    codigos: codes.join(''),
    imported_at: clock.now().toISOString(),
  };
  await db.insertInto('ncm_tables').values(row).execute();
  await activeNcmTable(db);
  return {
    id: row.id,
    versao: row.versao,
    ato: row.ato,
    origem: row.origem,
    quantidade: row.quantidade,
    importadoEm: row.imported_at,
  };
}

/** What GET /v1/reference/ncm answers: the table in use and how it came. */
export async function describeActiveNcmTable(
  db: Db,
): Promise<{ versao: string; origem: string; quantidade: number }> {
  const table = await activeNcmTable(db);
  return { versao: table.versao, origem: table.origem, quantidade: table.size };
}

/**
 * The product API's NCM check, for parseOrThrow's extra checks: a well-formed NCM the table in use does not
 * have is refused with the other faults of the body (400 on `NCM`), before a sale would meet rule 778.
 */
export async function productNcmCheck(db: Db): Promise<(raw: unknown) => ErrorDetail[]> {
  const table = await activeNcmTable(db);
  return (raw) => {
    const ncm = typeof raw === 'object' && raw !== null ? (raw as { NCM?: unknown }).NCM : undefined;
    if (typeof ncm !== 'string' || !/^\d{8}$/.test(ncm)) return [];
    const fault = ncmFault(ncm, table);
    return fault === undefined ? [] : [{ field: 'NCM', error: fault }];
  };
}
