// Reads behind the cashier's status bar (contingency rows, open queue rows, notes issued offline) and the
// sandbox control's check that an organization uses the sandbox at all.
import type { Db } from '../db/client.ts';
import type { ContingencyModesTable } from '../db/schema.ts';

export type ContingencyModeRow = ContingencyModesTable;

export const statusRepository = {
  contingencyModes: (db: Db, companyId: string): Promise<ContingencyModeRow[]> =>
    db.selectFrom('contingency_modes').selectAll().where('company_id', '=', companyId).execute(),

  /** Rows the queue still has to deliver or settle; `done` and `failed` rows are history. */
  openOutboxCount: async (db: Db, companyId: string): Promise<number> => {
    const row = await db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      // `state` first: the outbox_due index keeps this to the open rows however long the history grows.
      .where('state', 'in', ['pending', 'in_flight', 'unknown'])
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Whether the organization has a company sending to the embedded sandbox authority. */
  organizationUsesSandbox: async (db: Db, organizationId: string): Promise<boolean> => {
    const row = await db
      .selectFrom('companies')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('authority', '=', 'sandbox')
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  },

  /** NFC-e issued offline (tpEmis 9) that the authority has not authorized yet. */
  offlineNfceCount: async (db: Db, companyId: string): Promise<number> => {
    const row = await db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .where('status', '=', 'contingencia')
      .where('modelo', '=', 65)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};
