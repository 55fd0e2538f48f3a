// The NCM table an item's code is checked against (MOC 7.0 rule 778 "Informado NCM inexistente"): the table
// shipped in resources/tables/ncm/ (see resources/tables/PROVENANCE.md), or a newer one the store imported.
// Pure: reading the shipped file and parsing an official Siscomex export; the database side is ncm-store.ts.

import { readFileSync } from 'node:fs';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { resourcePath } from '../paths.ts';

/** A set of valid 8-digit NCM codes with the version that names it in messages. */
export interface NcmTable {
  /** e.g. `RFB 2016-08-01` (shipped) or the imported file's own date/ato. */
  readonly versao: string;
  readonly origem: 'embarcada' | 'importada';
  readonly size: number;
  has(code: string): boolean;
}

/** The MOC allows NCM `00` for items that are not goods (services); it is not a code of the table. */
export const NCM_NOT_GOODS = '00';

/**
 * A table with fewer codes than this is not a whole NCM table (the 2016 one has 10,072, the 2024 one
 * 10,934): taking a partial file as the table would make every other product "nonexistent".
 */
export const MIN_COMPLETE_NCM_TABLE = 5000;

const SHIPPED_FILE = resourcePath('tables', 'ncm', 'ncm-2016-08-01.json');
const CODE = /^\d{8}$/;

export function ncmTableOf(versao: string, origem: NcmTable['origem'], codes: Iterable<string>): NcmTable {
  const set = new Set(codes);
  return Object.freeze({ versao, origem, size: set.size, has: (code: string) => set.has(code) });
}

let shipped: NcmTable | undefined;

/** Read and checked on first use: most processes never look an NCM up. */
export function shippedNcmTable(): NcmTable {
  if (shipped !== undefined) return shipped;
  const raw = JSON.parse(readFileSync(SHIPPED_FILE, 'utf8')) as { versao?: unknown; codigos?: unknown };
  // A corrupt resource must fail loudly rather than make every NCM look nonexistent (or valid).
  if (
    typeof raw.versao !== 'string' ||
    !Array.isArray(raw.codigos) ||
    raw.codigos.length < MIN_COMPLETE_NCM_TABLE ||
    !raw.codigos.every((c) => typeof c === 'string' && CODE.test(c))
  ) {
    throw new Error(`${SHIPPED_FILE}: not an NCM table ({versao, codigos: ["8 digits", ...]})`);
  }
  shipped = ncmTableOf(raw.versao, 'embarcada', raw.codigos as string[]);
  return shipped;
}

let published: NcmTable | undefined;

/**
 * The table the service uses now, made known to the embedded sandbox authority, which runs in the same
 * process and, like SEFAZ, knows the current table. Set by ncm-store.ts whenever it loads or imports one.
 */
export function publishNcmTable(table: NcmTable): void {
  published = table;
}

/** The table the sandbox authority checks rule 778 against: the one the service published, else the shipped one. */
export function authorityNcmTable(): NcmTable {
  return published ?? shippedNcmTable();
}

/** How to bring a newer table, said wherever an NCM is refused. */
export const NCM_IMPORT_HINT =
  'import a newer NCM table (POST /v1/reference/ncm with the Siscomex JSON, or `npm run cli -- ncm-import <file>`)';

/** The fault of an item's NCM, or undefined when the code exists (or is `00`, an item that is not goods). */
export function ncmFault(code: string, table: NcmTable): string | undefined {
  if (code === NCM_NOT_GOODS || table.has(code)) return undefined;
  if (!CODE.test(code)) return 'must have 8 digits (or 00 for services)';
  return `NCM ${code} is not in the NCM table in use (${table.versao}); check the code or ${NCM_IMPORT_HINT} (SEFAZ rejects it with cStat 778)`;
}

export const NCM_REJECTION = { cStat: '778', xMotivo: 'Rejeicao: Informado NCM inexistente' } as const;

/** An official Siscomex NCM export, read: its codes and the version it calls itself. */
export interface ParsedNcmFile {
  versao: string;
  ato: string | null;
  codes: string[];
  /** Codes whose Data_Fim is before the import day: left out of the table. */
  expired: number;
}

function parseBrDate(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text.trim());
  return m === null ? null : `${m[3]}-${m[2]}-${m[1]}`;
}

/**
 * Reads the Siscomex "Tabela NCM vigente" JSON (`{Data_Ultima_Atualizacao_NCM, Ato, Nomenclaturas:
 * [{Codigo: "0101.21.00", Descricao, Data_Inicio, Data_Fim, ...}]}`). Every faulty entry is reported at once,
 * by its index. Chapters and positions (fewer than 8 digits) are the tree above the codes and are skipped.
 */
export function parseSiscomexNcm(
  text: string,
  today: string,
): { ok: true; file: ParsedNcmFile } | { ok: false; errors: ErrorDetail[] } {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return { ok: false, errors: [{ field: 'body', error: 'not JSON (expected the Siscomex NCM table)' }] };
  }
  if (
    typeof raw !== 'object' ||
    raw === null ||
    !Array.isArray((raw as { Nomenclaturas?: unknown }).Nomenclaturas)
  ) {
    return {
      ok: false,
      errors: [{ field: 'Nomenclaturas', error: 'required: the list of the Siscomex NCM table' }],
    };
  }
  const file = raw as { Data_Ultima_Atualizacao_NCM?: unknown; Ato?: unknown; Nomenclaturas: unknown[] };
  const errors: ErrorDetail[] = [];
  const codes = new Set<string>();
  let expired = 0;
  file.Nomenclaturas.forEach((entry, i) => {
    const codigo = (entry as { Codigo?: unknown } | null)?.Codigo;
    const digits = typeof codigo === 'string' ? codigo.trim().replace(/\./g, '') : '';
    if (!/^\d{2,8}$/.test(digits)) {
      errors.push({ field: `Nomenclaturas[${i}].Codigo`, error: 'required: an NCM code such as 0101.21.00' });
      return;
    }
    if (digits.length !== 8) return;
    const fim = (entry as { Data_Fim?: unknown }).Data_Fim;
    const end = parseBrDate(fim);
    if (fim !== undefined && fim !== null && fim !== '' && end === null) {
      errors.push({ field: `Nomenclaturas[${i}].Data_Fim`, error: 'must be a date dd/mm/aaaa' });
      return;
    }
    if (end !== null && end < today) {
      expired++;
      return;
    }
    codes.add(digits);
  });
  if (errors.length === 0 && codes.size < MIN_COMPLETE_NCM_TABLE) {
    errors.push({
      field: 'Nomenclaturas',
      error: `only ${codes.size} codes in force: a whole NCM table has about 10,000 (at least ${MIN_COMPLETE_NCM_TABLE} are required)`,
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  const date =
    typeof file.Data_Ultima_Atualizacao_NCM === 'string' ? file.Data_Ultima_Atualizacao_NCM.trim() : '';
  const ato = typeof file.Ato === 'string' && file.Ato.trim() !== '' ? file.Ato.trim() : null;
  return {
    ok: true,
    file: {
      versao: `Siscomex ${date === '' ? today : date}`.slice(0, 120),
      ato,
      codes: [...codes].sort(),
      expired,
    },
  };
}
