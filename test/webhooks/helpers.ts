// Shared setup for the webhook tests: the real service (startHarness) with /v1/webhooks reachable, a
// delivery worker driven by hand, capturing HTTP receivers on 127.0.0.1, and docs/webhooks.md's receiver.
import fs from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { createLogger } from '../../src-main/logger.ts';
import { BODY_LIMIT } from '../../src-main/api/server.ts';
import { requireApiKey } from '../../src-main/api/middleware/auth.ts';
import { errorHandler, notFoundHandler } from '../../src-main/api/middleware/errors.ts';
import { RateLimiter } from '../../src-main/api/middleware/rate-limit.ts';
import { webhookRoutes } from '../../src-main/api/routes/webhooks.ts';
import { WebhookDeliveryWorker, type DeliveryWorkerOptions } from '../../src-main/webhooks/delivery.ts';
import { startHarness, type Harness, type RequestOptions, type TestResponse } from '../api/harness.ts';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface WebhookEnv {
  h: Harness;
  /** Requests to /v1 wherever /v1/webhooks is served (see startWebhookEnv). */
  api(method: string, url: string, options?: RequestOptions): Promise<TestResponse>;
  worker: WebhookDeliveryWorker;
  /** A company key of the demo company, so requests need no companyId. */
  companyKey: string;
  stop(): Promise<void>;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function requestTo(
  baseUrl: string,
  defaultKey: string,
  method: string,
  url: string,
  opts: RequestOptions = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const key = opts.key === undefined ? defaultKey : opts.key;
  if (key !== null) headers['X-API-Key'] = key;
  let body: string | Buffer | FormData | undefined = opts.body;
  if (opts.json !== undefined && method !== 'GET') {
    body = JSON.stringify(opts.json);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(`${baseUrl}${url}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('application/json')) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/**
 * Starts the real service. Until server.ts mounts the webhook router, the same router is served beside it
 * with the service's own middleware, database and clock; once it is mounted the tests use the service.
 * The worker is this test's own (service.ts may run another: rows are claimed atomically, so tests wait
 * for outcomes instead of assuming which worker sent what).
 */
export async function startWebhookEnv(options: Partial<DeliveryWorkerOptions> = {}): Promise<WebhookEnv> {
  // The service's own workers stay stopped: the tests drive `worker` below, and a second worker delivering the
  // same queue in the background sent rows a test had left to the next test's receiver.
  const h = await startHarness({ startWorker: false });
  const logger = createLogger('warn', (line) => h.logs.push(line));
  const { db, secrets } = h.service;
  const probe = await h.request('GET', `/v1/webhooks?companyId=${h.companyId}`);
  let baseUrl = h.service.url;
  let side: http.Server | undefined;
  if (probe.status === 404) {
    const app = express();
    const v1 = express.Router();
    v1.use(requireApiKey(db, h.clock, new RateLimiter(h.clock)));
    v1.use(express.json({ limit: BODY_LIMIT, type: ['application/json', 'application/*+json'] }));
    v1.use('/webhooks', webhookRoutes({ db, clock: h.clock, secrets }));
    app.use('/v1', v1);
    app.use(notFoundHandler);
    app.use(errorHandler(logger));
    side = http.createServer(app);
    baseUrl = await listen(side);
  }
  // The manual clock stands still, so per-second rate budgets never refill by themselves: a 429 moves it on.
  const api = async (method: string, url: string, opts?: RequestOptions): Promise<TestResponse> => {
    const base = url.startsWith('/v1/webhooks') ? baseUrl : h.service.url;
    for (;;) {
      const res = await requestTo(base, companyKey, method, url, opts);
      if (res.status !== 429) return res;
      h.clock.advance(Number(res.headers.get('Retry-After') ?? '1') * 1000);
    }
  };
  let companyKey = h.apiKey;
  const keyRes = await api('POST', '/v1/api-keys', {
    json: { name: 'webhooks-test', scope: 'company', companyId: h.companyId, plan: 'terminal' },
  });
  companyKey = (keyRes.body as { key: string }).key;
  const worker = new WebhookDeliveryWorker({ db, clock: h.clock, secrets, logger }, options);
  return {
    h,
    api,
    worker,
    companyKey,
    stop: async () => {
      await worker.stop();
      side?.closeAllConnections();
      await new Promise<void>((resolve) => (side === undefined ? resolve() : side.close(() => resolve())));
      await h.stop();
    },
  };
}

export interface Captured {
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

/** Records every request; answers what `respond` says ('hang' never answers, like a dead receiver). */
export class CaptureReceiver {
  readonly requests: Captured[] = [];
  respond: (request: Captured) => number | 'hang' = () => 200;
  url = '';
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const captured = { headers: req.headers, rawBody: Buffer.concat(chunks) };
      this.requests.push(captured);
      const status = this.respond(captured);
      if (status !== 'hang') res.writeHead(status, { 'Content-Type': 'text/plain' }).end(`status ${status}`);
    });
  });

  static async start(): Promise<CaptureReceiver> {
    const receiver = new CaptureReceiver();
    receiver.url = `${await listen(receiver.server)}/hook`;
    return receiver;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** What docs/webhooks.md's receiver.mjs exports. */
export interface DocReceiver {
  TOLERANCE_SECONDS: number;
  verifySvcSignature(input: {
    rawBody: Buffer;
    headers: IncomingHttpHeaders;
    secrets: string[];
    nowSeconds?: number;
  }): string | null;
  createReceiver(input: {
    secrets: string[];
    onEvent(event: unknown, meta: { deliveryId: string; event: string }): Promise<void>;
    now?: () => number;
  }): http.Server;
}

/** Extracts the `receiver.mjs` block from docs/webhooks.md and imports it as written, so the doc cannot drift. */
export async function loadDocReceiver(): Promise<DocReceiver> {
  const markdown = fs.readFileSync(path.join(here, '../../docs/webhooks.md'), 'utf8');
  const block = /```js\n(\/\/ receiver\.mjs[\s\S]*?)```/.exec(markdown)?.[1];
  if (block === undefined)
    throw new Error('docs/webhooks.md has no ```js block starting with // receiver.mjs');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-doc-receiver-'));
  const file = path.join(dir, 'receiver.mjs');
  fs.writeFileSync(file, block);
  try {
    return (await import(pathToFileURL(file).href)) as DocReceiver;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function startDocReceiver(
  server: http.Server,
): Promise<{ url: string; close(): Promise<void> }> {
  const base = await listen(server);
  return {
    url: `${base}/hook`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until `check` returns a value other than undefined/false. */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error('waitFor: timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const MINUTE = 60_000;
export const HOUR = 3600_000;
