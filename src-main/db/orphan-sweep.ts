// Server mode: rows left in flight by an instance that died (its leases ended with its connections) are taken
// back by the live instances' workers as they poll, instead of waiting for some instance to start.

import type { Db } from './client.ts';
import { isPostgres } from './dialect.ts';

/** How often a worker looks for rows in flight that nobody holds. */
export const ORPHAN_SWEEP_MS = 10_000;

/**
 * Runs a worker's recovery (which takes only rows whose lease it can get: a live instance holds the lease of a
 * row for the whole of its work) every `everyMs` of real time. Only on PostgreSQL: on SQLite the process is
 * the store's only one and a lease is free, so the rows in flight are its own, recovered at its start only.
 */
export class OrphanSweep {
  // Real time, not the service's clock: a cadence of the process, like its timers (tests' clocks stand still).
  private last = performance.now();

  constructor(
    private readonly db: Db,
    private readonly everyMs: number = ORPHAN_SWEEP_MS,
  ) {}

  /** `recover` when a sweep is due; how many rows it took back (0 when none was due). */
  async due(recover: () => Promise<number>): Promise<number> {
    if (!isPostgres(this.db)) return 0;
    const now = performance.now();
    if (now - this.last < this.everyMs) return 0;
    this.last = now;
    return recover();
  }
}
