// The data dir across starts: an emptied or lost database beside an earlier install's files is refused with
// what was found and how to restore (never bootstrapped again), a fresh dir still bootstraps; the dir is 0700
// and its files 0600 (fixed on start too); the first start prints its secrets once and says where they are kept.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src-main/db/client.ts';
import { startSandboxAuthority } from '../../src-main/sandbox/server.ts';
import { itSqliteOnly, startHarness, tempDataDir, testStore, type Harness } from './harness.ts';
import { waterSale } from '../fixtures/nfce-body.ts';

const running: Harness[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.stop();
});

async function start(dataDir?: string): Promise<Harness> {
  const h = await startHarness(dataDir === undefined ? {} : { dataDir });
  running.push(h);
  return h;
}

async function stop(h: Harness): Promise<void> {
  running.splice(running.indexOf(h), 1);
  await h.stop();
}

/** Every file under dir (relative path -> size), the data dir lock's own files left out. */
function snapshot(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (!e.name.startsWith('balcao.lock')) out[path.relative(dir, full)] = fs.statSync(full).size;
    }
  };
  walk(dir);
  return out;
}

const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

const sale = waterSale('5.00');

/** The two tests that empty or copy the store's SQLite file, which the PostgreSQL store does not have. */
const itOnSqliteFile = itSqliteOnly('they empty or copy the balcao.sqlite file');

describe('an emptied database is not a new install', () => {
  itOnSqliteFile(
    '`: > balcao.sqlite` after sales: the start refuses, says what it found and how to restore, creates nothing',
    async () => {
      const first = await start();
      const sold = await first.request('POST', `/v1/nfce/venda?companyId=${first.companyId}`, {
        key: first.companyKey,
        json: sale,
      });
      expect(sold.status, sold.text).toBe(201);
      const dataDir = first.dataDir;
      await stop(first);

      const db = path.join(dataDir, 'balcao.sqlite');
      fs.writeFileSync(db, '');
      const before = snapshot(dataDir);
      const refused = startHarness({ dataDir });
      await expect(refused).rejects.toThrow(/balcao\.sqlite is empty \(0 bytes\)/);
      const message = await refused.catch((e: unknown) => (e instanceof Error ? e.message : ''));
      for (const trace of [
        'master.key',
        'sandbox.json',
        'sandbox-certificate.pfx',
        'sandbox-authority.sqlite',
      ])
        expect(message).toContain(trace);
      expect(message).toMatch(/Restore the database/);
      expect(message).toContain(`to ${db}`);
      // Nothing bootstrapped: no file written, none grown, the database still empty.
      expect(snapshot(dataDir)).toEqual(before);
      expect(fs.statSync(db).size).toBe(0);

      // A lost database is refused the same way.
      fs.rmSync(db);
      await expect(startHarness({ dataDir })).rejects.toThrow(/balcao\.sqlite is missing/);
      expect(fs.existsSync(db)).toBe(false);
    },
  );

  itOnSqliteFile(
    'names the newest backup and the restore command when <dataDir>/backups has one',
    async () => {
      const first = await start();
      const dataDir = first.dataDir;
      await stop(first);
      const backups = path.join(dataDir, 'backups');
      fs.mkdirSync(backups, { recursive: true });
      fs.copyFileSync(
        path.join(dataDir, 'balcao.sqlite'),
        path.join(backups, 'balcao-20260101T000000000Z-daily.sqlite'),
      );
      fs.copyFileSync(
        path.join(dataDir, 'balcao.sqlite'),
        path.join(backups, 'balcao-20260102T000000000Z-daily.sqlite'),
      );
      fs.writeFileSync(path.join(dataDir, 'balcao.sqlite'), '');
      await expect(startHarness({ dataDir })).rejects.toThrow(
        `npm run cli -- restore ${path.join(backups, 'balcao-20260102T000000000Z-daily.sqlite')}`,
      );
    },
  );

  it('a database without organizations beside sandbox.json is refused; beside only the master key it is a first start resumed', async () => {
    const dataDir = tempDataDir();
    const opened = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    await migrateToLatest(opened.db);
    await opened.close();
    fs.writeFileSync(path.join(dataDir, 'master.key'), Buffer.alloc(32, 7).toString('base64'), {
      mode: 0o600,
    });
    // A first start that stopped after the key and the migrations, before the bootstrap committed.
    const resumed = await start(dataDir);
    expect(resumed.service.bootstrap.created).toBe(true);
    await stop(resumed);

    const other = tempDataDir();
    const empty = openDatabase(path.join(other, 'balcao.sqlite'));
    await migrateToLatest(empty.db);
    await empty.close();
    fs.writeFileSync(path.join(other, 'sandbox.json'), '{}', { mode: 0o600 });
    await expect(startHarness({ dataDir: other })).rejects.toThrow(/has no organization.*sandbox\.json/);
    expect(fs.existsSync(path.join(other, 'sandbox-certificate.pfx'))).toBe(false);
  });

  it('a fresh data dir, and one holding only the standalone sandbox authority, still bootstrap', async () => {
    const fresh = path.join(tempDataDir(), 'new', 'data');
    expect((await start(fresh)).service.bootstrap.created).toBe(true);

    const withStandalone = tempDataDir();
    // `npm run sandbox` with its default data file writes here: its database, its key and its CA.
    const standalone = await startSandboxAuthority({
      dataFile: path.join(withStandalone, 'sandbox-authority.sqlite'),
    });
    fs.writeFileSync(path.join(withStandalone, 'sandbox-authority-ca.pem'), standalone.caPem);
    await standalone.close();
    expect((await start(withStandalone)).service.bootstrap.created).toBe(true);
  });
});

describe('the data dir is private to the service', () => {
  const files = [
    // On PostgreSQL (server mode) the store is not in the data dir; the rest of the dir is the same.
    ...(testStore === 'postgres' ? [] : ['balcao.sqlite', 'balcao.sqlite-wal', 'balcao.sqlite-shm']),
    'master.key',
    'sandbox.json',
    'sandbox-certificate.pfx',
    'sandbox-authority.sqlite',
    'sandbox-authority.sqlite-wal',
    'sandbox-authority.sqlite-shm',
  ];

  it('a first start makes the dir 0700 and the database, WAL, SHM, key, sandbox and lock files 0600', async () => {
    const h = await start(path.join(tempDataDir(), 'data'));
    expect(mode(h.dataDir)).toBe('700');
    for (const f of [...files, 'balcao.lock', 'balcao.lock.json'])
      expect([f, mode(path.join(h.dataDir, f))]).toEqual([f, '600']);
    // Its own files are made private as they are written: a first start has nothing to warn about.
    expect(h.logs.filter((l) => l.includes('readable by others'))).toEqual([]);
  });

  it('a later start brings files an earlier release left readable back to 0600, and says so', async () => {
    const first = await start();
    const dataDir = first.dataDir;
    await stop(first);
    fs.chmodSync(dataDir, 0o755);
    const present = fs.readdirSync(dataDir).filter((f) => files.includes(f));
    for (const f of present) fs.chmodSync(path.join(dataDir, f), 0o644);
    const again = await start(dataDir);
    expect(mode(dataDir)).toBe('700');
    for (const f of files) expect([f, mode(path.join(dataDir, f))]).toEqual([f, '600']);
    const warning = again.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['msg'] === 'data dir files were readable by others: now 0700/0600');
    expect(warning?.['madePrivate']).toEqual(
      expect.arrayContaining([dataDir, path.join(dataDir, 'master.key')]),
    );
  });
});

describe('secrets are printed once and said where they are kept', () => {
  it('the first start prints keys, certificate password and CSC with where each is kept; later starts print none', async () => {
    const first = await start();
    const lines = first.service.bootstrap.lines.join('\n');
    const password = /password (\S+)/.exec(lines)?.[1] ?? '';
    const csc = /token (\S+)/.exec(lines)?.[1] ?? '';
    expect(password).not.toBe('');
    expect(csc).not.toBe('');
    const secrets = [first.companyKey, first.apiKey, password, csc];
    for (const s of secrets) expect(lines.split(s)).toHaveLength(2); // each printed exactly once
    const json = path.join(first.dataDir, 'sandbox.json');
    expect(lines).toContain(`API keys      ${json} (mode 0600)`);
    expect(lines).toMatch(
      testStore === 'postgres'
        ? /password and the CSC token only sealed in the PostgreSQL store \(BALCAO_DATABASE_URL\), under the master key/
        : /password and the CSC token only sealed in .*balcao\.sqlite, under the master key/,
    );
    // What sandbox.json keeps matches what was printed; the log has none of it.
    const saved = fs.readFileSync(json, 'utf8');
    expect(saved).toContain(first.companyKey);
    expect(saved).toContain(first.apiKey);
    const logs = first.logs.join('\n');
    for (const s of secrets) expect(logs).not.toContain(s);
    const dataDir = first.dataDir;
    await stop(first);

    const second = await start(dataDir);
    expect(second.service.bootstrap.created).toBe(false);
    const later = [...second.service.bootstrap.lines, ...second.logs].join('\n');
    expect(later).toContain(json);
    for (const s of secrets) expect(later).not.toContain(s);
  });
});
