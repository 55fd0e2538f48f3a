// Service settings from the environment (README lists them); invalid values stop the start with a clear message.
import path from 'node:path';
import { parseLogLevel, type LogLevel } from './logger.ts';
import { backupKeepFromEnv } from './db/backup.ts';
import { isPostgresUrl } from './db/dialect.ts';

export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  masterKey: string | undefined;
  logLevel: LogLevel;
  /** BALCAO_BACKUP_KEEP: backups of each kind (daily, pre-migration) kept in <dataDir>/backups. */
  backupKeep?: number;
  /** BALCAO_WORKERS: worker threads for PDF renders (0: on the request thread); default all cores but one. */
  workers?: number;
  /**
   * BALCAO_DATABASE_URL: a postgres:// URL puts the store on that PostgreSQL database (server mode) instead of
   * <dataDir>/balcao.sqlite; unset, the embedded SQLite store.
   */
  databaseUrl?: string;
  /**
   * BALCAO_DATABASE_TIMEOUT_MS (server mode): the longest one step of a request waits on PostgreSQL (a
   * connection, a statement, the store's write lock) before it is answered 503 `store_unavailable`; 0: no bound.
   */
  databaseTimeoutMs?: number;
}

function workersFromEnv(env: NodeJS.ProcessEnv): { workers?: number } {
  const text = env['BALCAO_WORKERS'];
  if (text === undefined || text === '') return {};
  if (!/^\d{1,3}$/.test(text)) throw new Error(`BALCAO_WORKERS must be a number of threads, got '${text}'`);
  return { workers: Number(text) };
}

function databaseUrlFromEnv(env: NodeJS.ProcessEnv): { databaseUrl?: string } {
  const url = env['BALCAO_DATABASE_URL'];
  if (url === undefined || url === '') return {};
  if (!isPostgresUrl(url))
    throw new Error(
      'BALCAO_DATABASE_URL must be a postgres:// (or postgresql://) URL of a PostgreSQL database',
    );
  return { databaseUrl: url };
}

function databaseTimeoutFromEnv(env: NodeJS.ProcessEnv): { databaseTimeoutMs?: number } {
  const text = env['BALCAO_DATABASE_TIMEOUT_MS'];
  if (text === undefined || text === '') return {};
  if (!/^\d{1,7}$/.test(text))
    throw new Error(
      `BALCAO_DATABASE_TIMEOUT_MS must be a number of milliseconds (0: no bound), got '${text}'`,
    );
  return { databaseTimeoutMs: Number(text) };
}

export function configFromEnv(env: NodeJS.ProcessEnv, cwd = process.cwd()): ServiceConfig {
  const portText = env['BALCAO_PORT'] ?? '8787';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new Error(`BALCAO_PORT must be a port number (0-65535), got '${portText}'`);
  }
  return {
    host: env['BALCAO_HOST'] ?? '127.0.0.1',
    port,
    dataDir: path.resolve(cwd, env['BALCAO_DATA_DIR'] ?? 'data'),
    masterKey: env['BALCAO_MASTER_KEY'],
    logLevel: parseLogLevel(env['BALCAO_LOG_LEVEL'], 'info'),
    backupKeep: backupKeepFromEnv(env),
    ...workersFromEnv(env),
    ...databaseUrlFromEnv(env),
    ...databaseTimeoutFromEnv(env),
  };
}
