// The cashier's NFC-e sale with its fall-back to offline contingency (tpEmis 9) when the authority does not
// answer in time, so a sale is never stopped by the network; the re-issue of a doubtful attempt under the
// next number, and the resumption of a sale whose request died with an earlier run.
import type { Clock } from '../../../clock.ts';
import { whileLeased } from '../../../db/client.ts';
import { notFound } from '../../../errors.ts';
import { outboxRepository } from '../../../outbox/repository.ts';
import type { Emission } from '../../kind.ts';
import {
  awaitRow,
  issueDocument,
  queueSend,
  resignSameNumber,
  type Issued,
  type LifecycleDeps,
} from '../../lifecycle.ts';
import { documentsRepository, type DocumentRow } from '../../repository.ts';
import { nfceKind } from './kind.ts';
import { offlineEmission, offlineMode, setNfceOffline } from './contingency.ts';

/**
 * Thrown inside a re-issue's transaction when the doubtful attempt got its answer meanwhile: the
 * transaction rolls back (no number is taken) and the sale ends with the attempt itself.
 */
export class AttemptSettled extends Error {
  constructor(readonly attempt: DocumentRow) {
    super(`attempt ${attempt.id} settled as ${attempt.status} before its re-issue`);
  }
}

/** Issues and queues an NFC-e; with `replaces`, it is the contingency re-issue of that doubtful attempt. */
export function issueSale(
  deps: LifecycleDeps,
  companyId: string,
  payload: unknown,
  emission: Emission | null = null,
  replaces: DocumentRow | null = null,
): Promise<Issued> {
  return issueDocument(deps, nfceKind, companyId, payload, {
    emission,
    firstAttempt: replaces === null,
    beforeQueue: async (trx, row) => {
      if (replaces === null) return;
      // The queue may have settled the attempt between the sale's last look and this transaction; the two
      // serialize, so either the queue sees replaced_by (and cancels the attempt by substitution) or this
      // sees the authorization and no second note is issued for the sale.
      const current = await documentsRepository.findById(trx, replaces.id);
      if (current !== undefined && (current.status === 'autorizada' || current.status === 'denegada'))
        throw new AttemptSettled(current);
      row.replaces = replaces.id;
      // The re-issue is the same sale: same register session and operator, also when it was a draft sent
      // (no sale context then).
      const inherited = {
        register_session_id: current?.register_session_id ?? null,
        operator_id: current?.operator_id ?? null,
      };
      Object.assign(row, inherited);
      await documentsRepository.update(trx, row.id, { replaces: replaces.id, ...inherited });
      await documentsRepository.update(trx, replaces.id, { replaced_by: row.id, updated_at: row.updated_at });
    },
  });
}

/**
 * The cashier's bounded wait counted from the request's arrival: a sale that queued on the server behind a
 * burst has less of it left, and none left means contingency at once. A bare number counts from now.
 */
export interface SaleWait {
  arrivedAt: Date;
  waitMs: number;
}

/** The deadline's origin and length (a bare number: from now). */
export function saleDeadline(wait: number | SaleWait, clock: Clock): SaleWait {
  return typeof wait === 'number' ? { arrivedAt: clock.now(), waitMs: wait } : wait;
}

/** What is left of the wait at this moment, never negative. */
export function waitLeft(wait: SaleWait, clock: Clock): number {
  return Math.max(0, wait.arrivedAt.getTime() + wait.waitMs - clock.now().getTime());
}

export interface SaleResult {
  document: DocumentRow;
  /** How the sale ended: authorized online, or issued in offline contingency (to be transmitted later). */
  mode: 'online' | 'offline';
}

/**
 * The cashier's sale: try the authority until `wait` ends (counted from the request's arrival); when it does not
 * settle the note in time, the sale is issued in offline contingency and the NFC-e mode switches to offline so
 * the next sales do not wait. A sale whose wait was used up before it was issued (queued on the server behind a
 * burst) is issued in contingency at once, without switching the mode: the authority was never tried.
 * An attempt that may have reached the authority keeps its number and is resolved later (consulted, then
 * cancelled by substitution if authorized or voided if never received); one that certainly did not is
 * re-signed as tpEmis 9 with the same number.
 */
export async function sellNfce(
  deps: LifecycleDeps,
  companyId: string,
  payload: unknown,
  wait: number | SaleWait,
): Promise<SaleResult> {
  const deadline = saleDeadline(wait, deps.clock);
  if ((await offlineMode(deps.db, companyId)) || waitLeft(deadline, deps.clock) === 0) {
    const { document } = await issueSale(deps, companyId, payload, offlineEmission(deps.clock));
    return { document, mode: 'offline' };
  }
  const { document, outboxId } = await issueSale(deps, companyId, payload);
  return authorizedOrContingency(deps, document, outboxId, deadline);
}

/**
 * The cashier's bounded wait: the queued NFC-e is sent now and the answer waits until `deadline` ends (what is
 * left of it: signing and the queue for the database came out of it); past that
 * the company goes offline and the sale completes in contingency (tpEmis 9): re-signed under the same number
 * when the attempt certainly did not reach the authority, otherwise re-issued under the next number (the
 * doubtful attempt is settled later by cancellation by substitution or inutilização).
 */
async function authorizedOrContingency(
  deps: LifecycleDeps,
  document: DocumentRow,
  outboxId: number,
  deadline: SaleWait,
): Promise<SaleResult> {
  const companyId = document.company_id;
  const payload: unknown = JSON.parse(document.payload_json);
  // Nothing left: the row is not sent at all, so it certainly did not reach the authority and keeps its number.
  const left = waitLeft(deadline, deps.clock);
  if (left > 0) await awaitRow(deps, outboxId, left);

  const after = await documentsRepository.findById(deps.db, document.id);
  if (after !== undefined && after.status !== 'processando') return { document: after, mode: 'online' };

  // The authority went unanswered for the sale's wait: the next sales go offline without waiting. A wait used
  // up on the server (nothing was sent) says nothing about the authority: the mode stays.
  if (left > 0)
    await setNfceOffline(deps.db, deps.clock, companyId, true, 'authority did not answer a sale in time');
  const row = await outboxRepository.findById(deps.db, outboxId);
  const certainlyNotReceived =
    row !== undefined && row.state === 'pending' && row.attempts <= 1 && !deps.worker.isBusy(outboxId);
  if (certainlyNotReceived) {
    // Under the row's lease: in server mode another instance's worker may have taken the row (still pending
    // when read) and be sending the attempt; its lease says so, and then the attempt is a doubtful one.
    // Held, the lease keeps every worker off the row until the re-signed note is committed.
    const reissued =
      (await whileLeased(deps.db, 'outbox', outboxId, () =>
        resignSameNumber(deps, document, outboxId, offlineEmission(deps.clock), 'contingencia', () =>
          deps.worker.isBusy(outboxId),
        ),
      )) ?? null;
    if (reissued !== null) return { document: reissued, mode: 'offline' };
  }
  try {
    const { document: replacement } = await issueSale(
      deps,
      companyId,
      payload,
      offlineEmission(deps.clock),
      document,
    );
    return { document: replacement, mode: 'offline' };
  } catch (error) {
    if (error instanceof AttemptSettled) return { document: error.attempt, mode: 'online' };
    throw error;
  }
}

/**
 * A sale whose request died with an earlier run (its Idempotency-Key names `id`): ends as the sale would have,
 * from where the note is now. The re-issue chain is followed to its last note; one still waiting for the
 * authority gets the sale's bounded wait, then offline contingency, exactly like a first call.
 */
export async function resumeSale(
  deps: LifecycleDeps,
  id: string,
  wait: number | SaleWait,
): Promise<SaleResult> {
  let document = await documentsRepository.findById(deps.db, id);
  for (let hops = 0; document?.replaced_by != null && hops < 10; hops++) {
    document = await documentsRepository.findById(deps.db, document.replaced_by);
  }
  if (document === undefined) throw notFound('Document');
  if (document.status === 'processando') {
    const open = await outboxRepository.openForDocument(deps.db, document.id);
    const attempt = open.find((row) => row.kind === 'autorizacao');
    if (attempt !== undefined)
      return authorizedOrContingency(deps, document, attempt.id, saleDeadline(wait, deps.clock));
  }
  return { document, mode: document.tp_emis === 9 ? 'offline' : 'online' };
}

/**
 * The cashier's send of an NFC-e draft: authorized, or issued in offline contingency, within `waitMs` (the
 * same bounded wait as the one-step sale).
 */
export async function sendNfceSale(
  deps: LifecycleDeps,
  id: string,
  wait: number | SaleWait,
): Promise<SaleResult> {
  const deadline = saleDeadline(wait, deps.clock);
  const outboxId = await queueSend(deps, id);
  const queued = await documentsRepository.getById(deps.db, id);
  if (queued.modelo !== 65) throw new Error('sendNfceSale takes an NFC-e');
  if (queued.status === 'contingencia') return { document: queued, mode: 'offline' };
  return authorizedOrContingency(deps, queued, outboxId, deadline);
}
