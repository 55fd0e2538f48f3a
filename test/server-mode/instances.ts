// Several service instances on one PostgreSQL database (server mode), as behind a load balancer: each with
// its own data dir and HTTP port, all with the same master key (secrets sealed by one are opened by the
// others) and one sandbox authority outside them all, so the authority's records cover every instance.
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'vitest';
import { createLogger } from '../../src-main/logger.ts';
import { startService, syncSandboxCompanies, type RunningService } from '../../src-main/service.ts';
import { startSandboxAuthority, type SandboxAuthority } from '../../src-main/sandbox/server.ts';
import { testPostgresDatabase, tempDataDir } from '../api/harness.ts';

export interface Instance {
  service: RunningService;
  logs: string[];
  /** A /v1 request to this instance with the organization key; 429s are waited out, network errors retried. */
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}

export interface Answer {
  status: number;
  body: unknown;
  text: string;
}

export interface Cluster {
  url: string;
  /** The master key every instance shares (a child process instance needs it too). */
  masterKey: string;
  /** The temp dir the cluster's data dirs are made in. */
  root: string;
  sandbox: SandboxAuthority;
  /** The organization key and the demo company the first instance bootstrapped. */
  apiKey: string;
  companyId: string;
  instances: Instance[];
  /** One more instance on the same database (not in `instances`: the caller closes it). */
  start(options?: { startWorker?: boolean }): Promise<Instance>;
  stop(): Promise<void>;
}

/** Short polls and backoffs: the queues of the instances drain in a test's time. */
const FAST = {
  outbox: { pollMs: 50, baseBackoffMs: 50, maxBackoffMs: 400, requestTimeoutMs: 20_000 },
  printing: { pollMs: 50, baseBackoffMs: 50, maxBackoffMs: 400 },
};

function requester(service: RunningService, apiKey: () => string, logs: string[]): Instance['request'] {
  return async (method, url, body, headers = {}) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(`${service.url}${url}`, {
          method,
          headers: {
            'X-API-Key': apiKey(),
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        if (res.status === 429) {
          await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('Retry-After') ?? '1')));
          continue;
        }
        const json = (res.headers.get('content-type') ?? '').includes('application/json');
        return { status: res.status, body: json ? (JSON.parse(text) as unknown) : text, text };
      } catch (error) {
        // A socket the server closed under load: the same request again (callers send an Idempotency-Key
        // where a repeat must not act twice).
        if (attempt >= 3) throw error;
        logs.push(`retried ${method} ${url}: ${String(error)}`);
      }
    }
  };
}

/**
 * Starts `count` instances on one new database of the test cluster. The first one migrates and bootstraps
 * the demo company; the others find it there. `startWorker: false` leaves every queue worker stopped.
 */
export async function startCluster(count: number, options: { startWorker?: boolean } = {}): Promise<Cluster> {
  const root = tempDataDir();
  const url = await testPostgresDatabase(root);
  const sandbox = await startSandboxAuthority({ dataFile: path.join(root, 'authority', 'authority.sqlite') });
  const masterKey = randomBytes(32).toString('base64');
  const instances: Instance[] = [];
  let apiKey = '';
  let companyId = '';
  let started = 0;
  const start = async (own: { startWorker?: boolean } = options): Promise<Instance> => {
    const logs: string[] = [];
    const service = await startService(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir: path.join(root, `instance-${started++}-${randomUUID().slice(0, 8)}`),
        masterKey,
        logLevel: 'warn',
        databaseUrl: url,
      },
      {
        logger: createLogger('warn', (line) => logs.push(line)),
        shutdownGraceMs: 2000,
        sandbox: { url: sandbox.url, caPem: sandbox.caPem },
        ...FAST,
        ...(own.startWorker === undefined ? {} : { startWorker: own.startWorker }),
      },
    );
    return { service, logs, request: requester(service, () => apiKey, logs) };
  };
  try {
    for (let i = 0; i < count; i++) {
      const instance = await start();
      if (i === 0) {
        const boot = instance.service.bootstrap.sandbox;
        if (boot === null) throw new Error('the first instance did not bootstrap the demo company');
        apiKey = boot.organizationApiKey;
        companyId = boot.companyId;
        // The company's CSC, registered with the authority as on the SEFAZ portal (QR code hash, rule 464).
        await syncSandboxCompanies(instance.service.db, instance.service.secrets, sandbox);
      }
      instances.push(instance);
    }
  } catch (error) {
    await Promise.allSettled(instances.map((i) => i.service.close()));
    await sandbox.close();
    throw error;
  }
  return {
    url,
    masterKey,
    root,
    sandbox,
    apiKey,
    companyId,
    instances,
    start,
    stop: async () => {
      await Promise.allSettled(instances.map((i) => i.service.close()));
      await sandbox.close();
    },
  };
}

/** Numbering across instances: per serie, 1..N, each number once. */
export function expectGaplessSeries(notes: readonly { serie: number; n_nf: number }[]): void {
  const bySerie = new Map<number, number[]>();
  for (const n of notes) bySerie.set(n.serie, [...(bySerie.get(n.serie) ?? []), n.n_nf]);
  for (const numbers of bySerie.values()) {
    const sorted = [...numbers].sort((a, b) => a - b);
    expect(sorted).toEqual(Array.from({ length: sorted.length }, (_, i) => i + 1));
  }
}

/**
 * The authority's own records hold exactly the notes that reached it (all but the voided), each authorized once;
 * the queue holds one authorization message per note, all done. Returns the authority's notes.
 */
export async function expectEachNoteOnce(
  cluster: Cluster,
  notes: readonly { id: string; chave: string; status: string }[],
): Promise<{ chave: string }[]> {
  const registry = cluster.sandbox.registry;
  const atAuthority = await registry.notes();
  const reached = notes.filter((n) => n.status !== 'inutilizada');
  expect(atAuthority.map((n) => n.chave).sort()).toEqual(reached.map((n) => n.chave).sort());
  for (const n of reached) expect(await registry.authorizationCount(n.chave)).toBe(1);

  const db = cluster.instances[0]!.service.db;
  const outbox = await db.selectFrom('outbox').select(['document_id', 'kind', 'state']).execute();
  expect(outbox.filter((r) => r.state !== 'done')).toEqual([]);
  const authorizations = outbox.filter((r) => r.kind === 'autorizacao').map((r) => r.document_id);
  expect(new Set(authorizations).size).toBe(authorizations.length);
  return atAuthority;
}
