// Shared pieces of the scripts that derive resources/endpoints/*.json from the reference tables: command-line
// handling, the UF and environment lists, ACBr's ini reader and the write-or-check step.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `[--check] [<reference dir>] [<output json>]`, with defaults relative to the repository root. */
export function deriveArgs(defaultOutput) {
  const args = process.argv.slice(2);
  const positional = args.filter((a) => a !== '--check');
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  return {
    check: args.includes('--check'),
    refDir: resolve(positional[0] ?? resolve(repoRoot, '../shared/reference/webservices')),
    outFile: resolve(positional[1] ?? resolve(repoRoot, defaultOutput)),
  };
}

// The 27 UFs (IBGE).
export const UFS = [
  'AC',
  'AL',
  'AM',
  'AP',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MG',
  'MS',
  'MT',
  'PA',
  'PB',
  'PE',
  'PI',
  'PR',
  'RJ',
  'RN',
  'RO',
  'RR',
  'RS',
  'SC',
  'SE',
  'SP',
  'TO',
];

// tpAmb (MOC: 1 = produção, 2 = homologação) -> the element names of sped-nfe and the section suffix of ACBr.
export const AMBIENTES = [
  { tpAmb: '1', sped: 'producao', acbr: 'P' },
  { tpAmb: '2', sped: 'homologacao', acbr: 'H' },
];

/**
 * ACBr's ini (Latin-1): sections of `key=value`; a section's `Usar=<other>` inherits the keys it lacks.
 * Keys compare case-insensitively, as ACBr reads them.
 */
export function readIni(file) {
  const sections = new Map();
  let current = null;
  for (const line of readFileSync(file, 'latin1').split(/\r?\n/)) {
    const t = line.trim();
    if (t === '' || t.startsWith(';')) continue;
    const header = t.match(/^\[(.+)\]$/);
    if (header) {
      current = new Map();
      sections.set(header[1], current);
      continue;
    }
    const eq = t.indexOf('=');
    if (current !== null && eq > 0) current.set(t.slice(0, eq).trim().toLowerCase(), t.slice(eq + 1).trim());
  }
  const lookup = (section, key, seen = new Set()) => {
    const s = sections.get(section);
    if (s === undefined || seen.has(section)) return undefined;
    seen.add(section);
    return s.get(key.toLowerCase()) ?? (s.has('usar') ? lookup(s.get('usar'), key, seen) : undefined);
  };
  const usar = (section) => sections.get(section)?.get('usar');
  return { lookup, usar };
}

/** Writes `json` to `outFile`, or with `check` exits 1 when the file differs from it. */
export function writeOrCheck(outFile, json, check, summary) {
  if (check) {
    let current = '';
    try {
      current = readFileSync(outFile, 'utf8');
    } catch {
      // reported below as a difference
    }
    if (current !== json) {
      console.error(`${outFile} differs from a fresh derivation; rerun without --check`);
      process.exit(1);
    }
    console.error(`${outFile} is up to date`);
  } else {
    mkdirSync(dirname(outFile), { recursive: true });
    writeFileSync(outFile, json);
    console.error(`wrote ${summary} to ${outFile}`);
  }
}
