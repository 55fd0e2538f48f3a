// Turns a fiscal event into one queued delivery per matching active webhook of the company. Publishing
// only inserts rows (the delivery worker sends them on its own timers) and never fails the caller's work.
import { sql } from 'kysely';
import type { Clock } from '../clock.ts';
import { inCompanyTransaction, type Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { DocumentRow } from '../documents/repository.ts';
import { listEvents } from '../documents/events-service.ts';
import { eventRuleOf } from '../documents/kind.ts';
import { findKindOfModelo } from '../documents/registry.ts';
import {
  eventMatches,
  WEBHOOK_EVENTS,
  type PublishableEvent,
  type WebhookEvent,
  type WebhookPayload,
} from '../../src-shared/contracts/webhooks.ts';
import { deliveriesRepository, webhookId, webhooksRepository, type WebhookRow } from './repository.ts';

/** A failing delivery is retried until this long after it was queued, then marked failed. */
export const RETRY_WINDOW_MS = 24 * 3600_000;

export interface PublishInput<D> {
  companyId: string;
  event: PublishableEvent;
  data: D;
  /** Publishers that may report the same fact twice give a key (e.g. document id + state): queued once. */
  dedupeKey?: string;
}

export interface Published {
  eventId: string;
  /** One per webhook the event was queued for; empty when none matched or publishing failed. */
  deliveryIds: string[];
}

const listeners = new Set<() => void>();

/** Running workers listen so that new rows go out at once instead of at the next poll. */
export function onDeliveryQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notifyQueued(): void {
  // After the current turn: a caller's transaction holds the only connection until it commits, so the
  // worker's query sees the rows once they are committed (or never, when the caller rolls back).
  setImmediate(() => {
    for (const listener of listeners) listener();
  });
}

export function parseEvents(row: WebhookRow): string[] {
  return JSON.parse(row.events_json) as string[];
}

export interface QueueInput {
  event: WebhookEvent;
  eventId: string;
  payload: string;
  redeliveryOf?: string;
  dedupeKey?: string;
}

/** Inserts one pending delivery for `webhook`; false when its dedupe key was already queued. */
export async function queueDelivery(
  db: Db,
  clock: Clock,
  webhook: WebhookRow,
  input: QueueInput,
): Promise<string | null> {
  const now = clock.now();
  const id = webhookId();
  const inserted = await deliveriesRepository.insert(db, {
    id,
    webhook_id: webhook.id,
    company_id: webhook.company_id,
    event: input.event,
    event_id: input.eventId,
    payload: input.payload,
    status: 'pending',
    attempts: 0,
    next_try_at: now.toISOString(),
    expires_at: new Date(now.getTime() + RETRY_WINDOW_MS).toISOString(),
    last_status_code: null,
    last_error: null,
    last_duration_ms: null,
    redelivery_of: input.redeliveryOf ?? null,
    dedupe_key: input.dedupeKey ?? null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    delivered_at: null,
  });
  if (inserted) notifyQueued();
  return inserted ? id : null;
}

/** The exact body every webhook of this event receives. */
export function payloadText<D>(payload: WebhookPayload<D>): string {
  return JSON.stringify(payload);
}

/** The company's active webhooks that take `input`'s event. */
async function hooksFor<D>(db: Db, input: PublishInput<D>) {
  return (await webhooksRepository.activeOfCompany(db, input.companyId)).filter((w) =>
    parseEvents(w).some((pattern) => eventMatches(pattern, input.event)),
  );
}

async function fanOut<D>(db: Db, clock: Clock, eventId: string, input: PublishInput<D>): Promise<string[]> {
  const hooks = await hooksFor(db, input);
  if (hooks.length === 0) return [];
  const payload = payloadText({
    id: eventId,
    event: input.event,
    createdAt: clock.now().toISOString(),
    companyId: input.companyId,
    data: input.data,
  });
  const ids: string[] = [];
  for (const hook of hooks) {
    const id = await queueDelivery(db, clock, hook, {
      event: input.event,
      eventId,
      payload,
      ...(input.dedupeKey === undefined ? {} : { dedupeKey: input.dedupeKey }),
    });
    if (id !== null) ids.push(id);
  }
  return ids;
}

/**
 * Queues `event` for every active webhook of the company whose events match. Inside a caller's transaction
 * the rows commit with the caller's work; a failure here is logged and rolled back to a savepoint, so the
 * caller's work goes on untouched.
 */
export async function publishEvent<D>(
  db: Db,
  clock: Clock,
  input: PublishInput<D>,
  options: { logger?: Logger } = {},
): Promise<Published> {
  const eventId = webhookId();
  try {
    if (!db.isTransaction) {
      // Most stores have no webhook for most events: one read says so without a write transaction (and, in
      // server mode, its lock) per event. A webhook committed before this read is seen here and in fanOut's.
      if ((await hooksFor(db, input)).length === 0) return { eventId, deliveryIds: [] };
      const deliveryIds = await inCompanyTransaction(db, input.companyId, (trx) =>
        fanOut(trx, clock, eventId, input),
      );
      return { eventId, deliveryIds };
    }
    await sql`savepoint webhook_publish`.execute(db);
    try {
      const deliveryIds = await fanOut(db, clock, eventId, input);
      await sql`release webhook_publish`.execute(db);
      return { eventId, deliveryIds };
    } catch (error) {
      await sql`rollback to webhook_publish`.execute(db);
      await sql`release webhook_publish`.execute(db);
      throw error;
    }
  } catch (error) {
    options.logger?.error('webhook event not queued', {
      event: input.event,
      companyId: input.companyId,
      error: String(error),
    });
    return { eventId, deliveryIds: [] };
  }
}

/** The event a document's new state means, per model; null for states no webhook event exists for. */
export function documentEventOf(doc: Pick<DocumentRow, 'modelo' | 'status'>): PublishableEvent | null {
  // The kind names its events per state (documents/kinds/*); only names of the published list go out.
  const name = findKindOfModelo(doc.modelo)?.webhookEvents[doc.status];
  return name !== undefined && isPublishable(name) ? name : null;
}

const PUBLISHABLE: ReadonlySet<string> = new Set(WEBHOOK_EVENTS.filter((e) => e !== 'ping'));
const isPublishable = (name: string): name is PublishableEvent => PUBLISHABLE.has(name);

/** Where the service answers, for the links a kind's webhook data carries. */
export interface DocumentEventOptions {
  /** Scheme, host and port of this service (`http://127.0.0.1:3000`); absent: links are paths. */
  baseUrl?: string;
}

/** The generic data of a document event, or the kind's own (its API's view of the document). */
async function documentData(
  db: Db,
  doc: DocumentRow,
  options: DocumentEventOptions,
): Promise<Record<string, unknown>> {
  const kind = findKindOfModelo(doc.modelo);
  if (kind?.webhookData !== undefined) {
    return kind.webhookData(db, doc, { baseUrl: options.baseUrl ?? '' });
  }
  return {
    documentId: doc.id,
    chave: doc.chave,
    modelo: doc.modelo,
    serie: doc.serie,
    nNF: doc.n_nf,
    ambiente: doc.ambiente,
    tpEmis: doc.tp_emis,
    status: doc.status,
    cStat: doc.c_stat,
    xMotivo: doc.x_motivo,
    nProt: doc.n_prot,
    vNF: doc.v_nf,
    dhEmi: doc.dh_emi,
    authorizedAt: doc.authorized_at,
  };
}

/** For the outbox worker's onDocumentChanged: a state reported twice is queued once (dedupe key). */
export async function publishDocumentEvent(
  db: Db,
  clock: Clock,
  doc: DocumentRow,
  logger?: Logger,
  options: DocumentEventOptions = {},
): Promise<Published | null> {
  const event = documentEventOf(doc);
  if (event === null) return null;
  return publishEvent(
    db,
    clock,
    {
      companyId: doc.company_id,
      event,
      dedupeKey: `${doc.id}:${doc.status}`,
      data: await documentData(db, doc, options),
    },
    logger === undefined ? {} : { logger },
  );
}

/**
 * The kind's correction event (`nfe.cce`) for each correction letter the authority registered (once per
 * letter). The queue reports only that the note's messages moved, so the registered letters are read back
 * from the note's events.
 */
export async function publishCorrectionLetters(
  db: Db,
  clock: Clock,
  doc: DocumentRow,
  logger?: Logger,
): Promise<Published[]> {
  const kind = findKindOfModelo(doc.modelo);
  const rule = kind === undefined ? undefined : eventRuleOf(kind, { action: 'correct' });
  const event = kind?.correctionWebhookEvent;
  if (rule === undefined || event === undefined || !isPublishable(event)) return [];
  const letters = await listEvents(db, doc.id, rule.tpEvento);
  const published: Published[] = [];
  for (const letter of letters) {
    if (letter.status !== 'registrada') continue;
    const payload = JSON.parse(letter.payload) as { correcao?: string };
    published.push(
      await publishEvent(
        db,
        clock,
        {
          companyId: doc.company_id,
          event,
          dedupeKey: `${letter.id}:registrada`,
          data: {
            documentId: doc.id,
            chave: doc.chave,
            nSeqEvento: letter.n_seq,
            correcao: payload.correcao ?? null,
            cStat: letter.c_stat,
            xMotivo: letter.x_motivo,
            nProt: letter.n_prot,
            registradaEm: letter.registered_at,
          },
        },
        logger === undefined ? {} : { logger },
      ),
    );
  }
  return published;
}

/** Everything a change of a document may announce: its new state, and correction letters now registered. */
export async function publishDocumentChange(
  db: Db,
  clock: Clock,
  doc: DocumentRow,
  logger?: Logger,
  options: DocumentEventOptions = {},
): Promise<void> {
  try {
    await publishDocumentEvent(db, clock, doc, logger, options);
    await publishCorrectionLetters(db, clock, doc, logger);
  } catch (error) {
    logger?.error('document change not announced', { documentId: doc.id, error: String(error) });
  }
}
