// List latency as the store grows: the store is filled to 1k, 10k and 100k NF-e/NFC-e (mixed statuses, a
// year of dates, each row a copy of a real sale's rows: its XML, its authorized copy and its queue message),
// then the /v1/nfe lists are timed through the real HTTP service; each figure is printed beside the same
// run's 1k figure as a ratio, with the query plans of the list queries and the bytes the store keeps per note.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql, type Compilable } from 'kysely';
import {
  kindListQuery,
  newestFirst,
  nfListDaysQuery,
  nfListQuery,
  nfListTotalQuery,
  type KindListQuery,
  type NfListFilter,
} from '../src-main/documents/list.ts';
import { createLogger } from '../src-main/logger.ts';
import { startService } from '../src-main/service.ts';
import { noteFiller } from './note-filler.ts';
import { encodeListCursor } from '../src-main/api/list-cursor.ts';
import { backfillListSummaries } from '../src-main/db/migrations/2026_11_24_0030_list_summary.ts';

const SIZES = (process.env['BENCH_SIZES'] ?? '1000,10000,100000').split(',').map(Number);
const SAMPLES = Number(process.env['BENCH_SAMPLES'] ?? 20);
const KEYS = 16;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-lists-'));
const service = await startService(
  { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
  { logger: createLogger('silent') },
);
const sandbox = service.bootstrap.sandbox;
if (sandbox === null) throw new Error('the bench needs the sandbox bootstrap');
const base = `${service.url}/v1`;

/** Several keys taken in turn: one key's plan allows 50 requests a second, a fast list loop makes more. */
const keys = await Promise.all(
  Array.from({ length: KEYS }, async (_, i) => {
    const res = await fetch(`${base}/api-keys`, {
      method: 'POST',
      headers: { 'X-API-Key': sandbox.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: `lista-${i}`,
        scope: 'company',
        companyId: sandbox.companyId,
        plan: 'terminal',
      }),
    });
    return ((await res.json()) as { key: string }).key;
  }),
);
let turn = 0;
/** A kept-alive socket the server closed just as a request went out fails it; that one request is sent again. */
async function get(url: string, retried = false): Promise<Response> {
  try {
    return await fetch(`${base}${url}`, { headers: { 'X-API-Key': keys[turn++ % KEYS] ?? '' } });
  } catch (error) {
    if (retried) throw error;
    return get(url, true);
  }
}

const NOW = Date.now();
const fill = await noteFiller(service, keys[0] ?? '', NOW);
const { db } = service;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface Figure {
  p50: number;
  p99: number;
}

async function time(url: string): Promise<Figure> {
  for (let i = 0; i < 2; i++) await (await get(url)).arrayBuffer();
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const res = await get(url);
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

/** The lists the issue names; deep offsets and pages sit nine tenths into the store. */
const queries = (size: number): [string, string][] => {
  const deep = Math.floor(size * 0.8 * 0.9);
  const month = (months: number) => new Date(NOW - months * 30 * 24 * 3600_000).toISOString().slice(0, 10);
  return [
    ['nfce limit 100, offset 0', '/nfe?modelo=65&limit=100'],
    ['nfce limit 100, deep offset', `/nfe?modelo=65&limit=100&offset=${deep}`],
    [
      'nfe page 2 + status + 3 months',
      `/nfe?page=2&pageSize=100&status=autorizada&data_inicio=${month(4)}&data_fim=${month(1)}`,
    ],
    ['nfe page 1', '/nfe?page=1&pageSize=100'],
    ['nfe deep page', `/nfe?page=${Math.max(1, Math.floor(size / 100) - 10)}&pageSize=100`],
  ];
};

/** The same deep NFC-e page read by keyset: the cursor of the row just before the deep offset. */
async function deepCursor(size: number): Promise<[string, string]> {
  const deep = Math.floor(size * 0.8 * 0.9);
  const row = await newestFirst(
    nfListQuery(db, sandbox?.companyId ?? '', { modelos: [65] }).select(['id', 'created_at']),
  )
    .offset(deep - 1)
    .limit(1)
    .executeTakeFirstOrThrow();
  const cursor = encodeListCursor({ createdAt: row.created_at, id: row.id, offset: deep });
  return ['nfce limit 100, deep cursor', `/nfe?modelo=65&limit=100&cursor=${cursor}`];
}

/** How long migration 0030 takes to summarize every note of the store (each one summarized again). */
async function backfill(): Promise<string> {
  await sql`UPDATE documents SET list_summary = NULL`.execute(db);
  const started = performance.now();
  const written = await db.transaction().execute((trx) => backfillListSummaries(trx));
  const ms = performance.now() - started;
  return `migration 0030's summary backfill: ${written} notes in ${(ms / 1000).toFixed(1)} s (${((ms * 1000) / written).toFixed(0)} µs per note)`;
}

/** What SQLite does for each list query (the routes' own query builders), printed once at the largest size. */
async function plans(): Promise<string[]> {
  const company = sandbox?.companyId ?? '';
  const dates = { from: '2026-01-01', to: '2026-03-31' };
  const nf = (filter: NfListFilter): [KindListQuery, Compilable, Compilable] => [
    nfListQuery(db, company, filter),
    nfListTotalQuery(db, company, filter),
    nfListDaysQuery(db, company, filter),
  ];
  const lists: [string, [KindListQuery, Compilable, Compilable?]][] = [
    ['nfce by offset', nf({ modelos: [65] })],
    ['nfe by page + status + dates', nf({ modelos: [55, 65], statuses: ['autorizada'], ...dates })],
    ['nfe by page', nf({ modelos: [55, 65] })],
    [
      'a kind (model 57) by status + period',
      ((query) => [query, query.select(sql<number>`count(*)`.as('n'))])(
        kindListQuery(db, company, 57, { status: 'autorizada', ...dates }),
      ),
    ],
  ];
  const lines: string[] = [];
  for (const [name, [query, total, days]] of lists) {
    for (const [what, compiled] of [
      ['page', newestFirst(query.selectAll()).limit(100).offset(5000).compile()],
      ['total', total.compile()],
      // A deep page's rows per creation day (the counters it skips whole days by).
      ...(days === undefined ? [] : [['rows per creation day', days.compile()] as const]),
    ] as const) {
      const plan = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
      );
      lines.push(`${name}, ${what}:`, ...plan.rows.map((r) => `    ${r.detail}`));
    }
  }
  return lines;
}

/** Where a note's bytes go: its XML kept as the draft, as the authorized nfeProc and as the queue message. */
async function copies(): Promise<string> {
  const docs = await sql<
    Record<string, number>
  >`SELECT avg(length(xml)) AS xml, avg(length(proc_xml)) AS proc_xml,
    avg(length(prot_xml)) AS prot_xml, avg(length(payload_json)) AS payload_json FROM documents`.execute(db);
  const queue = await sql<{ message: number }>`SELECT avg(length(message)) AS message FROM outbox
    WHERE document_id IS NOT NULL`.execute(db);
  const columns = { ...docs.rows[0], 'queue message': queue.rows[0]?.message ?? 0 };
  return `average bytes per stored row: ${Object.entries(columns)
    .map(([name, n]) => `${name} ${Math.round(Number(n))}`)
    .join(', ')}`;
}

process.stdout.write(`lists (${SAMPLES} requests per figure, limit/pageSize 100, over HTTP)\n`);
const lines = { push: (line: string) => process.stdout.write(`  ${line}\n`) };
const baseline = new Map<string, Figure>();
for (const size of SIZES) {
  await fill(size);
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  const bytes = fs.statSync(path.join(dataDir, 'balcao.sqlite')).size;
  lines.push(`${size} notes (${(bytes / size / 1024).toFixed(1)} KiB per note in the store):`);
  if (size === SIZES[SIZES.length - 1]) lines.push(`  ${await copies()}`);
  for (const [name, url] of [...queries(size), await deepCursor(size)]) {
    const figure = await time(url);
    const first = baseline.get(name) ?? figure;
    baseline.set(name, first);
    lines.push(
      `  ${name.padEnd(32)} p50 ${figure.p50.toFixed(1).padStart(7)} ms (${(figure.p50 / first.p50).toFixed(2)}× ${SIZES[0]}), ` +
        `p99 ${figure.p99.toFixed(1).padStart(7)} ms (${(figure.p99 / first.p99).toFixed(2)}× ${SIZES[0]})`,
    );
  }
}
const backfilled = await backfill();
lines.push(backfilled);
const planLines = await plans();
await service.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`  query plans:\n`);
for (const line of planLines) process.stdout.write(`    ${line}\n`);
