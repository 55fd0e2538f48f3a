// The arrival stamp of the first middleware: a bounded wait's origin is when the request came in, not when a
// handler further down got to run (the time a burst queued it on the server is part of the bound).
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src-main/clock.ts';
import { arrivalOf, stampArrival } from '../../src-main/api/middleware/arrival.ts';

describe('arrival stamp', () => {
  it('is the clock at the first middleware, whatever time passes before the handler', async () => {
    const clock = new ManualClock('2026-11-24T12:00:00.000Z');
    const app = express();
    app.use(stampArrival(clock));
    // The request waits 2.5 s behind others before the route runs.
    app.use((_req, _res, next) => {
      clock.advance(2500);
      next();
    });
    app.get('/', (_req, res) => {
      res.json({ arrivedAt: arrivalOf(res, clock).toISOString(), now: clock.now().toISOString() });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = (await (await fetch(`http://127.0.0.1:${port}/`)).json()) as Record<string, string>;
      expect(body).toEqual({ arrivedAt: '2026-11-24T12:00:00.000Z', now: '2026-11-24T12:00:02.500Z' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('stamps at once and lets the loop turn before the request goes on', async () => {
    const clock = new ManualClock('2026-11-24T12:00:00.000Z');
    const res = { locals: {} } as unknown as express.Response;
    let went = false;
    stampArrival(clock)({} as express.Request, res, () => {
      went = true;
    });
    clock.advance(1000);
    // Stamped before the handlers, which wait for the loop (other sockets' requests get their stamps first).
    expect(arrivalOf(res, clock).toISOString()).toBe('2026-11-24T12:00:00.000Z');
    expect(went).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(went).toBe(true);
  });

  it('a router mounted without the stamp counts from now', () => {
    const clock = new ManualClock('2026-11-24T12:00:00.000Z');
    const res = { locals: {} } as unknown as express.Response;
    expect(arrivalOf(res, clock).toISOString()).toBe('2026-11-24T12:00:00.000Z');
  });
});
