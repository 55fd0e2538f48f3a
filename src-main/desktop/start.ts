// Everything the desktop shell does before it opens a window, without Electron: paths, log file, master key
// from the keychain, the in-process service on a loopback port, and the API key the UI will use.
import { systemClock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { refuseEmptiedInstall } from '../data-dir.ts';
import { startService, type RunningService, type ServiceOptions } from '../service.ts';
import { desktopPaths, desktopServiceConfig, type DesktopPaths } from './config.ts';
import { RotatingLogFile, fileLogger } from './log-file.ts';
import { loadDesktopMasterKey, type Keychain, type MasterKeyStorage } from './master-key.ts';
import { ensureDesktopApiKey } from './desktop-key.ts';
import { originOf } from './navigation.ts';
import type { DesktopInfo } from './bridge.ts';

export interface DesktopServiceOptions {
  /** Electron's `app.getPath('userData')`. */
  userDataDir: string;
  env: NodeJS.ProcessEnv;
  /** safeStorage, or null where there is none. */
  keychain: Keychain | null;
  /** Also receives each log line (stderr when run from a terminal). */
  echo?: (line: string) => void;
  /** Service options for tests (manual clock, no queue worker...). */
  service?: Pick<ServiceOptions, 'clock' | 'startWorker' | 'shutdownGraceMs' | 'outbox' | 'sandbox'>;
  /** Log rotation; defaults of RotatingLogFile otherwise. */
  log?: { maxBytes?: number; keep?: number };
}

export interface DesktopService {
  service: RunningService;
  paths: DesktopPaths;
  /** The only origin the window trusts: `http://127.0.0.1:PORT`. */
  origin: string;
  /** What the preload exposes to the UI. */
  info: DesktopInfo;
  masterKeyStorage: MasterKeyStorage;
  logger: Logger;
  /** Stops the service gracefully, then closes the log file; safe to call twice. */
  close(): Promise<void>;
}

export async function startDesktopService(options: DesktopServiceOptions): Promise<DesktopService> {
  const paths = desktopPaths(options.userDataDir, options.env);
  const config = desktopServiceConfig(paths, options.env);
  const log = new RotatingLogFile({ file: paths.logFile, ...options.log });
  const logger = fileLogger(config.logLevel, log, options.echo);
  let service: RunningService | undefined;
  try {
    // Before the key is loaded: on a fresh data dir that writes the key file, which the service's own check
    // would then take for the trace of an earlier install.
    refuseEmptiedInstall(paths.dataDir, {
      keyFromConfig: config.masterKey !== undefined && config.masterKey !== '',
    });
    const master = loadDesktopMasterKey(paths.dataDir, config.masterKey, options.keychain);
    logger.info('desktop starting', {
      dataDir: paths.dataDir,
      masterKey: master.storage,
      ...(master.migrated ? { migrated: 'master.key moved into the OS keychain' } : {}),
    });
    // The unwrapped key reaches the service as BALCAO_MASTER_KEY would: it never touches the disk in clear.
    service = await startService(
      { ...config, masterKey: master.key.toString('base64') },
      { ...options.service, logger },
    );
    // Bootstrap lines carry the certificate password and the sandbox key: the log file gets only the ids.
    const sandbox = service.bootstrap.sandbox;
    if (service.bootstrap.created && sandbox !== null) {
      logger.info('sandbox bootstrap created', { companyId: sandbox.companyId, file: 'sandbox.json' });
    }
    const key = await ensureDesktopApiKey(
      { db: service.db, clock: options.service?.clock ?? systemClock, secrets: service.secrets },
      paths.dataDir,
      sandbox?.companyId ?? null,
    );
    if (key.created)
      logger.info('desktop API key created', { keyId: key.keyId, organizationId: key.organizationId });
    const running = service;
    let closing: Promise<void> | undefined;
    return {
      service: running,
      paths,
      origin: originOf(running.url),
      info: { apiKey: key.apiKey, baseUrl: `${running.url}/v1` },
      masterKeyStorage: master.storage,
      logger,
      close: () => {
        closing ??= running.close().finally(() => {
          logger.info('desktop stopped');
          log.close();
        });
        return closing;
      },
    };
  } catch (error) {
    logger.error('desktop could not start', {
      error: error instanceof Error ? error.message : String(error),
    });
    await service?.close();
    log.close();
    throw error;
  }
}
