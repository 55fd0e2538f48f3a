// A throwaway PostgreSQL cluster for the tests of server mode: initdb + pg_ctl in a temp dir on a free port,
// one database per test file, stopped and removed afterwards. Run as root (CI), the server runs as `postgres`.
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** Where Debian's `postgresql` package puts the server binaries when they are not on PATH. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/** /usr/lib/postgresql/<version>/bin, newest version first: whichever the Debian release installs. */
function debianBinDirs(): string[] {
  let versions: string[];
  try {
    versions = fs.readdirSync(DEBIAN_ROOT).filter((v) => /^\d+$/.test(v));
  } catch {
    return [];
  }
  return versions.sort((a, b) => Number(b) - Number(a)).map((v) => path.join(DEBIAN_ROOT, v, 'bin'));
}

function lookBin(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir !== '' && fs.existsSync(candidate)) return candidate;
  }
  for (const dir of debianBinDirs()) {
    const candidate = path.join(dir, name);
    if (fs.existsSync(candidate)) return candidate;
  }
  return undefined;
}

const missingMessage = (name: string) =>
  `PostgreSQL's ${name} was not found on PATH nor under /usr/lib/postgresql/<version>/bin: install the server (Debian: apt-get install postgresql)`;

function findBin(name: string): string {
  const found = lookBin(name);
  if (found === undefined) throw new Error(missingMessage(name));
  return found;
}

/** Why no test cluster can start here (the server's binaries are missing), or null when one can. */
export function pgServerMissing(): string | null {
  for (const name of ['initdb', 'pg_ctl', 'postgres'])
    if (lookBin(name) === undefined) return missingMessage(name);
  return null;
}

/**
 * The environment variable that hands a running cluster (its postgres:// URL without a database) to the
 * test files: the store-wide run starts one cluster for all its files instead of one per file.
 */
export const SHARED_CLUSTER_ENV = 'BALCAO_TEST_PG_CLUSTER';

/** A database name no other test process picks: a worker process may run several files, each counting anew. */
function databaseName(): string {
  return `balcao_${process.pid}_${++counter}_${crypto.randomBytes(4).toString('hex')}`;
}

async function createDatabaseAt(base: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: `${base}/postgres` });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  return `${base}/${name}`;
}

/** The cluster another process started (SHARED_CLUSTER_ENV): databases are created in it, it is not stopped. */
export function sharedPgCluster(base: string): PgCluster {
  return {
    createDatabase: (name) => createDatabaseAt(base, name ?? databaseName()),
    stop: () => Promise.resolve(),
    stopSync: () => undefined,
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface PgCluster {
  /** Its postgres:// URL without a database (what SHARED_CLUSTER_ENV carries); absent for a shared one. */
  base?: string;
  /** A postgres:// URL of a new, empty database of the cluster. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
  /** stop, synchronously (for a process 'exit' handler). */
  stopSync(): void;
}

/** The user the server runs as: initdb refuses root, so as root the cluster belongs to `postgres`. */
function serverUser(): string | null {
  if (process.getuid?.() !== 0) return null;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return 'postgres';
  } catch {
    throw new Error(
      'running as root, PostgreSQL needs an unprivileged user to run the test cluster: create `postgres` (Debian: apt-get install postgresql does)',
    );
  }
}

function run(bin: string, args: string[], user: string | null): void {
  const [command, argv] = user === null ? [bin, args] : ['runuser', ['-u', user, '--', bin, ...args]];
  execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: os.tmpdir() });
}

let counter = 0;

export async function startPgCluster(): Promise<PgCluster> {
  const user = serverUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-pg-'));
  // The server's user owns the cluster's dir and nothing else of the machine's temp dir.
  if (user !== null) execFileSync('chown', [user, dir]);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  run(
    findBin('initdb'),
    ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    user,
  );
  // Tests only: fsync off (nothing to keep after a crash), the socket in the cluster's own dir.
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`;
  run(findBin('pg_ctl'), ['-D', dataDir, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start'], user);
  // A watchdog stops the cluster and removes its dir once this process is gone, however it ends (a test
  // runner's worker may be killed without running its exit handlers). It signals the server by its pid
  // (SIGQUIT, pg_ctl's immediate stop) rather than through pg_ctl, which needs the data dir: the run's
  // temporary directory, the cluster's with it, may be removed by then (test/temp-root.ts), and servers were
  // left running. Only while that pid is still this cluster's server: a pid freed by stopSync can be reused.
  const postmasterPid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const ours = `tr '\\0' ' ' < /proc/${postmasterPid}/cmdline 2>/dev/null | grep -qF -- '${dataDir}'`;
  spawn(
    'sh',
    [
      '-c',
      `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; if ${ours}; then kill -QUIT ${postmasterPid}; fi; rm -rf '${dir}'`,
    ],
    { detached: true, stdio: 'ignore' },
  ).unref();
  const base = `postgres://postgres@127.0.0.1:${port}`;
  let stopped = false;
  const stopSync = (): void => {
    if (stopped) return;
    stopped = true;
    try {
      run(findBin('pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], user);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  return {
    base,
    createDatabase: (name) => createDatabaseAt(base, name ?? databaseName()),
    stop: () => Promise.resolve(stopSync()),
    stopSync,
  };
}
