// NF-e contingency: the UF's virtual contingency authority (SVC-AN / SVC-RS, tpEmis 6/7), a persisted
// contingency row per company (a restart keeps it), entered after repeated certain failures at the UF and
// left when the UF's status service is in operation again.
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import { svcFor } from '../../../authority/endpoints.ts';
import type { UfSigla } from '../../../../src-shared/uf.ts';
import { companiesInSvc, enterSvc, leaveSvc, svcEmission, type SvcModes } from '../../contingency-modes.ts';
import type { ContingencyRule, Emission, KindDeps } from '../../kind.ts';
import type { DocumentRow } from '../../repository.ts';
import { resignSameNumber } from '../../lifecycle.ts';

/** NF-e's SVC: tpEmis of each virtual contingency authority (MOC 7.0 B22: 6 SVC-AN, 7 SVC-RS). */
const NFE_SVC: SvcModes = { modelo: 55, tpEmis: { 'SVC-AN': 6, 'SVC-RS': 7 } };

/** The NF-e emission in force: normal, or SVC while the company's contingency row says so. */
export function nfeEmission(db: Db, companyId: string): Promise<Emission> {
  return svcEmission(db, companyId, NFE_SVC);
}

/**
 * Switches the company's NF-e to its UF's virtual contingency authority and re-signs `attempt` for it under
 * the same number: the attempt never reached the UF (its send was refused or the service paused).
 */
export async function switchNfeToSvc(
  deps: KindDeps,
  attempt: DocumentRow,
  outboxId: number,
  svc: 'SVC-AN' | 'SVC-RS',
  reason: string,
): Promise<DocumentRow | null> {
  await enterSvc(deps, attempt.company_id, NFE_SVC, svc, reason);
  if (attempt.tp_emis !== 1) return null;
  return resignSameNumber(
    deps,
    attempt,
    outboxId,
    await nfeEmission(deps.db, attempt.company_id),
    'processando',
  );
}

/** Failed deliveries of one NF-e to its UF before switching to SVC (NT 2013.007 leaves the moment to the emitter). */
const SVC_AFTER_ATTEMPTS = 2;

export const nfeContingency: ContingencyRule = {
  emission: (db: Db, companyId: string, _clock: Clock) => nfeEmission(db, companyId),
  switchAfterFailures: SVC_AFTER_ATTEMPTS,
  async switchOver(deps, doc, outboxId, reason) {
    const company = await deps.db
      .selectFrom('companies')
      .select('uf')
      .where('id', '=', doc.company_id)
      .executeTakeFirstOrThrow();
    await switchNfeToSvc(
      deps,
      doc,
      outboxId,
      svcFor(company.uf as UfSigla),
      `SEFAZ ${company.uf} indisponivel: ${reason}`,
    );
  },
  companiesInContingency: (db) => companiesInSvc(db, NFE_SVC),
  leaveContingency: (db, companyId) => leaveSvc(db, companyId, NFE_SVC),
};
