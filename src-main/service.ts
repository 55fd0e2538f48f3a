// Starts the whole headless service (database, migrations, sandbox bootstrap, HTTP) and stops it gracefully;
// used by index.ts, the Electron shell and the HTTP tests alike.
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { systemClock, type Clock } from './clock.ts';
import type { ServiceConfig } from './config.ts';
import { migrateToLatest, openDatabase, type Db } from './db/client.ts';
import { createLogger, type Logger } from './logger.ts';
import { SecretBox, loadMasterKey } from './security/secret-box.ts';
import { RateLimiter } from './api/middleware/rate-limit.ts';
import { createApp } from './api/server.ts';
import { bootstrapSandbox, type BootstrapResult } from './bootstrap.ts';
import { projectRoot } from './paths.ts';

export interface RunningService {
  url: string;
  port: number;
  db: Db;
  secrets: SecretBox;
  bootstrap: BootstrapResult;
  migrationsApplied: string[];
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  /** How long graceful shutdown waits for in-flight requests before cutting connections. */
  shutdownGraceMs?: number;
}

function readVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function uiDir(): string | null {
  const built = path.join(projectRoot, 'src-renderer', 'dist');
  if (fs.existsSync(path.join(built, 'index.html'))) return built;
  const plain = path.join(projectRoot, 'src-renderer', 'public');
  return fs.existsSync(path.join(plain, 'index.html')) ? plain : null;
}

export async function startService(
  config: ServiceConfig,
  options: ServiceOptions = {},
): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  fs.mkdirSync(config.dataDir, { recursive: true });
  const secrets = new SecretBox(loadMasterKey(config.dataDir, config.masterKey));
  const { db, close: closeDb } = openDatabase(path.join(config.dataDir, 'balcao.sqlite'));
  let server: Server | undefined;
  try {
    const { applied } = await migrateToLatest(db);
    const limiter = new RateLimiter(clock);
    const app = createApp({ db, clock, secrets, logger, limiter, uiDir: uiDir(), version: readVersion() });
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.port, config.host);
      s.once('listening', () => resolve(s));
      s.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${hostForUrl}:${port}`;
    const bootstrap = await bootstrapSandbox({ db, clock, secrets }, config.dataDir, `${url}/v1`);
    const sweeper = setInterval(() => limiter.sweep(), 60_000);
    sweeper.unref();

    const running = server;
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        clearInterval(sweeper);
        await new Promise<void>((resolve) => {
          // close() stops accepting and resolves once in-flight requests have been answered.
          running.close(() => resolve());
          running.closeIdleConnections();
          setTimeout(() => running.closeAllConnections(), options.shutdownGraceMs ?? 10_000).unref();
        });
        await closeDb();
      })();
      return closing;
    };
    return { url, port, db, secrets, bootstrap, migrationsApplied: applied, close };
  } catch (error) {
    server?.close();
    await closeDb();
    throw error;
  }
}
