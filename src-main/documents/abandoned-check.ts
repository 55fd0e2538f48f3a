// The daily abandoned-number check: once a day (and shortly after each start, since a cashier terminal is
// often switched off overnight) every company's reserved-but-never-issued numbers are listed and logged, so
// the owner is offered to void them (inutilização) before the tax period closes with gaps in the series.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { startPeriodic } from '../periodic.ts';
import {
  abandonedNumbers,
  mergeRanges,
  numbersWithoutDocument,
  rangesOf,
  type NumberRange,
} from './abandoned.ts';

/** Numbers untouched for longer than this are abandoned (the same default as the on-demand route). */
export const ABANDONED_AFTER_HOURS = 24;

export interface AbandonedCheckReport {
  companyId: string;
  checkedAt: string;
  olderThanHours: number;
  total: number;
  ranges: NumberRange[];
}

export interface AbandonedCheckOptions {
  db: Db;
  clock: Clock;
  logger?: Logger;
  /** Default 24 h. */
  intervalMs?: number;
  /** Default 2 min after start, so that a start is not slowed by it. */
  firstRunDelayMs?: number;
}

export interface AbandonedCheck {
  /** One round over every company (also what the timer runs); resolves with the reports it made. */
  runOnce(): Promise<AbandonedCheckReport[]>;
  stop(): Promise<void>;
}

// The latest report per company, per database: the routes read it next to their on-demand listing.
const reports = new WeakMap<Db, Map<string, AbandonedCheckReport>>();

export function lastAbandonedCheck(db: Db, companyId: string): AbandonedCheckReport | null {
  return reports.get(db)?.get(companyId) ?? null;
}

export function startAbandonedCheck(options: AbandonedCheckOptions): AbandonedCheck {
  const { db, clock, logger } = options;
  const latest = new Map<string, AbandonedCheckReport>();
  reports.set(db, latest);

  const runOnce = async (): Promise<AbandonedCheckReport[]> => {
    const companies = await db.selectFrom('companies').select('id').execute();
    const made: AbandonedCheckReport[] = [];
    for (const { id } of companies) {
      if (periodic.stopped) break;
      const now = clock.now();
      const cutoff = new Date(now.getTime() - ABANDONED_AFTER_HOURS * 3600_000);
      const numbers = await abandonedNumbers(db, id, cutoff);
      const withoutDocument = await numbersWithoutDocument(db, id);
      const report: AbandonedCheckReport = {
        companyId: id,
        checkedAt: now.toISOString(),
        olderThanHours: ABANDONED_AFTER_HOURS,
        // Drafts, as the route's `total` counts them; the ranges also hold the numbers without a document.
        total: numbers.length,
        ranges: mergeRanges(rangesOf(numbers), withoutDocument),
      };
      latest.set(id, report);
      made.push(report);
      if (report.ranges.length > 0) {
        logger?.warn(
          'reserved numbers never issued: void them (POST /v1/companies/:id/abandoned-numbers/void)',
          {
            companyId: id,
            total: report.total,
            ranges: report.ranges.map((r) => `${r.modelo}/${r.serie}: ${r.numeroInicial}-${r.numeroFinal}`),
          },
        );
      }
    }
    return made;
  };
  const periodic = startPeriodic(runOnce, {
    firstRunDelayMs: options.firstRunDelayMs ?? 2 * 60_000,
    intervalMs: options.intervalMs ?? 24 * 3600_000,
    onError: (error) => logger?.error('abandoned-number check failed', { error: String(error) }),
  });
  return { runOnce, stop: () => periodic.stop() };
}
