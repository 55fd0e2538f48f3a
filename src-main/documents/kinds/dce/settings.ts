// The company's DC-e settings (issuer type, marketplace site, default series), one row per company
// (migration 0027); a company without a row issues as a marketplace, series 1, with no site of its own.
import type { Db } from '../../../db/client.ts';
import { parseOrThrow } from '../../../validation.ts';
import {
  DCE_TIPOS_EMITENTE,
  dceSettingsSchema,
  type DceSettingsView,
  type DceTipoEmitente,
} from '../../../../src-shared/contracts/dce-view.ts';

export interface CompanyDceSettingsTable {
  company_id: string;
  /** 1 marketplace, 2 emissor próprio, 3 transportadora (CHECKed by the migration). */
  tp_emit: number;
  site: string | null;
  serie: number;
  updated_at: string;
}

export const DEFAULT_DCE_SETTINGS: DceSettingsView = {
  tipo_emitente: 'marketplace',
  site: null,
  serie: 1,
  padrao: true,
};

/** tpEmit 1, 2, 3 are the issuer types in their contract order (marketplace, proprio, transportadora). */
const tpEmitOf = (tipo: DceTipoEmitente) => DCE_TIPOS_EMITENTE.indexOf(tipo) + 1;
const tipoEmitenteOf = (tpEmit: number): DceTipoEmitente | undefined => DCE_TIPOS_EMITENTE[tpEmit - 1];

const table = (db: Db) => db.withTables<{ company_dce_settings: CompanyDceSettingsTable }>();

export async function dceSettingsOf(db: Db, companyId: string): Promise<DceSettingsView> {
  const row = await table(db)
    .selectFrom('company_dce_settings')
    .selectAll()
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  if (row === undefined) return DEFAULT_DCE_SETTINGS;
  return {
    tipo_emitente: tipoEmitenteOf(row.tp_emit) ?? DEFAULT_DCE_SETTINGS.tipo_emitente,
    site: row.site,
    serie: row.serie,
    padrao: false,
  };
}

/** Validates (every field at once) and stores the settings; returns them as GET shows them. */
export async function saveDceSettings(
  db: Db,
  companyId: string,
  input: unknown,
  now: string = new Date().toISOString(),
): Promise<DceSettingsView> {
  const parsed = parseOrThrow(dceSettingsSchema, input);
  const values = {
    company_id: companyId,
    tp_emit: tpEmitOf(parsed.tipo_emitente),
    site: parsed.site,
    serie: parsed.serie,
    updated_at: now,
  };
  await table(db)
    .insertInto('company_dce_settings')
    .values(values)
    .onConflict((oc) => oc.column('company_id').doUpdateSet(values))
    .execute();
  return dceSettingsOf(db, companyId);
}
