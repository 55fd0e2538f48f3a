// The webhook delivery worker: POSTs due deliveries on its own timers with bounded concurrency, signs each
// request at send time, retries with exponential backoff and jitter for 24 h. Crash-safe like the outbox:
// each attempt is a row written before the request, so a restart finds and resends interrupted ones.
// Fair: pings have their own lane, receivers take turns, and receivers that stopped answering can never
// hold every slot, so one receiver's backlog never delays another's.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.ts';
import { inCompanyTransaction, inTransaction, leaseRow, whileLeased, type Db } from '../db/client.ts';
import { ORPHAN_SWEEP_MS, OrphanSweep } from '../db/orphan-sweep.ts';
import type { Logger } from '../logger.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { webhookUrlProblem } from '../../src-shared/contracts/webhooks.ts';
import { onDeliveryQueued } from './publisher.ts';
import { deliveriesRepository, type DeliveryRow, type WebhookRow } from './repository.ts';
import { httpWebhookSender, type WebhookSender } from './sender.ts';
import { signatureHeader } from './signature.ts';

export interface DeliveryWorkerDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  logger: Logger;
  sender?: WebhookSender;
  random?: () => number;
}

export interface DeliveryWorkerOptions {
  pollMs: number;
  /** Deliveries out at once, over all webhooks; each webhook has at most one. Pings are not counted. */
  concurrency: number;
  /** Deliveries out at once to one receiver (scheme, host and port), whatever webhooks point there. */
  perReceiver: number;
  /** Pings out at once, in a lane of their own: a ping never queues behind deliveries. */
  pingConcurrency: number;
  timeoutMs: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Server mode: how often the requests a dead instance left in flight are taken back (see OrphanSweep). */
  orphanSweepMs: number;
}

export const DELIVERY_DEFAULTS: DeliveryWorkerOptions = {
  pollMs: 1000,
  concurrency: 4,
  perReceiver: 2,
  pingConcurrency: 4,
  timeoutMs: 10_000,
  baseBackoffMs: 60_000,
  maxBackoffMs: 3600_000,
  orphanSweepMs: ORPHAN_SWEEP_MS,
};

export const USER_AGENT = 'Balcao-Webhooks/1';

/** Webhooks with due deliveries considered per fill (one row each). */
const HEADS_LIMIT = 1000;

interface Job {
  webhookId: string;
  receiver: string;
  ping: boolean;
  done: Promise<void>;
  abort: AbortController;
}

/** Where a webhook's requests go: deliveries to one receiver share its slots, whatever the path. */
export function receiverOf(url: string, webhookId: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return `webhook:${webhookId}`;
  }
}

interface Claim {
  delivery: DeliveryRow;
  webhook: WebhookRow;
  attemptId: number;
}

interface Outcome {
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
  aborted: boolean;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  // Connection errors of dual-stack attempts are AggregateErrors with an empty message and a code.
  if (error.message === '') return code ?? error.name;
  return code === undefined || error.message.includes(code) ? error.message : `${code}: ${error.message}`;
}

export class WebhookDeliveryWorker {
  private readonly options: DeliveryWorkerOptions;
  private readonly sender: WebhookSender;
  private readonly running = new Map<string, Job>();
  /**
   * Receivers whose last request got no HTTP answer (timeout, refused, DNS, TLS). Together they hold at
   * most concurrency - 1 slots, so a receiver that answers always finds one. Memory only: a restart
   * forgets it, and the first unanswered request puts a dead receiver back on the list.
   */
  private readonly unresponsive = new Set<string>();
  /** When each receiver last got a slot (a counter, not a clock): the one served longest ago goes next. */
  private readonly lastServed = new Map<string, number>();
  private served = 0;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Fills run one after another so two of them never count the same free slot. */
  private fills: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private readonly orphans: OrphanSweep;

  constructor(
    private readonly deps: DeliveryWorkerDeps,
    options: Partial<DeliveryWorkerOptions> = {},
  ) {
    this.options = { ...DELIVERY_DEFAULTS, ...options };
    this.sender = deps.sender ?? httpWebhookSender;
    this.orphans = new OrphanSweep(deps.db, this.options.orphanSweepMs);
  }

  /**
   * Requests cut off by a stop or crash: their attempt is recorded as interrupted and the delivery is sent
   * again now (receivers dedupe on X-SVC-Delivery). Call once at start, before start(). In server mode only
   * rows whose lease this instance can take: another live instance's request still out is theirs to settle.
   */
  async recover(): Promise<number> {
    const now = this.now();
    const rows = await this.deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'in_flight')
      .execute();
    let recovered = 0;
    for (const { id } of rows) {
      const done = await whileLeased(this.deps.db, 'webhook_delivery', id, () =>
        inTransaction(this.deps.db, async (trx) => {
          // Read again under the lease: the instance that held it may have settled the row meanwhile.
          const taken = await trx
            .updateTable('webhook_deliveries')
            .set({
              status: 'pending',
              next_try_at: now,
              last_error: 'interrupted: the service stopped during the request',
              updated_at: now,
            })
            .where('id', '=', id)
            .where('status', '=', 'in_flight')
            .executeTakeFirst();
          if (Number(taken.numUpdatedRows) === 0) return false;
          await trx
            .updateTable('webhook_attempts')
            .set({ finished_at: now, error: 'interrupted: the service stopped during the request' })
            .where('delivery_id', '=', id)
            .where('finished_at', 'is', null)
            .execute();
          return true;
        }),
      );
      if (done === true) recovered++;
    }
    return recovered;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.stopping = false;
    const fill = () => {
      void this.fill().catch((error: unknown) =>
        this.deps.logger.error('webhook delivery poll failed', { error: String(error) }),
      );
    };
    this.timer = setInterval(fill, this.options.pollMs);
    this.timer.unref();
    this.unsubscribe = onDeliveryQueued(fill);
    fill();
  }

  /** Stops polling and aborts requests still out; their rows are left pending, to be sent again. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.fills.catch(() => undefined);
    for (const job of this.running.values()) job.abort.abort();
    await Promise.allSettled([...this.running.values()].map((job) => job.done));
  }

  /** Starts the due deliveries there are slots for and waits for them; returns how many were sent. */
  async tick(): Promise<number> {
    const started = await this.fill();
    await Promise.allSettled(started.map((id) => this.running.get(id)?.done));
    return started.length;
  }

  /** Deliveries being sent right now. */
  get inFlight(): number {
    return this.running.size;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private fill(): Promise<string[]> {
    const run = this.fills.then(() => this.fillOnce());
    this.fills = run.catch(() => undefined);
    return run;
  }

  private async fillOnce(): Promise<string[]> {
    if (this.stopping) return [];
    // Server mode: requests a dead instance left in flight go out again (receivers dedupe on the id).
    const orphaned = await this.orphans.due(() => this.recover());
    if (orphaned > 0)
      this.deps.logger.warn('webhook deliveries left in flight by a stopped instance will be resent', {
        orphaned,
      });
    const started: string[] = [];
    const jobs = [...this.running.values()];
    const pingsFree = this.options.pingConcurrency - jobs.filter((j) => j.ping).length;
    if (pingsFree > 0) {
      for (const ping of await deliveriesRepository.duePings(this.deps.db, this.now(), pingsFree)) {
        if (this.stopping) break;
        if (this.running.has(ping.id)) continue;
        if (await this.launch(ping.id, receiverOf(ping.url, ping.webhook_id), true)) started.push(ping.id);
      }
    }

    const deliveries = jobs.filter((j) => !j.ping);
    let free = this.options.concurrency - deliveries.length;
    if (free <= 0 || this.stopping) return started;
    const busyHooks = new Set(deliveries.map((j) => j.webhookId));
    const perReceiver = new Map<string, number>();
    for (const job of deliveries) perReceiver.set(job.receiver, (perReceiver.get(job.receiver) ?? 0) + 1);
    let unresponsiveOut = deliveries.filter((j) => this.unresponsive.has(j.receiver)).length;
    const unresponsiveCap = Math.max(1, this.options.concurrency - 1);

    // One candidate per webhook (its next row). Every webhook with due rows, up to a bound far above what a
    // store has: a window of only the oldest heads could again be filled by dead receivers' backlogs.
    const heads = await deliveriesRepository.dueHeads(this.deps.db, this.now(), HEADS_LIMIT);
    const byReceiver = new Map<string, typeof heads>();
    for (const head of heads) {
      if (busyHooks.has(head.webhook_id) || this.running.has(head.id)) continue;
      const receiver = receiverOf(head.url, head.webhook_id);
      byReceiver.set(receiver, [...(byReceiver.get(receiver) ?? []), head]);
    }
    // Receivers that answer first, then the one served longest ago; within a receiver, the oldest row.
    const turns = [...byReceiver.keys()].sort(
      (a, b) =>
        Number(this.unresponsive.has(a)) - Number(this.unresponsive.has(b)) ||
        (this.lastServed.get(a) ?? -1) - (this.lastServed.get(b) ?? -1),
    );
    // Round-robin: each pass gives every receiver with room at most one more slot.
    for (let progress = true; progress && free > 0 && !this.stopping;) {
      progress = false;
      for (const receiver of turns) {
        if (free <= 0 || this.stopping) break;
        const out = perReceiver.get(receiver) ?? 0;
        if (out >= this.options.perReceiver) continue;
        const dead = this.unresponsive.has(receiver);
        if (dead && unresponsiveOut >= unresponsiveCap) continue;
        const queue = byReceiver.get(receiver);
        const head = queue?.shift();
        if (head === undefined) continue;
        if (!(await this.launch(head.id, receiver, false))) continue;
        started.push(head.id);
        perReceiver.set(receiver, out + 1);
        if (dead) unresponsiveOut++;
        free--;
        progress = true;
      }
    }
    return started;
  }

  /**
   * Leases and claims the row and starts sending it; false when someone else took it or it may not go now.
   * The lease (server mode: several instances share the queue) is held from the claim to the settlement, so
   * no other instance's start-up recovery takes the request out for an interrupted one.
   */
  private async launch(id: string, receiver: string, ping: boolean): Promise<boolean> {
    const release = await leaseRow(this.deps.db, 'webhook_delivery', id);
    if (release === null) return false;
    let claim: Claim | null;
    try {
      // The claim reads the row again under the lease: another instance may have delivered it meanwhile.
      claim = await this.claim(id);
    } catch (error) {
      await release();
      throw error;
    }
    if (claim === null) {
      await release();
      return false;
    }
    this.lastServed.set(receiver, ++this.served);
    const abort = new AbortController();
    const done = this.deliver(claim, receiver, abort.signal)
      .catch((error: unknown) =>
        this.deps.logger.error('webhook delivery failed unexpectedly', {
          deliveryId: claim.delivery.id,
          error: String(error),
        }),
      )
      .finally(release)
      .finally(() => {
        this.running.delete(claim.delivery.id);
        // A freed slot takes the next due row at once when the worker runs on its own.
        if (this.timer !== undefined && !this.stopping) void this.fill().catch(() => undefined);
      });
    this.running.set(claim.delivery.id, { webhookId: claim.webhook.id, receiver, ping, done, abort });
    return true;
  }

  /** Marks the row in flight and opens its attempt row in one transaction; null when someone else took it. */
  private async claim(id: string): Promise<Claim | null> {
    const now = this.now();
    // The delivery, its webhook and its attempt are all its company's: the company's write lock will do.
    const seen = await deliveriesRepository.findById(this.deps.db, id);
    if (seen === undefined || seen.status !== 'pending') return null;
    return inCompanyTransaction(this.deps.db, seen.company_id, async (trx) => {
      const delivery = await deliveriesRepository.findById(trx, id);
      if (delivery === undefined || delivery.status !== 'pending') return null;
      const webhook = await trx
        .selectFrom('webhooks')
        .selectAll()
        .where('id', '=', delivery.webhook_id)
        .executeTakeFirst();
      if (webhook === undefined || (webhook.ativo !== 1 && delivery.event !== 'ping')) return null;
      const attempt = delivery.attempts + 1;
      const taken = await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'in_flight', attempts: attempt, updated_at: now })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return null;
      const inserted = await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: id,
          attempt,
          started_at: now,
          finished_at: null,
          status_code: null,
          error: null,
          duration_ms: null,
          response_excerpt: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return {
        delivery: { ...delivery, status: 'in_flight' as const, attempts: attempt },
        webhook,
        attemptId: inserted.id,
      };
    });
  }

  private async deliver(
    { delivery, webhook, attemptId }: Claim,
    receiver: string,
    signal: AbortSignal,
  ): Promise<void> {
    const started = performance.now();
    const outcome: Outcome = { statusCode: null, error: null, excerpt: null, durationMs: 0, aborted: false };
    const allowLan = webhook.permitir_rede_local === 1;
    // The rules are checked again at send time: the stored URL predates any change to them.
    const problem = webhookUrlProblem(webhook.url, allowLan);
    if (problem !== null) outcome.error = `refused: ${problem}`;
    else {
      try {
        const timestamp = Math.floor(this.deps.clock.now().getTime() / 1000);
        const secret = this.deps.secrets.openText(webhook.secret_enc);
        const answer = await this.sender.send({
          url: webhook.url,
          body: delivery.payload,
          timeoutMs: this.options.timeoutMs,
          allowLan,
          signal,
          headers: {
            'Content-Type': 'application/json',
            'User-Agent': USER_AGENT,
            'X-SVC-Event': delivery.event,
            'X-SVC-Delivery': delivery.id,
            'X-SVC-Attempt': String(delivery.attempts),
            'X-SVC-Timestamp': String(timestamp),
            'X-SVC-Signature': signatureHeader(secret, timestamp, delivery.payload),
          },
        });
        outcome.statusCode = answer.statusCode;
        outcome.excerpt = answer.excerpt;
        this.unresponsive.delete(receiver);
      } catch (error) {
        outcome.aborted = signal.aborted;
        outcome.error = signal.aborted ? 'aborted: the service is stopping' : describe(error);
        // Any HTTP answer, even a 500, means the receiver is there; only silence marks it.
        if (!signal.aborted) this.unresponsive.add(receiver);
      }
    }
    outcome.durationMs = Math.round(performance.now() - started);
    await this.settle(delivery, attemptId, outcome);
  }

  private retryAt(attempts: number, now: Date, expiresAt: string): string {
    const random = this.deps.random ?? Math.random;
    const exp = Math.min(
      this.options.maxBackoffMs,
      this.options.baseBackoffMs * 2 ** Math.min(attempts - 1, 20),
    );
    // Half fixed, half random: receivers that come back are not hit by every retry in the same second.
    const delay = exp / 2 + random() * (exp / 2);
    return new Date(Math.min(now.getTime() + delay, Date.parse(expiresAt))).toISOString();
  }

  private async settle(delivery: DeliveryRow, attemptId: number, outcome: Outcome): Promise<void> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const error = outcome.error ?? (ok ? null : `receiver answered HTTP ${String(outcome.statusCode)}`);
    const expired = now.getTime() >= Date.parse(delivery.expires_at);
    const next: Partial<DeliveryRow> = ok
      ? { status: 'delivered', next_try_at: null, delivered_at: at }
      : outcome.aborted
        ? { status: 'pending', next_try_at: at }
        : expired
          ? { status: 'failed', next_try_at: null }
          : { status: 'pending', next_try_at: this.retryAt(delivery.attempts, now, delivery.expires_at) };
    await inCompanyTransaction(this.deps.db, delivery.company_id, async (trx) => {
      await trx
        .updateTable('webhook_attempts')
        .set({
          finished_at: at,
          status_code: outcome.statusCode,
          error,
          duration_ms: outcome.durationMs,
          response_excerpt: outcome.excerpt,
        })
        .where('id', '=', attemptId)
        .execute();
      // Only the row this worker claimed: a webhook deleted meanwhile took its deliveries along.
      await trx
        .updateTable('webhook_deliveries')
        .set({
          ...next,
          last_status_code: outcome.statusCode,
          last_error: error,
          last_duration_ms: outcome.durationMs,
          updated_at: at,
        })
        .where('id', '=', delivery.id)
        .where('status', '=', 'in_flight')
        .execute();
    });
    if (next.status === 'failed') {
      this.deps.logger.warn('webhook delivery failed for good', {
        deliveryId: delivery.id,
        webhookId: delivery.webhook_id,
        attempts: delivery.attempts,
        lastError: error,
      });
    }
  }
}

/** For the composition root: recovers interrupted deliveries, then starts polling unless told not to. */
export async function startWebhookDelivery(
  deps: DeliveryWorkerDeps,
  options: Partial<DeliveryWorkerOptions> & { start?: boolean } = {},
): Promise<WebhookDeliveryWorker> {
  const { start, ...workerOptions } = options;
  const worker = new WebhookDeliveryWorker(deps, workerOptions);
  const recovered = await worker.recover();
  if (recovered > 0)
    deps.logger.warn('webhook deliveries interrupted by the last stop will be resent', { recovered });
  if (start !== false) worker.start();
  return worker;
}
