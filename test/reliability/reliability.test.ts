// Issue 4's reliability test: 500 NFC-e sold while the sandbox authority randomly refuses, times out,
// pauses and loses responses, and the terminal process is killed (SIGKILL) and restarted several times.
// Afterwards every note is authorized, cancelled by substitution or voided (or rejected for a stated
// reason), the authority holds no duplicate, and every reserved number is explained.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src-main/logger.ts';
import { startService, syncSandboxCompanies } from '../../src-main/service.ts';
import { startSandboxAuthority, type SandboxAuthority } from '../../src-main/sandbox/server.ts';
import { openDatabase } from '../../src-main/db/client.ts';

const SALES = Number(process.env['RELIABILITY_SALES'] ?? 500);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-reliability-'));
const dataDir = path.join(root, 'terminal');
let sandbox: SandboxAuthority | undefined;

afterAll(async () => {
  await sandbox?.close();
});

/** Runs one terminal; `killAfterMs` counts from its "ready" line, so kills land while it works. */
function runDriver(
  env: Record<string, string>,
  killAfterMs: number | null,
): Promise<{ code: number | null; killed: boolean; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/reliability/driver.ts'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let killed = false;
    let timer: NodeJS.Timeout | null = null;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (timer === null && killAfterMs !== null && out.includes('ready\n')) {
        timer = setTimeout(() => {
          killed = true;
          child.kill('SIGKILL');
        }, killAfterMs);
      }
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (timer !== null) clearTimeout(timer);
      resolve({ code, killed, out });
    });
  });
}

describe('reliability under faults and kills', () => {
  it(`sells ${SALES} NFC-e through chaos and leaves every number explained`, async () => {
    sandbox = await startSandboxAuthority({ dataFile: path.join(root, 'authority.sqlite') });
    // First start creates the demo company; its CSC is registered with the authority like on the portal.
    const first = await startService(
      { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
      {
        logger: createLogger('silent'),
        sandbox: { url: sandbox.url, caPem: sandbox.caPem },
        startWorker: false,
      },
    );
    await syncSandboxCompanies(first.db, first.secrets, sandbox);
    await first.close();

    sandbox.faults.random({
      seed: 20261122,
      refuse: 0.08,
      timeout: 0.06,
      slow: 0.08,
      pause: 0.05,
      lose: 0.1,
      slowMs: 250,
    });
    const env = {
      DRIVER_DATA_DIR: dataDir,
      DRIVER_SANDBOX_URL: sandbox.url,
      DRIVER_SANDBOX_CA: sandbox.caPem,
      DRIVER_TARGET: String(SALES),
    };
    let kills = 0;
    let runs = 0;
    let last = { code: null as number | null, killed: false, out: '' };
    // Kill the terminal at random moments until it completes the sales on its own.
    for (; runs < 40; runs++) {
      const killAfter = kills < 6 ? 300 + Math.floor(Math.random() * 2000) : null;
      last = await runDriver(env, killAfter);
      if (last.killed) kills++;
      else break;
    }
    expect(last.code, last.out.slice(-2000)).toBe(0);
    // The queue keeps working through the same chaos, and is killed twice more while it does.
    for (let i = 0; i < 2; i++) {
      const chaosDrain = await runDriver({ ...env, DRIVER_DRAIN: '1' }, 1500);
      if (chaosDrain.killed) kills++;
    }

    // The network heals; the terminal drains its queue.
    sandbox.faults.clear();
    const drain = await runDriver({ ...env, DRIVER_DRAIN: '1' }, null);
    expect(drain.code, drain.out.slice(-2000)).toBe(0);

    const { db, close } = openDatabase(path.join(dataDir, 'balcao.sqlite'));
    const docs = await db.selectFrom('documents').selectAll().orderBy('n_nf').execute();
    const open = await db
      .selectFrom('outbox')
      .select('state')
      .where('state', 'in', ['pending', 'unknown', 'in_flight'])
      .execute();
    const failed = await db
      .selectFrom('outbox')
      .select(['kind', 'last_c_stat', 'last_error'])
      .where('state', '=', 'failed')
      .execute();
    await close();

    const byStatus: Record<string, number> = {};
    for (const d of docs) byStatus[d.status] = (byStatus[d.status] ?? 0) + 1;
    const sales = docs.filter((d) => d.replaces === null).length;
    const notes = await sandbox.registry.notes();
    const duplicates: string[] = [];
    for (const d of docs) {
      if ((await sandbox.registry.authorizationCount(d.chave)) > 1) duplicates.push(d.chave);
    }
    const authorizedNumbers = notes
      .filter((n) => n.status === 'autorizada' || n.status === 'cancelada')
      .map((n) => n.nNF);
    const inutilized = await sandbox.registry.inutilizacoes();
    const exchanges = await sandbox.registry.exchanges();
    const outcomes: Record<string, number> = {};
    for (const e of exchanges)
      outcomes[`${e.service} ${e.outcome}`] = (outcomes[`${e.service} ${e.outcome}`] ?? 0) + 1;
    const offline = docs.filter((d) => d.tp_emis === 9).length;

    console.log(
      JSON.stringify(
        {
          sales,
          documents: docs.length,
          issuedOffline: offline,
          byStatus,
          kills,
          runs: runs + 1,
          authorityNotes: notes.length,
          inutilizacoes: inutilized.length,
          exchanges: outcomes,
        },
        null,
        1,
      ),
    );

    expect(sales).toBe(SALES);
    expect(open).toEqual([]);
    expect(duplicates).toEqual([]);
    expect(failed).toEqual([]);
    // No sale may end with two valid notes: an authorized attempt that was re-issued must be cancelled.
    expect(
      docs.filter((d) => d.status === 'autorizada' && d.replaced_by !== null).map((d) => d.n_nf),
    ).toEqual([]);
    expect(byStatus['autorizada']).toBe(SALES);
    expect(new Set(authorizedNumbers).size).toBe(authorizedNumbers.length);
    // Numbers are consecutive from 1 and each one ends in a final state.
    expect(docs.map((d) => d.n_nf)).toEqual(docs.map((_, i) => i + 1));
    for (const d of docs) {
      expect(['autorizada', 'cancelada', 'inutilizada', 'erro'], `${d.n_nf} ${d.status}`).toContain(d.status);
      if (d.status === 'erro') expect(d.c_stat, `note ${d.n_nf} rejected without a reason`).not.toBeNull();
      const atAuthority = notes.find((n) => n.chave === d.chave);
      if (d.status === 'autorizada') expect(atAuthority?.status).toBe('autorizada');
      if (d.status === 'cancelada') expect(atAuthority?.status).toBe('cancelada');
      if (d.status === 'inutilizada') {
        expect(atAuthority).toBeUndefined();
        expect(inutilized.some((i) => i.nNFIni <= d.n_nf && d.n_nf <= i.nNFFin)).toBe(true);
      }
    }
  }, 600_000);
});
