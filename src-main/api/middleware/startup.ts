// The service listens before its queue, sandbox authority and workers exist (the bootstrap needs the URL):
// /v1 requests that arrive in that window wait for the start, bounded, instead of being refused.
import type { RequestHandler } from 'express';
import { serviceStarting } from '../errors.ts';

export type StartupState = 'starting' | 'ready' | 'failed';

/** Opened once by the service when everything a request may need has started; failed if the start failed. */
export class StartupGate {
  #state: StartupState = 'starting';
  readonly #waiters = new Set<(state: StartupState) => void>();

  get state(): StartupState {
    return this.#state;
  }

  open(): void {
    this.#settle('ready');
  }

  fail(): void {
    this.#settle('failed');
  }

  /** The state once the start has ended, or 'starting' if it has not ended within `timeoutMs`. */
  wait(timeoutMs: number): Promise<StartupState> {
    if (this.#state !== 'starting') return Promise.resolve(this.#state);
    return new Promise((resolve) => {
      const done = (state: StartupState) => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve(state);
      };
      const timer = setTimeout(() => done('starting'), timeoutMs);
      this.#waiters.add(done);
    });
  }

  #settle(state: 'ready' | 'failed'): void {
    if (this.#state !== 'starting') return;
    this.#state = state;
    for (const waiter of [...this.#waiters]) waiter(state);
  }
}

/**
 * Holds a request until the service has started. A start that takes longer than `timeoutMs` (counted from
 * the hold, which begins as the request arrives) or fails answers 503 `service_starting` with Retry-After:
 * nothing of the request was done, so the client may send it again as it is.
 */
export function holdUntilStarted(gate: StartupGate, timeoutMs: number): RequestHandler {
  const notStarted = (state: StartupState) =>
    serviceStarting(
      state === 'failed'
        ? 'The service could not start; nothing of this request was done.'
        : 'The service is still starting; nothing of this request was done. Send it again.',
    );
  return (_req, _res, next) => {
    if (gate.state === 'ready') {
      next();
      return;
    }
    void gate.wait(timeoutMs).then((state) => next(state === 'ready' ? undefined : notStarted(state)));
  };
}
