// Cancellation of an authorized document through its kind's cancel rule (NF-e 24 h, NFC-e 30 min, CT-e 168 h;
// documents/kinds/*), queued like every message to the authority (documents/events.ts).
import type { Db } from '../db/client.ts';
import { outboxRepository } from '../outbox/repository.ts';
import { queueEvent } from './events.ts';
import { registeredKinds } from './registry.ts';
import type { DocumentKind } from './kind.ts';
import type { LifecycleDeps } from './lifecycle.ts';
import type { DocumentRow } from './repository.ts';

export async function cancelDocument(
  deps: LifecycleDeps,
  id: string,
  justificativa: string,
  expected?: DocumentKind,
): Promise<DocumentRow> {
  const { document } = await queueEvent(
    deps,
    id,
    'cancel',
    { justificativa },
    expected === undefined ? {} : { expected },
  );
  return document;
}

/** The event types that cancel a document, over every registered kind. */
function cancelEventTypes(): Set<string> {
  return new Set(
    registeredKinds().flatMap((k) =>
      (k.events ?? []).filter((e) => e.action === 'cancel').map((e) => e.tpEvento),
    ),
  );
}

/** Which of these documents have a cancellation still waiting for the authority's answer (they read `processando`). */
export async function pendingCancellations(db: Db, documentIds: readonly string[]): Promise<Set<string>> {
  if (documentIds.length === 0) return new Set();
  const cancels = cancelEventTypes();
  const rows = await outboxRepository.openEventsFor(db, documentIds);
  return new Set(
    rows
      .filter((r) => r.event_type !== null && cancels.has(r.event_type) && r.document_id !== null)
      .map((r) => r.document_id as string),
  );
}
