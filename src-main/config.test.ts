// The service's settings from the environment: server mode's database URL and its time bound.
import { describe, expect, it } from 'vitest';
import { configFromEnv } from './config.ts';

describe('configFromEnv', () => {
  it('leaves the database bound to its default when BALCAO_DATABASE_TIMEOUT_MS is unset', () => {
    expect(configFromEnv({}, '/srv').databaseTimeoutMs).toBeUndefined();
    expect(configFromEnv({ BALCAO_DATABASE_TIMEOUT_MS: '' }, '/srv').databaseTimeoutMs).toBeUndefined();
  });

  it('reads BALCAO_DATABASE_TIMEOUT_MS as milliseconds, 0 for no bound', () => {
    expect(configFromEnv({ BALCAO_DATABASE_TIMEOUT_MS: '2500' }, '/srv').databaseTimeoutMs).toBe(2500);
    expect(configFromEnv({ BALCAO_DATABASE_TIMEOUT_MS: '0' }, '/srv').databaseTimeoutMs).toBe(0);
  });

  it.each(['10s', '-1', '1.5', '99999999'])('refuses BALCAO_DATABASE_TIMEOUT_MS=%s, saying why', (text) => {
    expect(() => configFromEnv({ BALCAO_DATABASE_TIMEOUT_MS: text }, '/srv')).toThrow(
      /BALCAO_DATABASE_TIMEOUT_MS must be a number of milliseconds/,
    );
  });

  it('refuses a BALCAO_DATABASE_URL that is not a PostgreSQL URL', () => {
    expect(() => configFromEnv({ BALCAO_DATABASE_URL: 'mysql://x' }, '/srv')).toThrow(/postgres:\/\//);
    expect(configFromEnv({ BALCAO_DATABASE_URL: 'postgres://u@h/db' }, '/srv').databaseUrl).toBe(
      'postgres://u@h/db',
    );
  });
});
