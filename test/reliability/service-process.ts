// The real service as a separate process (`npx tsx src-main/index.ts`) on a given data dir, for tests that
// kill it (SIGKILL to its whole process group) or start a second one beside it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

export function spawnService(dataDir: string, env: Record<string, string> = {}): ServiceProcess {
  const child = spawn('npx', ['tsx', 'src-main/index.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      BALCAO_DATA_DIR: dataDir,
      BALCAO_PORT: '0',
      BALCAO_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npx, tsx and node die together on a group kill.
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    },
  };
}

export interface SandboxInfo {
  baseUrl: string;
  apiKey: string;
  companyId: string;
  organizationApiKey: string;
}

/** Waits for the service's "listening" line and a sandbox.json naming its address; returns that file. */
export async function waitListening(service: ServiceProcess, dataDir: string): Promise<SandboxInfo> {
  const started = Date.now();
  const file = path.join(dataDir, 'sandbox.json');
  for (;;) {
    if (service.child.exitCode !== null) {
      throw new Error(`the service exited (${service.child.exitCode}):\n${service.output()}`);
    }
    if (Date.now() - started > 90_000)
      throw new Error(`the service did not start in 90 s:\n${service.output()}`);
    const listening = /listening on (\S+)/.exec(service.output());
    if (listening !== null && fs.existsSync(file)) {
      const info = JSON.parse(fs.readFileSync(file, 'utf8')) as SandboxInfo;
      if (info.baseUrl === `${listening[1]}/v1`) return info;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function api<T = unknown>(
  info: SandboxInfo,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${info.baseUrl}${route}`, {
    method,
    headers: {
      'X-API-Key': info.apiKey,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T, headers: res.headers };
}

/** A cashier's NFC-e sale body (spelling B), as the reliability driver sells it. */
export const saleBody = (n = 1) => ({
  itens: [
    {
      codigo: `P${n}`,
      descricao: `Produto ${n}`,
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 1,
      valor_unitario: '3.90',
      cfop: '5102',
      tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
    },
  ],
  pagamentos: [{ forma: 'dinheiro', valor: '10.00' }],
});
