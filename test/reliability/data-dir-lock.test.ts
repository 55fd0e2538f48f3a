// Issue 12 item 8: one service per data dir. A second process started on a data dir in use refuses to start,
// names the holder, and touches neither sandbox.json nor the queue; once the first dies (SIGKILL, so it
// never releases anything itself) the next start succeeds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/db/client.ts';
import {
  LOCK_HOLDER_FILE,
  DataDirLocked,
  dataDirHolder,
  lockDataDir,
} from '../../src-main/db/data-dir-lock.ts';
import { api, saleBody, spawnService, waitListening, type ServiceProcess } from './service-process.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-lock-'));
const running: ServiceProcess[] = [];

afterAll(async () => {
  for (const s of running) {
    s.kill('SIGKILL');
    await s.exited;
  }
  fs.rmSync(root, { recursive: true, force: true });
});

describe('data dir lock (in process)', () => {
  it('refuses a second holder, names the first, and frees on release', () => {
    const dir = path.join(root, 'unit');
    const first = lockDataDir(dir);
    expect(() => lockDataDir(dir, 'cli')).toThrow(DataDirLocked);
    try {
      lockDataDir(dir);
    } catch (error) {
      expect((error as DataDirLocked).holder).toEqual(first.holder);
      expect((error as Error).message).toContain(`pid ${process.pid} on host ${os.hostname()}`);
    }
    expect(dataDirHolder(dir)).toEqual(first.holder);
    first.release();
    expect(dataDirHolder(dir)).toBeNull();
    lockDataDir(dir).release();
  });

  it('remakes a damaged lock file', () => {
    const dir = path.join(root, 'damaged');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'balcao.lock'),
      'not a database at all, just some garbage bytes'.repeat(20),
    );
    const lock = lockDataDir(dir);
    expect(dataDirHolder(dir)?.pid).toBe(process.pid);
    lock.release();
  });
});

describe('one service per data dir (real processes)', () => {
  it('a second start refuses and names the holder; after SIGKILL of the first a new start succeeds', async () => {
    const dataDir = path.join(root, 'shared');
    const first = spawnService(dataDir);
    running.push(first);
    const info = await waitListening(first, dataDir);

    // A sale, then its queue row marked in flight as if the first process were sending it right now: a
    // second process that ran its start-up recovery would turn it into `unknown` (and consult it twice).
    const sale = await api<{ id: string; status: string }>(info, 'POST', '/nfce/venda', saleBody());
    expect(sale.status).toBe(201);
    const { db, close } = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    try {
      await db
        .updateTable('outbox')
        .set({ state: 'in_flight' })
        .where('document_id', '=', sale.body.id)
        .execute();
      const outboxBefore = await db.selectFrom('outbox').selectAll().orderBy('id').execute();
      const sandboxFile = path.join(dataDir, 'sandbox.json');
      const sandboxBefore = {
        text: fs.readFileSync(sandboxFile, 'utf8'),
        mtime: fs.statSync(sandboxFile).mtimeMs,
      };
      const second = spawnService(dataDir);
      running.push(second);
      // Without the lock the second one starts (and rewrites sandbox.json with its own address).
      const code = await Promise.race([
        second.exited,
        waitListening(second, dataDir).then(() => 'started' as const),
      ]);
      expect(code, second.output()).not.toBe('started');
      expect(code, second.output()).not.toBe(0);
      const holder = JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_HOLDER_FILE), 'utf8')) as {
        pid: number;
        startedAt: string;
        host: string;
      };
      expect(second.output()).toContain('another Balcão process is using the data dir');
      expect(second.output()).toContain(
        `pid ${holder.pid} on host ${holder.host}, started ${holder.startedAt}`,
      );
      expect(second.output()).not.toMatch(/listening on/);

      expect(fs.readFileSync(sandboxFile, 'utf8')).toBe(sandboxBefore.text);
      expect(fs.statSync(sandboxFile).mtimeMs).toBe(sandboxBefore.mtime);
      expect(await db.selectFrom('outbox').selectAll().orderBy('id').execute()).toEqual(outboxBefore);
      // The first one still serves.
      expect((await api(info, 'GET', `/nfce/${sale.body.id}`)).status).toBe(200);
    } finally {
      await close();
    }

    first.kill('SIGKILL');
    await first.exited;
    const third = spawnService(dataDir);
    running.push(third);
    const after = await waitListening(third, dataDir);
    expect((await api(after, 'GET', `/nfce/${sale.body.id}`)).status).toBe(200);
    third.kill('SIGTERM');
    await third.exited;
  }, 180_000);
});
