// A company's virtual contingency (SVC) per modelo, kept in contingency_modes so that a restart keeps it: what
// each kind's ContingencyRule reads, enters and leaves. The kind names its modelo and its SVC modes' tpEmis.
import type { Db } from '../db/client.ts';
import type { ContingencyModesTable } from '../db/schema.ts';
import { normalizeFreeText } from '../fiscal/xml.ts';
import { NORMAL_EMISSION, type Emission, type KindDeps } from './kind.ts';

type SvcMode = Exclude<ContingencyModesTable['mode'], 'normal' | 'offline'>;

/** One kind's SVC: its modelo and the tpEmis of each virtual authority it may use. */
export interface SvcModes {
  modelo: number;
  tpEmis: Partial<Readonly<Record<SvcMode, number>>>;
}

/** The emission in force: normal, or SVC while the company's contingency row says so. */
export async function svcEmission(db: Db, companyId: string, svc: SvcModes): Promise<Emission> {
  const row = await db
    .selectFrom('contingency_modes')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('modelo', '=', svc.modelo)
    .executeTakeFirst();
  const tpEmis = row === undefined ? undefined : svc.tpEmis[row.mode as SvcMode];
  if (row === undefined || tpEmis === undefined) return NORMAL_EMISSION;
  return { tpEmis, contingency: { dhCont: new Date(row.since), xJust: row.reason } };
}

/** Records that the company emits through `mode` from now on (a row already there stays as it is). */
export async function enterSvc(
  deps: Pick<KindDeps, 'db' | 'clock'>,
  companyId: string,
  svc: SvcModes,
  mode: SvcMode,
  reason: string,
): Promise<void> {
  // xJust is 15-256 characters of free text (NF-e B29, CT-e ide/xJust): the reason comes from error texts.
  const xJust = normalizeFreeText(reason, 256).padEnd(15, '.');
  await deps.db
    .insertInto('contingency_modes')
    .values({
      company_id: companyId,
      modelo: svc.modelo,
      mode,
      since: deps.clock.now().toISOString(),
      reason: xJust,
    })
    .onConflict((oc) => oc.columns(['company_id', 'modelo']).doNothing())
    .execute();
}

/** The companies whose documents of this modelo go to an SVC now. */
export async function companiesInSvc(db: Db, svc: SvcModes): Promise<string[]> {
  const rows = await db
    .selectFrom('contingency_modes')
    .select('company_id')
    .where('modelo', '=', svc.modelo)
    .where('mode', 'in', Object.keys(svc.tpEmis) as SvcMode[])
    .execute();
  return rows.map((r) => r.company_id);
}

export async function leaveSvc(db: Db, companyId: string, svc: SvcModes): Promise<void> {
  await db
    .deleteFrom('contingency_modes')
    .where('company_id', '=', companyId)
    .where('modelo', '=', svc.modelo)
    .execute();
}
