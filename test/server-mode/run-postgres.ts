// npm test's second store: the suites that exercise every repository, run again with BALCAO_TEST_STORE=postgres
// on one throwaway PostgreSQL cluster (initdb + pg_ctl in a temp dir) shared by their files.
//   npx tsx test/server-mode/run-postgres.ts               the chosen suites (POSTGRES_SUITES)
//   npx tsx test/server-mode/run-postgres.ts test/api/x    any vitest filters instead
// Without PostgreSQL's server binaries it fails under CI and is skipped, saying why, elsewhere.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgServerMissing, SHARED_CLUSTER_ENV, startPgCluster } from '../pg-cluster.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The suites run on both stores (vitest filters: a folder takes every file under it). Together they reach every
 * repository and the queries the service runs through /v1 and its workers: test/api (documents of every kind,
 * numbering and voids, lists and cursors, organizations and keys, companies, customers, catalog and services,
 * operators, register sessions, IBPT and NCM tables, status, the CLI), webhooks and printing (their queues and
 * deliveries), PIX charges, the sale's contingency through the outbox, the NFS-e and DC-e services over the
 * outbox worker. Chosen to keep the run near 5 minutes on CI; left to the SQLite run: test/contract (the
 * specification's rows, through the same routes test/api drives), the printed outputs (drawing, not storage),
 * the UI (it drives the same /v1), the sandbox authority (its own SQLite file in either mode), backups and the
 * reliability tests (SQLite files under killed processes). test/server-mode runs on PostgreSQL in the main run.
 */
export const POSTGRES_SUITES = [
  'test/api/',
  'test/webhooks/',
  'test/printing/',
  'test/pix/api.test.ts',
  'test/pix/draft-charges.test.ts',
  'test/outbox/',
  'src-main/documents/kinds/dce/service.test.ts',
  'src-main/documents/kinds/nfse/service.test.ts',
];

/** Files under those folders that do not reach the store the run switches, with why. */
const EXCLUDED = [
  // A service process killed over its SQLite data dir (the reliability tests' driver).
  'test/api/register-crash.test.ts',
  // Mutated payloads against the validation layer: the same checks whatever the store, and 15 s of the run.
  'test/api/fuzz.test.ts',
];

function isCi(): boolean {
  const ci = process.env['CI'];
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
}

async function main(): Promise<number> {
  const missing = pgServerMissing();
  if (missing !== null) {
    if (isCi()) {
      console.error(`The PostgreSQL run of the tests cannot start: ${missing}.`);
      return 1;
    }
    console.log(`The PostgreSQL run of the tests is skipped: ${missing} (under CI=true this fails).`);
    return 0;
  }
  const filters = process.argv.slice(2);
  const started = Date.now();
  const cluster = await startPgCluster();
  try {
    const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const args = [
      vitest,
      'run',
      ...(filters.length > 0
        ? filters
        : [...POSTGRES_SUITES, ...EXCLUDED.map((file) => `--exclude=${file}`)]),
      '--reporter=default',
    ];
    console.log(`Tests on PostgreSQL (BALCAO_TEST_STORE=postgres, one cluster at ${cluster.base ?? '?'})`);
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: root,
        stdio: 'inherit',
        env: {
          ...process.env,
          BALCAO_TEST_STORE: 'postgres',
          ...(cluster.base === undefined ? {} : { [SHARED_CLUSTER_ENV]: cluster.base }),
        },
      });
      child.once('error', reject);
      child.once('exit', (status, signal) => resolve(status ?? (signal === null ? 1 : 128)));
    });
    console.log(
      `Tests on PostgreSQL: ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    return code;
  } finally {
    await cluster.stop();
  }
}

process.exitCode = await main();
