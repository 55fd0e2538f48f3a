// The explicit, ordered list of the sandbox authority's migrations: append new entries, never edit old ones.
import type { Migration, MigrationProvider } from 'kysely';
import * as sandboxAuthority from './2026_11_22_0001_sandbox_authority.ts';

const migrations: Record<string, Migration> = {
  '2026_11_22_0001_sandbox_authority': sandboxAuthority,
};

export const sandboxMigrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
