// Cost as the store grows: the store is filled (note-filler) to each size of BENCH_SIZES, and at each size the
// bench prints the sale latency at one client, the /v1/nfe lists' latency, the cold start of the service on
// that data dir (a child process, as `npm start` runs it, until /v1 answers; and startService alone, in process)
// beside the same run's start on an empty store, the daily abandoned-number check, and the bytes the store keeps
// per note. Every figure is also a ratio to the first size's figure of the same run, so growth reads as flat
// (≈1), logarithmic or linear. At the largest size it prints the statements of a sale whose time grew most
// since the first size and every one whose query plan scans a table.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql, type DatabaseConnection, type QueryResult } from 'kysely';
import { createLogger } from '../src-main/logger.ts';
import { projectRoot } from '../src-main/paths.ts';
import { startService, type RunningService } from '../src-main/service.ts';
import { noteFiller } from './note-filler.ts';
import { saleBody } from './sale-clients.ts';

const SIZES = (process.env['BENCH_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
/** Sales timed at each size, one after the other (one cashier). */
const SALES = Number(process.env['BENCH_SALES'] ?? 60);
/** Requests per list figure. */
const SAMPLES = Number(process.env['BENCH_SAMPLES'] ?? 20);
/** Starts per size; the fastest is printed (the others' delay is the machine's load, not the store's). */
const STARTS = Number(process.env['BENCH_STARTS'] ?? 3);
const KEYS = 16;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-scale-'));
const config = { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' as const };
const start = () => startService(config, { logger: createLogger('silent') });

let service: RunningService = await start();
const sandbox = service.bootstrap.sandbox;
if (sandbox === null) throw new Error('the bench needs the sandbox bootstrap');
const companyId = sandbox.companyId;

/** Several keys taken in turn: one key's plan allows 50 requests a second, a bench client makes more. */
const keys = await Promise.all(
  Array.from({ length: KEYS }, async (_, i) => {
    const res = await fetch(`${service.url}/v1/api-keys`, {
      method: 'POST',
      headers: { 'X-API-Key': sandbox.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `escala-${i}`, scope: 'company', companyId, plan: 'terminal' }),
    });
    return ((await res.json()) as { key: string }).key;
  }),
);
let turn = 0;
const nextKey = () => keys[turn++ % KEYS] ?? '';

/** A kept-alive socket the server closed just as a request went out fails it; that one request is sent again. */
async function request(url: string, init: RequestInit = {}, retried = false): Promise<Response> {
  try {
    return await fetch(`${service.url}/v1${url}`, {
      ...init,
      headers: { 'X-API-Key': nextKey(), 'Content-Type': 'application/json' },
    });
  } catch (error) {
    if (retried) throw error;
    return request(url, init, true);
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface Figure {
  p50: number;
  p99: number;
}

async function timed(times: number, once: () => Promise<void>): Promise<Figure> {
  const latencies: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await once();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

let sold = 0;
async function sale(): Promise<void> {
  const res = await request('/nfce/venda', { method: 'POST', body: saleBody(sold++) });
  const doc = (await res.json()) as { status?: string };
  if (res.status !== 201 || doc.status !== 'autorizada')
    throw new Error(`a sale answered ${res.status} ${doc.status ?? ''}`);
}

const NOW = Date.now();
/** The lists the issue names; deep offsets and pages sit nine tenths into the store. */
const lists = (size: number): [string, string][] => {
  const deep = Math.floor(size * 0.8 * 0.9);
  const month = (months: number) => new Date(NOW - months * 30 * 24 * 3600_000).toISOString().slice(0, 10);
  return [
    ['list nfe page 1', '/nfe?page=1&pageSize=100'],
    [
      'list nfe status + 3 months',
      `/nfe?page=2&pageSize=100&status=autorizada&data_inicio=${month(4)}&data_fim=${month(1)}`,
    ],
    ['list nfce offset 0', '/nfe?modelo=65&limit=100'],
    ['list nfce deep offset', `/nfe?modelo=65&limit=100&offset=${deep}`],
    ['list nfe deep page', `/nfe?page=${Math.max(1, Math.floor(size / 100) - 10)}&pageSize=100`],
  ];
};

async function list(url: string): Promise<void> {
  const res = await request(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
}

/** A free port for the child service, so the bench can ask it from the moment it is spawned. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface ColdStart {
  /** Spawn until /v1 first answers 200 (an authenticated read of the company). */
  answers: number;
  /** Spawn until the service says it is listening, i.e. start-up (recovery, workers) is over. */
  ready: number;
}

/**
 * Starts the service as a user does (`npm start` runs the compiled dist/src-main/index.js) on the bench's data
 * dir in a child process, asks /v1 every few milliseconds from the moment it is spawned, and stops it.
 */
async function coldStart(): Promise<ColdStart> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(projectRoot, 'dist/src-main/index.js')], {
    cwd: projectRoot,
    env: {
      ...process.env,
      BALCAO_DATA_DIR: dataDir,
      BALCAO_PORT: String(port),
      BALCAO_HOST: '127.0.0.1',
      BALCAO_LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? String(code))),
  );
  const ready = new Promise<number>((resolve) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('listening on')) resolve(performance.now() - started);
    });
  });
  let answers = 0;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/v1/companies/${companyId}`, {
      headers: { 'X-API-Key': sandbox?.apiKey ?? '' },
    }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.status;
      },
      () => 0,
    );
    if (status === 200) {
      answers = performance.now() - started;
      break;
    }
    if (child.exitCode !== null) throw new Error(`the service stopped at start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const readyAt = await ready;
  child.kill('SIGTERM');
  // It stops gracefully (0), or by the signal itself when it came before the service's handler was set.
  const exit = await exited;
  if (exit !== '0' && exit !== 'SIGTERM') throw new Error(`the service stopped with ${exit}: ${stderr}`);
  return { answers, ready: readyAt };
}

async function coldStarts(): Promise<ColdStart> {
  const runs: ColdStart[] = [];
  for (let i = 0; i < STARTS; i++) runs.push(await coldStart());
  const median = (of: (r: ColdStart) => number) =>
    percentile(
      runs.map(of).sort((a, b) => a - b),
      0.5,
    );
  return { answers: median((r) => r.answers), ready: median((r) => r.ready) };
}

/** The store's file with its WAL after a checkpoint, and the documents' columns: XML against the rest. */
async function bytesPerNote(db: RunningService['db']): Promise<{ notes: number; lines: string[] }> {
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  const file = path.join(dataDir, 'balcao.sqlite');
  const onDisk =
    fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
  const notes = Number(
    (await sql<{ n: number }>`SELECT count(*) AS n FROM documents WHERE modelo IN (55, 65)`.execute(db))
      .rows[0]?.n ?? 0,
  );
  const columns = (await sql<{ name: string }>`PRAGMA table_info(documents)`.execute(db)).rows.map(
    (c) => c.name,
  );
  const sums = (
    await db.executeQuery<Record<string, number>>(
      CompiledQuery.raw(
        `SELECT ${columns.map((c) => `coalesce(sum(length("${c}")), 0) AS "${c}"`).join(', ')} FROM documents
         WHERE modelo IN (55, 65)`,
      ),
    )
  ).rows[0];
  // The XML a note keeps (the signed document, the protocol, the authorized copy in whatever form the row
  // stores it) against every other column, the three largest of those named.
  const xml = columns.filter((c) => /xml|proc_/.test(c));
  const rest = columns.filter((c) => !xml.includes(c));
  const per = (names: string[]) => names.reduce((n, c) => n + Number(sums?.[c] ?? 0), 0) / Math.max(1, notes);
  const named = (names: string[]) => names.map((c) => `${c} ${per([c]).toFixed(0)}`).join(', ');
  const largest = [...rest].sort((a, b) => per([b]) - per([a])).slice(0, 3);
  const queue = (
    await sql<{ n: number }>`SELECT coalesce(sum(length(message)), 0) AS n FROM outbox`.execute(db)
  ).rows[0];
  return {
    notes,
    lines: [
      `${(onDisk / notes).toFixed(0)} B per note in the store (file + WAL after a checkpoint, ${(onDisk / 2 ** 20).toFixed(1)} MiB)`,
      `documents row: XML columns ${per(xml).toFixed(0)} B (${named(xml)}), the other ${rest.length} columns ` +
        `${per(rest).toFixed(0)} B (${named(largest)}, ...); queue messages ${(Number(queue?.n ?? 0) / Math.max(1, notes)).toFixed(0)} B`,
    ],
  };
}

/**
 * Every statement the service's own connection runs while `work` runs (the sandbox authority's are left out),
 * with its parameters and the time it took, by SQL text.
 */
interface Statement {
  sql: string;
  parameters: readonly unknown[];
  runs: number;
  ms: number;
}
async function recordStatements(
  db: RunningService['db'],
  work: () => Promise<void>,
): Promise<Map<string, Statement>> {
  const own = await db.getExecutor().provideConnection((connection) => Promise.resolve(connection));
  const proto = Object.getPrototypeOf(own) as DatabaseConnection;
  const original = proto.executeQuery;
  const seen = new Map<string, Statement>();
  proto.executeQuery = async function <R>(
    this: DatabaseConnection,
    query: CompiledQuery,
  ): Promise<QueryResult<R>> {
    if (this !== own) return original.call(this, query) as Promise<QueryResult<R>>;
    const started = performance.now();
    try {
      return (await original.call(this, query)) as QueryResult<R>;
    } finally {
      const entry = seen.get(query.sql) ?? { sql: query.sql, parameters: query.parameters, runs: 0, ms: 0 };
      entry.runs++;
      entry.ms += performance.now() - started;
      seen.set(query.sql, entry);
    }
  };
  try {
    await work();
  } finally {
    proto.executeQuery = original;
  }
  return seen;
}

/** What SQLite does for a statement; a SCAN of a table or a whole index is what grows with the store. */
async function planOf(db: RunningService['db'], s: Statement): Promise<string[]> {
  if (!/^\s*(select|insert|update|delete|with)/i.test(s.sql)) return [];
  try {
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${s.sql}`, [...s.parameters]),
    );
    return plan.rows.map((r) => r.detail);
  } catch (error) {
    return [`(no plan: ${String(error)})`];
  }
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const ratio = (value: number, first: number | undefined) =>
  first === undefined || first === 0 ? '' : ` (${(value / first).toFixed(2)}× ${SIZES[0]})`;
const ms = (n: number) => `${n.toFixed(1).padStart(7)} ms`;

out(
  `scale (sizes ${SIZES.join(', ')}; ${SALES} sales at 1 client, ${SAMPLES} requests per list, ${STARTS} cold starts per size; ` +
    `ratios to the ${SIZES[0]}-note figure of this run)`,
);

// The empty store (company, keys, no notes) is the cold start's baseline. npm start's own first step compiles
// the service to dist/ when its sources changed; a first start then warms the OS's cache of its files, as a
// user's second start would find them.
await service.close();
const built = spawnSync(
  process.execPath,
  ['--import', 'tsx', path.join(projectRoot, 'src-main/build-if-stale.ts')],
  {
    cwd: projectRoot,
    stdio: 'inherit',
  },
);
if (built.status !== 0) throw new Error('the service did not compile');
await coldStart();
const empty = await coldStarts();
const emptyStarts: number[] = [];
for (let i = 0; i <= STARTS; i++) {
  const started = performance.now();
  service = await start();
  emptyStarts.push(performance.now() - started);
  if (i < STARTS) await service.close();
}
const emptyStart = percentile(
  emptyStarts.sort((x, y) => x - y),
  0.5,
);
out(
  `  empty store: cold start, first answer ${ms(empty.answers)}, ready ${ms(empty.ready)}; start in process ${ms(emptyStart)}`,
);

const target = { url: service.url, db: service.db };
const fill = await noteFiller(target, keys[0] ?? '', NOW);
const first = new Map<string, number>();
let firstStatements = new Map<string, Statement>();
for (const size of SIZES) {
  await fill(size);
  out(`  ${size} notes filled:`);
  const show = (name: string, f: Figure) => {
    const p50 = first.get(`${name} p50`);
    const p99 = first.get(`${name} p99`);
    if (p50 === undefined) first.set(`${name} p50`, f.p50);
    if (p99 === undefined) first.set(`${name} p99`, f.p99);
    out(`    ${name.padEnd(28)} p50 ${ms(f.p50)}${ratio(f.p50, p50)}, p99 ${ms(f.p99)}${ratio(f.p99, p99)}`);
  };
  for (let i = 0; i < 3; i++) await sale();
  let saleFigure: Figure = { p50: 0, p99: 0 };
  const statements = await recordStatements(service.db, async () => {
    saleFigure = await timed(SALES, sale);
  });
  show('sale (POST /v1/nfce/venda)', saleFigure);
  for (const [name, url] of lists(size)) {
    await list(url);
    show(name, await timed(SAMPLES, () => list(url)));
  }
  const bytes = await bytesPerNote(service.db);
  for (const line of bytes.lines) out(`    ${line}`);

  if (size === SIZES[0]) firstStatements = statements;
  if (size === SIZES[SIZES.length - 1]) {
    // Per sale: the statements whose time grew most since the first size, then every plan that scans.
    const perSale = (s: Statement | undefined) => (s === undefined ? 0 : s.ms / SALES);
    const grown = [...statements.values()]
      .map((s) => ({ s, now: perSale(s), before: perSale(firstStatements.get(s.sql)) }))
      .sort((a, b) => b.now - b.before - (a.now - a.before))
      .slice(0, 5);
    out(`    a sale's statements that grew most since ${SIZES[0]} notes (ms per sale, now vs then):`);
    for (const g of grown)
      out(
        `      ${g.now.toFixed(3)} vs ${g.before.toFixed(3)}: ${g.s.sql.replace(/\s+/g, ' ').slice(0, 150)}`,
      );
    const scans: string[] = [];
    for (const s of statements.values()) {
      // A one-row INSERT's plan lists SCANs of the tables whose foreign keys name the table (documents has
      // triggers, so SQLite codes them), but they run only while a deferred violation is pending: the insert's
      // time does not grow with those tables' rows (checked with 300k child rows).
      if (/^\s*insert\b/i.test(s.sql) && !/\bselect\b/i.test(s.sql)) continue;
      const plan = await planOf(service.db, s);
      const scan = plan.filter((d) => /^SCAN /.test(d) && !/^SCAN CONSTANT ROW/.test(d));
      if (scan.length > 0)
        scans.push(`      ${s.sql.replace(/\s+/g, ' ').slice(0, 150)}`, ...scan.map((d) => `        ${d}`));
    }
    out(
      `    a sale's ${statements.size} statements: ${scans.length === 0 ? 'none scans a table' : 'these scan:'}`,
    );
    for (const line of scans) out(line);
  }

  await service.close();
  const cold = await coldStarts();
  const a = first.get('cold answers');
  const r = first.get('cold ready');
  if (a === undefined) first.set('cold answers', cold.answers);
  if (r === undefined) first.set('cold ready', cold.ready);
  out(
    `    cold start, first answer ${ms(cold.answers)}${ratio(cold.answers, a)} ${(cold.answers / empty.answers).toFixed(2)}× empty, ` +
      `ready ${ms(cold.ready)}${ratio(cold.ready, r)} ${(cold.ready / empty.ready).toFixed(2)}× empty`,
  );
  // The same start inside this process, without Node's and tsx's own start: what the service does at start
  // (migrations' bookkeeping, queue recovery, sandbox set-up) on its own.
  const inProcess: number[] = [];
  for (let i = 0; i <= STARTS; i++) {
    const started = performance.now();
    service = await start();
    inProcess.push(performance.now() - started);
    if (i < STARTS) await service.close();
  }
  const startMs = percentile(
    inProcess.sort((x, y) => x - y),
    0.5,
  );
  const s0 = first.get('start in process');
  if (s0 === undefined) first.set('start in process', startMs);
  out(
    `    start in process (startService) ${ms(startMs)}${ratio(startMs, s0)} ${(startMs / emptyStart).toFixed(2)}× empty`,
  );
  // The daily round that looks for reserved numbers never issued runs on the service's thread: a sale waits
  // for it.
  // It costs what it finds: the filler leaves one stored note in ten a draft or refused, far more than a shop.
  const checks: number[] = [];
  let found = 0;
  for (let i = 0; i < STARTS; i++) {
    const checked = performance.now();
    found = (await service.abandonedCheck.runOnce()).reduce((n, r) => n + r.total, 0);
    checks.push(performance.now() - checked);
  }
  const checkMs = Math.min(...checks);
  const c0 = first.get('abandoned check');
  if (c0 === undefined) first.set('abandoned check', checkMs);
  out(`    daily abandoned-number check ${ms(checkMs)}${ratio(checkMs, c0)}, ${found} numbers found`);
  target.url = service.url;
  target.db = service.db;
}
await service.close();
fs.rmSync(dataDir, { recursive: true, force: true });
