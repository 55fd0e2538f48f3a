// The request's arrival time, stamped by the app's first middleware: deadlines that bound what a client waits
// (the cashier's sale) count from it, so time spent queued behind a burst is part of the bound.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.ts';

const ARRIVED_AT = 'arrivedAt';

/**
 * The first middleware: stamps the arrival on the service's clock (a test's fake clock stamps fake time), then
 * yields to the event loop before the request goes on. Without the yield, one request's handlers (a sale's
 * transaction, whose queries resolve at once) run to their first real I/O before the next socket's data is even
 * parsed, so the requests read in one turn of the loop would be stamped one sale apart instead of together.
 */
export function stampArrival(clock: Clock): RequestHandler {
  return (_req: Request, res: Response, next) => {
    res.locals[ARRIVED_AT] = clock.now();
    setImmediate(next);
  };
}

/** When the request arrived; a router mounted without the stamp (a unit test's app) counts from now. */
export function arrivalOf(res: Response, clock: Clock): Date {
  const stamped: unknown = res.locals[ARRIVED_AT];
  return stamped instanceof Date ? stamped : clock.now();
}
