// Disk full as either store reports it: SQLite's SQLITE_FULL and PostgreSQL's SQLSTATE 53100, also as the cause
// of another error; test/api/disk-full fills a real SQLite store.
import { describe, expect, it } from 'vitest';
import { isStorageFull, storageFullCode } from './errors.ts';

describe('isStorageFull', () => {
  it('knows SQLite and PostgreSQL disk-full errors, directly or as a cause, and nothing else', () => {
    const sqlite = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    // pg's DatabaseError carries the SQLSTATE in code.
    const postgres = Object.assign(new Error('could not extend file: No space left on device'), {
      code: '53100',
    });
    expect(storageFullCode(sqlite)).toBe('SQLITE_FULL');
    expect(storageFullCode(postgres)).toBe('53100');
    expect(isStorageFull(new Error('cannot rollback', { cause: postgres }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error('unique'), { code: '23505' }))).toBe(false);
    expect(isStorageFull(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toBe(false);
    expect(isStorageFull(undefined)).toBe(false);
  });
});
