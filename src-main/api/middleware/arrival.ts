// The request's arrival time, stamped by the app's first middleware: deadlines that bound what a client waits
// (the cashier's sale) count from it, so time spent queued behind a burst is part of the bound.
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.ts';

const ARRIVED_AT = 'arrivedAt';

/** The first middleware: stamps the arrival on the service's clock (a test's fake clock stamps fake time). */
export function stampArrival(clock: Clock): RequestHandler {
  return (_req: Request, res: Response, next) => {
    res.locals[ARRIVED_AT] = clock.now();
    next();
  };
}

/** When the request arrived; a router mounted without the stamp (a unit test's app) counts from now. */
export function arrivalOf(res: Response, clock: Clock): Date {
  const stamped: unknown = res.locals[ARRIVED_AT];
  return stamped instanceof Date ? stamped : clock.now();
}
