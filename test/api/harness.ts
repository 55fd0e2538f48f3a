// Starts the real service on a free port over a real SQLite file in a temp dir, with a manual clock; with
// BALCAO_TEST_STORE=postgres, over a database of a throwaway PostgreSQL cluster instead (server mode).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it, type TestContext } from 'vitest';
import { ManualClock } from '../../src-main/clock.ts';
import { openDatabase, type OpenedDatabase } from '../../src-main/db/client.ts';
import { createLogger } from '../../src-main/logger.ts';
import { startService, type RunningService, type ServiceOptions } from '../../src-main/service.ts';
import {
  pgServerMissing,
  SHARED_CLUSTER_ENV,
  sharedPgCluster,
  startPgCluster,
  type PgCluster,
} from '../pg-cluster.ts';

export interface Harness {
  service: RunningService;
  clock: ManualClock;
  dataDir: string;
  logs: string[];
  /** The organization key: most tests act on several companies of the organization. */
  apiKey: string;
  /** The demo company's own key, the one sandbox.json hands to integrators (seed §5). */
  companyKey: string;
  companyId: string;
  request(method: string, url: string, options?: RequestOptions): Promise<TestResponse>;
  stop(): Promise<void>;
}

export interface RequestOptions {
  key?: string | null;
  json?: unknown;
  body?: string | Buffer | FormData;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-test-'));
}

/** Which store the harness's services use: BALCAO_TEST_STORE=postgres runs them in server mode. */
export const testStore: 'sqlite' | 'postgres' =
  process.env['BALCAO_TEST_STORE'] === 'postgres' ? 'postgres' : 'sqlite';

type TestBody = (context: TestContext) => unknown;

/**
 * `it` for a test about SQLite itself (its file, pragmas, query plans): on PostgreSQL it is skipped, never
 * silently: the reason is in the test's name, so the run's report says what the PostgreSQL run left out.
 */
export function itSqliteOnly(reason: string): (name: string, fn: TestBody, timeout?: number) => void {
  return testStore === 'postgres'
    ? (name, fn, timeout) => it.skip(`${name} [skipped on PostgreSQL: ${reason}]`, fn, timeout)
    : (name, fn, timeout) => it(name, fn, timeout);
}

/** `describe` of tests about SQLite itself, as itSqliteOnly. */
export function describeSqliteOnly(reason: string): (name: string, fn: () => void) => void {
  return testStore === 'postgres'
    ? (name, fn) => describe.skip(`${name} [skipped on PostgreSQL: ${reason}]`, fn)
    : (name, fn) => describe(name, fn);
}

/**
 * `describe` of tests that run on PostgreSQL whatever BALCAO_TEST_STORE says (test/server-mode): where its
 * server is not installed they are skipped with the reason in their name, except under CI, where they run and
 * fail saying what is missing.
 */
export function describeOnPostgres(name: string, fn: () => void): void {
  const missing = pgServerMissing();
  const ci = process.env['CI'];
  if (missing !== null && (ci === undefined || ci === '' || ci === '0' || ci === 'false'))
    describe.skip(`${name} [skipped: ${missing}]`, fn);
  else describe(name, fn);
}

/** The test process's PostgreSQL cluster, started by the first service that needs it, stopped at the exit. */
let cluster: Promise<PgCluster> | undefined;
/** Each data dir's database: a service started again on the same data dir finds its data (as with SQLite). */
const databases = new Map<string, Promise<string>>();

/** The database of the shared test cluster that the service on `dataDir` uses. */
export function testPostgresDatabase(dataDir: string): Promise<string> {
  if (cluster === undefined) {
    // The store-wide run (test/server-mode/run-postgres.ts) shares one cluster between its files.
    const shared = process.env[SHARED_CLUSTER_ENV];
    cluster =
      shared !== undefined && shared !== ''
        ? Promise.resolve(sharedPgCluster(shared))
        : startPgCluster().then((started) => {
            // Synchronous, so that it runs in 'exit': the test file's process ends after its last test.
            process.once('exit', () => started.stopSync());
            return started;
          });
  }
  let url = databases.get(dataDir);
  if (url === undefined) {
    url = cluster.then((c) => c.createDatabase());
    databases.set(dataDir, url);
  }
  return url;
}

/**
 * Opens the store a harness service on `dataDir` uses, for a test that changes it between two starts (as a
 * crash or an earlier release leaves it): the data dir's SQLite file, or its PostgreSQL database.
 */
export async function openHarnessStore(dataDir: string): Promise<OpenedDatabase> {
  return openDatabase(
    path.join(dataDir, 'balcao.sqlite'),
    testStore === 'postgres' ? await testPostgresDatabase(dataDir) : undefined,
  );
}

export async function startHarness(
  options: {
    dataDir?: string;
    clock?: ManualClock;
    databaseUrl?: string;
    /** Server mode's bound on each wait for the database (BALCAO_DATABASE_TIMEOUT_MS). */
    databaseTimeoutMs?: number;
    /** false: the service's queue, webhook and print workers stay stopped (a test drives its own). */
    startWorker?: boolean;
  } & Pick<ServiceOptions, 'beforeReady' | 'startupWaitMs'> = {},
): Promise<Harness> {
  const dataDir = options.dataDir ?? tempDataDir();
  const clock = options.clock ?? new ManualClock(new Date());
  const logs: string[] = [];
  const databaseUrl =
    options.databaseUrl ?? (testStore === 'postgres' ? await testPostgresDatabase(dataDir) : undefined);
  const service = await startService(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      masterKey: undefined,
      logLevel: 'warn',
      ...(databaseUrl === undefined ? {} : { databaseUrl }),
      ...(options.databaseTimeoutMs === undefined ? {} : { databaseTimeoutMs: options.databaseTimeoutMs }),
    },
    {
      clock,
      logger: createLogger('warn', (line) => logs.push(line)),
      shutdownGraceMs: 2000,
      ...(options.startWorker === undefined ? {} : { startWorker: options.startWorker }),
      ...(options.beforeReady === undefined ? {} : { beforeReady: options.beforeReady }),
      ...(options.startupWaitMs === undefined ? {} : { startupWaitMs: options.startupWaitMs }),
    },
  );
  if (service.bootstrap.sandbox === null) throw new Error('harness expects a sandbox bootstrap');
  const { organizationApiKey, apiKey: companyKey, companyId } = service.bootstrap.sandbox;
  const apiKey = organizationApiKey;
  const request = async (method: string, url: string, opts: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? apiKey : opts.key;
    if (key !== null) headers['X-API-Key'] = key;
    let body: string | Buffer | FormData | undefined = opts.body;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['Content-Type'] = 'application/json';
    }
    const res = await fetch(`${service.url}${url}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('application/json')) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    service,
    clock,
    dataDir,
    logs,
    apiKey,
    companyKey,
    companyId,
    request,
    stop: () => service.close(),
  };
}

/**
 * One service for the whole test file, started in beforeAll and stopped in afterAll. The object returned stands
 * for it (use it inside tests and hooks); hooks the file registers afterwards run once it is started.
 */
export function useHarness(): Harness {
  let current: Harness | undefined;
  beforeAll(async () => {
    current = await startHarness();
  });
  afterAll(() => current?.stop());
  const started = (): Harness => {
    if (current === undefined) throw new Error('the service is not started (use it inside a test or hook)');
    return current;
  };
  return {
    get service() {
      return started().service;
    },
    get clock() {
      return started().clock;
    },
    get dataDir() {
      return started().dataDir;
    },
    get logs() {
      return started().logs;
    },
    get apiKey() {
      return started().apiKey;
    },
    get companyKey() {
      return started().companyKey;
    },
    get companyId() {
      return started().companyId;
    },
    request: (method, url, options) => started().request(method, url, options),
    stop: () => started().stop(),
  };
}

/** A valid company body (São Paulo) for POST /v1/companies. */
export function companyBody(cnpj: string, overrides: Record<string, unknown> = {}) {
  return {
    cnpj,
    ie: '123456785016',
    xNome: 'EMPRESA TESTE LTDA',
    crt: 3,
    endereco: {
      xLgr: 'Rua Augusta',
      nro: '10',
      xBairro: 'Consolação',
      cMun: '3550308',
      uf: 'SP',
      cep: '01305-000',
    },
    ...overrides,
  };
}

/**
 * Reads until `done` holds of what `read` returns, then returns it (the last read on timeout, so the caller's
 * expect shows what was there). For effects the service finishes after its answer, such as the webhook rows
 * an authorization queues: on SQLite they are written before the client reads the response, on PostgreSQL a
 * few round trips later.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
