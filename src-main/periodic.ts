// Background rounds for the service's periodic jobs (received-notes sync, abandoned-number check): a first
// round shortly after start, then one per interval, never two at once, timers that do not keep Node alive.

export interface PeriodicOptions {
  firstRunDelayMs: number;
  intervalMs: number;
  /** A round that throws is reported here; the next round still runs. */
  onError: (error: unknown) => void;
}

export interface Periodic {
  /** True once stop() was called: long rounds check it between their steps. */
  readonly stopped: boolean;
  /** Stops the timers and waits for the round in progress. */
  stop(): Promise<void>;
}

export function startPeriodic(round: () => Promise<unknown>, options: PeriodicOptions): Periodic {
  let stopped = false;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (stopped || running !== undefined) return;
    running = round()
      .then(() => undefined)
      .catch(options.onError)
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, options.firstRunDelayMs);
  first.unref();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return {
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
