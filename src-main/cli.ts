// Administration from the shell (`npm run cli -- <command>`): organizations, companies and API keys,
// working on the same data dir as the service (SQLite WAL lets both run at once).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from './clock.ts';
import { configFromEnv } from './config.ts';
import { migrateToLatest, openDatabase } from './db/client.ts';
import { RestoreRefused, backupDatabase, listBackups, restoreDatabase } from './db/backup.ts';
import { DataDirLocked, lockDataDir } from './db/data-dir-lock.ts';
import type { ServiceConfig } from './config.ts';
import { SecretBox, loadMasterKey } from './security/secret-box.ts';
import { apiKeysRepository } from './api-keys/repository.ts';
import { createApiKey, createOrganization, revokeApiKey, rotateApiKey } from './api-keys/service.ts';
import { createCompany, municipioDetails, toCompanyView } from './companies/service.ts';
import { respTecRepository, respTecView } from './companies/resp-tec.ts';
import { companiesRepository } from './companies/repository.ts';
import { canonicalId } from './ids.ts';
import { DomainError, validationError } from './errors.ts';
import { importNcmFile } from './reference/ncm-import.ts';
import { importIbptTable } from './ibpt/store.ts';
import { decodeIbptBytes, parseIbptCsv } from './ibpt/table.ts';
import { parseOrThrow } from './validation.ts';
import { companyCreateSchema } from '../src-shared/contracts/companies.ts';
import { apiKeyCreateSchema, apiKeyRotateSchema } from '../src-shared/contracts/api-keys.ts';

const USAGE = `Usage: npm run cli -- <command> [options]   (data dir: BALCAO_DATA_DIR, default ./data)

  org create --name NAME                      create an organization
  org list                                    list organizations
  company create --org ORG_ID --file F.json   create a company from a JSON file (same body as POST /v1/companies)
  company list --org ORG_ID                   list the companies of an organization
  key create --org ORG_ID --name NAME [--company CMP_ID] [--plan basic|standard|terminal] [--expires ISO]
                                              create an API key (organization key unless --company); printed once
  key rotate --id KEY_ID [--grace-seconds N]  new key; the old one keeps working N seconds (default 86400)
  key revoke --id KEY_ID                      revoke a key at once
  key list --org ORG_ID [--company CMP_ID]    list keys (never their secrets)
  backup                                      back the database up now (into <data dir>/backups)
  backup list                                 list the backups, newest first
  ncm-import FILE                             import a newer NCM table (the Siscomex JSON); it becomes the one in use
  ibpt-import FILE --company CMP_ID           import the company's IBPT table (CSV, Latin-1 or UTF-8)
  restore FILE                                replace the database by a backup, after checking it; the
                                              service must be stopped; the current database is kept aside
`;

const options = {
  name: { type: 'string' },
  org: { type: 'string' },
  company: { type: 'string' },
  file: { type: 'string' },
  plan: { type: 'string' },
  expires: { type: 'string' },
  id: { type: 'string' },
  'grace-seconds': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}

class UsageError extends Error {}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/**
 * Restores a backup into the data dir, holding the data dir's lock meanwhile: a running service keeps its
 * database open and would go on writing to the file moved aside, and a service must not start mid-restore.
 */
async function restore(config: ServiceConfig, file: string | undefined): Promise<void> {
  if (file === undefined || file === '') throw new UsageError('restore needs the backup file');
  const lock = lockDataDir(config.dataDir, 'restore');
  try {
    const result = await restoreDatabase(config.dataDir, path.resolve(file));
    print(result);
    process.stderr.write(
      `restored ${result.restored}` +
        (result.keptAside === null ? '\n' : `; the previous database was kept as ${result.keptAside}\n`),
    );
  } catch (error) {
    if (error instanceof RestoreRefused) {
      process.stderr.write(`${error.message}\nThe current database was not touched.\n`);
      process.exitCode = 2;
      return;
    }
    throw error;
  } finally {
    lock.release();
  }
}

async function main(argv: string[]): Promise<void> {
  const parsed = parseArgs({ args: argv, options, allowPositionals: true });
  const { positionals } = parsed;
  // Ids noted under an earlier release (`cmp_<hex>`) name the same rows, now UUIDs (migration 0012).
  const values = {
    ...parsed.values,
    org: parsed.values.org === undefined ? undefined : canonicalId(parsed.values.org),
    company: parsed.values.company === undefined ? undefined : canonicalId(parsed.values.company),
    id: parsed.values.id === undefined ? undefined : canonicalId(parsed.values.id),
  };
  const [noun, verb] = positionals;
  if (values.help === true || noun === undefined) {
    process.stdout.write(USAGE);
    return;
  }
  const config = configFromEnv(process.env);
  if (noun === 'restore') {
    await restore(config, verb);
    return;
  }
  if (noun === 'backup') {
    if (verb === 'list') {
      print(listBackups(config.dataDir).map((b) => ({ ...b, takenAt: b.takenAt.toISOString() })));
    } else if (verb === undefined) {
      print(await backupDatabase(config.dataDir, 'manual', { keep: config.backupKeep }));
    } else {
      throw new UsageError(`unknown command 'backup ${verb}'`);
    }
    return;
  }
  const secrets = new SecretBox(loadMasterKey(config.dataDir, config.masterKey));
  // Server mode (BALCAO_DATABASE_URL): the commands act on the PostgreSQL store the service uses.
  const { db, close } = openDatabase(path.join(config.dataDir, 'balcao.sqlite'), config.databaseUrl, {
    ...(config.databaseTimeoutMs === undefined ? {} : { timeoutMs: config.databaseTimeoutMs }),
  });
  const clock = systemClock;
  try {
    await migrateToLatest(db);
    if (noun === 'ncm-import' || noun === 'ibpt-import') {
      if (verb === undefined || verb === '') throw new UsageError(`${noun} needs the file`);
      const bytes = fs.readFileSync(path.resolve(verb));
      if (noun === 'ncm-import') print(await importNcmFile(db, clock, new TextDecoder().decode(bytes)));
      else {
        const company = await companiesRepository.findById(db, required(values.company, 'company'));
        if (company === undefined) throw new UsageError(`no company ${values.company ?? ''}`);
        const parsed = parseIbptCsv(decodeIbptBytes(bytes));
        if (!parsed.ok) throw validationError(parsed.errors, 'The IBPT table has faulty lines.');
        print(await importIbptTable(db, clock, company.id, company.uf, parsed.file));
      }
      return;
    }
    switch (`${noun} ${verb ?? ''}`) {
      case 'org create':
        print(await createOrganization(db, clock, required(values.name, 'name')));
        break;
      case 'org list':
        print(await apiKeysRepository.listOrganizations(db));
        break;
      case 'company create': {
        const org = required(values.org, 'org');
        if ((await apiKeysRepository.findOrganization(db, org)) === undefined)
          throw new UsageError(`no organization ${org}`);
        const raw: unknown = JSON.parse(fs.readFileSync(required(values.file, 'file'), 'utf8'));
        const input = parseOrThrow(companyCreateSchema, raw, [], (r) =>
          municipioDetails(r, ['endereco', 'cMun']),
        );
        print(await createCompany({ db, clock, secrets }, org, input));
        break;
      }
      case 'company list': {
        const { rows } = await companiesRepository.listByOrganization(
          db,
          required(values.org, 'org'),
          null,
          1,
          100,
        );
        const views = [];
        for (const row of rows)
          views.push(toCompanyView(row, respTecView(await respTecRepository.find(db, row.id))));
        print(views);
        break;
      }
      case 'key create': {
        const org = required(values.org, 'org');
        if ((await apiKeysRepository.findOrganization(db, org)) === undefined)
          throw new UsageError(`no organization ${org}`);
        const input = parseOrThrow(apiKeyCreateSchema, {
          name: required(values.name, 'name'),
          scope: values.company === undefined ? 'organization' : 'company',
          ...(values.company === undefined ? {} : { companyId: values.company }),
          ...(values.plan === undefined ? {} : { plan: values.plan }),
          ...(values.expires === undefined ? {} : { expiresAt: values.expires }),
        });
        print(await createApiKey(db, clock, org, input));
        break;
      }
      case 'key rotate': {
        const grace = values['grace-seconds'];
        const { graceSeconds } = parseOrThrow(
          apiKeyRotateSchema,
          grace === undefined ? {} : { graceSeconds: Number(grace) },
        );
        print(await rotateApiKey(db, clock, required(values.id, 'id'), graceSeconds));
        break;
      }
      case 'key revoke':
        print(await revokeApiKey(db, clock, required(values.id, 'id')));
        break;
      case 'key list': {
        const org = required(values.org, 'org');
        const { rows } = await apiKeysRepository.listByOrganization(db, org, values.company ?? null, 1, 100);
        print(rows.map(({ secret_hash: _hash, ...rest }) => rest));
        break;
      }
      default:
        throw new UsageError(`unknown command '${positionals.join(' ')}'`);
    }
  } finally {
    await close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof DomainError) {
    process.stderr.write(`${error.message}\n${JSON.stringify(error.toBody().details, null, 2)}\n`);
  } else if (error instanceof DataDirLocked) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}`);
  } else {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  }
  process.exit(1);
});
