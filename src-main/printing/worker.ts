// The print worker: sends due jobs to their printers (one at a time per printer, in queue order, printers
// in parallel), checks status first, and keeps a job that could not print for a retry with backoff until it
// prints, is cancelled or ages out. Crash-safe: a job is marked `printing` before its bytes go out, and such
// rows found at start go back to pending.
import type { Clock } from '../clock.ts';
import { whileLeased, type Db } from '../db/client.ts';
import { ORPHAN_SWEEP_MS, OrphanSweep } from '../db/orphan-sweep.ts';
import type { Logger } from '../logger.ts';
import { printJobsRepository, printersRepository, type PrintJobRow } from './repository.ts';
import { connectionOf, onPrintQueued } from './service.ts';
import { PrintError } from './transports/channel.ts';
import { transportFactory, type TransportFactory } from './transports/index.ts';

export interface PrintWorkerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  transports?: TransportFactory;
}

export interface PrintWorkerOptions {
  pollMs: number;
  /** Wait after the first failed attempt; doubles with each attempt up to maxBackoffMs. */
  baseBackoffMs: number;
  /** Kept short: paper and covers are fixed by someone standing at the counter who expects the print. */
  maxBackoffMs: number;
  /** Server mode: how often the jobs a dead instance left printing are taken back (see OrphanSweep). */
  orphanSweepMs: number;
}

export const PRINT_WORKER_DEFAULTS: PrintWorkerOptions = {
  pollMs: 1000,
  baseBackoffMs: 2000,
  maxBackoffMs: 30_000,
  orphanSweepMs: ORPHAN_SWEEP_MS,
};

export class PrintWorker {
  private readonly options: PrintWorkerOptions;
  private readonly transports: TransportFactory;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Rounds run one after another, so two never send the same printer's queue at once. */
  private rounds: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private readonly orphans: OrphanSweep;

  constructor(
    private readonly deps: PrintWorkerDeps,
    options: Partial<PrintWorkerOptions> = {},
  ) {
    this.options = { ...PRINT_WORKER_DEFAULTS, ...options };
    this.transports = deps.transports ?? transportFactory();
    this.orphans = new OrphanSweep(deps.db, this.options.orphanSweepMs);
  }

  /**
   * Jobs cut off by a stop or crash while printing go back to the queue; call once, before start(). In server
   * mode only jobs whose lease this instance can take: another live instance's job still printing is theirs.
   */
  async recover(): Promise<number> {
    const now = this.deps.clock.now().toISOString();
    const { db } = this.deps;
    const rows = await db.selectFrom('print_jobs').select('id').where('status', '=', 'printing').execute();
    let recovered = 0;
    for (const { id } of rows) {
      const result = await whileLeased(db, 'print_job', id, () =>
        db
          .updateTable('print_jobs')
          .set({ status: 'pending', next_try_at: now, last_error: 'interrupted', updated_at: now })
          .where('id', '=', id)
          // Read again under the lease: the instance that held it may have finished the job meanwhile.
          .where('status', '=', 'printing')
          .executeTakeFirst(),
      );
      recovered += Number(result?.numUpdatedRows ?? 0);
    }
    return recovered;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.stopping = false;
    const poll = () => {
      if (this.stopping) return;
      void this.tick().catch((error: unknown) =>
        this.deps.logger.error('print queue poll failed', { error: String(error) }),
      );
    };
    this.timer = setInterval(poll, this.options.pollMs);
    this.timer.unref();
    this.unsubscribe = onPrintQueued(poll);
    poll();
  }

  /** Stops polling and waits for the round in progress (its prints finish; nothing is cut mid-job). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    await this.rounds.catch(() => undefined);
  }

  /** Sends the due head job of every printer's queue and waits for them; returns how many were tried. */
  tick(): Promise<number> {
    const round = this.rounds.then(() => this.round());
    this.rounds = round.catch(() => undefined);
    return round;
  }

  private async round(): Promise<number> {
    // Server mode: jobs a dead instance left printing go back to their printer's queue.
    const orphaned = await this.orphans.due(() => this.recover());
    if (orphaned > 0)
      this.deps.logger.warn('print jobs left printing by a stopped instance go back to the queue', {
        orphaned,
      });
    const now = this.deps.clock.now().toISOString();
    const heads = await printJobsRepository.headsOfQueues(this.deps.db);
    const due = heads.filter((job) => job.next_try_at === null || job.next_try_at <= now);
    const results = await Promise.allSettled(due.map((job) => this.run(job)));
    for (const result of results) {
      if (result.status === 'rejected') {
        this.deps.logger.error('print job failed unexpectedly', { error: String(result.reason) });
      }
    }
    return due.length;
  }

  /**
   * Sends one job under its lease (server mode: several instances share the queue): none of them prints a
   * job another is printing, nor takes it for an interrupted one at its start-up.
   */
  private async run(job: PrintJobRow): Promise<void> {
    await whileLeased(this.deps.db, 'print_job', job.id, () => this.runLeased(job));
  }

  private async runLeased(job: PrintJobRow): Promise<void> {
    const { db, clock, logger } = this.deps;
    const claimedAt = clock.now().toISOString();
    // Claimed only if still pending: read again under the lease, another instance may have printed it.
    const claimed = await db
      .updateTable('print_jobs')
      .set({ status: 'printing', attempts: job.attempts + 1, updated_at: claimedAt })
      .where('id', '=', job.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) return;
    const attempts = job.attempts + 1;
    const printer =
      job.printer_id === null ? undefined : await printersRepository.findById(db, job.printer_id);
    if (printer === undefined) {
      await printJobsRepository.update(db, job.id, {
        status: 'cancelled',
        last_error: 'printer_deleted',
        next_try_at: null,
        updated_at: claimedAt,
      });
      return;
    }
    // A drawer kick is only wanted while someone waits at the drawer: past its short lifetime it is given up
    // unsent, even if the printer is reachable again.
    if (job.kind === 'drawer' && claimedAt >= job.expires_at) {
      await printJobsRepository.update(db, job.id, {
        status: 'failed',
        last_error: job.last_error ?? 'expired',
        next_try_at: null,
        updated_at: claimedAt,
      });
      return;
    }
    try {
      await this.transports(connectionOf(printer)).print(job.bytes);
      const doneAt = clock.now().toISOString();
      await printJobsRepository.update(db, job.id, {
        status: 'done',
        last_error: null,
        next_try_at: null,
        printed_at: doneAt,
        updated_at: doneAt,
      });
    } catch (error) {
      const problem = error instanceof PrintError ? error.problem : 'io_error';
      const at = clock.now();
      const expired = at.toISOString() >= job.expires_at;
      const wait = Math.min(this.options.maxBackoffMs, this.options.baseBackoffMs * 2 ** (attempts - 1));
      await printJobsRepository.update(db, job.id, {
        status: expired ? 'failed' : 'pending',
        last_error: problem,
        next_try_at: expired ? null : new Date(at.getTime() + wait).toISOString(),
        updated_at: at.toISOString(),
      });
      logger.warn(expired ? 'print job given up' : 'print job kept for retry', {
        jobId: job.id,
        printerId: printer.id,
        problem,
        attempts,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
