// CT-e contingency: the UF's virtual contingency authority (SVC-RS tpEmis 7 or SVC-SP tpEmis 8, per the UF
// table of the authority link), a persisted contingency row per company (a restart keeps it), entered after
// repeated certain failures at the UF like the NF-e's SVC, and left when the UF's status service answers 107.
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import { cteSvcFor } from '../../../authority/cte/endpoints.ts';
import type { UfSigla } from '../../../../src-shared/uf.ts';
import { companiesInSvc, enterSvc, leaveSvc, svcEmission, type SvcModes } from '../../contingency-modes.ts';
import type { ContingencyRule, Emission } from '../../kind.ts';
import { resignSameNumber } from '../../lifecycle.ts';

/** CT-e's SVC: tpEmis of each virtual contingency authority (MOC CT-e 4.00 ide/tpEmis: 7 SVC-RS, 8 SVC-SP). */
const CTE_SVC: SvcModes = { modelo: 57, tpEmis: { 'SVC-RS': 7, 'SVC-SP': 8 } };
/** Failed deliveries of one CT-e to its UF before switching to SVC (as the NF-e). */
const SVC_AFTER_ATTEMPTS = 2;

/** The CT-e emission in force: normal, or SVC while the company's contingency row says so. */
export function cteEmission(db: Db, companyId: string): Promise<Emission> {
  return svcEmission(db, companyId, CTE_SVC);
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
    await enterSvc(deps, doc.company_id, CTE_SVC, svc, `SEFAZ ${company.uf} indisponivel: ${reason}`);
    if (doc.tp_emis !== 1) return;
    // The attempt never reached the UF: re-signed for the SVC under the same number (tpEmis changes the key).
    await resignSameNumber(deps, doc, outboxId, await cteEmission(deps.db, doc.company_id), 'processando');
  },
  companiesInContingency: (db) => companiesInSvc(db, CTE_SVC),
  leaveContingency: (db, companyId) => leaveSvc(db, companyId, CTE_SVC),
};
