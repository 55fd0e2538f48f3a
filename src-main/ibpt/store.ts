// A company's IBPT table as stored (migration 0020): the newest import replaces the previous one. Looked up
// per item of a sale by NCM and ex-tarifário; also feeds the NCM table when it is a whole one (tipo 0).
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { IbptTablesTable } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { MIN_COMPLETE_NCM_TABLE } from '../reference/ncm.ts';
import { storeNcmTable } from '../reference/ncm-store.ts';
import type { IbptFile, IbptLookup, IbptRates } from './table.ts';

export type { IbptLookup, IbptRates };

export interface IbptTableView {
  id: string;
  uf: string;
  versao: string;
  chave: string;
  fonte: string;
  vigenciaInicio: string;
  vigenciaFim: string;
  quantidade: number;
  importadoEm: string;
  /** vigenciafim is past: the values still apply, but IBPT has a newer table to import. */
  vencida: boolean;
}

const cache = new WeakMap<Db, Map<string, { id: string; lookup: IbptLookup }>>();

async function newestTable(db: Db, companyId: string) {
  return db
    .selectFrom('ibpt_tables')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('imported_at', 'desc')
    .orderBy(sql`rowid`, 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** The company's IBPT table for a sale, or undefined before any import (one indexed read when cached). */
export async function activeIbpt(db: Db, companyId: string): Promise<IbptLookup | undefined> {
  const table = await newestTable(db, companyId);
  if (table === undefined) return undefined;
  let perCompany = cache.get(db);
  if (perCompany === undefined) {
    perCompany = new Map();
    cache.set(db, perCompany);
  }
  const cached = perCompany.get(companyId);
  if (cached !== undefined && cached.id === table.id) return cached.lookup;
  const rows = await db
    .selectFrom('ibpt_rates')
    .select(['codigo', 'ex', 'nacional_federal', 'importados_federal', 'estadual', 'municipal'])
    .where('table_id', '=', table.id)
    .where('tipo', '=', 0)
    .execute();
  const byKey = new Map<string, IbptRates>();
  for (const r of rows) {
    byKey.set(`${r.codigo}|${r.ex}`, {
      nacionalfederal: r.nacional_federal,
      importadosfederal: r.importados_federal,
      estadual: r.estadual,
      municipal: r.municipal,
    });
  }
  const lookup: IbptLookup = {
    chave: table.chave,
    versao: table.versao,
    fonte: table.fonte,
    vigenciaFim: table.vigencia_fim,
    // An item with an ex-tarifário the table does not list takes the NCM's own line.
    rates: (ncm, ex) => (ex === null ? undefined : byKey.get(`${ncm}|${ex}`)) ?? byKey.get(`${ncm}|`),
  };
  perCompany.set(companyId, { id: table.id, lookup });
  return lookup;
}

function view(row: Omit<IbptTablesTable, 'company_id'>, today: string): IbptTableView {
  return {
    id: row.id,
    uf: row.uf,
    versao: row.versao,
    chave: row.chave,
    fonte: row.fonte,
    vigenciaInicio: row.vigencia_inicio,
    vigenciaFim: row.vigencia_fim,
    quantidade: row.quantidade,
    importadoEm: row.imported_at,
    vencida: row.vigencia_fim < today,
  };
}

/** The company's table in use, for GET /v1/reference/ibpt. */
export async function describeIbpt(
  db: Db,
  clock: Clock,
  companyId: string,
): Promise<IbptTableView | undefined> {
  const row = await newestTable(db, companyId);
  return row === undefined ? undefined : view(row, clock.now().toISOString().slice(0, 10));
}

export interface IbptImportResult extends IbptTableView {
  /** The NCM codes (tipo 0) became the NCM table in use when the file lists a whole table. */
  ncm: { adotada: boolean; versao: string | null; quantidade: number; motivo: string | null };
}

/** Stores an IBPT table as the company's one in use (the previous one is dropped). */
export async function importIbptTable(
  db: Db,
  clock: Clock,
  companyId: string,
  uf: string,
  file: IbptFile,
): Promise<IbptImportResult> {
  const now = clock.now().toISOString();
  const row = {
    id: newId(),
    company_id: companyId,
    uf,
    versao: file.versao,
    chave: file.chave,
    fonte: file.fonte,
    vigencia_inicio: file.vigenciaInicio,
    vigencia_fim: file.vigenciaFim,
    quantidade: file.rates.length,
    imported_at: now,
  };
  await inTransaction(db, async (trx) => {
    const old = await trx
      .selectFrom('ibpt_tables')
      .select('id')
      .where('company_id', '=', companyId)
      .execute();
    if (old.length > 0) {
      const ids = old.map((o) => o.id);
      await trx.deleteFrom('ibpt_rates').where('table_id', 'in', ids).execute();
      await trx.deleteFrom('ibpt_tables').where('id', 'in', ids).execute();
    }
    await trx.insertInto('ibpt_tables').values(row).execute();
    // SQLite's default limit is 32766 bound variables per statement: 9 columns × 500 rows stays far below.
    for (let i = 0; i < file.rates.length; i += 500) {
      await trx
        .insertInto('ibpt_rates')
        .values(
          file.rates.slice(i, i + 500).map((r) => ({
            table_id: row.id,
            codigo: r.codigo,
            ex: r.ex,
            tipo: r.tipo,
            descricao: r.descricao,
            nacional_federal: r.nacionalfederal,
            importados_federal: r.importadosfederal,
            estadual: r.estadual,
            municipal: r.municipal,
          })),
        )
        .execute();
    }
  });
  const ncmCodes = file.rates.filter((r) => r.tipo === 0).map((r) => r.codigo);
  const distinct = new Set(ncmCodes).size;
  let ncm: IbptImportResult['ncm'];
  if (distinct >= MIN_COMPLETE_NCM_TABLE) {
    const stored = await storeNcmTable(db, clock, {
      versao: `IBPT ${file.versao} (${file.vigenciaInicio})`,
      ato: null,
      origem: 'ibpt',
      codes: ncmCodes,
    });
    ncm = { adotada: true, versao: stored.versao, quantidade: stored.quantidade, motivo: null };
  } else {
    ncm = {
      adotada: false,
      versao: null,
      quantidade: distinct,
      motivo: `only ${distinct} NCM codes: a whole table has about 10,000 (at least ${MIN_COMPLETE_NCM_TABLE}), so the NCM table in use is unchanged`,
    };
  }
  return { ...view(row, now.slice(0, 10)), ncm };
}
