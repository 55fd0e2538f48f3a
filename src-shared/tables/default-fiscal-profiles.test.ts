// The default profile of every CRT in every UF is a profile the API itself would accept.
import { describe, expect, it } from 'vitest';
import { fiscalProfileCreateSchema } from '../contracts/catalog.ts';
import { UFS } from '../uf.ts';
import { defaultFiscalProfile, regimeOfCrt } from './default-fiscal-profiles.ts';
import { ICMS_INTERNAL_RATE } from './icms-internal-rates.ts';

describe('default fiscal profiles', () => {
  it('validate with the fiscal profile schema for every CRT and UF, unchanged by parsing', () => {
    for (const crt of [1, 2, 3, 4]) {
      for (const { sigla } of UFS) {
        const profile = defaultFiscalProfile(crt, sigla);
        const parsed = fiscalProfileCreateSchema.safeParse(profile);
        expect(parsed.error).toBeUndefined();
        expect(parsed.data).toEqual(profile);
      }
    }
  });

  it('use CSOSN for Simples Nacional and MEI and CST 00 at the UF rate otherwise', () => {
    expect(regimeOfCrt(1)).toBe('simples');
    expect(regimeOfCrt(4)).toBe('simples');
    expect(defaultFiscalProfile(4, 'BA').taxes.ICMS).toEqual({ orig: 0, CSOSN: '102' });
    expect(defaultFiscalProfile(2, 'BA').taxes.ICMS).toEqual({
      orig: 0,
      CST: '00',
      modBC: 3,
      pICMS: '20.50',
    });
    expect(defaultFiscalProfile(2, 'BA').taxes.PIS).toEqual({ CST: '49' });
    expect(defaultFiscalProfile(2, 'BA').taxes.IBSCBS).toBeUndefined();
    const normal = defaultFiscalProfile(3, 'SP');
    expect(normal.taxes.ICMS.pICMS).toBe('18.00');
    expect(normal.taxes.PIS).toEqual({ CST: '01', pPIS: '1.65' });
    expect(normal.taxes.COFINS).toEqual({ CST: '01', pCOFINS: '7.60' });
    expect(normal.taxes.IBSCBS).toEqual({ CST: '000', cClassTrib: '000001' });
    expect(normal.name).toMatch(/não cumulativos/);
  });

  it('has one internal rate for each of the 27 UFs, as 2-decimal text between 7 and 25 %', () => {
    expect(Object.keys(ICMS_INTERNAL_RATE).sort()).toEqual(UFS.map((u) => u.sigla).sort());
    for (const rate of Object.values(ICMS_INTERNAL_RATE)) {
      expect(rate).toMatch(/^\d{2}\.\d{2}$/);
      expect(Number(rate)).toBeGreaterThanOrEqual(7);
      expect(Number(rate)).toBeLessThanOrEqual(25);
    }
  });

  it('refuses a UF it has no rate for instead of guessing one', () => {
    expect(() => defaultFiscalProfile(3, 'XX')).toThrow(/UF 'XX'/);
    expect(defaultFiscalProfile(1, 'XX').taxes.ICMS.CSOSN).toBe('102');
  });
});
