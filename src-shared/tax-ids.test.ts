import { readFileSync } from 'node:fs';
import { describe, it, expect } from 'vitest';
import {
  cnpjCheckDigits,
  formatCnpj,
  formatCpf,
  isValidCnpj,
  isValidCpf,
  normalizeCnpj,
  normalizeCpf,
} from './tax-ids.ts';

// The repository sits at <x>/main and the read-only reference data at <x>/shared.
const CNPJ_VECTORS_URL = new URL('../../shared/reference/test-vectors/cnpj.json', import.meta.url);

interface CnpjVector {
  cnpj: string;
  formatted?: string;
  base12: string;
  /** The DV printed in the source document (for the negative vector this is the wrong one). */
  expectedDV: string;
  /** The DV recomputed by the compiler of the vector file. */
  computedDV: string;
  valid: boolean;
  note?: string;
}

const cnpjVectors = (JSON.parse(readFileSync(CNPJ_VECTORS_URL, 'utf8')) as { vectors: CnpjVector[] }).vectors;

describe('CNPJ reference vectors (shared/reference/test-vectors/cnpj.json)', () => {
  it('holds both positive and negative vectors', () => {
    expect(cnpjVectors.filter((v) => v.valid).length).toBeGreaterThan(0);
    expect(cnpjVectors.filter((v) => !v.valid).length).toBeGreaterThan(0);
  });

  for (const v of cnpjVectors) {
    describe(`${v.cnpj} (${v.valid ? 'valid' : 'invalid'})`, () => {
      it('is internally consistent (cnpj = base12 + printed DV; valid iff printed DV = computed DV)', () => {
        expect(v.cnpj).toBe(v.base12 + v.expectedDV);
        expect(v.valid).toBe(v.expectedDV === v.computedDV);
      });

      it('check digits of base12 equal computedDV', () => {
        expect(cnpjCheckDigits(v.base12)).toBe(v.computedDV);
      });

      it(`isValidCnpj is ${v.valid}`, () => {
        expect(isValidCnpj(v.cnpj)).toBe(v.valid);
        expect(isValidCnpj(formatCnpj(v.cnpj))).toBe(v.valid);
      });

      if (v.formatted !== undefined) {
        const formatted = v.formatted;
        it('formats as in the vector and normalises back', () => {
          expect(formatCnpj(v.cnpj)).toBe(formatted);
          expect(normalizeCnpj(formatted)).toBe(v.cnpj);
        });
      }
    });
  }
});

describe('normalizeCnpj', () => {
  it('strips dots, slash, dash and spaces and upper-cases', () => {
    expect(normalizeCnpj(' 12.abc.345/01de-35 ')).toBe('12ABC34501DE35');
    expect(normalizeCnpj('11 222 333 0001 81')).toBe('11222333000181');
  });
});

describe('cnpjCheckDigits', () => {
  it('computes classic numeric DVs', () => {
    expect(cnpjCheckDigits('112223330001')).toBe('81');
    expect(cnpjCheckDigits('11.222.333/0001')).toBe('81');
  });

  it('gives 0 when the remainder is 0 or 1 (both DVs 0 for 00.000.009/0001)', () => {
    expect(cnpjCheckDigits('000000090001')).toBe('00');
    expect(isValidCnpj('00000009000100')).toBe(true);
  });

  it('values letters as ASCII - 48 (A = 17), accepting lower case', () => {
    expect(cnpjCheckDigits('12ABC34501DE')).toBe('35');
    expect(cnpjCheckDigits('12abc34501de')).toBe('35');
    expect(cnpjCheckDigits('ABCDEFGHIJKL')).toBe('80');
    expect(cnpjCheckDigits('A1B2C3D4E5F6')).toBe('68');
  });

  it('throws on a base that is not 12 characters of [0-9A-Z]', () => {
    expect(() => cnpjCheckDigits('12345678901')).toThrow(RangeError);
    expect(() => cnpjCheckDigits('1234567890123')).toThrow(RangeError);
    expect(() => cnpjCheckDigits('12ABC34501D_')).toThrow(RangeError);
    expect(() => cnpjCheckDigits('12ÁBC34501DE')).toThrow(RangeError);
  });
});

describe('isValidCnpj', () => {
  it('accepts classic CNPJs formatted or not', () => {
    expect(isValidCnpj('11222333000181')).toBe(true);
    expect(isValidCnpj('11.222.333/0001-81')).toBe(true);
  });

  it('accepts the alphanumeric CNPJ in any case and format', () => {
    expect(isValidCnpj('12ABC34501DE35')).toBe(true);
    expect(isValidCnpj('12.abc.345/01de-35')).toBe(true);
    expect(isValidCnpj('ABCDEFGHIJKL80')).toBe(true);
    expect(isValidCnpj('A1.B2C.3D4/E5F6-68')).toBe(true);
  });

  it('rejects wrong check digits', () => {
    expect(isValidCnpj('11222333000182')).toBe(false);
    expect(isValidCnpj('11222333000191')).toBe(false);
    expect(isValidCnpj('12ABC34501DE36')).toBe(false);
    expect(isValidCnpj('12ABC34501DF35')).toBe(false);
  });

  it('rejects repeated-character CNPJs even when the modulo-11 test passes', () => {
    expect(cnpjCheckDigits('000000000000')).toBe('00');
    for (const d of '0123456789') {
      expect(isValidCnpj(d.repeat(14))).toBe(false);
    }
    expect(isValidCnpj('00.000.000/0000-00')).toBe(false);
  });

  it('rejects wrong lengths, letters in the DV positions and foreign characters', () => {
    expect(isValidCnpj('')).toBe(false);
    expect(isValidCnpj('1122233300018')).toBe(false);
    expect(isValidCnpj('112223330001810')).toBe(false);
    expect(isValidCnpj('12ABC34501DE3A')).toBe(false);
    expect(isValidCnpj('12ABC34501DEA5')).toBe(false);
    expect(isValidCnpj('12ABC34501D_35')).toBe(false);
    expect(isValidCnpj('11222333000181\u0000')).toBe(false);
    expect(isValidCnpj('1122233300018١')).toBe(false); // Arabic-Indic digit one
  });
});

describe('formatCnpj', () => {
  it('formats numeric and alphanumeric CNPJs', () => {
    expect(formatCnpj('11222333000181')).toBe('11.222.333/0001-81');
    expect(formatCnpj('12abc34501de35')).toBe('12.ABC.345/01DE-35');
    expect(formatCnpj('12.ABC.345/01DE-35')).toBe('12.ABC.345/01DE-35');
  });

  it('throws on wrong length or characters', () => {
    expect(() => formatCnpj('1122233300018')).toThrow(RangeError);
    expect(() => formatCnpj('12ABC34501DE3_')).toThrow(RangeError);
  });
});

// CPF cases computed independently (modulo 11, weights 10..2 then 11..2).
describe('CPF', () => {
  it('normalizes', () => {
    expect(normalizeCpf(' 529.982.247-25 ')).toBe('52998224725');
  });

  it.each(['52998224725', '529.982.247-25', '11144477735', '111.444.777-35', '12345678909', '93541134780'])(
    'accepts %s',
    (cpf) => {
      expect(isValidCpf(cpf)).toBe(true);
    },
  );

  it('gives DV 0 when the remainder is 0 or 1 (000.000.037-00, 000.000.001-91)', () => {
    expect(isValidCpf('00000003700')).toBe(true);
    expect(isValidCpf('00000000191')).toBe(true);
  });

  it('rejects wrong check digits', () => {
    expect(isValidCpf('52998224724')).toBe(false);
    expect(isValidCpf('52998224735')).toBe(false);
    expect(isValidCpf('12345678900')).toBe(false);
  });

  it('rejects repeated digits (00000000000 passes modulo 11 but is not a CPF)', () => {
    for (const d of '0123456789') {
      expect(isValidCpf(d.repeat(11))).toBe(false);
    }
  });

  it('rejects wrong lengths and letters', () => {
    expect(isValidCpf('')).toBe(false);
    expect(isValidCpf('5299822472')).toBe(false);
    expect(isValidCpf('529982247250')).toBe(false);
    expect(isValidCpf('5299822472A')).toBe(false);
    // a 14-character CNPJ is not a CPF
    expect(isValidCpf('11222333000181')).toBe(false);
  });

  it('formats', () => {
    expect(formatCpf('52998224725')).toBe('529.982.247-25');
    expect(formatCpf('529.982.247-25')).toBe('529.982.247-25');
    expect(() => formatCpf('5299822472')).toThrow(RangeError);
    expect(() => formatCpf('5299822472A')).toThrow(RangeError);
  });
});
