// The carrier's CT-e settings (RNTRC, ICMS of the service), one row per company (migration 0023); a company
// without a row issues with RNTRC ISENTO and the ICMS its tax regime implies (Simples Nacional: ICMSSN).
import type { Db } from '../../../db/client.ts';
import type { CteIcmsSetting } from '../../../fiscal/cte/normalize.ts';
import type { CteSettingsInput, CteSettingsView } from '../../../../src-shared/contracts/cte-view.ts';

export interface CompanyCteSettingsTable {
  company_id: string;
  rntrc: string;
  icms_cst: string | null;
  icms_aliquota: string | null;
  updated_at: string;
}

export interface CteSettings {
  RNTRC: string;
  /** Undefined: by the CRT (Simples Nacional and MEI issue ICMSSN; the others must configure it). */
  icms: CteIcmsSetting | undefined;
}

export const DEFAULT_RNTRC = 'ISENTO';

function icmsOf(row: CompanyCteSettingsTable): CteIcmsSetting | undefined {
  switch (row.icms_cst) {
    case '00':
      return row.icms_aliquota === null ? undefined : { CST: '00', pICMS: row.icms_aliquota };
    case '40':
    case '41':
    case '51':
      return { CST: row.icms_cst };
    case 'SN':
      return { CST: 'SN' };
    default:
      return undefined;
  }
}

export async function cteSettingsOf(db: Db, companyId: string): Promise<CteSettings> {
  const row = await settingsRow(db, companyId);
  if (row === undefined) return { RNTRC: DEFAULT_RNTRC, icms: undefined };
  return { RNTRC: row.rntrc, icms: icmsOf(row) };
}

async function settingsRow(db: Db, companyId: string): Promise<CompanyCteSettingsTable | undefined> {
  return db
    .withTables<{ company_cte_settings: CompanyCteSettingsTable }>()
    .selectFrom('company_cte_settings')
    .selectAll()
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

export async function cteSettingsView(db: Db, companyId: string): Promise<CteSettingsView> {
  const row = await settingsRow(db, companyId);
  if (row === undefined) return { rntrc: DEFAULT_RNTRC, icms: null, padrao: true };
  return {
    rntrc: row.rntrc,
    icms: row.icms_cst === null ? null : { cst: row.icms_cst, aliquota: row.icms_aliquota },
    padrao: false,
  };
}

export async function putCteSettings(
  db: Db,
  companyId: string,
  input: CteSettingsInput,
  now: string,
): Promise<CteSettingsView> {
  await saveCteSettings(
    db,
    companyId,
    { rntrc: input.rntrc, icmsCst: input.icms?.cst ?? null, icmsAliquota: input.icms?.aliquota ?? null },
    now,
  );
  return cteSettingsView(db, companyId);
}

export async function saveCteSettings(
  db: Db,
  companyId: string,
  settings: { rntrc: string; icmsCst: string | null; icmsAliquota: string | null },
  now: string,
): Promise<void> {
  const values = {
    company_id: companyId,
    rntrc: settings.rntrc,
    icms_cst: settings.icmsCst,
    icms_aliquota: settings.icmsAliquota,
    updated_at: now,
  };
  await db
    .withTables<{ company_cte_settings: CompanyCteSettingsTable }>()
    .insertInto('company_cte_settings')
    .values(values)
    .onConflict((oc) => oc.column('company_id').doUpdateSet(values))
    .execute();
}
