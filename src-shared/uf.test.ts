import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { UFS, isUf, ufByCode, ufBySigla, type UfSigla } from './uf.ts';

// The repository sits at <x>/main and the read-only reference data at <x>/shared.
const IBGE_DIR = new URL('../../shared/reference/tables/ibge/', import.meta.url);

/** The reference CSVs have no quoted fields (checked by scripts/derive-ibge.mjs); estados.csv starts with a BOM. */
function readCsv(name: string): Record<string, string>[] {
  const text = readFileSync(new URL(name, IBGE_DIR), 'utf8').replace(/^\uFEFF/, '');
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line !== '');
  const columns = (header ?? '').split(',');
  return rows.map((row) => {
    const cells = row.split(',');
    return Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? '']));
  });
}

/** UTC offset such as "GMT-03:00" of a zone at a given instant. */
function offsetAt(timeZone: string, instant: Date): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(
    instant,
  );
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? '';
}

const estados = readCsv('estados.csv');

describe('UFS table', () => {
  it('has the 27 UFs with unique siglas and codes, in ascending cUF order', () => {
    expect(UFS).toHaveLength(27);
    expect(new Set(UFS.map((u) => u.sigla)).size).toBe(27);
    expect(new Set(UFS.map((u) => u.cUF)).size).toBe(27);
    const codes = UFS.map((u) => u.cUF);
    expect(codes).toEqual([...codes].sort((a, b) => a - b));
  });

  it('matches IBGE codes, siglas and names of shared/reference/tables/ibge/estados.csv', () => {
    expect(estados).toHaveLength(27);
    for (const row of estados) {
      const uf = ufBySigla(row['uf'] ?? '');
      expect(uf, row['uf']).toBeDefined();
      expect(uf?.cUF).toBe(Number(row['codigo_uf']));
      expect(uf?.nome).toBe(row['nome']);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(UFS)).toBe(true);
    expect(Object.isFrozen(UFS[0])).toBe(true);
  });
});

describe('time zones', () => {
  // Brazil has had no daylight saving time since 2019, so one instant gives the standing offsets.
  const instant = new Date('2025-06-15T12:00:00Z');
  const expectedOffset: Record<UfSigla, string> = {
    AC: 'GMT-05:00',
    AM: 'GMT-04:00',
    RO: 'GMT-04:00',
    RR: 'GMT-04:00',
    MT: 'GMT-04:00',
    MS: 'GMT-04:00',
    PA: 'GMT-03:00',
    AP: 'GMT-03:00',
    TO: 'GMT-03:00',
    MA: 'GMT-03:00',
    PI: 'GMT-03:00',
    CE: 'GMT-03:00',
    RN: 'GMT-03:00',
    PB: 'GMT-03:00',
    PE: 'GMT-03:00',
    AL: 'GMT-03:00',
    SE: 'GMT-03:00',
    BA: 'GMT-03:00',
    MG: 'GMT-03:00',
    ES: 'GMT-03:00',
    RJ: 'GMT-03:00',
    SP: 'GMT-03:00',
    PR: 'GMT-03:00',
    SC: 'GMT-03:00',
    RS: 'GMT-03:00',
    GO: 'GMT-03:00',
    DF: 'GMT-03:00',
  };

  it.each(UFS.map((u) => [u.sigla, u.timeZone] as const))('%s uses %s, known to Intl', (sigla, timeZone) => {
    expect(offsetAt(timeZone, instant)).toBe(expectedOffset[sigla]);
  });

  it('agrees with the zone of each capital in shared/reference/tables/ibge/municipios.csv', () => {
    const capitals = readCsv('municipios.csv').filter((m) => m['capital'] === '1');
    expect(capitals).toHaveLength(27);
    for (const capital of capitals) {
      const uf = ufByCode(capital['codigo_uf'] ?? '');
      expect(uf, capital['nome']).toBeDefined();
      // Compare offsets, not names: that table uses America/Porto_Velho for Cuiabá and Campo Grande.
      expect(offsetAt(uf?.timeZone ?? '', instant), capital['nome']).toBe(
        offsetAt(capital['fuso_horario'] ?? '', instant),
      );
    }
  });
});

describe('lookups', () => {
  it('ufBySigla', () => {
    expect(ufBySigla('SP')).toEqual({
      sigla: 'SP',
      cUF: 35,
      nome: 'São Paulo',
      timeZone: 'America/Sao_Paulo',
    });
    expect(ufBySigla('DF')?.cUF).toBe(53);
    expect(ufBySigla('sp')).toBeUndefined();
    expect(ufBySigla('EX')).toBeUndefined();
    expect(ufBySigla('constructor')).toBeUndefined();
  });

  it('ufByCode accepts numbers and 2-digit strings', () => {
    expect(ufByCode(35)?.sigla).toBe('SP');
    expect(ufByCode('35')?.sigla).toBe('SP');
    expect(ufByCode('11')?.sigla).toBe('RO');
    expect(ufByCode(53)?.sigla).toBe('DF');
    expect(ufByCode(30)).toBeUndefined();
    expect(ufByCode(99)).toBeUndefined();
    expect(ufByCode('035')).toBeUndefined();
    expect(ufByCode(' 35')).toBeUndefined();
    expect(ufByCode('3')).toBeUndefined();
    expect(ufByCode(35.5)).toBeUndefined();
  });

  it('every UF round-trips sigla <-> code', () => {
    for (const uf of UFS) {
      expect(ufByCode(uf.cUF)).toBe(uf);
      expect(ufBySigla(uf.sigla)).toBe(uf);
    }
  });

  it('isUf narrows only the 27 upper-case siglas', () => {
    const s: string = 'MG';
    if (isUf(s)) {
      const narrowed: UfSigla = s;
      expect(narrowed).toBe('MG');
    }
    expect(isUf('MG')).toBe(true);
    expect(isUf('mg')).toBe(false);
    expect(isUf('EX')).toBe(false);
    expect(isUf('__proto__')).toBe(false);
    expect(isUf(35)).toBe(false);
    expect(isUf(undefined)).toBe(false);
  });
});
