// The data dir's own rules: it is private to the service's user (directory 0700, database, keys and sandbox
// files 0600), and an earlier install whose database is gone is refused, never bootstrapped again.
import fs from 'node:fs';
import path from 'node:path';

export const DATABASE_FILE = 'balcao.sqlite';
const BACKUPS = 'backups';

/** Master keys: a trace only before the database is opened (every first start writes one first). */
const KEY_FILES = ['master.key', 'master.key.keychain'];

/**
 * Files written by the sandbox bootstrap's transaction or after it, so by an install that had organizations:
 * finding one beside a database without organizations means that database was lost, not never made.
 */
const INSTALL_FILES = [
  'sandbox.json',
  'sandbox-certificate.pfx',
  'desktop-key.json',
  'sandbox-authority.sqlite',
];
const INSTALL_DIRS = [BACKUPS, 'logs'];

/** Files that hold data or secrets: kept 0600 (the SQLite files with their -wal and -shm). */
const PRIVATE_FILES = [
  ...KEY_FILES,
  'sandbox.json',
  'sandbox.json.tmp',
  'sandbox-certificate.pfx',
  'desktop-key.json',
  'sandbox-authority.key',
  // The data dir lock (taken before this runs) names the holder's pid and host.
  'balcao.lock',
  'balcao.lock.json',
  ...[DATABASE_FILE, 'sandbox-authority.sqlite'].flatMap((f) => [f, `${f}-wal`, `${f}-shm`, `${f}-journal`]),
];

export type DatabaseState = 'missing' | 'empty' | 'present';

export function databaseState(dataDir: string): DatabaseState {
  const file = path.join(dataDir, DATABASE_FILE);
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return 'missing';
  }
  return size === 0 ? 'empty' : 'present';
}

function nonEmptyDir(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/**
 * What an earlier install left in the data dir. The standalone sandbox authority (`npm run sandbox`) writes
 * sandbox-authority.sqlite here too, with its CA beside it: that one is no install of the service.
 */
export function installTraces(dataDir: string, options: { keys: boolean }): string[] {
  const exists = (name: string) => fs.existsSync(path.join(dataDir, name));
  const standaloneSandbox = exists('sandbox-authority-ca.pem');
  return [
    ...(options.keys ? KEY_FILES.filter(exists) : []),
    ...INSTALL_FILES.filter((f) => exists(f) && !(f === 'sandbox-authority.sqlite' && standaloneSandbox)),
    ...INSTALL_DIRS.filter((d) => nonEmptyDir(path.join(dataDir, d))).map((d) => `${d}/`),
  ];
}

/** The newest backup in <dataDir>/backups (names carry a sortable UTC stamp), or null. */
function newestBackup(dataDir: string): string | null {
  const dir = path.join(dataDir, BACKUPS);
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.endsWith('.sqlite'));
  } catch {
    return null;
  }
  const newest = names.sort().at(-1);
  return newest === undefined ? null : path.join(dir, newest);
}

export class EmptiedInstallError extends Error {
  constructor(
    readonly dataDir: string,
    readonly database: DatabaseState | 'no organizations',
    readonly traces: string[],
  ) {
    const file = path.join(dataDir, DATABASE_FILE);
    const backup = newestBackup(dataDir);
    const what =
      database === 'missing'
        ? `${file} is missing`
        : database === 'empty'
          ? `${file} is empty (0 bytes)`
          : `${file} has no organization`;
    super(
      [
        `${what}, but ${dataDir} holds an earlier install (${traces.join(', ')}).`,
        'Refusing to start: a new install here would start the numbering of the same CNPJ again at 1 and ' +
          'issue numbers the authority already authorized.',
        backup === null
          ? `Restore the database: copy your last copy of ${DATABASE_FILE} to ${file} (no backup in ` +
            `${path.join(dataDir, BACKUPS)}), or \`npm run cli -- restore <file>\` with a backup taken elsewhere.`
          : `Restore the database: \`npm run cli -- restore ${backup}\` (the newest backup in ` +
            `${path.join(dataDir, BACKUPS)}), or copy that file to ${file}.`,
        `To start afresh on purpose, use another data dir (BALCAO_DATA_DIR) or move these files away.`,
      ].join('\n'),
    );
    this.name = 'EmptiedInstallError';
  }
}

/**
 * Refuses a data dir whose database is missing or empty while an earlier install left its traces. Runs before
 * the master key is loaded and the database opened, since both create their files. `keyFromConfig`: the
 * master key comes from the environment or the desktop shell, which may have just written its own file here
 * (the desktop shell runs this check itself before that).
 */
export function refuseEmptiedInstall(dataDir: string, options: { keyFromConfig: boolean }): void {
  const database = databaseState(dataDir);
  if (database === 'present') return;
  const traces = installTraces(dataDir, { keys: !options.keyFromConfig });
  if (traces.length > 0) throw new EmptiedInstallError(dataDir, database, traces);
}

/** chmod that ignores files that are not there (and systems without POSIX modes). */
function restrict(file: string, mode: number): boolean {
  try {
    if ((fs.statSync(file).mode & 0o777) === mode) return false;
    fs.chmodSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

/** The SQLite file and its -wal/-shm/-journal to 0600 (SQLite gives new -wal/-shm files the database's mode). */
export function restrictSqliteFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) restrict(f, 0o600);
}

/**
 * Creates the data dir 0700 and brings what an earlier release left there to 0700 / 0600. Returns the paths
 * whose mode changed.
 */
export function makeDataDirPrivate(dataDir: string): string[] {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const changed: string[] = [];
  const fix = (file: string, mode: number) => {
    if (restrict(file, mode)) changed.push(file);
  };
  fix(dataDir, 0o700);
  for (const name of PRIVATE_FILES) fix(path.join(dataDir, name), 0o600);
  const backups = path.join(dataDir, BACKUPS);
  if (fs.existsSync(backups)) {
    fix(backups, 0o700);
    for (const name of fs.readdirSync(backups)) fix(path.join(backups, name), 0o600);
  }
  return changed;
}

/** What the service does with its data dir before it loads the key or opens the database. */
export function prepareDataDir(
  dataDir: string,
  options: { keyFromConfig: boolean; postgres?: boolean },
): string[] {
  // A PostgreSQL store (server mode) is no file of the data dir: there is no missing file to look for.
  if (options.postgres !== true) refuseEmptiedInstall(dataDir, options);
  return makeDataDirPrivate(dataDir);
}
