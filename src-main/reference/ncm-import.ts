// Importing a newer NCM table (the official Siscomex JSON), shared by POST /v1/reference/ncm and the CLI.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import { validationError } from '../errors.ts';
import { parseSiscomexNcm } from './ncm.ts';
import { storeNcmTable, type StoredNcmTable } from './ncm-store.ts';

export async function importNcmFile(
  db: Db,
  clock: Clock,
  text: string,
): Promise<StoredNcmTable & { expirados: number }> {
  const parsed = parseSiscomexNcm(text, clock.now().toISOString().slice(0, 10));
  if (!parsed.ok) throw validationError(parsed.errors, 'The NCM table cannot be imported.');
  const stored = await storeNcmTable(db, clock, {
    versao: parsed.file.versao,
    ato: parsed.file.ato,
    origem: 'siscomex',
    codes: parsed.file.codes,
  });
  return { ...stored, expirados: parsed.file.expired };
}
