// NF-e contingency: the UF's virtual contingency authority (SVC-AN / SVC-RS, tpEmis 6/7), a persisted
// contingency row per company (a restart keeps it), entered after repeated certain failures at the UF and
// left when the UF's status service is in operation again.
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import { normalizeFreeText } from '../../../fiscal/xml.ts';
import { svcFor } from '../../../authority/endpoints.ts';
import type { UfSigla } from '../../../../src-shared/uf.ts';
import { NORMAL_EMISSION, type ContingencyRule, type Emission, type KindDeps } from '../../kind.ts';
import type { DocumentRow } from '../../repository.ts';
import { resignSameNumber } from '../../lifecycle.ts';

/** tpEmis of each virtual contingency authority (MOC 7.0 B22: 6 SVC-AN, 7 SVC-RS). */
const SVC_TPEMIS = { 'SVC-AN': 6, 'SVC-RS': 7 } as const;

/** The NF-e emission in force: normal, or SVC while the company's contingency row says so. */
export async function nfeEmission(db: Db, companyId: string): Promise<Emission> {
  const row = await db
    .selectFrom('contingency_modes')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('modelo', '=', 55)
    .executeTakeFirst();
  if (row === undefined || (row.mode !== 'SVC-AN' && row.mode !== 'SVC-RS')) return NORMAL_EMISSION;
  return { tpEmis: SVC_TPEMIS[row.mode], contingency: { dhCont: new Date(row.since), xJust: row.reason } };
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
  // xJust is TString 15-256 (MOC 7.0 B29): the reason comes from error texts, so it is normalized here.
  const xJust = normalizeFreeText(reason, 256).padEnd(15, '.');
  await deps.db
    .insertInto('contingency_modes')
    .values({
      company_id: attempt.company_id,
      modelo: 55,
      mode: svc,
      since: deps.clock.now().toISOString(),
      reason: xJust,
    })
    .onConflict((oc) => oc.columns(['company_id', 'modelo']).doNothing())
    .execute();
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
  async companiesInContingency(db) {
    const rows = await db
      .selectFrom('contingency_modes')
      .select('company_id')
      .where('modelo', '=', 55)
      .where('mode', 'in', ['SVC-AN', 'SVC-RS'])
      .execute();
    return rows.map((r) => r.company_id);
  },
  async leaveContingency(db, companyId) {
    await db
      .deleteFrom('contingency_modes')
      .where('company_id', '=', companyId)
      .where('modelo', '=', 55)
      .execute();
  },
};
