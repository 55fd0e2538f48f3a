// Cancellation of an authorized document through its kind's cancel rule (NF-e 24 h, NFC-e 30 min, CT-e 168 h;
// documents/kinds/*), queued like every message to the authority (documents/events.ts).
import type { Db } from '../db/client.ts';
import { outboxRepository } from '../outbox/repository.ts';
import { queueEvent, type QueuedEvent } from './events.ts';
import { eventTables, refreshEvents } from './events-service.ts';
import { registeredKinds } from './registry.ts';
import type { DocumentKind } from './kind.ts';
import { awaitRow, type LifecycleDeps } from './lifecycle.ts';
import { documentsRepository, type DocumentRow } from './repository.ts';

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

/**
 * The `expected` kind's cancellation of document `id` queued with the caller's `details` (its justificativa),
 * then a bounded wait of `waitMs` for the authority's answer: the document and the event as they stand after
 * it, the event's status telling a registered cancellation from one still on its way.
 */
export async function cancelAndAwait(
  deps: LifecycleDeps,
  id: string,
  details: Readonly<Record<string, unknown>>,
  expected: DocumentKind,
  waitMs: number,
): Promise<QueuedEvent> {
  const queued = await queueEvent(deps, id, 'cancel', details, { expected, field: 'justificativa' });
  if (queued.event.outbox_id !== null) await awaitRow(deps, queued.event.outbox_id, waitMs);
  await refreshEvents(deps.db, id);
  const event = await eventTables(deps.db)
    .selectFrom('document_events')
    .selectAll()
    .where('id', '=', queued.event.id)
    .executeTakeFirstOrThrow();
  const document = await documentsRepository.getById(deps.db, id);
  return { document, event };
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
