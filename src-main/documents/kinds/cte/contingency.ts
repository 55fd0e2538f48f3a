// CT-e contingency: the UF's virtual contingency authority (SVC-RS tpEmis 7 or SVC-SP tpEmis 8, per the UF
// table of the authority link), a persisted contingency row per company (a restart keeps it), entered after
// repeated certain failures at the UF like the NF-e's SVC, and left when the UF's status service answers 107.
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import { normalizeFreeText } from '../../../fiscal/xml.ts';
import { cteSvcFor } from '../../../authority/cte/endpoints.ts';
import type { UfSigla } from '../../../../src-shared/uf.ts';
import { NORMAL_EMISSION, type ContingencyRule, type Emission } from '../../kind.ts';
import { resignSameNumber } from '../../lifecycle.ts';

const CTE_MODELO = 57;
/** tpEmis of each virtual contingency authority (MOC CT-e 4.00 ide/tpEmis: 7 SVC-RS, 8 SVC-SP). */
const SVC_TPEMIS = { 'SVC-RS': 7, 'SVC-SP': 8 } as const;
/** Failed deliveries of one CT-e to its UF before switching to SVC (as the NF-e). */
const SVC_AFTER_ATTEMPTS = 2;

/** The CT-e emission in force: normal, or SVC while the company's contingency row says so. */
export async function cteEmission(db: Db, companyId: string): Promise<Emission> {
  const row = await db
    .selectFrom('contingency_modes')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('modelo', '=', CTE_MODELO)
    .executeTakeFirst();
  if (row === undefined || (row.mode !== 'SVC-RS' && row.mode !== 'SVC-SP')) return NORMAL_EMISSION;
  return { tpEmis: SVC_TPEMIS[row.mode], contingency: { dhCont: new Date(row.since), xJust: row.reason } };
}

export const cteContingency: ContingencyRule = {
  emission: (db: Db, companyId: string, _clock: Clock) => cteEmission(db, companyId),
  switchAfterFailures: SVC_AFTER_ATTEMPTS,
  async switchOver(deps, doc, outboxId, reason) {
    const company = await deps.db
      .selectFrom('companies')
      .select('uf')
      .where('id', '=', doc.company_id)
      .executeTakeFirstOrThrow();
    const svc = cteSvcFor(company.uf as UfSigla);
    // xJust is 15-256 characters of free text: the reason comes from error texts, so it is normalized.
    const xJust = normalizeFreeText(`SEFAZ ${company.uf} indisponivel: ${reason}`, 256).padEnd(15, '.');
    await deps.db
      .insertInto('contingency_modes')
      .values({
        company_id: doc.company_id,
        modelo: CTE_MODELO,
        mode: svc,
        since: deps.clock.now().toISOString(),
        reason: xJust,
      })
      .onConflict((oc) => oc.columns(['company_id', 'modelo']).doNothing())
      .execute();
    if (doc.tp_emis !== 1) return;
    // The attempt never reached the UF: re-signed for the SVC under the same number (tpEmis changes the key).
    await resignSameNumber(deps, doc, outboxId, await cteEmission(deps.db, doc.company_id), 'processando');
  },
  async companiesInContingency(db) {
    const rows = await db
      .selectFrom('contingency_modes')
      .select('company_id')
      .where('modelo', '=', CTE_MODELO)
      .where('mode', 'in', ['SVC-RS', 'SVC-SP'])
      .execute();
    return rows.map((r) => r.company_id);
  },
  async leaveContingency(db, companyId) {
    await db
      .deleteFrom('contingency_modes')
      .where('company_id', '=', companyId)
      .where('modelo', '=', CTE_MODELO)
      .execute();
  },
};
