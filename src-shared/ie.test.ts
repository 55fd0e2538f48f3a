import { describe, expect, it } from 'vitest';
import { ieProblem, isValidIe, normalizeIe } from './ie.ts';
import { UFS, type UfSigla } from './uf.ts';

/**
 * Known-valid IEs per UF: the worked examples of SINTEGRA's "Conferência de Inscrições Estaduais" pages,
 * and for AM and MS registrations listed as valid by the caelum-stella validator tests. Each is also
 * checked with its last digit changed, which must fail.
 */
const VALID: ReadonlyArray<[UfSigla, string]> = [
  ['AC', '01.004.823/001-12'],
  ['AL', '24000004-8'],
  ['AP', '030123459'],
  ['AM', '04.193.980-8'],
  ['AM', '04.345.678-2'],
  ['BA', '123456-63'],
  ['BA', '612345-57'],
  ['BA', '1000003-06'],
  ['CE', '06000001-5'],
  ['DF', '07300001001-09'],
  ['ES', '99999999-0'],
  ['GO', '10.987.654-7'],
  ['MA', '12000038-5'],
  ['MT', '0013000001-9'],
  ['MS', '28.303.759-8'],
  ['MS', '28.322.235-2'],
  ['MG', '062.307.904/0081'],
  ['PA', '15-999999-5'],
  ['PB', '06000001-5'],
  ['PR', '123.45678-50'],
  ['PE', '0321418-40'],
  ['PE', '18.1.001.0000004-9'],
  ['PI', '012345679'],
  ['RJ', '99.999.99-3'],
  ['RN', '20.040.040-1'],
  ['RN', '20.0.040.040-0'],
  ['RS', '224/3658792'],
  ['RO', '0000000062521-3'],
  ['RO', '101.62521-3'],
  ['RR', '24006628-1'],
  ['SC', '251.040.852'],
  ['SP', '110.042.490.114'],
  ['SE', '27123456-3'],
  ['TO', '29.01.022783-6'],
  ['TO', '290122783'],
];

/** The same IE with its last digit moved by one: always a wrong check digit. */
const lastDigitChanged = (ie: string) => {
  const digits = normalizeIe(ie);
  return digits.slice(0, -1) + String((Number(digits.slice(-1)) + 1) % 10);
};

describe('IE check digits (SINTEGRA)', () => {
  it('covers every UF with at least one known-valid IE', () => {
    const covered = new Set(VALID.map(([uf]) => uf));
    expect(UFS.map((u) => u.sigla).filter((uf) => !covered.has(uf))).toEqual([]);
  });

  it.each(VALID)('%s %s is valid', (uf, ie) => {
    expect(ieProblem(uf, ie)).toBeNull();
    expect(isValidIe(uf, ie)).toBe(true);
  });

  it.each(VALID)('%s %s with the last digit changed is refused', (uf, ie) => {
    expect(ieProblem(uf, lastDigitChanged(ie))).toMatch(/check digits/);
  });

  it('refuses an IE of another state (length, leading digits, digits)', () => {
    expect(ieProblem('RJ', '110042490114')).toBe('an IE of RJ has 8 digits');
    expect(ieProblem('SP', '99999993')).toBe('an IE of SP has 12 digits');
    expect(ieProblem('AL', '250000048')).toBe('not an IE of AL (wrong leading digits)');
    expect(ieProblem('SP', 'ISENTO')).toBe('must be 2 to 14 digits');
    expect(ieProblem('SP', '11004249011A')).toBe('must be 2 to 14 digits');
  });

  it('completes a short MT number with zeros on the left, as SINTEGRA does', () => {
    expect(isValidIe('MT', '130000019')).toBe(true);
  });

  it('GO accepts 11094402 with either check digit (SINTEGRA exception)', () => {
    expect(isValidIe('GO', '110944020')).toBe(true);
    expect(isValidIe('GO', '110944021')).toBe(true);
  });

  it('normalizes punctuation and ISENTO', () => {
    expect(normalizeIe(' 110.042.490-114 ')).toBe('110042490114');
    expect(normalizeIe('isento')).toBe('ISENTO');
  });
});
