// The explicit, ordered list of the sandbox authority's migrations: append new entries, never edit old ones.
import type { Migration, MigrationProvider } from 'kysely';
import * as sandboxAuthority from './2026_11_22_0001_sandbox_authority.ts';
import * as csrts from './2026_11_24_0002_csrts.ts';
import * as cte from './2026_11_24_0003_cte.ts';
import * as nfse from './2026_11_24_0004_nfse.ts';
import * as dce from './2026_11_24_0005_dce.ts';

const migrations: Record<string, Migration> = {
  '2026_11_22_0001_sandbox_authority': sandboxAuthority,
  '2026_11_24_0002_csrts': csrts,
  '2026_11_24_0003_cte': cte,
  '2026_11_24_0004_nfse': nfse,
  '2026_11_24_0005_dce': dce,
};

export const sandboxMigrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
