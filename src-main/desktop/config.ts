// Where the desktop app keeps its data and logs, and the service settings it starts with: the headless
// service's environment variables, with the data dir inside Electron's user data folder by default.
import path from 'node:path';
import { configFromEnv, type ServiceConfig } from '../config.ts';

export interface DesktopPaths {
  /** Electron's `app.getPath('userData')`. */
  userDataDir: string;
  /** Database, master key, sandbox files: BALCAO_DATA_DIR, or `<userData>/data`. */
  dataDir: string;
  /** Current log file; rotated copies sit beside it. */
  logFile: string;
}

export function desktopPaths(userDataDir: string, env: NodeJS.ProcessEnv): DesktopPaths {
  const fromEnv = env['BALCAO_DATA_DIR'];
  return {
    userDataDir,
    dataDir:
      fromEnv !== undefined && fromEnv !== ''
        ? path.resolve(userDataDir, fromEnv)
        : path.join(userDataDir, 'data'),
    logFile: path.join(userDataDir, 'logs', 'balcao.log'),
  };
}

/**
 * The service listens on loopback only: the window, the preload's key and the CSP are tied to that origin,
 * and a cashier's desktop should not expose the API to the shop network by accident (run the headless
 * service for that). BALCAO_PORT stays, so POS software on the same machine can find a fixed port.
 */
export function desktopServiceConfig(paths: DesktopPaths, env: NodeJS.ProcessEnv): ServiceConfig {
  return configFromEnv(
    {
      ...env,
      BALCAO_HOST: '127.0.0.1',
      BALCAO_PORT: env['BALCAO_PORT'] ?? '0',
      BALCAO_DATA_DIR: paths.dataDir,
    },
    paths.userDataDir,
  );
}
