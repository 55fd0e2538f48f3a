// The service listens before its queue and workers exist: a sale sent in that window waits for the start
// and is served, /healthz says 'starting' meanwhile, and a start that outlasts the wait refuses cleanly.
import type { Request, Response } from 'express';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src-main/api/errors.ts';
import { StartupGate, holdUntilStarted } from '../../src-main/api/middleware/startup.ts';
import type { BootstrapResult } from '../../src-main/bootstrap.ts';
import { waterSale } from '../fixtures/nfce-body.ts';
import { startHarness, tempDataDir } from './harness.ts';

function sell(url: string, bootstrap: BootstrapResult): Promise<globalThis.Response> {
  if (bootstrap.sandbox === null) throw new Error('no demo company');
  return fetch(`${url}/v1/nfce/venda`, {
    method: 'POST',
    headers: { 'X-API-Key': bootstrap.sandbox.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(waterSale()),
  });
}

describe('a request that arrives while the service starts', () => {
  it('waits for the start and is served; /healthz says starting (503) until then', async () => {
    let sale: Promise<globalThis.Response> | undefined;
    let answeredWhileStarting = false;
    const whileStarting: { status?: number; retryAfter?: string | null; body?: unknown } = {};
    const h = await startHarness({
      beforeReady: async ({ url, bootstrap }) => {
        const health = await fetch(`${url}/healthz`);
        Object.assign(whileStarting, {
          status: health.status,
          retryAfter: health.headers.get('retry-after'),
          body: await health.json(),
        });
        sale = sell(url, bootstrap);
        // Either outcome counts as an answer; a refused connection is reported by the `await sale` below.
        const answered = () => (answeredWhileStarting = true);
        void sale.then(answered, answered);
        // Two round trips later the sale is still held: nothing but the end of the start can release it.
        await fetch(`${url}/healthz`);
        await new Promise((resolve) => setTimeout(resolve, 150));
        await fetch(`${url}/healthz`);
      },
    });
    try {
      expect(whileStarting).toMatchObject({ status: 503, retryAfter: '1', body: { status: 'starting' } });
      expect(answeredWhileStarting).toBe(false);
      if (sale === undefined) throw new Error('the sale was not sent');
      const answer = await sale;
      const body = (await answer.json()) as { status: string; numero: number };
      expect(answer.status).toBe(201);
      expect(body).toMatchObject({ status: 'autorizada', numero: 1 });
      const health = await h.request('GET', '/healthz', { key: null });
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'ok' });
    } finally {
      await h.stop();
    }
  });

  it('is refused with 503 service_starting after the bounded wait, and nothing of it is kept', async () => {
    let refused: { status: number; retryAfter: string | null; body: unknown } | undefined;
    const h = await startHarness({
      startupWaitMs: 100,
      beforeReady: async ({ url, bootstrap }) => {
        const answer = await sell(url, bootstrap);
        refused = {
          status: answer.status,
          retryAfter: answer.headers.get('retry-after'),
          body: await answer.json(),
        };
      },
    });
    try {
      expect(refused).toEqual({
        status: 503,
        retryAfter: '1',
        body: {
          error: 'service_starting',
          message: 'The service is still starting; nothing of this request was done. Send it again.',
          details: [],
        },
      });
      const list = await h.request('GET', '/v1/nfce', { key: h.companyKey });
      expect(list.status).toBe(200);
      expect((list.body as { items: unknown[] }).items).toEqual([]);
      // Sent again once started, the same sale takes the first number: the refused one reserved none.
      const again = await h.request('POST', '/v1/nfce/venda', { key: h.companyKey, json: waterSale() });
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ status: 'autorizada', numero: 1 });
    } finally {
      await h.stop();
    }
  });
});

/** Servers listening in this process (the service's HTTP server, the sandbox authority's, the PSP's). */
function listeningServers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
}

/** A closed server leaves that list in libuv's close phase: two check phases later, one has passed. */
async function closePhasePassed(): Promise<void> {
  await nextTurn();
  await nextTurn();
}

describe('a start that fails after the service listens', () => {
  it('stops everything it had started and lets the data dir go', async () => {
    const dataDir = tempDataDir();
    await closePhasePassed(); // the earlier tests' servers
    const before = listeningServers();
    let listeningWhileStarting = 0;
    await expect(
      startHarness({
        dataDir,
        beforeReady: () => {
          listeningWhileStarting = listeningServers();
          return Promise.reject(new Error('a part of the start failed'));
        },
      }),
    ).rejects.toThrow('a part of the start failed');
    // The service, the sandbox authority and the sandbox PSP were listening; none is any more.
    expect(listeningWhileStarting - before).toBe(3);
    await closePhasePassed();
    expect(listeningServers()).toBe(before);
    // The lock and the database were released: the service starts again on the same data dir and sells.
    const h = await startHarness({ dataDir });
    try {
      const sale = await h.request('POST', '/v1/nfce/venda', { key: h.companyKey, json: waterSale() });
      expect(sale.status, sale.text).toBe(201);
    } finally {
      await h.stop();
    }
  });
});

describe('the startup gate', () => {
  /** The error (or undefined) the middleware passes on for a request under `gate`. */
  function passedOn(gate: StartupGate, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve) => {
      holdUntilStarted(gate, timeoutMs)({} as Request, {} as Response, (error?: unknown) => resolve(error));
    });
  }

  it('lets requests through once open, and at once afterwards', async () => {
    const gate = new StartupGate();
    const held = passedOn(gate, 10_000);
    gate.open();
    await expect(held).resolves.toBeUndefined();
    await expect(passedOn(gate, 0)).resolves.toBeUndefined();
    // Opened once: a later failure changes nothing.
    gate.fail();
    expect(gate.state).toBe('ready');
  });

  it('answers the requests it held with 503 when the start fails', async () => {
    const gate = new StartupGate();
    const held = passedOn(gate, 10_000);
    gate.fail();
    const error = await held;
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 503,
      code: 'service_starting',
      message: 'The service could not start; nothing of this request was done.',
      headers: { 'Retry-After': '1' },
    });
    await expect(gate.wait(10_000)).resolves.toBe('failed');
  });
});
