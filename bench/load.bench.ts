// Sales under load through the real HTTP API: 1, 8 and 32 cashier clients, taking keys in turn, selling
// NFC-e with POST /v1/nfce/venda against the embedded sandbox authority. Sales/s, p50 and p99 per level, and
// the same run's bare round trip (GET /healthz at the same concurrency) as the baseline the ratios use.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src-main/logger.ts';
import { startService } from '../src-main/service.ts';
import { saleBody } from './sale-clients.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 6);
const LEVELS = (process.env['BENCH_CLIENTS'] ?? '1,8,32').split(',').map(Number);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-load-'));
const service = await startService(
  { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
  { logger: createLogger('silent') },
);
const sandbox = service.bootstrap.sandbox;
if (sandbox === null) throw new Error('the bench needs the sandbox bootstrap');
const base = `${service.url}/v1`;

/**
 * Keys taken in turn by the sales: a key's plan allows 50 requests a second, which a cashier never nears but one
 * bench client selling back to back does (with one key per client, the single client met the limit and most of
 * its "sales" were 429s).
 */
async function keys(count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${base}/api-keys`, {
        method: 'POST',
        headers: { 'X-API-Key': sandbox?.apiKey ?? '', 'Content-Type': 'application/json' },
        body: JSON.stringify({
          name: `caixa-${i}`,
          scope: 'company',
          companyId: sandbox?.companyId,
          plan: 'terminal',
        }),
      });
      return ((await res.json()) as { key: string }).key;
    }),
  );
}

interface Level {
  /** Requests that succeeded, per second. */
  perSecond: number;
  p50: number;
  p99: number;
  /** What the failed requests got (HTTP status, or the note's status when it was not authorized), counted. */
  failures: Map<string, number>;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** `clients` loops doing `request` back to back for SECONDS; latencies in ms. */
async function run(clients: number, request: (n: number) => Promise<string | null>): Promise<Level> {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let n = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const failure = await request(n++);
        if (failure === null) latencies.push(performance.now() - started);
        else failures.set(failure, (failures.get(failure) ?? 0) + 1);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / SECONDS,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures,
  };
}

const failed = (failures: Map<string, number>) =>
  failures.size === 0 ? 'none' : [...failures].map(([what, count]) => `${count} ${what}`).join(', ');

// Up to ~130 sales/s measured: 8 keys keep each under its 50 requests/s.
const saleKeys = await keys(Math.max(...LEVELS, 8));
const lines: string[] = [];
for (const clients of LEVELS) {
  const baseline = await run(clients, async () => {
    const res = await fetch(`${service.url}/healthz`);
    await res.arrayBuffer();
    return res.ok ? null : String(res.status);
  });
  const sales = await run(clients, async (n) => {
    const res = await fetch(`${base}/nfce/venda`, {
      method: 'POST',
      headers: { 'X-API-Key': saleKeys[n % saleKeys.length] ?? '', 'Content-Type': 'application/json' },
      body: saleBody(n),
    });
    const doc = (await res.json()) as { status?: string };
    if (res.status !== 201) return `HTTP ${res.status}`;
    return doc.status === 'autorizada' ? null : (doc.status ?? '?');
  });
  lines.push(
    `${String(clients).padStart(2)} clients: ${sales.perSecond.toFixed(1)} sales/s ` +
      `(${(sales.perSecond / baseline.perSecond).toFixed(3)} of ${baseline.perSecond.toFixed(0)} bare round trips/s), ` +
      `p50 ${sales.p50.toFixed(1)} ms, p99 ${sales.p99.toFixed(1)} ms ` +
      `(bare p50 ${baseline.p50.toFixed(2)} ms), not authorized: ${failed(sales.failures)}` +
      (baseline.failures.size === 0 ? '' : `, bare round trips failed: ${failed(baseline.failures)}`),
  );
}
await service.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`load (${SECONDS} s per level, NFC-e sales over HTTP, embedded sandbox authority)\n`);
for (const line of lines) process.stdout.write(`  ${line}\n`);
