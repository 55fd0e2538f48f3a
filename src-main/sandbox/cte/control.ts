// Control of the sandbox's CT-e state that only later documents would change at the real authority: that the
// trip of a CT-e started (an MDF-e authorized for it, or a checkpoint that registered its passage), after
// which its cancellation is refused (528 / 219).
import type { SandboxTx } from '../store.ts';

export type TripEvidence = 'mdfe' | 'circulacao';

/**
 * Marks the trip of the CT-e `chave` as started. Returns false when the sandbox knows no such CT-e. Body of
 * POST /_sandbox/cte/trip-started: {chave, evidence?: 'mdfe' (default) | 'circulacao'}.
 */
export async function markTripStarted(
  db: SandboxTx,
  chave: string,
  evidence: TripEvidence,
): Promise<boolean> {
  const result = await db
    .updateTable('cte_documents')
    .set({ trip_started: evidence })
    .where('chave', '=', chave)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Validates the JSON body of POST /_sandbox/cte/trip-started. */
export function tripStartedRequest(body: unknown): { chave: string; evidence: TripEvidence } {
  if (typeof body !== 'object' || body === null) throw new RangeError('expected a JSON object');
  const { chave, evidence } = body as { chave?: unknown; evidence?: unknown };
  if (typeof chave !== 'string' || !/^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/.test(chave)) {
    throw new RangeError('chave must be a 44-position access key');
  }
  if (evidence !== undefined && evidence !== 'mdfe' && evidence !== 'circulacao') {
    throw new RangeError("evidence must be 'mdfe' or 'circulacao'");
  }
  return { chave, evidence: evidence ?? 'mdfe' };
}
