// The sandbox authority keeps the CSC tokens it registers sealed: neither its SQLite file nor its WAL holds one
// in clear, tokens an earlier release stored in clear are sealed at the next start, and the QR code hash is
// still checked against the real token over HTTPS.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src-main/db/client.ts';
import { SecretBox } from '../../src-main/security/secret-box.ts';
import { startSandboxAuthority } from '../../src-main/sandbox/server.ts';
import type { SandboxDatabase } from '../../src-main/sandbox/store.ts';
import {
  closedAfterEach,
  CSC,
  cStatFor,
  EMIT_CNPJ,
  enviNFe,
  nfce,
  protCStat,
  soapPost,
  startSandbox,
  tempDir,
  type Sandbox,
} from './harness.ts';

const opened = closedAfterEach<Sandbox>();

async function start(dataFile: string, secrets?: SecretBox): Promise<Sandbox> {
  const sb = await startSandbox({ dataFile, ...(secrets === undefined ? {} : { secrets }) });
  opened.push(sb);
  return sb;
}

async function stop(sb: Sandbox): Promise<void> {
  opened.splice(opened.indexOf(sb), 1);
  await sb.close();
}

/** Every byte the authority keeps for this file: the database, its WAL and shared memory. */
function storedBytes(dataFile: string): string {
  return ['', '-wal', '-shm']
    .map((suffix) => `${dataFile}${suffix}`)
    .filter((f) => fs.existsSync(f))
    .map((f) => fs.readFileSync(f).toString('latin1'))
    .join('');
}

async function tokensInFile(dataFile: string): Promise<string[]> {
  const { db, close } = openSqlite<SandboxDatabase>(dataFile);
  try {
    return (await db.selectFrom('cscs').select('token').execute()).map((r) => r.token);
  } finally {
    await close();
  }
}

const sell = (sb: Sandbox) => cStatFor(sb.authority, nfce().xml);

const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

describe('CSC tokens at rest in the sandbox authority', () => {
  it('are sealed with a key of its own (0600), and the QR code hash is still checked against them', async () => {
    const dataFile = path.join(tempDir(), 'authority.sqlite');
    const sb = await start(dataFile);
    expect(await sell(sb)).toBe('100');
    const [token] = await tokensInFile(dataFile);
    expect(token).toMatch(/^v1\./);
    expect(token).not.toContain(CSC.token);
    expect(storedBytes(dataFile)).not.toContain(CSC.token);
    expect(mode(path.join(path.dirname(dataFile), 'authority.key'))).toBe('600');

    // Another token for the same id: the QR code the emitter builds with the old one no longer verifies.
    await sb.authority.registry.setCsc(EMIT_CNPJ, CSC.id, 'OUTROCSC0123456789ABCDEFGHIJKLMNOPQ');
    expect(await sell(sb)).toBe('464');
    await sb.authority.registry.setCsc(EMIT_CNPJ, CSC.id, CSC.token);
    expect(await sell(sb)).toBe('100');
  });

  it('with the service master key given, the tokens open only with that key', async () => {
    const dataFile = path.join(tempDir(), 'authority.sqlite');
    const master = new SecretBox(randomBytes(32));
    const sb = await start(dataFile, master);
    expect(await sell(sb)).toBe('100');
    const [token = ''] = await tokensInFile(dataFile);
    expect(master.openText(token)).toBe(CSC.token);
    expect(fs.existsSync(path.join(path.dirname(dataFile), 'authority.key'))).toBe(false);
    await stop(sb);
  });

  it('tokens an earlier release kept in clear are sealed at the next start and gone from the file', async () => {
    const dataFile = path.join(tempDir(), 'authority.sqlite');
    await stop(await start(dataFile));
    // What an earlier release wrote: the token itself.
    const legacy = openSqlite<SandboxDatabase>(dataFile);
    await legacy.db.updateTable('cscs').set({ token: CSC.token }).execute();
    await legacy.close();
    expect(storedBytes(dataFile)).toContain(CSC.token);

    // Opened without registering the CSC again (the harness would): the sealing is the start's own.
    const authority = await startSandboxAuthority({ dataFile });
    try {
      const [token] = await tokensInFile(dataFile);
      expect(token).toMatch(/^v1\./);
      expect(storedBytes(dataFile)).not.toContain(CSC.token);
      const res = await soapPost(authority, 'NFeAutorizacao4', enviNFe([nfce().xml]));
      expect(protCStat(res.answer ?? '')).toBe('100');
    } finally {
      await authority.close();
    }
  });
});
