// A service instance in a process of its own, on a server-mode database, for the test that kills it (SIGKILL):
// it starts from the DRIVER_* environment (the shared database, master key and sandbox authority, a data dir of
// its own), prints "ready", then sells NFC-e one after another until the database holds DRIVER_TARGET sales.
import { sellNfce } from '../../src-main/documents/issue.ts';
import { createLogger } from '../../src-main/logger.ts';
import { startService } from '../../src-main/service.ts';
import { sale } from '../reliability/terminal.ts';
import { salesOfCompany } from './sales-count.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const service = await startService(
  {
    host: '127.0.0.1',
    port: 0,
    dataDir: env('DRIVER_DATA_DIR'),
    masterKey: env('DRIVER_MASTER_KEY'),
    logLevel: 'silent',
    databaseUrl: env('DRIVER_DATABASE_URL'),
  },
  {
    logger: createLogger('silent'),
    sandbox: { url: env('DRIVER_SANDBOX_URL'), caPem: env('DRIVER_SANDBOX_CA') },
    outbox: { pollMs: 50, baseBackoffMs: 40, maxBackoffMs: 400, requestTimeoutMs: 400 },
  },
);
const companyId = env('DRIVER_COMPANY_ID');
const target = Number(env('DRIVER_TARGET'));
const deps = {
  db: service.db,
  clock: { now: () => new Date() },
  secrets: service.secrets,
  worker: service.worker,
};

process.stdout.write('ready\n');
// Sales so far on every instance.
const salesSoFar = () => salesOfCompany(service.db, companyId);
for (let done = await salesSoFar(); done < target; done = await salesSoFar()) {
  const result = await sellNfce(deps, companyId, sale(done, 1 + (done % 3)), 300);
  process.stdout.write(`sale ${result.document.n_nf} ${result.mode} ${result.document.status}\n`);
}
await service.close();
process.exit(0);
