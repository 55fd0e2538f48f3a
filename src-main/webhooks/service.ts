// Webhooks of one company: create, change, pause, rotate the secret, test the connection, read the delivery
// history and redeliver. The secret is sealed at rest and shown only by create and rotate-secret.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { RowWindow } from '../db/paginate.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { DomainError, forbidden, notFound } from '../errors.ts';
import type { CompanyRow } from '../companies/repository.ts';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import {
  webhookUrlProblem,
  type AttemptView,
  type DeliveryDetailView,
  type DeliveryStatus,
  type DeliveryView,
  type QueuedJob,
  type WebhookCreate,
  type WebhookEvent,
  type WebhookEventPattern,
  type WebhookUpdate,
  type WebhookView,
  type WebhookWithSecret,
} from '../../src-shared/contracts/webhooks.ts';
import { parseEvents, payloadText, queueDelivery } from './publisher.ts';
import {
  deliveriesRepository,
  webhookId,
  webhooksRepository,
  type AttemptRow,
  type DeliveryRow,
  type WebhookRow,
} from './repository.ts';
import { newWebhookSecret } from './signature.ts';

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
}

export function webhookView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    companyId: row.company_id,
    url: row.url,
    eventos: parseEvents(row) as WebhookEventPattern[],
    ativo: row.ativo === 1,
    descricao: row.descricao,
    permitirRedeLocal: row.permitir_rede_local === 1,
    secretRotatedAt: row.secret_rotated_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    event: row.event as WebhookEvent,
    eventId: row.event_id,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastDurationMs: row.last_duration_ms,
    nextTryAt: row.next_try_at,
    expiresAt: row.expires_at,
    redeliveryOf: row.redelivery_of,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}

function attemptView(row: AttemptRow): AttemptView {
  return {
    attempt: row.attempt,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
    responseExcerpt: row.response_excerpt,
  };
}

const asRecord = (raw: unknown): Record<string, unknown> =>
  typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};

/**
 * The URL rules need permitirRedeLocal too, so they look at the raw body (merged with the stored webhook on
 * PUT) and their error joins the schema's in one answer.
 */
export function urlChecks(existing?: WebhookRow) {
  return (raw: unknown): ErrorDetail[] => {
    const body = asRecord(raw);
    const url = body['url'] ?? existing?.url;
    const lan = body['permitirRedeLocal'] ?? existing?.permitir_rede_local === 1;
    if (typeof url !== 'string' || typeof lan !== 'boolean') return [];
    const problem = webhookUrlProblem(url, lan);
    if (problem === null) return [];
    // A stored URL that a PUT makes invalid (by turning permitirRedeLocal off) is named by that field.
    const field = body['url'] === undefined ? 'permitirRedeLocal' : 'url';
    return [{ field, error: problem }];
  };
}

export async function createWebhook(
  { db, clock, secrets }: WebhookDeps,
  company: CompanyRow,
  input: WebhookCreate,
): Promise<WebhookWithSecret> {
  const now = clock.now().toISOString();
  const secret = newWebhookSecret();
  const row: WebhookRow = {
    id: webhookId(),
    company_id: company.id,
    url: new URL(input.url).href,
    events_json: JSON.stringify(input.eventos),
    ativo: input.ativo ? 1 : 0,
    descricao: input.descricao ?? null,
    permitir_rede_local: input.permitirRedeLocal ? 1 : 0,
    secret_enc: secrets.seal(secret),
    secret_rotated_at: null,
    created_at: now,
    updated_at: now,
  };
  await webhooksRepository.insert(db, row);
  return {
    ...webhookView(row),
    secret,
    message: 'Webhook created. Store the secret now: it is not shown again.',
  };
}

/** 404 when no such webhook exists; 403 when it belongs to a company the key cannot reach. */
export async function webhookInCompanies(
  db: Db,
  id: string,
  reachable: (companyId: string) => Promise<boolean>,
): Promise<WebhookRow> {
  const row = await webhooksRepository.findById(db, id);
  if (row === undefined) throw notFound('Webhook');
  if (!(await reachable(row.company_id))) throw forbidden();
  return row;
}

export async function listWebhooks(db: Db, companyId: string, window: RowWindow) {
  const { rows, total } = await webhooksRepository.list(db, companyId, window);
  return { items: rows.map(webhookView), total };
}

export async function updateWebhook(
  { db, clock }: WebhookDeps,
  existing: WebhookRow,
  input: WebhookUpdate,
): Promise<WebhookView> {
  const changes: Partial<WebhookRow> = { updated_at: clock.now().toISOString() };
  if (input.url !== undefined) changes.url = new URL(input.url).href;
  if (input.eventos !== undefined) changes.events_json = JSON.stringify(input.eventos);
  if (input.ativo !== undefined) changes.ativo = input.ativo ? 1 : 0;
  if (input.descricao !== undefined) changes.descricao = input.descricao;
  if (input.permitirRedeLocal !== undefined) changes.permitir_rede_local = input.permitirRedeLocal ? 1 : 0;
  await webhooksRepository.update(db, existing.id, changes);
  return webhookView({ ...existing, ...changes });
}

export async function deleteWebhook(db: Db, existing: WebhookRow): Promise<void> {
  // In a transaction, so that on PostgreSQL it takes the store's lock like the publishers and the delivery worker
  // do: the delete cascades to the webhook's deliveries and attempts, rows their transactions lock.
  await inTransaction(db, (trx) => webhooksRepository.delete(trx, existing.id));
}

/** Takes effect at once: every later request, retries of older deliveries included, uses the new secret. */
export async function rotateWebhookSecret(
  { db, clock, secrets }: WebhookDeps,
  existing: WebhookRow,
): Promise<WebhookWithSecret> {
  const now = clock.now().toISOString();
  const secret = newWebhookSecret();
  const changes = { secret_enc: secrets.seal(secret), secret_rotated_at: now, updated_at: now };
  await webhooksRepository.update(db, existing.id, changes);
  return {
    ...webhookView({ ...existing, ...changes }),
    secret,
    message:
      'Secret rotated; every request from now on is signed with it. Store it now: it is not shown again.',
  };
}

/** Queues a `ping` for this webhook only; it is sent even while the webhook is paused. */
export async function testConnection({ db, clock }: WebhookDeps, webhook: WebhookRow): Promise<QueuedJob> {
  const eventId = webhookId();
  const payload = payloadText({
    id: eventId,
    event: 'ping',
    createdAt: clock.now().toISOString(),
    companyId: webhook.company_id,
    data: { webhookId: webhook.id, message: 'Balcão webhook test' },
  });
  const jobId = await queueDelivery(db, clock, webhook, { event: 'ping', eventId, payload });
  if (jobId === null) throw new Error('a ping without a dedupe key cannot be a duplicate');
  return { message: 'Ping queued; follow it in GET /v1/webhooks/:id/deliveries.', jobId };
}

async function deliveryOf(db: Db, webhook: WebhookRow, deliveryId: string): Promise<DeliveryRow> {
  const row = await deliveriesRepository.findById(db, deliveryId);
  if (row === undefined || row.webhook_id !== webhook.id) throw notFound('Delivery');
  return row;
}

export async function listDeliveries(
  db: Db,
  webhook: WebhookRow,
  filters: { status?: DeliveryStatus | undefined; event?: string | undefined },
  window: RowWindow,
) {
  const { rows, total } = await deliveriesRepository.list(db, webhook.id, filters, window);
  return { items: rows.map(deliveryView), total };
}

export async function getDelivery(
  db: Db,
  webhook: WebhookRow,
  deliveryId: string,
): Promise<DeliveryDetailView> {
  const row = await deliveryOf(db, webhook, deliveryId);
  const attempts = await deliveriesRepository.attempts(db, row.id);
  return { ...deliveryView(row), payload: row.payload, attemptLog: attempts.map(attemptView) };
}

/**
 * Sends a finished delivery again as a new delivery (new X-SVC-Delivery, fresh 24 h of retries) with the
 * same body, so the payload `id` still names the original event.
 */
export async function redeliver(
  { db, clock }: WebhookDeps,
  webhook: WebhookRow,
  deliveryId: string,
): Promise<QueuedJob> {
  const original = await deliveryOf(db, webhook, deliveryId);
  if (original.status === 'pending' || original.status === 'in_flight') {
    throw new DomainError(
      'invalid_state',
      `Delivery ${original.id} is still being retried; redeliver it once it is delivered or failed.`,
      [{ field: 'status', error: `current state is '${original.status}'` }],
    );
  }
  const jobId = await queueDelivery(db, clock, webhook, {
    event: original.event as WebhookEvent,
    eventId: original.event_id,
    payload: original.payload,
    redeliveryOf: original.id,
  });
  if (jobId === null) throw new Error('a redelivery without a dedupe key cannot be a duplicate');
  return { message: `Redelivery of ${original.id} queued.`, jobId };
}
