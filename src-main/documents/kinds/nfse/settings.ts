// The provider's NFS-e tax settings (DPS prest/regTrib: Simples Nacional option, its regime of taxation and
// the special regime), one row per company (migration 0024); a company without a row gets them from its CRT.
import type { Db } from '../../../db/client.ts';
import { parseOrThrow } from '../../../validation.ts';
import { nfseSettingsSchema, type NfseSettingsRequest } from '../../../../src-shared/contracts/nfse-view.ts';

export interface CompanyNfseSettingsTable {
  company_id: string;
  op_simp_nac: number;
  reg_ap_trib_sn: number | null;
  reg_esp_trib: number;
  updated_at: string;
}

export type OpSimpNac = 1 | 2 | 3;
export type RegApTribSN = 1 | 2 | 3;
export type RegEspTrib = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 9;

/** As the API shows and takes them (GET/PUT /v1/companies/:id/nfse-settings). */
export interface NfseSettingsView {
  /** 1 not in the Simples Nacional, 2 MEI, 3 ME/EPP (opSimpNac). */
  op_simp_nac: OpSimpNac;
  /** With op_simp_nac 3: 1 every tax by the Simples, 2 federal by the Simples and ISS outside, 3 none. */
  reg_ap_trib_sn: RegApTribSN | null;
  /** TSRegEspTrib: 0 none, 1 cooperative, 2 estimate, 3 ME municipal, 4 notary, 5 professional, 6 society
   * of professionals, 9 others. */
  reg_esp_trib: RegEspTrib;
  /** true: no row, the values come from the company's CRT. */
  padrao: boolean;
}

export type NfseSettingsInput = NfseSettingsRequest;

const table = (db: Db) => db.withTables<{ company_nfse_settings: CompanyNfseSettingsTable }>();

/** Defaults by the CRT: 3 regime normal → not in the Simples; 4 MEI; 1/2 Simples Nacional with every tax in it. */
function fromCrt(crt: number): Omit<NfseSettingsView, 'padrao'> {
  if (crt === 3) return { op_simp_nac: 1, reg_ap_trib_sn: null, reg_esp_trib: 0 };
  if (crt === 4) return { op_simp_nac: 2, reg_ap_trib_sn: null, reg_esp_trib: 0 };
  return { op_simp_nac: 3, reg_ap_trib_sn: 1, reg_esp_trib: 0 };
}

export async function nfseSettingsOf(db: Db, companyId: string): Promise<NfseSettingsView> {
  const row = await table(db)
    .selectFrom('company_nfse_settings')
    .selectAll()
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  if (row !== undefined) {
    return {
      op_simp_nac: row.op_simp_nac as OpSimpNac,
      reg_ap_trib_sn: row.reg_ap_trib_sn as RegApTribSN | null,
      reg_esp_trib: row.reg_esp_trib as RegEspTrib,
      padrao: false,
    };
  }
  const company = await db
    .selectFrom('companies')
    .select('crt')
    .where('id', '=', companyId)
    .executeTakeFirstOrThrow();
  return { ...fromCrt(company.crt), padrao: true };
}

/** Validates (every field at once) and stores the settings; returns them as GET shows them. */
export async function saveNfseSettings(
  db: Db,
  companyId: string,
  input: unknown,
  now: string = new Date().toISOString(),
): Promise<NfseSettingsView> {
  const parsed = parseOrThrow(nfseSettingsSchema, input);
  const values = {
    company_id: companyId,
    op_simp_nac: parsed.op_simp_nac,
    reg_ap_trib_sn: parsed.reg_ap_trib_sn,
    reg_esp_trib: parsed.reg_esp_trib,
    updated_at: now,
  };
  await table(db)
    .insertInto('company_nfse_settings')
    .values(values)
    .onConflict((oc) => oc.column('company_id').doUpdateSet(values))
    .execute();
  return nfseSettingsOf(db, companyId);
}
