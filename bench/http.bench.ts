// NFC-e sales through the real /v1 service (embedded sandbox authority, temp SQLite store) with 1, 8 and 32
// clients selling a fixed number of notes per level: sales/s and p50/p99, each rate beside the pure fiscal path's
// rate of the same run (bench:fiscal's code), so the HTTP overhead is a ratio; a burst of 200 sales sent at once
// (latency, and how many went to offline contingency). Then, at 10k stored notes, sales/s
// while another client loops the NFC-e list, as a ratio of sales alone, and while one loops a DANFCe drawn on the
// request thread, then on the worker pool (src-main/workers). BENCH_PROFILE=<n> instead profiles n
// sales at 8 clients (the inspector's CPU profiler, same as node --cpu-prof) and prints where the time goes.
// BENCH_SANDBOX=process runs the sandbox authority in a process of its own (bench/sandbox-process.ts), BENCH_LOAD=process
// the selling clients (bench/load-process.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';
import { createLogger } from '../src-main/logger.ts';
import { startService, syncSandboxCompanies } from '../src-main/service.ts';
import type { CompanyConfig } from '../src-main/sandbox/registry.ts';
import { fiscalPath, rate } from './fiscal-path.ts';
import { noteFiller } from './note-filler.ts';
import { runSales, type SaleClients, type SalesRun } from './sale-clients.ts';
import { defaultPoolSize } from '../src-main/workers/pool.ts';
import { closePdfWorkers, setPdfWorkers } from '../src-main/workers/pdf.ts';

const LEVELS = (process.env['BENCH_CLIENTS'] ?? '1,8,32').split(',').map(Number);
/** Sales per level, shared by its clients (a multiple of 32 gives every client the same count). */
const SALES = Number(process.env['BENCH_SALES'] ?? 192);
const NOTES = Number(process.env['BENCH_NOTES'] ?? 10_000);
/** Sales sent at once, one per client, after the levels. */
const BURST = Number(process.env['BENCH_BURST'] ?? 200);
const LIST_CLIENTS = 8;
/** The list loop takes its own keys in turn: it asks faster than one key's plan allows. */
const LIST_KEYS = 4;
const PROFILE = Number(process.env['BENCH_PROFILE'] ?? 0);

/**
 * Where the sandbox authority runs: `embedded` (in the service's process, as `npm start` runs it) or `process`
 * (a process of its own, as the real authority is another machine: the figures are then Balcão's alone).
 */
const SANDBOX = process.env['BENCH_SANDBOX'] === 'process' ? 'process' : 'embedded';
/**
 * Where the cashiers run: `embedded` (fetch in the bench's process, which is the service's) or `process` (a process
 * of their own: their HTTP client work is then not counted against the service's thread).
 */
const LOAD = process.env['BENCH_LOAD'] === 'process' ? 'process' : 'embedded';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-http-'));
const authority =
  SANDBOX === 'process' ? await authorityProcess(path.join(dataDir, 'authority.sqlite')) : null;
const service = await startService(
  { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
  {
    logger: createLogger('silent'),
    ...(authority === null ? {} : { sandbox: { url: authority.url, caPem: authority.caPem } }),
  },
);
if (authority !== null) await syncSandboxCompanies(service.db, service.secrets, authority);
const sandbox = service.bootstrap.sandbox;
if (sandbox === null) throw new Error('the bench needs the sandbox bootstrap');
const base = `${service.url}/v1`;

/**
 * Keys taken in turn by the sales (and the list loop's own few): a key's plan allows 50 requests a second, which a
 * cashier never nears but one bench client selling back to back does.
 */
const keys = await Promise.all(
  Array.from({ length: Math.max(...LEVELS, LIST_CLIENTS) + LIST_KEYS }, async (_, i) => {
    const res = await fetch(`${base}/api-keys`, {
      method: 'POST',
      headers: { 'X-API-Key': sandbox.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: `caixa-${i}`,
        scope: 'company',
        companyId: sandbox.companyId,
        plan: 'terminal',
      }),
    });
    return ((await res.json()) as { key: string }).key;
  }),
);
const SALE_KEYS = keys.length - LIST_KEYS;
const keyOf = (i: number) => keys[i % keys.length] ?? '';

/** Distinct per bench run, so a retried sale replays its own answer and never one of an earlier run. */
const target: SaleClients = { base, keys: keys.slice(0, SALE_KEYS), run: `${process.pid}-${Date.now()}` };
const loadProcess = LOAD === 'process' ? startLoadProcess(target) : null;

interface Level {
  perSecond: number;
  p50: number;
  p99: number;
  failures: string[];
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** Sales started in this run, across levels: each sale's number (and Idempotency-Key) is its own. */
let salesStarted = 0;

/** `clients` cashiers selling `total` notes between them, back to back; latencies in ms. */
async function sales(clients: number, total: number): Promise<Level> {
  const first = salesStarted;
  salesStarted += clients * Math.ceil(total / clients);
  const run =
    loadProcess === null
      ? await runSales(target, clients, total, first)
      : await loadProcess.sales(clients, total, first);
  const latencies = [...run.latencies].sort((a, b) => a - b);
  return {
    perSecond: latencies.length / run.seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures: run.failures,
  };
}

/** Starts bench/load-process.ts and hands it the target; each call runs one level of sales there. */
function startLoadProcess(sales: SaleClients) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./load-process.ts', import.meta.url))],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.stdin.write(`${JSON.stringify(sales)}\n`);
  return {
    sales: async (clients: number, total: number, first: number): Promise<SalesRun> => {
      child.stdin.write(`${JSON.stringify({ clients, total, first })}\n`);
      const answer = await lines.next();
      if (answer.done === true) throw new Error('the load process ended');
      return JSON.parse(answer.value) as SalesRun;
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

const describe = (l: Level) =>
  `${l.perSecond.toFixed(1)} sales/s, p50 ${l.p50.toFixed(1)} ms, p99 ${l.p99.toFixed(1)} ms, not authorized ${l.failures.length}${l.failures.length > 0 ? ` (${[...new Set(l.failures)].join(', ')})` : ''}`;

/**
 * Where the CPU time of a profile goes: each sample's stack is put in the first bucket one of its frames matches,
 * so a library's time counts for whoever called it (xpath under xml-crypto is the signature check).
 */
function split(profile: Profiler.Profile): [string, number][] {
  const buckets: [string, (url: string, fn: string) => boolean][] = [
    ['sandbox signature check', (u) => /sandbox\/(fast-)?signature|xml-crypto/.test(u)],
    // The rest of the simulated authority's work (its xmldom parse, schema check and store) is not Balcão's.
    ['sandbox authority (other)', (u) => /src-main\/sandbox\//.test(u)],
    ['fiscal path (build, sign, XSD)', (u) => /src-main\/fiscal\/|libxml2-wasm/.test(u)],
    ['Kysely + better-sqlite3', (u) => /node_modules\/(kysely|better-sqlite3)\/|src-main\/db\//.test(u)],
    ['load clients (fetch)', (u) => /undici|node:internal\/deps\/undici|bench\//.test(u)],
    [
      'HTTP (express, node http)',
      (u, fn) =>
        /node_modules\/(express|router|body-parser|raw-body|finalhandler|send|on-finished|type-is|qs)\/|_http_|node:http|node:net|_tls_|node:tls|node:internal\/(streams|tls|net)|src-main\/api\//.test(
          u,
        ) || fn === 'writev',
    ],
    ['garbage collector', (_u, fn) => fn === '(garbage collector)'],
  ];
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const bucketOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = bucketOf.get(id);
    if (known !== undefined) return known;
    const stack: Profiler.ProfileNode['callFrame'][] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node !== undefined) stack.push(node.callFrame);
    }
    const leaf = stack[0]?.functionName ?? '';
    let bucket = leaf === '(idle)' ? 'idle' : 'other';
    for (const [name, matches] of buckets) {
      if (stack.some((frame) => matches(frame.url, frame.functionName))) {
        bucket = name;
        break;
      }
    }
    bucketOf.set(id, bucket);
    return bucket;
  };
  const time = new Map<string, number>();
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, i) => {
    const bucket = classify(id);
    time.set(bucket, (time.get(bucket) ?? 0) + (deltas[i] ?? 0));
  });
  const busy = [...time].filter(([name]) => name !== 'idle').reduce((t, [, us]) => t + us, 0);
  return [...time]
    .filter(([name]) => name !== 'idle')
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => [name, (100 * us) / busy]);
}

/** Starts bench/sandbox-process.ts; its registry calls go over its stdin/stdout as JSON lines. */
async function authorityProcess(dataFile: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./sandbox-process.ts', import.meta.url)), dataFile],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done === true) throw new Error('the sandbox process ended before it listened');
  const { url, caPem } = JSON.parse(first.value) as { url: string; caPem: string };
  let nextId = 1;
  const call = async (request: Record<string, unknown>) => {
    child.stdin.write(`${JSON.stringify({ id: nextId++, ...request })}\n`);
    if ((await lines.next()).done === true) throw new Error('the sandbox process ended');
  };
  return {
    url,
    caPem,
    registry: {
      configureCompany: (config: CompanyConfig) => call({ op: 'company', config }),
      registerCsrt: (cnpj: string, idCSRT: string, csrt: string) => call({ op: 'csrt', cnpj, idCSRT, csrt }),
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

const out = (line: string) => process.stdout.write(`${line}\n`);
await sales(4, 16); // warm-up: compiled code, prepared caches, the sandbox's first answers

if (PROFILE > 0) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const level = await sales(8, PROFILE);
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const file = path.join(os.tmpdir(), `balcao-http-${process.pid}.cpuprofile`);
  fs.writeFileSync(file, JSON.stringify(profile));
  out(
    `profile of ${PROFILE} sales at 8 clients (${describe(level)}), written to ${file}; CPU time (idle excluded):`,
  );
  for (const [name, pct] of split(profile)) out(`  ${name.padEnd(32)} ${pct.toFixed(1).padStart(5)} %`);
} else {
  const fiscal = rate(fiscalPath, 2000);
  out(
    `http (${SALES} NFC-e sales per level over POST /v1/nfce/venda, sandbox authority ` +
      `${SANDBOX === 'process' ? 'in a process of its own' : 'embedded in the service'}, selling clients ` +
      `${LOAD === 'process' ? 'in a process of their own' : "in the service's process"})`,
  );
  out(`  fiscal path of the same run: ${fiscal.toFixed(0)} docs/s on one core`);
  for (const clients of LEVELS) {
    const level = await sales(clients, SALES);
    out(
      `  ${String(clients).padStart(2)} clients: ${describe(level)}; ` +
        `ratio to the fiscal path ${(level.perSecond / fiscal).toFixed(3)}`,
    );
  }
  // A burst: BURST sales sent at once, one per client. The cashier's 3 s wait counts from each request's arrival,
  // so a sale still queued behind the burst when its time is up is issued in offline contingency instead of waiting.
  // The service's event loop during the burst (it runs in this process): its longest turn is how long a socket
  // could wait to be read, or a request to be stamped on arrival.
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const burst = await sales(BURST, BURST);
  loop.disable();
  const contingency = burst.failures.filter((status) => status === 'contingencia').length;
  out(
    `  burst of ${BURST} sales at once: ${describe(burst)}; issued in contingency ${contingency}; ` +
      `event loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms, max ${(loop.max / 1e6).toFixed(0)} ms`,
  );

  const fill = await noteFiller(service, keyOf(0), Date.now());
  await fill(NOTES);
  const alone = await sales(LIST_CLIENTS, SALES);
  let listing = true;
  const lists: number[] = [];
  const lister = (async () => {
    for (let i = 0; listing; i++) {
      const t = performance.now();
      const res = await fetch(`${base}/nfe?modelo=65&limit=100`, {
        headers: { 'X-API-Key': keyOf(keys.length - LIST_KEYS + (i % LIST_KEYS)) },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`the list answered ${res.status}`);
      lists.push(performance.now() - t);
    }
  })();
  const withList = await sales(LIST_CLIENTS, SALES);
  listing = false;
  await lister;
  lists.sort((a, b) => a - b);
  out(`  at ${NOTES} stored notes, ${LIST_CLIENTS} clients:`);
  out(`    sales alone:                  ${describe(alone)}`);
  out(`    while a client loops the list: ${describe(withList)}`);
  out(
    `    the list (GET /v1/nfe?modelo=65&limit=100): ${lists.length} requests, ` +
      `p50 ${percentile(lists, 0.5).toFixed(1)} ms, p99 ${percentile(lists, 0.99).toFixed(1)} ms`,
  );
  out(
    `  sales while listing: ${(withList.perSecond / alone.perSecond).toFixed(2)} of sales alone (goal >= 0.9)`,
  );

  // PDFs: one client loops a note's DANFCe while the others sell, the render on the request thread, then on the
  // worker pool; the same sales alone in between, so each figure has its neighbour as baseline.
  const listed = (await (
    await fetch(`${base}/nfce?limit=1`, { headers: { 'X-API-Key': keyOf(0) } })
  ).json()) as { data?: { id: string }[]; items?: { id: string }[] };
  const noteId = (listed.data ?? listed.items ?? [])[0]?.id ?? '';
  const whileRendering = async (workers: number) => {
    setPdfWorkers(workers);
    let looping = true;
    const renders: number[] = [];
    const render = async (i: number) => {
      const t = performance.now();
      const res = await fetch(`${base}/nfce/${noteId}/danfe`, {
        headers: { 'X-API-Key': keyOf(keys.length - LIST_KEYS + (i % LIST_KEYS)) },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`the DANFCe answered ${res.status}`);
      return performance.now() - t;
    };
    await render(0); // the pool's worker starts on its first task
    const started = performance.now();
    const loop = (async () => {
      for (let i = 0; looping; i++) renders.push(await render(i));
    })();
    const level = await sales(LIST_CLIENTS, SALES);
    looping = false;
    await loop;
    const seconds = (performance.now() - started) / 1000;
    renders.sort((a, b) => a - b);
    return { level, perSecond: renders.length / seconds, p50: percentile(renders, 0.5) };
  };
  // Interleaved rounds (BENCH_PDF_ROUNDS, default 2): the load of the machine drifts between them.
  const rounds = Number(process.env['BENCH_PDF_ROUNDS'] ?? 2);
  out(
    `  ${LIST_CLIENTS} clients while another loops GET /v1/nfce/:id/danfe (DANFCe 80 mm), ${rounds} round(s):`,
  );
  for (let round = 0; round < rounds; round++) {
    const inline = await whileRendering(0);
    const aloneAgain = await sales(LIST_CLIENTS, SALES);
    const pooled = await whileRendering(defaultPoolSize());
    out(`    sales alone:                  ${describe(aloneAgain)}`);
    for (const [name, r] of [
      ['drawn on the request thread', inline],
      [`drawn on ${defaultPoolSize()} worker(s)`, pooled],
    ] as const) {
      out(
        `    ${`${name}:`.padEnd(30)} ${describe(r.level)}; ${(r.level.perSecond / aloneAgain.perSecond).toFixed(2)} of sales alone; ` +
          `DANFCe ${r.perSecond.toFixed(1)}/s, p50 ${r.p50.toFixed(1)} ms`,
      );
    }
  }
  setPdfWorkers(null);
  await closePdfWorkers();
}
await loadProcess?.close();
await service.close();
await authority?.close();
fs.rmSync(dataDir, { recursive: true, force: true });
