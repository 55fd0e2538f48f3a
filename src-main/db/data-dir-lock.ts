// One service per data dir: an OS-level lock taken before anything in the data dir is read or written, so a
// second process refuses to start (and says who holds the lock) instead of racing the first for its queue.
//
// Why SQLite's lock and not a pid file: Node has no flock(), and an O_EXCL pid file needs a liveness check
// (`process.kill(pid, 0)`) that a reused pid fools, that cannot see a holder on another host, and whose stale
// takeover is itself a race between two starting processes. A separate SQLite file held in EXCLUSIVE
// locking mode rests on the kernel's own locks (fcntl on POSIX, LockFileEx on Windows): they belong to the
// open file of a live process and vanish with it, SIGKILL and power loss included, so a dead holder never
// blocks the next start and no takeover logic is needed. The holder's details (pid, start time, host) are
// kept beside it in a small JSON file, read only to word the refusal.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { restrictSqliteFiles } from '../data-dir.ts';

export const LOCK_FILE = 'balcao.lock';
export const LOCK_HOLDER_FILE = 'balcao.lock.json';

export interface LockHolder {
  pid: number;
  startedAt: string;
  host: string;
  /** What holds it: the service, or a CLI command that must not run beside one (a migration). */
  role: string;
}

export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
  ) {
    super(
      `another Balcão process is using the data dir ${dataDir}` +
        (holder === null
          ? ''
          : ` (${holder.role}, pid ${holder.pid} on host ${holder.host}, started ${holder.startedAt})`) +
        '; stop it first, or start this one with another BALCAO_DATA_DIR',
    );
    this.name = 'DataDirLocked';
  }
}

export interface DataDirLock {
  readonly holder: LockHolder;
  /** Releases the lock (idempotent); the process ending releases it too. */
  release(): void;
}

function readHolder(dataDir: string): LockHolder | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_HOLDER_FILE), 'utf8')) as LockHolder;
    return typeof parsed.pid === 'number' ? parsed : null;
  } catch {
    return null;
  }
}

const isBusy = (error: unknown) =>
  error instanceof SQLite.SqliteError && (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED');

function tryOpen(file: string): SQLite.Database {
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting for it.
  const handle = new SQLite(file, { timeout: 0 });
  try {
    // Owner only, before the first write: SQLite gives the journal the file's mode, and the process umask
    // would leave both readable by others (a fresh install then warned about its own lock file).
    restrictSqliteFiles(file);
    handle.pragma('journal_mode = DELETE');
    handle.pragma('locking_mode = EXCLUSIVE');
    // The first write in EXCLUSIVE locking mode takes the file's exclusive lock and keeps it until close.
    handle.exec('BEGIN EXCLUSIVE');
    handle.exec('CREATE TABLE IF NOT EXISTS held (id INTEGER PRIMARY KEY, at TEXT NOT NULL)');
    handle.prepare('INSERT OR REPLACE INTO held (id, at) VALUES (1, ?)').run(new Date().toISOString());
    handle.exec('COMMIT');
    return handle;
  } catch (error) {
    handle.close();
    throw error;
  }
}

/**
 * Takes the data dir's lock or throws DataDirLocked naming the holder. `role` is recorded for the refusal a
 * later process shows.
 */
export function lockDataDir(dataDir: string, role = 'service'): DataDirLock {
  // 0700 like the data dir's own rule: the lock may be the first thing a fresh install creates.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, LOCK_FILE);
  let handle: SQLite.Database;
  try {
    handle = tryOpen(file);
  } catch (error) {
    if (isBusy(error)) throw new DataDirLocked(dataDir, readHolder(dataDir));
    if (
      !(error instanceof SQLite.SqliteError) ||
      (error.code !== 'SQLITE_NOTADB' && error.code !== 'SQLITE_CORRUPT')
    )
      throw error;
    // The lock file holds no data: a damaged one is simply made anew.
    fs.rmSync(file, { force: true });
    fs.rmSync(`${file}-journal`, { force: true });
    try {
      handle = tryOpen(file);
    } catch (retryError) {
      if (isBusy(retryError)) throw new DataDirLocked(dataDir, readHolder(dataDir));
      throw retryError;
    }
  }
  const holder: LockHolder = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    host: os.hostname(),
    role,
  };
  const holderFile = path.join(dataDir, LOCK_HOLDER_FILE);
  try {
    // Written whole then renamed, so a refused process never reads half a file.
    fs.writeFileSync(`${holderFile}.${process.pid}.tmp`, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
    fs.renameSync(`${holderFile}.${process.pid}.tmp`, holderFile);
  } catch (error) {
    handle.close();
    throw error;
  }
  let released = false;
  return {
    holder,
    release() {
      if (released) return;
      released = true;
      handle.close();
    },
  };
}

/** Who holds the data dir's lock now, or null when nobody does (probed by taking and releasing it). */
export function dataDirHolder(dataDir: string): LockHolder | null {
  if (!fs.existsSync(path.join(dataDir, LOCK_FILE))) return null;
  try {
    const lock = tryOpen(path.join(dataDir, LOCK_FILE));
    lock.close();
    return null;
  } catch (error) {
    if (isBusy(error)) return readHolder(dataDir) ?? { pid: 0, startedAt: '?', host: '?', role: 'unknown' };
    throw error;
  }
}
