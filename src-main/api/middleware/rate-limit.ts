// Per-key budgets (seed §8): fixed one-second and one-minute windows kept in memory, since a terminal's
// service is one process and budgets need not survive a restart.
import type { Clock } from '../../clock.ts';

export interface Budget {
  perSecond: number;
  perMinute: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Headers describe the minute window, the one integrators plan against. */
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the minute window resets. */
  reset: number;
  /** Seconds to wait when refused: until the window that ran out resets. */
  retryAfter: number;
}

interface Counters {
  second: number;
  secondCount: number;
  minute: number;
  minuteCount: number;
}

export class RateLimiter {
  private readonly counters = new Map<string, Counters>();
  constructor(private readonly clock: Clock) {}

  take(subject: string, budget: Budget): RateDecision {
    const nowMs = this.clock.now().getTime();
    const second = Math.floor(nowMs / 1000);
    const minute = Math.floor(nowMs / 60_000);
    let c = this.counters.get(subject);
    if (c === undefined) {
      c = { second, secondCount: 0, minute, minuteCount: 0 };
      this.counters.set(subject, c);
    }
    if (c.second !== second) {
      c.second = second;
      c.secondCount = 0;
    }
    if (c.minute !== minute) {
      c.minute = minute;
      c.minuteCount = 0;
    }
    const reset = (minute + 1) * 60;
    const minuteLeft = budget.perMinute - c.minuteCount;
    const secondLeft = budget.perSecond - c.secondCount;
    if (minuteLeft <= 0 || secondLeft <= 0) {
      // A refused request does not consume budget, so a client that backs off as told gets through.
      const retryAfter = minuteLeft <= 0 ? Math.max(1, reset - Math.floor(nowMs / 1000)) : 1;
      return {
        allowed: false,
        limit: budget.perMinute,
        remaining: Math.max(0, minuteLeft),
        reset,
        retryAfter,
      };
    }
    c.secondCount += 1;
    c.minuteCount += 1;
    return { allowed: true, limit: budget.perMinute, remaining: minuteLeft - 1, reset, retryAfter: 0 };
  }

  /** Drops counters of windows that are over, so the map does not grow with every IP ever seen. */
  sweep(): void {
    const minute = Math.floor(this.clock.now().getTime() / 60_000);
    for (const [subject, c] of this.counters) if (c.minute < minute) this.counters.delete(subject);
  }
}
