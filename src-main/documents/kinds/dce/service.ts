// The DC-e's operations as the /v1/dce routes call them: the generic lifecycle with the DC-e kind (draft with
// its number and key reserved and signed, change under the same number, send, deletion of what never reached
// the authority) and the cancellation 110111 within its deadline. Every fault of a body comes from the kind's
// preparation at once (the payload's own and those that need the company and its DC-e settings), before any
// number is consumed.
import { notFound, validationError } from '../../../errors.ts';
import { zodDetails } from '../../../validation.ts';
import { dceCancelRequestSchema } from '../../../../src-shared/contracts/dce-view.ts';
import { cancelAndAwait } from '../../cancel.ts';
import type { QueuedEvent } from '../../events.ts';
import {
  awaitRow,
  createDraft,
  deleteDocument,
  issueDocument,
  queueSend,
  updateDraft,
  type LifecycleDeps,
} from '../../lifecycle.ts';
import { documentsRepository, type DocumentRow } from '../../repository.ts';
import { dceKind } from './kind.ts';

export { dceViewOf, listDce, dceEventXml, dceEventView } from './view.ts';

function requireBody(body: unknown): unknown {
  if (body === undefined) {
    throw validationError([
      { field: 'body', error: 'a JSON body with Content-Type application/json is required' },
    ]);
  }
  return body;
}

/** The DC-e `id` (any other kind's document, or none, is 404 under /v1/dce). */
export async function findDce(deps: Pick<LifecycleDeps, 'db'>, id: string): Promise<DocumentRow> {
  const doc = await documentsRepository.findById(deps.db, id);
  if (doc?.modelo !== dceKind.modelo) throw notFound('DC-e');
  return doc;
}

const current = (deps: LifecycleDeps, id: string) => documentsRepository.getById(deps.db, id);

/** POST /v1/dce: a draft (`rascunho`): number and key reserved, the DCe built, signed and stored. */
export async function createDceDraft(
  deps: LifecycleDeps,
  companyId: string,
  body: unknown,
): Promise<DocumentRow> {
  return createDraft(deps, dceKind, companyId, requireBody(body));
}

/**
 * POST /v1/dce?enviar=true: created and queued in one transaction (`processando`); with `waitMs` the answer
 * waits (bounded) for the authority's decision.
 */
export async function issueDce(
  deps: LifecycleDeps,
  companyId: string,
  body: unknown,
  waitMs: number | null = null,
): Promise<DocumentRow> {
  const { document, outboxId } = await issueDocument(deps, dceKind, companyId, requireBody(body));
  if (waitMs !== null) await awaitRow(deps, outboxId, waitMs);
  return current(deps, document.id);
}

/** PUT /v1/dce/:id: a draft or a rejected DC-e changes under its own number (rascunho | erro, else 409). */
export async function updateDce(deps: LifecycleDeps, id: string, body: unknown): Promise<DocumentRow> {
  await findDce(deps, id);
  return updateDraft(deps, id, requireBody(body), dceKind);
}

/** POST /v1/dce/:id/send: `processando`, queued (re-signed when stale or rejected); 409 from other states. */
export async function sendDce(
  deps: LifecycleDeps,
  id: string,
  waitMs: number | null = null,
): Promise<DocumentRow> {
  await findDce(deps, id);
  const outboxId = await queueSend(deps, id, dceKind);
  if (waitMs !== null) await awaitRow(deps, outboxId, waitMs);
  return current(deps, id);
}

/** DELETE /v1/dce/:id: a draft, or a rejected DC-e never transmitted; its number stays unused. */
export async function deleteDce(deps: LifecycleDeps, id: string): Promise<void> {
  await findDce(deps, id);
  await deleteDocument(deps, id, dceKind);
}

/**
 * POST /v1/dce/:id/cancel: the 110111 event queued (409 unless authorized; 422 cStat 501 past the deadline,
 * nothing queued), then a bounded wait for its registration: the event's status tells 200 from 202.
 */
export async function cancelDce(
  deps: LifecycleDeps,
  id: string,
  body: unknown,
  waitMs: number,
): Promise<QueuedEvent> {
  await findDce(deps, id);
  const parsed = dceCancelRequestSchema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(zodDetails(parsed.error));
  return cancelAndAwait(deps, id, parsed.data, dceKind, waitMs);
}
