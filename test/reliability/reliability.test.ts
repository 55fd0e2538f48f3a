// Issue 4's reliability test: 500 NFC-e sold while the sandbox authority randomly refuses, times out,
// pauses and loses responses, and the terminal process is killed (SIGKILL) and restarted several times.
// Afterwards every note is authorized, cancelled by substitution or voided (or rejected for a stated
// reason), the authority holds no duplicate, and every reserved number is explained.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxAuthority } from '../../src-main/sandbox/server.ts';
import { openDatabase } from '../../src-main/db/client.ts';
import { authorityWithTerminalCompany, driverEnv, injectChaos, runDriver, runWithKills } from './chaos.ts';

const SALES = Number(process.env['RELIABILITY_SALES'] ?? 500);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-reliability-'));
const dataDir = path.join(root, 'terminal');
const DRIVER = 'test/reliability/driver.ts';
let sandbox: SandboxAuthority | undefined;

afterAll(async () => {
  await sandbox?.close();
});

describe('reliability under faults and kills', () => {
  it(`sells ${SALES} NFC-e through chaos and leaves every number explained`, async () => {
    sandbox = await authorityWithTerminalCompany(root, dataDir);
    injectChaos(sandbox, 20261122);
    const env = driverEnv(dataDir, sandbox, SALES);
    // Kill the terminal at random moments until it completes the sales on its own.
    const chaos = await runWithKills(DRIVER, env, { maxKills: 6, minKillMs: 300 });
    let kills = chaos.kills;
    const { runs, last } = chaos;
    expect(last.code, last.out.slice(-2000)).toBe(0);
    // The queue keeps working through the same chaos, and is killed twice more while it does.
    for (let i = 0; i < 2; i++) {
      const chaosDrain = await runDriver(DRIVER, { ...env, DRIVER_DRAIN: '1' }, 1500);
      if (chaosDrain.killed) kills++;
    }

    // The network heals; the terminal drains its queue.
    sandbox.faults.clear();
    const drain = await runDriver(DRIVER, { ...env, DRIVER_DRAIN: '1' }, null);
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
