// The explicit, ordered list of migrations (CONVENTIONS.md §7): append new entries, never edit old ones.
import type { Migration, MigrationProvider } from 'kysely';
import * as foundation from './2026_11_22_0001_foundation.ts';
import * as nfceQrVersion from './2026_11_22_0002_nfce_qrcode_version.ts';
import * as documentsOutbox from './2026_11_22_0003_documents_outbox.ts';

const migrations: Record<string, Migration> = {
  '2026_11_22_0001_foundation': foundation,
  '2026_11_22_0002_nfce_qrcode_version': nfceQrVersion,
  '2026_11_22_0003_documents_outbox': documentsOutbox,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};
