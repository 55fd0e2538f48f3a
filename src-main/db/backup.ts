// Online backups of the service's database with SQLite's backup API (rotating, one at a time) and the
// checks and file moves of a restore. Lives in db/ because only db/ may open better-sqlite3.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { migrationProvider } from './migrations/index.ts';
import { startPeriodic, type Periodic } from '../periodic.ts';

/** Why a backup was taken; part of its file name so a person choosing one to restore can tell them apart. */
export type BackupReason = 'daily' | 'pre-migration' | 'manual';

export const DATABASE_FILE = 'balcao.sqlite';
export const BACKUP_DIR = 'backups';

/**
 * Daily backups kept by default: two weeks lets a problem noticed after a holiday or at the accountant's
 * fortnightly close still be undone, and costs little (the database of a store is tens of MB at most).
 */
export const DEFAULT_BACKUP_KEEP = 14;

const NAME = /^balcao-(\d{8}T\d{6}\d{3}Z)-(daily|pre-migration|manual)\.sqlite$/;

export interface BackupFile {
  file: string;
  reason: BackupReason;
  /** UTC instant the backup was started, as written in its name. */
  takenAt: Date;
}

function stamp(date: Date): string {
  // 2026-11-23T22:14:06.123Z -> 20261123T221406123Z: sortable, and valid in file names on every system.
  return date.toISOString().replace(/[-:.]/g, '');
}

function parseStamp(text: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(text);
  if (m === null) return new Date(NaN);
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z`);
}

/** Backups of the data dir, newest first. */
export function listBackups(dataDir: string): BackupFile[] {
  const dir = path.join(dataDir, BACKUP_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .flatMap((name) => {
      const m = NAME.exec(name);
      if (m === null) return [];
      return [{ file: path.join(dir, name), reason: m[2] as BackupReason, takenAt: parseStamp(m[1] ?? '') }];
    })
    .sort((a, b) => b.takenAt.getTime() - a.takenAt.getTime());
}

/** BALCAO_BACKUP_KEEP: how many backups of each reason are kept (at least 1). */
export function backupKeepFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env['BALCAO_BACKUP_KEEP'];
  if (text === undefined || text === '') return DEFAULT_BACKUP_KEEP;
  if (!/^\d+$/.test(text) || Number(text) < 1) {
    throw new Error(`BALCAO_BACKUP_KEEP must be a whole number of backups (1 or more), got '${text}'`);
  }
  return Number(text);
}

// One backup at a time per data dir, across every caller of this process (daily round, migrations, CLI).
const running = new Map<string, Promise<BackupFile>>();

/**
 * Copies the live database to `<dataDir>/backups/balcao-<UTC stamp>-<reason>.sqlite` (0600) and drops the
 * oldest backups of the same reason beyond `keep`. A call while a backup of the data dir runs gets that
 * backup's result instead of starting a second one.
 */
export function backupDatabase(
  dataDir: string,
  reason: BackupReason,
  options: { keep?: number; now?: () => Date } = {},
): Promise<BackupFile> {
  const key = path.resolve(dataDir);
  const inFlight = running.get(key);
  if (inFlight !== undefined) return inFlight;
  const work = runBackup(
    dataDir,
    reason,
    options.keep ?? DEFAULT_BACKUP_KEEP,
    (options.now ?? (() => new Date()))(),
  );
  const tracked = work.finally(() => running.delete(key));
  running.set(key, tracked);
  return tracked;
}

async function runBackup(
  dataDir: string,
  reason: BackupReason,
  keep: number,
  now: Date,
): Promise<BackupFile> {
  const dir = path.join(dataDir, BACKUP_DIR);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `balcao-${stamp(now)}-${reason}.sqlite`);
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  // Created 0600 before SQLite writes to it: the copy holds the same secrets as the database.
  fs.closeSync(fs.openSync(partial, 'wx', 0o600));
  try {
    await copyInWorker(path.join(dataDir, DATABASE_FILE), partial);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  fs.chmodSync(partial, 0o600);
  fs.renameSync(partial, file);
  for (const old of listBackups(dataDir)
    .filter((b) => b.reason === reason)
    .slice(keep)) {
    fs.rmSync(old.file, { force: true });
  }
  return { file, reason, takenAt: now };
}

/**
 * The copy runs on a worker thread with a connection of its own. better-sqlite3 runs each backup step on the
 * calling thread, and the copy is one step (after the first, which only opens the backup): one consistent
 * WAL snapshot, whereas in small steps every write of the service in between would restart it. On the
 * service's thread that step would stall sales for as long as it copies (about half a second for 250 MB);
 * on a worker the service keeps writing, since a WAL reader blocks no writer. Plain JavaScript evaluated in
 * the worker needs no TypeScript loader, in tests, `npm start` and Electron alike.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
(async () => {
  const source = new SQLite(workerData.source, { readonly: true, fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    await source.backup(workerData.target, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
  // The copy carries the source's WAL mode; in rollback-journal mode it is one self-contained file that a
  // check opens read-only without leaving -wal/-shm files beside it.
  const copy = new SQLite(workerData.target);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  parentPort.postMessage('done');
})().catch((error) => parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) }));
`;

function copyInWorker(source: string, target: string): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { driver, source, target } });
    let settled = false;
    worker.once('message', (message: unknown) => {
      settled = true;
      if (message === 'done') resolve();
      else reject(new Error(`backup failed: ${(message as { error: string }).error}`));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the backup worker stopped (exit code ${code})`));
    });
  });
}

export interface DailyBackupOptions {
  keep?: number;
  now?: () => Date;
  /** First look shortly after start, then every hour: a till opened each morning still gets its backup. */
  firstRunDelayMs?: number;
  intervalMs?: number;
  onBackup?: (backup: BackupFile) => void;
  onError: (error: unknown) => void;
}

const DAY_MS = 24 * 3600_000;

/**
 * The daily round: takes a backup when the newest daily one is a day old or more (or there is none). It looks
 * every hour instead of sleeping 24 h, so a service restarted every day still backs up once a day.
 */
export function startDailyBackups(dataDir: string, options: DailyBackupOptions): Periodic {
  const now = options.now ?? (() => new Date());
  return startPeriodic(
    async () => {
      const last = listBackups(dataDir).find((b) => b.reason === 'daily');
      if (last !== undefined && now().getTime() - last.takenAt.getTime() < DAY_MS) return;
      const taken = await backupDatabase(dataDir, 'daily', {
        ...(options.keep === undefined ? {} : { keep: options.keep }),
        now,
      });
      options.onBackup?.(taken);
    },
    {
      firstRunDelayMs: options.firstRunDelayMs ?? 60_000,
      intervalMs: options.intervalMs ?? 3600_000,
      onError: options.onError,
    },
  );
}

export interface BackupCheck {
  ok: boolean;
  problems: string[];
  migrations: string[];
}

/**
 * Whether a file can replace the database: SQLite says it is sound (integrity_check, foreign_key_check) and
 * it is a Balcão database whose migrations are all ones this version knows (a backup from a newer release,
 * or any other SQLite file, is refused).
 */
export async function checkBackup(file: string): Promise<BackupCheck> {
  const problems: string[] = [];
  let migrations: string[] = [];
  if (!fs.existsSync(file)) return { ok: false, problems: [`${file} does not exist`], migrations };
  let sqlite: SQLite.Database | undefined;
  try {
    sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
    const integrity = sqlite.pragma('integrity_check') as { integrity_check: string }[];
    const bad = integrity.map((r) => r.integrity_check).filter((t) => t !== 'ok');
    if (bad.length > 0) problems.push(...bad.slice(0, 10).map((t) => `integrity_check: ${t}`));
    const fks = sqlite.pragma('foreign_key_check') as { table: string; rowid: number; parent: string }[];
    for (const fk of fks.slice(0, 10)) {
      problems.push(`foreign_key_check: ${fk.table} row ${fk.rowid} names a missing ${fk.parent}`);
    }
    const hasTable = sqlite
      .prepare("select 1 from sqlite_master where type = 'table' and name = 'kysely_migration'")
      .get();
    if (hasTable === undefined) {
      problems.push('not a Balcão database: it has no migration history');
    } else {
      migrations = (
        sqlite.prepare('select name from kysely_migration order by name').all() as { name: string }[]
      ).map((r) => r.name);
      const known = Object.keys(await migrationProvider.getMigrations());
      const unknown = migrations.filter((m) => !known.includes(m));
      if (unknown.length > 0) problems.push(`written by a newer version (migrations ${unknown.join(', ')})`);
      if (!migrations.includes(known[0] ?? ''))
        problems.push('not a Balcão database: its first migration is missing');
      const companies = sqlite
        .prepare("select 1 from sqlite_master where type = 'table' and name = 'companies'")
        .get();
      if (companies === undefined) problems.push('not a Balcão database: it has no companies table');
    }
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  } finally {
    sqlite?.close();
  }
  return { ok: problems.length === 0, problems, migrations };
}

export interface RestoreResult {
  restored: string;
  /** Where the database that was replaced now lies (null when the data dir had none). */
  keptAside: string | null;
}

/**
 * Replaces `<dataDir>/balcao.sqlite` by a checked copy of `backupFile`. The current database (with its WAL
 * and shared-memory files) is renamed, never deleted. The caller makes sure no service uses the data dir.
 */
export async function restoreDatabase(
  dataDir: string,
  backupFile: string,
  now: Date = new Date(),
): Promise<RestoreResult> {
  const check = await checkBackup(backupFile);
  if (!check.ok) throw new RestoreRefused(backupFile, check.problems);
  const target = path.join(dataDir, DATABASE_FILE);
  const incoming = `${target}.restoring`;
  fs.rmSync(incoming, { force: true });
  fs.copyFileSync(backupFile, incoming);
  fs.chmodSync(incoming, 0o600);
  // The copy must be as sound as the file checked (a disk that fails while copying is not restored from).
  const copied = await checkBackup(incoming);
  if (!copied.ok) {
    fs.rmSync(incoming, { force: true });
    throw new RestoreRefused(backupFile, copied.problems);
  }
  let keptAside: string | null = null;
  if (fs.existsSync(target)) {
    keptAside = `${target}.before-restore-${stamp(now)}`;
    for (const suffix of ['-wal', '-shm']) {
      if (fs.existsSync(`${target}${suffix}`)) fs.renameSync(`${target}${suffix}`, `${keptAside}${suffix}`);
    }
    fs.renameSync(target, keptAside);
  }
  fs.renameSync(incoming, target);
  return { restored: backupFile, keptAside };
}

export class RestoreRefused extends Error {
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`refusing to restore ${file}: ${problems.join('; ')}`);
    this.problems = problems;
  }
}
