// Rows of dynamic PIX: the company's PSP settings and its charges. The tables are declared here and reached
// with Kysely's withTables, like the other feature-local tables (received/tables.ts).
import { inTransaction, type Db } from '../db/client.ts';
import type { PixStatus } from '../../src-shared/contracts/pix.ts';

export interface PixConfigsTable {
  company_id: string;
  provedor: 'sandbox' | 'psp';
  chave: string;
  base_url: string | null;
  token_url: string | null;
  client_id: string | null;
  /** Sealed with the master key (security/secret-box.ts), like the A1 and its password. */
  client_secret_enc: string | null;
  /** The client certificate's PKCS#12 bytes, sealed. */
  certificado_enc: string | null;
  senha_certificado_enc: string | null;
  /**
   * Sandbox only, sealed: the client_secret the embedded sandbox PSP issued and knows. client_secret_enc is
   * what the store typed; when the two differ the sandbox refuses the token, as a bank would.
   */
  sandbox_secret_enc: string | null;
  cnpj_psp: string | null;
  expiracao_segundos: number;
  /** SHA-256 of the secret in the webhook URL the PSP calls (the URL itself is never stored in clear). */
  webhook_secret_hash: string;
  webhook_secret_enc: string;
  created_at: string;
  updated_at: string;
}

export interface PixChargesTable {
  txid: string;
  company_id: string;
  /** Exact decimal text ("12.50"), never a float. */
  valor: string;
  descricao: string | null;
  status: PixStatus;
  pix_copia_e_cola: string;
  location: string;
  expires_at: string;
  paid_at: string | null;
  end_to_end_id: string | null;
  valor_pago: string | null;
  /** The PSP's CNPJ when the charge was created: the NFC-e card group names who settled it. */
  cnpj_psp: string | null;
  /** The note whose payment this charge is; one note at most. */
  document_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A company whose owner switched dynamic PIX off (DELETE): start-up leaves it without a PSP. */
export interface PixConfigRemovalsTable {
  company_id: string;
  removed_at: string;
}

export type PixTables = {
  pix_configs: PixConfigsTable;
  pix_charges: PixChargesTable;
  pix_config_removals: PixConfigRemovalsTable;
};

export type PixConfigRow = PixConfigsTable;
export type PixChargeRow = PixChargesTable;

export const pixDb = (db: Db) => db.withTables<PixTables>();

export const pixRepository = {
  async config(db: Db, companyId: string): Promise<PixConfigRow | undefined> {
    return pixDb(db)
      .selectFrom('pix_configs')
      .selectAll()
      .where('company_id', '=', companyId)
      .executeTakeFirst();
  },

  async configByWebhookHash(db: Db, hash: string): Promise<PixConfigRow | undefined> {
    return pixDb(db)
      .selectFrom('pix_configs')
      .selectAll()
      .where('webhook_secret_hash', '=', hash)
      .executeTakeFirst();
  },

  async sandboxConfigs(db: Db): Promise<PixConfigRow[]> {
    return pixDb(db).selectFrom('pix_configs').selectAll().where('provedor', '=', 'sandbox').execute();
  },

  /** Saving a PSP also forgets an earlier DELETE: the store chose dynamic PIX again. */
  async saveConfig(db: Db, row: PixConfigRow): Promise<void> {
    const { company_id: _id, created_at: _created, ...changes } = row;
    await inTransaction(db, async (trx) => {
      await pixDb(trx)
        .insertInto('pix_configs')
        .values(row)
        .onConflict((oc) => oc.column('company_id').doUpdateSet(changes))
        .execute();
      await pixDb(trx).deleteFrom('pix_config_removals').where('company_id', '=', row.company_id).execute();
    });
  },

  /** Removes the PSP and records that the store switched dynamic PIX off, in one transaction. */
  async deleteConfig(db: Db, companyId: string, now: string): Promise<boolean> {
    return inTransaction(db, async (trx) => {
      const result = await pixDb(trx)
        .deleteFrom('pix_configs')
        .where('company_id', '=', companyId)
        .executeTakeFirst();
      if (result.numDeletedRows === 0n) return false;
      await pixDb(trx)
        .insertInto('pix_config_removals')
        .values({ company_id: companyId, removed_at: now })
        .onConflict((oc) => oc.column('company_id').doUpdateSet({ removed_at: now }))
        .execute();
      return true;
    });
  },

  async wasRemoved(db: Db, companyId: string): Promise<boolean> {
    const row = await pixDb(db)
      .selectFrom('pix_config_removals')
      .select('company_id')
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return row !== undefined;
  },

  async charge(db: Db, txid: string): Promise<PixChargeRow | undefined> {
    return pixDb(db).selectFrom('pix_charges').selectAll().where('txid', '=', txid).executeTakeFirst();
  },

  async charges(db: Db, txids: readonly string[]): Promise<PixChargeRow[]> {
    if (txids.length === 0) return [];
    return pixDb(db).selectFrom('pix_charges').selectAll().where('txid', 'in', txids).execute();
  },

  async insertCharge(db: Db, row: PixChargeRow): Promise<void> {
    await pixDb(db).insertInto('pix_charges').values(row).execute();
  },

  async updateCharge(db: Db, txid: string, changes: Partial<PixChargeRow>): Promise<void> {
    await pixDb(db).updateTable('pix_charges').set(changes).where('txid', '=', txid).execute();
  },

  /**
   * Frees the charges a note holds but no longer names (a draft PUT that switched or dropped its PIX
   * payment), so other sales may use them.
   */
  async releaseUnnamed(db: Db, documentId: string, kept: readonly string[], now: string): Promise<void> {
    let query = pixDb(db)
      .updateTable('pix_charges')
      .set({ document_id: null, updated_at: now })
      .where('document_id', '=', documentId);
    if (kept.length > 0) query = query.where('txid', 'not in', kept);
    await query.execute();
  },

  /**
   * Ties a paid charge to the note that used it, in the note's transaction. Taken only when free, or held by
   * a note that no longer stands for the sale (rejected, voided, or replaced by its contingency re-issue): false when
   * another note holds it.
   */
  async claim(db: Db, txid: string, documentId: string, now: string): Promise<boolean> {
    const result = await pixDb(db)
      .updateTable('pix_charges')
      .set({ document_id: documentId, updated_at: now })
      .where('txid', '=', txid)
      .where((eb) =>
        eb.or([
          eb('document_id', 'is', null),
          eb('document_id', '=', documentId),
          eb(
            'document_id',
            'in',
            eb
              .selectFrom('documents')
              .select('id')
              .where((d) =>
                d.or([d('status', 'in', ['erro', 'inutilizada']), d('replaced_by', 'is not', null)]),
              ),
          ),
        ]),
      )
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },
};
