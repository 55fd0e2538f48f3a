// NFC-e offline contingency (tpEmis 9): a persisted row per company (CONVENTIONS §5). A sale that the
// authority does not settle in time switches it on; any answer of the authority switches it off.
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import { NORMAL_EMISSION, type ContingencyRule, type Emission } from '../../kind.ts';

/** Justification written in offline NFC-e (xJust, 15–256 chars, MOC 7.0 B29). */
const OFFLINE_JUSTIFICATION = 'Sem comunicacao com a SEFAZ no momento da venda';

export async function offlineMode(db: Db, companyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('contingency_modes')
    .select('mode')
    .where('company_id', '=', companyId)
    .where('modelo', '=', 65)
    .executeTakeFirst();
  return row?.mode === 'offline';
}

export async function setNfceOffline(
  db: Db,
  clock: Clock,
  companyId: string,
  offline: boolean,
  reason: string,
): Promise<void> {
  if (!offline) {
    await db
      .deleteFrom('contingency_modes')
      .where('company_id', '=', companyId)
      .where('modelo', '=', 65)
      .execute();
    return;
  }
  await db
    .insertInto('contingency_modes')
    .values({ company_id: companyId, modelo: 65, mode: 'offline', since: clock.now().toISOString(), reason })
    .onConflict((oc) => oc.columns(['company_id', 'modelo']).doNothing())
    .execute();
}

export function offlineEmission(clock: Clock): Emission {
  return { tpEmis: 9, contingency: { dhCont: clock.now(), xJust: OFFLINE_JUSTIFICATION } };
}

export const nfceContingency: ContingencyRule = {
  // A new sale starts online: the sale itself decides offline (kinds/nfce/sale.ts) within its bounded wait.
  emission: () => Promise.resolve(NORMAL_EMISSION),
  // A draft re-signed while the company is offline goes out in contingency.
  rebuildEmission: async (db, companyId, clock) =>
    (await offlineMode(db, companyId)) ? offlineEmission(clock) : NORMAL_EMISSION,
  // A draft signed for the other mode (online vs offline contingency) is re-signed at send.
  resignOnSend: async (db, doc) => (await offlineMode(db, doc.company_id)) !== (doc.tp_emis === 9),
  // The authority is answering again: new sales go back online.
  async authorityAnswered(db, doc) {
    await db
      .deleteFrom('contingency_modes')
      .where('company_id', '=', doc.company_id)
      .where('modelo', '=', 65)
      .where('mode', '=', 'offline')
      .execute();
  },
};
