// IBGE municipality lookups (cMun -> name and UF) for validating the cMun/xMun/UF triples of NF-e
// addresses; data in resources/ibge/municipios.json (derived, see resources/ibge/PROVENANCE.md).

import { readFileSync } from 'node:fs';
import { isUf, ufBySigla, type UfSigla } from '../../src-shared/uf.ts';
import { resourcePath } from '../paths.ts';

export interface Municipio {
  /** 7-digit IBGE code as written in `cMun`/`cMunFG`. */
  readonly cMun: string;
  /** Name as in the source table (for `xMun`). */
  readonly xMun: string;
  readonly uf: UfSigla;
}

const MUNICIPIOS_FILE = resourcePath('ibge', 'municipios.json');

const CMUN_SHAPE = /^[0-9]{7}$/;

let table: ReadonlyMap<string, Municipio> | undefined;

/** Reads and checks the JSON on first use only: most processes never need the ~180 kB table. */
function municipios(): ReadonlyMap<string, Municipio> {
  if (table !== undefined) return table;
  const raw: unknown = JSON.parse(readFileSync(MUNICIPIOS_FILE, 'utf8'));
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error(`${MUNICIPIOS_FILE}: expected a JSON object`);
  }
  const map = new Map<string, Municipio>();
  for (const [cMun, value] of Object.entries(raw)) {
    // A corrupt resource must fail loudly rather than make every address look invalid (or valid).
    if (
      !CMUN_SHAPE.test(cMun) ||
      !Array.isArray(value) ||
      value.length !== 2 ||
      typeof value[0] !== 'string' ||
      value[0] === '' ||
      !isUf(value[1]) ||
      !cMunMatchesUf(cMun, value[1])
    ) {
      throw new Error(`${MUNICIPIOS_FILE}: bad entry ${JSON.stringify(cMun)}: ${JSON.stringify(value)}`);
    }
    map.set(cMun, Object.freeze({ cMun, xMun: value[0], uf: value[1] }));
  }
  table = map;
  return map;
}

/** The municipality with this 7-digit IBGE code, or undefined (also for malformed codes). */
export function findMunicipio(cMun: string): Municipio | undefined {
  if (!CMUN_SHAPE.test(cMun)) return undefined;
  return municipios().get(cMun);
}

/**
 * Whether a 7-digit cMun belongs, by its first two digits (the IBGE cUF), to the given UF. Structural only:
 * it does not check that the municipality exists (use findMunicipio). False for malformed codes, unknown
 * UFs and the foreign-address pair 9999999/EX, which NF-e handles separately.
 */
export function cMunMatchesUf(cMun: string, uf: string): boolean {
  const found = ufBySigla(uf);
  return found !== undefined && CMUN_SHAPE.test(cMun) && cMun.slice(0, 2) === String(found.cUF);
}

/** A city name folded for comparison: no accents, no case, no apostrophes, hyphens and dots as spaces. */
export function foldCityName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`´]/g, '')
    .replace(/[-.]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

let byName: ReadonlyMap<string, readonly Municipio[]> | undefined;

function municipiosByName(): ReadonlyMap<string, readonly Municipio[]> {
  if (byName !== undefined) return byName;
  const map = new Map<string, Municipio[]>();
  for (const m of municipios().values()) {
    const key = foldCityName(m.xMun);
    const list = map.get(key);
    if (list === undefined) map.set(key, [m]);
    else list.push(m);
  }
  byName = map;
  return map;
}

export type CityLookup =
  | { found: Municipio }
  | { found: undefined; reason: 'unknown' }
  | { found: undefined; reason: 'ambiguous'; candidates: readonly Municipio[] };

/**
 * The municipality named `xMun` (accent- and case-insensitive), in `uf` when given. Several cities share a
 * name across states (there are five "Bom Jesus"), so without a UF a shared name is ambiguous.
 */
export function findMunicipioByName(xMun: string, uf: string | undefined): CityLookup {
  const all = municipiosByName().get(foldCityName(xMun)) ?? [];
  const matches = uf === undefined ? all : all.filter((m) => m.uf === uf.toUpperCase());
  const [first] = matches;
  if (first === undefined) return { found: undefined, reason: 'unknown' };
  if (matches.length > 1) return { found: undefined, reason: 'ambiguous', candidates: matches };
  return { found: first };
}
