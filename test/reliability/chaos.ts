// The test side of the reliability runs (NFC-e and CT-e): the sandbox authority with the terminal's company
// registered, its random faults, and a driver process that is killed (SIGKILL) at random moments until it
// finishes its work on its own.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createLogger } from '../../src-main/logger.ts';
import { startService, syncSandboxCompanies } from '../../src-main/service.ts';
import { startSandboxAuthority, type SandboxAuthority } from '../../src-main/sandbox/server.ts';

export interface DriverRun {
  code: number | null;
  killed: boolean;
  out: string;
}

/**
 * Starts the authority (its data in `root`) and the service once on `dataDir`, which creates the demo company;
 * its CSC is registered with the authority like on the portal.
 */
export async function authorityWithTerminalCompany(root: string, dataDir: string): Promise<SandboxAuthority> {
  const sandbox = await startSandboxAuthority({ dataFile: path.join(root, 'authority.sqlite') });
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
  return sandbox;
}

/** The authority refuses, times out, answers slowly, pauses and loses answers at random (seeded). */
export function injectChaos(sandbox: SandboxAuthority, seed: number): void {
  sandbox.faults.random({
    seed,
    refuse: 0.08,
    timeout: 0.06,
    slow: 0.08,
    pause: 0.05,
    lose: 0.1,
    slowMs: 250,
  });
}

/** The environment a driver reads (see terminal.ts). */
export function driverEnv(
  dataDir: string,
  sandbox: SandboxAuthority,
  target: number,
): Record<string, string> {
  return {
    DRIVER_DATA_DIR: dataDir,
    DRIVER_SANDBOX_URL: sandbox.url,
    DRIVER_SANDBOX_CA: sandbox.caPem,
    DRIVER_TARGET: String(target),
  };
}

/**
 * Runs one terminal (`script`); `killAfterMs` counts from the moment its output first satisfies `killFrom` (by
 * default its "ready" line), so kills land while it works.
 */
export function runDriver(
  script: string,
  env: Record<string, string>,
  killAfterMs: number | null,
  killFrom: (out: string) => boolean = (out) => out.includes('ready\n'),
): Promise<DriverRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let killed = false;
    let timer: NodeJS.Timeout | null = null;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (timer === null && killAfterMs !== null && killFrom(out)) {
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

/**
 * Kills the terminal at random moments (`maxKills` times, each `minKillMs` to `minKillMs` + 2 s after it is
 * ready) until it completes its work on its own; at most 40 runs.
 */
export async function runWithKills(
  script: string,
  env: Record<string, string>,
  { maxKills, minKillMs }: { maxKills: number; minKillMs: number },
): Promise<{ kills: number; runs: number; last: DriverRun }> {
  let kills = 0;
  let runs = 0;
  let last: DriverRun = { code: null, killed: false, out: '' };
  for (; runs < 40; runs++) {
    const killAfter = kills < maxKills ? minKillMs + Math.floor(Math.random() * 2000) : null;
    last = await runDriver(script, env, killAfter);
    if (last.killed) kills++;
    else break;
  }
  return { kills, runs, last };
}
