// The legal deadline of an event counted from the document's authorization (CT-e 168 h, DC-e 24 h), as the
// EventRule.deadline the kinds plug in: past it, the authority's refusal is answered locally and nothing is queued.
import { fiscalRejection, type DomainError } from '../errors.ts';
import type { DocumentRow } from './repository.ts';

/** `message` with the authority's `rejection` once more than `deadlineMs` passed since the authorization. */
export function deadlineAfterAuthorization(
  deadlineMs: number,
  message: string,
  rejection: { cStat: string; xMotivo: string },
): (doc: DocumentRow, now: Date) => DomainError | null {
  return (doc, now) => {
    if (doc.authorized_at === null) return null;
    const elapsed = now.getTime() - new Date(doc.authorized_at).getTime();
    if (elapsed <= deadlineMs) return null;
    return fiscalRejection(
      message,
      [{ field: 'justificativa', error: `authorized at ${doc.authorized_at}, deadline passed` }],
      rejection,
    );
  };
}
