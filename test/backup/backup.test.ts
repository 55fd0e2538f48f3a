// Online backups and restore on real SQLite files: a backup taken while the database is being written, the
// rotation, the backup before pending migrations, a restore of a good backup, and the refusal of a corrupt
// one (bytes flipped) that leaves the current database untouched. The `restore` CLI runs as a process.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type OpenedDatabase } from '../../src-main/db/client.ts';
import {
  RestoreRefused,
  backupDatabase,
  checkBackup,
  listBackups,
  restoreDatabase,
  startDailyBackups,
} from '../../src-main/db/backup.ts';
import { lockDataDir } from '../../src-main/db/data-dir-lock.ts';
import * as foundation from '../../src-main/db/migrations/2026_11_22_0001_foundation.ts';

const run = promisify(execFile);
const tempDataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-backup-'));
const opened: OpenedDatabase[] = [];

afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

async function database(dataDir: string): Promise<OpenedDatabase> {
  const o = openDatabase(path.join(dataDir, 'balcao.sqlite'));
  opened.push(o);
  await migrateToLatest(o.db);
  return o;
}

async function addOrganization(o: OpenedDatabase, name: string): Promise<void> {
  await o.db
    .insertInto('organizations')
    .values({ id: `org-${name}`, name, created_at: new Date().toISOString() })
    .execute();
}

async function organizationsIn(file: string): Promise<string[]> {
  const o = openDatabase(file);
  try {
    const rows = await o.db.selectFrom('organizations').select('name').orderBy('name').execute();
    return rows.map((r) => r.name);
  } finally {
    await o.close();
  }
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('online backup', () => {
  it('copies a consistent database while rows are being written, 0600, one backup at a time', async () => {
    const dataDir = tempDataDir();
    const o = await database(dataDir);
    for (let i = 0; i < 200; i++) await addOrganization(o, `before-${String(i).padStart(4, '0')}`);
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await addOrganization(o, `during-${String(written).padStart(5, '0')}`);
        written++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const first = backupDatabase(dataDir, 'manual');
    const second = backupDatabase(dataDir, 'manual');
    const [a, b] = await Promise.all([first, second]);
    writing = false;
    await writer;

    // The second call joined the first: one file, one backup.
    expect(b.file).toBe(a.file);
    expect(listBackups(dataDir).map((x) => x.file)).toEqual([a.file]);
    expect(path.basename(a.file)).toMatch(/^balcao-\d{8}T\d{9}Z-manual\.sqlite$/);
    expect(fs.statSync(a.file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(a.file))).toEqual([path.basename(a.file)]);
    expect(await checkBackup(a.file)).toMatchObject({ ok: true, problems: [] });

    const inBackup = await organizationsIn(a.file);
    expect(written).toBeGreaterThan(0);
    expect(inBackup.filter((n) => n.startsWith('before-'))).toHaveLength(200);
    // A snapshot: a prefix of the rows written during the copy, never a torn set.
    const during = inBackup.filter((n) => n.startsWith('during-'));
    expect(during).toEqual(during.map((_, i) => `during-${String(i).padStart(5, '0')}`));
    expect(during.length).toBeLessThanOrEqual(written);
  });

  it('keeps the newest `keep` backups of each reason', async () => {
    const dataDir = tempDataDir();
    await database(dataDir);
    const day = (d: number) => () => new Date(Date.UTC(2026, 10, d, 3, 0, 0));
    for (let d = 1; d <= 5; d++) await backupDatabase(dataDir, 'daily', { keep: 3, now: day(d) });
    await backupDatabase(dataDir, 'pre-migration', { keep: 3, now: day(2) });
    const names = listBackups(dataDir).map((b) => path.basename(b.file));
    expect(names).toEqual([
      'balcao-20261105T030000000Z-daily.sqlite',
      'balcao-20261104T030000000Z-daily.sqlite',
      'balcao-20261103T030000000Z-daily.sqlite',
      'balcao-20261102T030000000Z-pre-migration.sqlite',
    ]);
  });

  it('the daily round backs up once a day, however often it looks', async () => {
    const dataDir = tempDataDir();
    await database(dataDir);
    let now = new Date(Date.UTC(2026, 10, 10, 12, 0, 0));
    const taken: string[] = [];
    const round = startDailyBackups(dataDir, {
      now: () => now,
      firstRunDelayMs: 1,
      intervalMs: 20,
      onBackup: (b) => taken.push(path.basename(b.file)),
      onError: (e) => {
        throw e;
      },
    });
    try {
      await expect.poll(() => taken.length, { timeout: 5000 }).toBe(1);
      await new Promise((r) => setTimeout(r, 150)); // several more looks on the same day
      expect(taken).toHaveLength(1);
      now = new Date(now.getTime() + 24 * 3600_000);
      await expect.poll(() => taken.length, { timeout: 5000 }).toBe(2);
    } finally {
      await round.stop();
    }
    expect(taken).toEqual([
      'balcao-20261110T120000000Z-daily.sqlite',
      'balcao-20261111T120000000Z-daily.sqlite',
    ]);
  });

  it('migrations with pending steps on a database with data are preceded by a backup; a new one is not', async () => {
    const dataDir = tempDataDir();
    const o = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    opened.push(o);
    // A database of an earlier release: only the first migration ran.
    const old = new Migrator({
      db: o.db,
      provider: { getMigrations: () => Promise.resolve({ '2026_11_22_0001_foundation': foundation }) },
    });
    expect((await old.migrateToLatest()).error).toBeUndefined();
    await addOrganization(o, 'loja');
    const calls: string[][] = [];
    const { applied } = await migrateToLatest(o.db, {
      beforePending: async (pending) => {
        calls.push(pending);
        await backupDatabase(dataDir, 'pre-migration');
      },
    });
    expect(calls).toEqual([applied]);
    expect(applied.length).toBeGreaterThan(0);
    const [backup] = listBackups(dataDir);
    expect(backup?.reason).toBe('pre-migration');
    const check = await checkBackup(backup?.file ?? '');
    expect(check).toMatchObject({ ok: true, migrations: ['2026_11_22_0001_foundation'] });

    // Nothing pending: no call. A new database (nothing ran yet): no call, there is nothing to keep.
    await migrateToLatest(o.db, { beforePending: (p) => Promise.resolve(calls.push(p)) });
    const fresh = openDatabase(path.join(tempDataDir(), 'balcao.sqlite'));
    opened.push(fresh);
    await migrateToLatest(fresh.db, { beforePending: (p) => Promise.resolve(calls.push(p)) });
    expect(calls).toHaveLength(1);
  });
});

describe('restore', () => {
  async function dataDirWithBackup(): Promise<{ dataDir: string; backup: string; db: OpenedDatabase }> {
    const dataDir = tempDataDir();
    const o = await database(dataDir);
    await addOrganization(o, 'no-backup');
    const { file } = await backupDatabase(dataDir, 'manual');
    await addOrganization(o, 'depois-do-backup');
    return { dataDir, backup: file, db: o };
  }

  it('restores a good backup and keeps the replaced database aside', async () => {
    const { dataDir, backup, db } = await dataDirWithBackup();
    await db.close();
    opened.splice(opened.indexOf(db), 1);
    const result = await restoreDatabase(dataDir, backup, new Date(Date.UTC(2026, 10, 23, 22, 0, 0)));
    expect(result.keptAside).toBe(path.join(dataDir, 'balcao.sqlite.before-restore-20261123T220000000Z'));
    expect(await organizationsIn(path.join(dataDir, 'balcao.sqlite'))).toEqual(['no-backup']);
    expect(await organizationsIn(result.keptAside ?? '')).toEqual(['depois-do-backup', 'no-backup']);
    expect(fs.statSync(path.join(dataDir, 'balcao.sqlite')).mode & 0o777).toBe(0o600);
  });

  it('refuses a corrupt backup (bytes flipped) and leaves the current database untouched', async () => {
    const { dataDir, backup, db } = await dataDirWithBackup();
    await db.close();
    opened.splice(opened.indexOf(db), 1);
    const current = path.join(dataDir, 'balcao.sqlite');
    const before = sha256(current);
    const filesBefore = fs.readdirSync(dataDir).sort();

    // B-tree page headers flipped: SQLite's own checks must catch it.
    const bytes = fs.readFileSync(backup);
    const pageSize = bytes.readUInt16BE(16);
    const pages = bytes.length / pageSize;
    const corrupt = path.join(tempDataDir(), 'corrupt.sqlite');
    for (let p = 1; p < Math.min(pages, 8); p++) {
      for (let i = 0; i < 8; i++) bytes[p * pageSize + i] = (bytes[p * pageSize + i] ?? 0) ^ 0xff;
    }
    fs.writeFileSync(corrupt, bytes);
    await expect(restoreDatabase(dataDir, corrupt)).rejects.toBeInstanceOf(RestoreRefused);
    // The file header flipped: not even a database.
    const noHeader = fs.readFileSync(backup);
    for (let i = 0; i < 16; i++) noHeader[i] = (noHeader[i] ?? 0) ^ 0x5a;
    fs.writeFileSync(corrupt, noHeader);
    const refused = await restoreDatabase(dataDir, corrupt).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RestoreRefused);
    expect((refused as RestoreRefused).problems.join(' ')).toMatch(/not a database/);

    expect(sha256(current)).toBe(before);
    expect(fs.readdirSync(dataDir).sort()).toEqual(filesBefore);
    expect(await organizationsIn(current)).toEqual(['depois-do-backup', 'no-backup']);
  });

  it('refuses a SQLite file that is not a Balcão database', async () => {
    const dir = tempDataDir();
    const other = openDatabase(path.join(dir, 'other.sqlite'));
    await other.db.schema.createTable('t').addColumn('x', 'text').execute();
    await other.close();
    const check = await checkBackup(path.join(dir, 'other.sqlite'));
    expect(check.ok).toBe(false);
    expect(check.problems).toEqual(['not a Balcão database: it has no migration history']);
  });

  it('the CLI refuses while another process holds the data dir, restores once it is free, refuses a corrupt file', async () => {
    const { dataDir, backup, db } = await dataDirWithBackup();
    await db.close();
    opened.splice(opened.indexOf(db), 1);
    const env = { ...process.env, BALCAO_DATA_DIR: dataDir };
    const cli = (file: string) =>
      run(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', 'restore', file], {
        env,
        cwd: process.cwd(),
      });
    const lock = lockDataDir(dataDir, 'service');
    try {
      const refused = await cli(backup).catch((e: unknown) => e as { code: number; stderr: string });
      expect(refused).toMatchObject({ code: 1 });
      expect((refused as { stderr: string }).stderr).toContain(
        `another Balcão process is using the data dir ${dataDir} (service, pid ${process.pid}`,
      );
      expect(await organizationsIn(path.join(dataDir, 'balcao.sqlite'))).toEqual([
        'depois-do-backup',
        'no-backup',
      ]);
    } finally {
      lock.release();
    }
    const corrupt = path.join(tempDataDir(), 'corrupt.sqlite');
    const bytes = fs.readFileSync(backup);
    for (let i = 0; i < 16; i++) bytes[i] = (bytes[i] ?? 0) ^ 0x5a;
    fs.writeFileSync(corrupt, bytes);
    const bad = await cli(corrupt).catch((e: unknown) => e as { code: number; stderr: string });
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain('The current database was not touched.');

    const { stdout } = await cli(backup);
    expect(JSON.parse(stdout)).toMatchObject({ restored: backup });
    expect(await organizationsIn(path.join(dataDir, 'balcao.sqlite'))).toEqual(['no-backup']);
  }, 60_000);
});
