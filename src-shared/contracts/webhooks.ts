// /v1/webhooks: subscriptions to fiscal events, their signed deliveries, and the URL rules (pure, so the
// renderer can show the same errors the service gives).
import { z } from 'zod';
import { listQuerySchema } from './common.ts';
import { addressKind } from '../net-address.ts';

/** Events a webhook can receive (seed §6); `ping` is only sent by test-connection. */
export const WEBHOOK_EVENTS = [
  'nfe.autorizada',
  'nfe.rejeitada',
  'nfe.cancelada',
  'nfe.cce',
  'nfe.denegada',
  'nfce.autorizada',
  'nfce.contingencia',
  'nfce.cancelada',
  'nfse.autorizada',
  'nfse.cancelada',
  'nfse.rejeitada',
  'cte.autorizada',
  'cte.rejeitada',
  'cte.cancelada',
  'cte.denegada',
  'dce.autorizada',
  'dce.cancelada',
  'dce.rejeitada',
  'ping',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** What publishers may emit: every event but the test-connection ping. */
export type PublishableEvent = Exclude<WebhookEvent, 'ping'>;

export const WEBHOOK_WILDCARDS = ['nfe.*', 'nfce.*', 'nfse.*', 'cte.*', 'dce.*', '*'] as const;
export type WebhookEventPattern = WebhookEvent | (typeof WEBHOOK_WILDCARDS)[number];
const PATTERNS: readonly string[] = [...WEBHOOK_EVENTS, ...WEBHOOK_WILDCARDS];

/** `*` matches every event; `nfe.*` every event whose name starts with `nfe.` (so not `nfce.…`). */
export function eventMatches(pattern: string, event: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return event.startsWith(pattern.slice(0, -1));
  return pattern === event;
}

export const WEBHOOK_SECRET_PREFIX = 'whsec_';

const eventPattern = z.string().refine((s) => PATTERNS.includes(s), {
  error: `unknown event; use one of ${PATTERNS.join(', ')}`,
});
const events = z
  .array(eventPattern)
  .min(1, { error: 'list at least one event' })
  .max(20)
  .transform((list) => [...new Set(list)] as WebhookEventPattern[]);
// The URL's scheme and host are checked by webhookUrlProblem, which needs permitirRedeLocal as well.
const url = z.string().trim().min(1).max(2048);
const descricao = z.string().trim().max(200);

/**
 * Seed §4.5 names the subscriptions `eventos`; `events`, the name Balcão used first, stays accepted as an
 * alias so older clients keep working. Giving both is refused: which one was meant is not clear.
 */
function oneEventList(
  body: { eventos?: WebhookEventPattern[] | undefined; events?: WebhookEventPattern[] | undefined },
  ctx: z.RefinementCtx,
  required: boolean,
): void {
  if (body.eventos !== undefined && body.events !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['events'],
      message: 'is the older name of eventos; give only eventos',
    });
  } else if (required && body.eventos === undefined && body.events === undefined) {
    ctx.addIssue({ code: 'custom', path: ['eventos'], message: 'list at least one event' });
  }
}

export const webhookCreateSchema = z
  .strictObject({
    url,
    eventos: events.optional(),
    /** Older name of `eventos`. */
    events: events.optional(),
    ativo: z.boolean().default(true),
    descricao: descricao.optional(),
    /** Accept http:// and private, loopback or link-local hosts (a receiver on the shop's LAN). */
    permitirRedeLocal: z.boolean().default(false),
  })
  .superRefine((body, ctx) => oneEventList(body, ctx, true))
  .transform(({ events: alias, eventos, ...rest }) => ({
    ...rest,
    eventos: eventos ?? alias ?? [],
  }));
export type WebhookCreate = z.output<typeof webhookCreateSchema>;

/** PUT changes only the fields it names; `ativo: false` pauses deliveries, `descricao: null` clears it. */
export const webhookUpdateSchema = z
  .strictObject({
    url: url.optional(),
    eventos: events.optional(),
    /** Older name of `eventos`. */
    events: events.optional(),
    ativo: z.boolean().optional(),
    descricao: descricao.nullable().optional(),
    permitirRedeLocal: z.boolean().optional(),
  })
  .refine((u) => Object.keys(u).length > 0, { error: 'give at least one field to change' })
  .superRefine((body, ctx) => oneEventList(body, ctx, false))
  .transform(({ events: alias, eventos, ...rest }) => ({ ...rest, eventos: eventos ?? alias }));
export type WebhookUpdate = z.output<typeof webhookUpdateSchema>;

export const DELIVERY_STATUSES = ['pending', 'in_flight', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Filters of the delivery history. */
export const deliveryListFilterShape = {
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: z.enum(WEBHOOK_EVENTS).optional(),
};
/** §4.6 paging plus the filters, parsed together so every faulty parameter is reported at once. */
export const deliveryListQuerySchema = listQuerySchema(deliveryListFilterShape);

const instant = z.iso.datetime({ offset: true });

/** A webhook (seed §2.9): `id`, `url`, `ativo`, the subscribed `eventos`, and Balcão's own fields. */
export const webhookViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  url: z.string(),
  eventos: z.array(z.enum([...WEBHOOK_EVENTS, ...WEBHOOK_WILDCARDS])),
  ativo: z.boolean(),
  descricao: z.string().nullable(),
  permitirRedeLocal: z.boolean(),
  secretRotatedAt: instant.nullable(),
  createdAt: instant,
  updatedAt: instant,
});
export type WebhookView = z.infer<typeof webhookViewSchema>;

/**
 * POST /v1/webhooks (201) and POST /v1/webhooks/:id/rotate-secret: the only answers that carry the secret,
 * which is never shown again; `message` says so.
 */
export const webhookWithSecretSchema = webhookViewSchema.extend({
  secret: z.string(),
  message: z.string(),
});
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>;

export const deliveryViewSchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  event: z.enum(WEBHOOK_EVENTS),
  /** The payload's `id`: the same for every webhook and redelivery of one event. */
  eventId: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastDurationMs: z.number().int().nullable(),
  nextTryAt: instant.nullable(),
  /** After this instant a failing delivery is not retried any more (24 h after it was created). */
  expiresAt: instant,
  redeliveryOf: z.string().nullable(),
  createdAt: instant,
  updatedAt: instant,
  deliveredAt: instant.nullable(),
});
export type DeliveryView = z.infer<typeof deliveryViewSchema>;

export const attemptViewSchema = z.object({
  attempt: z.number().int(),
  startedAt: instant,
  finishedAt: instant.nullable(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().int().nullable(),
  /** The first 512 characters of the receiver's answer, for debugging. */
  responseExcerpt: z.string().nullable(),
});
export type AttemptView = z.infer<typeof attemptViewSchema>;

export const deliveryDetailViewSchema = deliveryViewSchema.extend({
  /** The exact JSON text that is (or was) sent as the request body. */
  payload: z.string(),
  attemptLog: z.array(attemptViewSchema),
});
export type DeliveryDetailView = z.infer<typeof deliveryDetailViewSchema>;

/** The body of every delivery; stored as the exact JSON text that is signed and sent. */
export interface WebhookPayload<D = unknown> {
  id: string;
  event: WebhookEvent;
  createdAt: string;
  companyId: string;
  data: D;
}

/** POST …/test-connection and …/redeliver (202): `jobId` is the delivery id (`X-SVC-Delivery`). */
export const queuedJobSchema = z.object({ message: z.string(), jobId: z.string() });
export type QueuedJob = z.infer<typeof queuedJobSchema>;

// --- URL rules --------------------------------------------------------------------------------------
// Syntactic only (no DNS): the delivery worker repeats the check on the resolved addresses.

/** `public` may be reached always; `private` only with permitirRedeLocal; `reserved` never. */
export type HostClass = 'public' | 'private' | 'reserved';

/**
 * The webhook policy over the one address classification (src-shared/net-address.ts), which printers use
 * too: private, loopback, link-local and local names need permitirRedeLocal; reserved ranges never pass.
 */
export function classifyHost(hostname: string): HostClass {
  const kind = addressKind(hostname);
  if (kind === 'public' || kind === 'reserved') return kind;
  return 'private';
}

/** Why `raw` cannot be a receiver URL, or null when it can. */
export function webhookUrlProblem(raw: string, permitirRedeLocal: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    return 'must be an absolute URL (https://…)';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an https:// URL';
  if (parsed.protocol === 'http:' && !permitirRedeLocal) {
    return 'must use https:// (http:// only with permitirRedeLocal)';
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return 'must not carry credentials; deliveries are authenticated by their signature';
  }
  // WHATWG URL parsing already turned 0x7f.1 or 2130706433 into 127.0.0.1, so literals are canonical.
  const kind = classifyHost(parsed.hostname);
  if (kind === 'reserved') return `host ${parsed.hostname} is not a unicast address a receiver can have`;
  if (kind === 'private' && !permitirRedeLocal) {
    return `host ${parsed.hostname} is private, loopback or local; set permitirRedeLocal to allow it`;
  }
  return null;
}
