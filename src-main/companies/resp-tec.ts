// The company's technical responsible (infRespTec) kept in its own table, and what the notes take from it:
// the contact data in clear, the CSRT token sealed with the master key (opened only to hash it into a note).
import type { Db } from '../db/client.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { NfeModel } from '../fiscal/nfe/model.ts';
import type { RespTecInput, RespTecView } from '../../src-shared/contracts/resp-tec.ts';

export interface CompanyRespTecTable {
  company_id: string;
  cnpj: string;
  x_contato: string;
  email: string;
  fone: string;
  id_csrt: string | null;
  /** CSRT token sealed with the data-dir master key (secret-box format), like companies.csc_token_enc. */
  csrt_enc: string | null;
  updated_at: string;
}

type RespTecTables = { company_resp_tec: CompanyRespTecTable };

const respTecDb = (db: Db) => db.withTables<RespTecTables>();

export const respTecRepository = {
  find: (db: Db, companyId: string) =>
    respTecDb(db)
      .selectFrom('company_resp_tec')
      .selectAll()
      .where('company_id', '=', companyId)
      .executeTakeFirst(),

  async save(
    db: Db,
    secrets: SecretBox,
    companyId: string,
    input: RespTecInput | null,
    now: string,
  ): Promise<void> {
    if (input === null) {
      await respTecDb(db).deleteFrom('company_resp_tec').where('company_id', '=', companyId).execute();
      return;
    }
    const row: CompanyRespTecTable = {
      company_id: companyId,
      cnpj: input.cnpj,
      x_contato: input.xContato,
      email: input.email,
      fone: input.fone,
      id_csrt: input.csrt?.idCSRT ?? null,
      csrt_enc: input.csrt === null ? null : secrets.seal(input.csrt.token),
      updated_at: now,
    };
    const { company_id: _id, ...changes } = row;
    await respTecDb(db)
      .insertInto('company_resp_tec')
      .values(row)
      .onConflict((oc) => oc.column('company_id').doUpdateSet(changes))
      .execute();
  },
};

export function respTecView(row: CompanyRespTecTable | undefined): RespTecView | null {
  if (row === undefined) return null;
  return {
    cnpj: row.cnpj,
    xContato: row.x_contato,
    email: row.email,
    fone: row.fone,
    idCSRT: row.id_csrt,
    csrtConfigured: row.csrt_enc !== null,
  };
}

/** The infRespTec a note of the company carries, or null when none is configured. */
export async function respTecForNotes(
  db: Db,
  secrets: SecretBox,
  companyId: string,
): Promise<NfeModel['infRespTec']> {
  const row = await respTecRepository.find(db, companyId);
  if (row === undefined) return null;
  return {
    CNPJ: row.cnpj,
    xContato: row.x_contato,
    email: row.email,
    fone: row.fone,
    csrt:
      row.id_csrt === null || row.csrt_enc === null
        ? null
        : { idCSRT: row.id_csrt, CSRT: secrets.openText(row.csrt_enc) },
  };
}
