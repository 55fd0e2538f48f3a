// Sales under load through the real HTTP API: 1, 8 and 32 cashier clients, each with its own key, selling
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

/** One key per client: a key's plan allows 50 requests a second, a cashier makes far fewer. */
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
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** `clients` loops doing `request` back to back for SECONDS; latencies in ms. */
async function run(
  clients: number,
  request: (client: number, n: number) => Promise<boolean>,
): Promise<Level> {
  const latencies: number[] = [];
  let failures = 0;
  let n = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < until) {
        const started = performance.now();
        const ok = await request(client, n++);
        latencies.push(performance.now() - started);
        if (!ok) failures++;
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

const lines: string[] = [];
for (const clients of LEVELS) {
  const clientKeys = await keys(clients);
  const baseline = await run(clients, async () => (await fetch(`${service.url}/healthz`)).ok);
  const sales = await run(clients, async (client, n) => {
    const res = await fetch(`${base}/nfce/venda`, {
      method: 'POST',
      headers: { 'X-API-Key': clientKeys[client] ?? '', 'Content-Type': 'application/json' },
      body: saleBody(n),
    });
    const doc = (await res.json()) as { status?: string };
    return res.status === 201 && doc.status === 'autorizada';
  });
  lines.push(
    `${String(clients).padStart(2)} clients: ${sales.perSecond.toFixed(1)} sales/s ` +
      `(${(sales.perSecond / baseline.perSecond).toFixed(3)} of ${baseline.perSecond.toFixed(0)} bare round trips/s), ` +
      `p50 ${sales.p50.toFixed(1)} ms, p99 ${sales.p99.toFixed(1)} ms ` +
      `(bare p50 ${baseline.p50.toFixed(2)} ms), not authorized ${sales.failures}`,
  );
}
await service.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`load (${SECONDS} s per level, NFC-e sales over HTTP, embedded sandbox authority)\n`);
for (const line of lines) process.stdout.write(`  ${line}\n`);
