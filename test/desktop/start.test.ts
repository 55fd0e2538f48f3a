// What the desktop shell does before it opens a window, run for real without Electron: the service in-process
// on a loopback port over a user data folder, the master key wrapped by a keychain, the log file, and the
// API key the UI receives through the preload.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDesktopService, type DesktopService } from '../../src-main/desktop/start.ts';
import { DESKTOP_KEY_FILE, DESKTOP_KEY_NAME } from '../../src-main/desktop/desktop-key.ts';
import { createLogger } from '../../src-main/logger.ts';
import { startService } from '../../src-main/service.ts';
import { KEYCHAIN_MASTER_KEY_FILE } from '../../src-main/security/secret-box.ts';
import { TestKeychain } from './test-keychain.ts';
import { waterSale } from '../fixtures/nfce-body.ts';

const sale = waterSale('5.00');

const userDataDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-desktop-'));

function start(userData: string, keychain: TestKeychain | null): Promise<DesktopService> {
  return startDesktopService({
    userDataDir: userData,
    env: { BALCAO_LOG_LEVEL: 'info' },
    keychain,
    service: { shutdownGraceMs: 2000 },
  });
}

async function call(d: DesktopService, method: string, url: string, json?: unknown, key = d.info.apiKey) {
  const res = await fetch(`${d.info.baseUrl}${url}`, {
    method,
    headers: { 'X-API-Key': key, ...(json === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function logLines(d: DesktopService): Record<string, unknown>[] {
  return fs
    .readFileSync(d.paths.logFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('startDesktopService', () => {
  it('first start: loopback service in the user data folder, key wrapped, its own API key, a sale signs', async () => {
    const userData = userDataDir();
    const keychain = new TestKeychain();
    const d = await start(userData, keychain);
    try {
      expect(d.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(d.info.baseUrl).toBe(`${d.origin}/v1`);
      expect(d.paths.dataDir).toBe(path.join(userData, 'data'));
      expect(d.masterKeyStorage).toBe('keychain');
      expect(fs.existsSync(path.join(d.paths.dataDir, KEYCHAIN_MASTER_KEY_FILE))).toBe(true);
      expect(fs.existsSync(path.join(d.paths.dataDir, 'master.key'))).toBe(false);

      const companies = await call(d, 'GET', '/companies');
      expect(companies.status).toBe(200);
      expect(companies.body['total']).toBe(1);
      const keys = await call(d, 'GET', '/api-keys');
      const mine = (keys.body['items'] as { name: string; scope: string; plan: string }[]).find(
        (k) => k.name === DESKTOP_KEY_NAME,
      );
      expect(mine).toMatchObject({ scope: 'organization', plan: 'terminal' });
      // The key file holds the key sealed, never in clear.
      expect(fs.readFileSync(path.join(d.paths.dataDir, DESKTOP_KEY_FILE), 'utf8')).not.toContain(
        d.info.apiKey,
      );

      // Signing needs the certificate and its password, sealed under the keychain-wrapped master key.
      const companyId = d.service.bootstrap.sandbox?.companyId ?? '';
      const sold = await call(d, 'POST', `/nfce/venda?companyId=${companyId}`, sale);
      expect(sold.status).toBe(201);
      expect(sold.body['status']).toBe('autorizada');

      const lines = logLines(d);
      expect(lines[0]).toMatchObject({ level: 'info', msg: 'desktop starting', masterKey: 'keychain' });
      expect(lines.some((l) => l['msg'] === 'desktop API key created')).toBe(true);
      // Neither the desktop key nor the sandbox key or certificate password reach the log file.
      const logText = fs.readFileSync(d.paths.logFile, 'utf8');
      expect(logText).not.toContain(d.info.apiKey);
      expect(logText).not.toContain(d.service.bootstrap.sandbox?.apiKey ?? 'none');
      expect(logText).not.toMatch(/password/i);
    } finally {
      await d.close();
    }
    expect(logLines(d).at(-1)).toMatchObject({ msg: 'desktop stopped' });
    // close() twice is harmless (before-quit may fire again while closing).
    await d.close();

    const again = await start(userData, keychain);
    try {
      expect(again.info.apiKey).toBe(d.info.apiKey);
      expect((await call(again, 'GET', '/companies')).status).toBe(200);
      expect(logLines(again).filter((l) => l['msg'] === 'desktop API key created')).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('a revoked desktop key is replaced at the next start', async () => {
    const userData = userDataDir();
    const keychain = new TestKeychain();
    const d = await start(userData, keychain);
    let oldKey: string;
    try {
      oldKey = d.info.apiKey;
      const keys = await call(d, 'GET', '/api-keys');
      const id = (keys.body['items'] as { id: string; name: string }[]).find(
        (k) => k.name === DESKTOP_KEY_NAME,
      )?.id;
      expect((await call(d, 'POST', `/api-keys/${id ?? ''}/revoke`, {})).status).toBe(200);
      expect((await call(d, 'GET', '/companies')).status).toBe(401);
    } finally {
      await d.close();
    }
    const next = await start(userData, keychain);
    try {
      expect(next.info.apiKey).not.toBe(oldKey);
      expect((await call(next, 'GET', '/companies')).status).toBe(200);
    } finally {
      await next.close();
    }
  });

  it('an older plain master.key data dir moves into the keychain; its secrets and sandbox key keep working', async () => {
    const userData = userDataDir();
    const dataDir = path.join(userData, 'data');
    const headless = await startService(
      { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
      { logger: createLogger('silent'), startWorker: false, shutdownGraceMs: 2000 },
    );
    const sandboxKey = headless.bootstrap.sandbox?.apiKey ?? '';
    const companyId = headless.bootstrap.sandbox?.companyId ?? '';
    await headless.close();
    expect(fs.existsSync(path.join(dataDir, 'master.key'))).toBe(true);

    const d = await start(userData, new TestKeychain());
    try {
      expect(d.masterKeyStorage).toBe('keychain');
      expect(logLines(d)[0]).toMatchObject({ migrated: 'master.key moved into the OS keychain' });
      expect(fs.existsSync(path.join(dataDir, 'master.key'))).toBe(false);
      expect((await call(d, 'GET', '/companies', undefined, sandboxKey)).status).toBe(200);
      const sold = await call(d, 'POST', `/nfce/venda?companyId=${companyId}`, sale);
      expect(sold.status).toBe(201);
      expect(sold.body['status']).toBe('autorizada');
    } finally {
      await d.close();
    }
  });

  it('a locked keychain stops the start with a clear message, logged, and no new key is made', async () => {
    const userData = userDataDir();
    const keychain = new TestKeychain();
    await (await start(userData, keychain)).close();
    keychain.available = false;
    await expect(start(userData, keychain)).rejects.toThrow(/kept in the OS keychain/);
    const last = fs
      .readFileSync(path.join(userData, 'logs', 'balcao.log'), 'utf8')
      .trim()
      .split('\n')
      .at(-1);
    expect(JSON.parse(last ?? '{}')).toMatchObject({ level: 'error', msg: 'desktop could not start' });
    expect(fs.existsSync(path.join(userData, 'data', 'master.key'))).toBe(false);
  });

  it('without any keychain the data dir stays compatible with the headless service', async () => {
    const userData = userDataDir();
    const d = await start(userData, null);
    const companyId = d.service.bootstrap.sandbox?.companyId ?? '';
    try {
      expect(d.masterKeyStorage).toBe('file');
      expect(fs.existsSync(path.join(d.paths.dataDir, 'master.key'))).toBe(true);
    } finally {
      await d.close();
    }
    const headless = await startService(
      { host: '127.0.0.1', port: 0, dataDir: d.paths.dataDir, masterKey: undefined, logLevel: 'silent' },
      { logger: createLogger('silent'), startWorker: false, shutdownGraceMs: 2000 },
    );
    try {
      // The certificate sealed by the desktop start opens in the headless service: same key file.
      const row = await headless.db
        .selectFrom('certificates')
        .select('password_enc')
        .where('company_id', '=', companyId)
        .executeTakeFirstOrThrow();
      expect(headless.secrets.openText(row.password_enc).length).toBeGreaterThan(0);
    } finally {
      await headless.close();
    }
  });
});
