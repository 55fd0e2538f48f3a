import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import { UFS } from '../../src-shared/uf.ts';
import { cMunMatchesUf, findMunicipio, findMunicipioByName } from './ibge.ts';

// The repository sits at <x>/main and the read-only reference data at <x>/shared.
const SHARED = new URL('../../../shared/reference/', import.meta.url);
const RESOURCE = new URL('../../resources/ibge/municipios.json', import.meta.url);

interface CmunVector {
  cMun: string;
  municipio: string;
  /** Empty in most vectors of ibge-cmun.json (the annex only names the UF on its first row). */
  UF: string;
}

const cmunVectors = JSON.parse(readFileSync(new URL('test-vectors/ibge-cmun.json', SHARED), 'utf8')) as {
  crossCheck: { kelvins: number; onlyInKelvins: string[] };
  exceptions: CmunVector[];
  normal: CmunVector[];
};

/** Rows of the source CSV (no quoted fields; checked by scripts/derive-ibge.mjs). */
function sourceRows(): { cMun: string; nome: string; codigoUf: string }[] {
  const text = readFileSync(new URL('tables/ibge/municipios.csv', SHARED), 'utf8').replace(/^\uFEFF/, '');
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line !== '');
  const columns = (header ?? '').split(',');
  const col = (name: string): number => columns.indexOf(name);
  return rows.map((row) => {
    const cells = row.split(',');
    return {
      cMun: cells[col('codigo_ibge')] ?? '',
      nome: cells[col('nome')] ?? '',
      codigoUf: cells[col('codigo_uf')] ?? '',
    };
  });
}

describe('findMunicipio', () => {
  it('finds São Paulo/SP and Brasília/DF', () => {
    expect(findMunicipio('3550308')).toEqual({ cMun: '3550308', xMun: 'São Paulo', uf: 'SP' });
    expect(findMunicipio('5300108')).toEqual({ cMun: '5300108', xMun: 'Brasília', uf: 'DF' });
    expect(findMunicipio('3304557')).toEqual({ cMun: '3304557', xMun: 'Rio de Janeiro', uf: 'RJ' });
  });

  it('finds the municipality installed after the official annex date', () => {
    expect(cmunVectors.crossCheck.onlyInKelvins).toEqual(['5101837 Boa Esperança do Norte']);
    expect(findMunicipio('5101837')).toEqual({ cMun: '5101837', xMun: 'Boa Esperança do Norte', uf: 'MT' });
  });

  it('returns the same frozen object on repeated lookups (table loaded once)', () => {
    const a = findMunicipio('3550308');
    expect(findMunicipio('3550308')).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it('returns undefined for unknown or malformed codes', () => {
    expect(findMunicipio('3550309')).toBeUndefined();
    expect(findMunicipio('9999999')).toBeUndefined();
    expect(findMunicipio('0000000')).toBeUndefined();
    expect(findMunicipio('355030')).toBeUndefined();
    expect(findMunicipio('35503080')).toBeUndefined();
    expect(findMunicipio(' 3550308')).toBeUndefined();
    expect(findMunicipio('constructor')).toBeUndefined();
    expect(findMunicipio('')).toBeUndefined();
  });

  describe('vectors of shared/reference/test-vectors/ibge-cmun.json', () => {
    it.each(cmunVectors.normal.map((v) => [v.cMun, v.municipio, v.UF] as const))(
      'ordinary code %s (%s)',
      (cMun, municipio, uf) => {
        const m = findMunicipio(cMun);
        expect(m?.xMun).toBe(municipio);
        if (uf !== '') expect(m?.uf).toBe(uf);
      },
    );

    // Nine official codes break the IBGE check-digit rule; a lookup table must still know them.
    it.each(cmunVectors.exceptions.map((v) => [v.cMun, v.municipio] as const))(
      'check-digit exception %s (%s) is present',
      (cMun, municipio) => {
        expect(findMunicipio(cMun)?.xMun).toBe(municipio);
      },
    );
  });

  it('holds exactly the rows of the source CSV', () => {
    const rows = sourceRows();
    expect(rows).toHaveLength(cmunVectors.crossCheck.kelvins);
    const resource = JSON.parse(readFileSync(RESOURCE, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(resource)).toHaveLength(rows.length);
    for (const row of rows) {
      const m = findMunicipio(row.cMun);
      expect(m, row.cMun).toBeDefined();
      expect(m?.xMun).toBe(row.nome);
      expect(UFS.find((u) => u.sigla === m?.uf)?.cUF).toBe(Number(row.codigoUf));
    }
  });

  it('covers all 27 UFs', () => {
    const resource = JSON.parse(readFileSync(RESOURCE, 'utf8')) as Record<string, [string, string]>;
    expect(new Set(Object.values(resource).map(([, uf]) => uf)).size).toBe(27);
  });
});

describe('cMunMatchesUf', () => {
  it('compares the first two digits with the cUF', () => {
    expect(cMunMatchesUf('3550308', 'SP')).toBe(true);
    expect(cMunMatchesUf('5300108', 'DF')).toBe(true);
    expect(cMunMatchesUf('1100015', 'RO')).toBe(true);
    expect(cMunMatchesUf('3550308', 'RJ')).toBe(false);
    expect(cMunMatchesUf('5300108', 'GO')).toBe(false);
  });

  it('is structural only (does not require the municipality to exist)', () => {
    expect(cMunMatchesUf('3599999', 'SP')).toBe(true);
  });

  it('rejects malformed codes, unknown UFs and the foreign-address pair', () => {
    expect(cMunMatchesUf('355030', 'SP')).toBe(false);
    expect(cMunMatchesUf('35503080', 'SP')).toBe(false);
    expect(cMunMatchesUf('35A0308', 'SP')).toBe(false);
    expect(cMunMatchesUf('3550308', 'sp')).toBe(false);
    expect(cMunMatchesUf('3550308', 'XX')).toBe(false);
    expect(cMunMatchesUf('9999999', 'EX')).toBe(false);
  });

  it('holds for every municipality in the table', () => {
    for (const row of sourceRows()) {
      const m = findMunicipio(row.cMun);
      expect(m && cMunMatchesUf(m.cMun, m.uf), row.cMun).toBe(true);
    }
  });
});

describe('findMunicipioByName', () => {
  it('finds the city by name and UF, without regard to accents, case or hyphens', () => {
    expect(findMunicipioByName('SAO PAULO', 'sp').found?.cMun).toBe('3550308');
    expect(findMunicipioByName('são paulo', 'SP').found?.cMun).toBe('3550308');
    expect(findMunicipioByName("Alta Floresta D'Oeste", 'RO').found?.cMun).toBe('1100015');
    expect(findMunicipioByName('alta floresta doeste', 'RO').found?.cMun).toBe('1100015');
    expect(findMunicipioByName('Embu-Guaçu', 'SP').found?.xMun).toBe(findMunicipio('3515103')?.xMun);
    expect(findMunicipioByName('embu guacu', 'SP').found?.cMun).toBe('3515103');
  });

  it('says unknown for a city not in that UF, ambiguous for a name shared by states when no UF is given', () => {
    expect(findMunicipioByName('Sao Paolo', 'SP')).toEqual({ found: undefined, reason: 'unknown' });
    expect(findMunicipioByName('Campinas', 'RJ')).toEqual({ found: undefined, reason: 'unknown' });
    const shared = findMunicipioByName('Bom Jesus', undefined);
    expect(shared.found).toBeUndefined();
    if (shared.found === undefined && shared.reason === 'ambiguous') {
      expect(shared.candidates.map((m) => m.uf).sort()).toEqual(['PB', 'PI', 'RN', 'RS', 'SC']);
    } else expect.unreachable('Bom Jesus is the name of five cities');
    expect(findMunicipioByName('Bom Jesus', 'PI').found?.uf).toBe('PI');
  });
});
