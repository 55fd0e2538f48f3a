import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cnpjCheckDigits, isValidCnpj, isValidCpf } from '../../src-shared/tax-ids.ts';
import { UFS } from '../../src-shared/uf.ts';
import {
  AccessKeyError,
  accessKeyCheckDigit,
  buildAccessKey,
  dhEmiLocalDate,
  isForbiddenCNF,
  isValidAccessKey,
  parseAccessKey,
  randomCNF,
  type AccessKeyParts,
  type ModeloChave,
} from './access-key.ts';

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const repoRoot = new URL('../../', import.meta.url);
const vectorsPath = fileURLToPath(new URL('../shared/reference/test-vectors/access-keys.json', repoRoot));

interface KeyVector {
  key: string;
  weightedSum: number;
  remainder: number;
  computedDV: number;
  storedDV: number;
  fields: Record<'cUF' | 'AAMM' | 'CNPJ_CPF' | 'mod' | 'serie' | 'nNF' | 'tpEmis' | 'cNF' | 'cDV', string>;
}
const vectors = JSON.parse(readFileSync(vectorsPath, 'utf8')) as {
  valid: KeyVector[];
  invalidDV: KeyVector[];
};

/** Independent re-statement of the rule, for step-by-step checks and the property tests below. */
function weightedSum(s: string): number {
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += (s.charCodeAt(s.length - 1 - i) - 48) * (2 + (i % 8));
  return sum;
}

function cpfDigits(base9: string): string {
  const digit = (digits: number[]) => {
    const sum = digits.reduce((acc, d, i) => acc + d * (digits.length + 1 - i), 0);
    const r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const d = Array.from(base9, Number);
  const dv1 = digit(d);
  return `${dv1}${digit([...d, dv1])}`;
}

function partsOf(v: KeyVector): AccessKeyParts {
  return {
    cUF: Number(v.fields.cUF),
    aamm: v.fields.AAMM,
    cnpjCpf: v.fields.CNPJ_CPF,
    mod: Number(v.fields.mod) as ModeloChave,
    serie: Number(v.fields.serie),
    nNF: Number(v.fields.nNF),
    tpEmis: Number(v.fields.tpEmis),
    cNF: v.fields.cNF,
  };
}

function errorOf(run: () => unknown): AccessKeyError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AccessKeyError);
    return error as AccessKeyError;
  }
  throw new Error('expected AccessKeyError, nothing was thrown');
}

describe('access-keys.json vectors', () => {
  it.each(vectors.valid.map((v) => [v.key, v] as const))('valid %s', (key, v) => {
    expect(weightedSum(key.slice(0, 43))).toBe(v.weightedSum);
    expect(weightedSum(key.slice(0, 43)) % 11).toBe(v.remainder);
    expect(accessKeyCheckDigit(key.slice(0, 43))).toBe(v.computedDV);
    expect(isValidAccessKey(key)).toBe(true);

    const parsed = parseAccessKey(key);
    expect(parsed).toEqual({
      ok: true,
      fields: {
        chave: key,
        cUF: Number(v.fields.cUF),
        uf: UFS.find((u) => u.cUF === Number(v.fields.cUF))?.sigla,
        aamm: v.fields.AAMM,
        cnpjCpf: v.fields.CNPJ_CPF,
        mod: Number(v.fields.mod),
        serie: Number(v.fields.serie),
        nNF: Number(v.fields.nNF),
        tpEmis: Number(v.fields.tpEmis),
        cNF: v.fields.cNF,
        cDV: v.storedDV,
      },
    });

    // The builder is strict about the emitter, so only vectors with a real CNPJ/CPF can be rebuilt; the
    // unit-test keys of wmixvideo/nfe use placeholder ids (12345678901234) and must be refused.
    const id = v.fields.CNPJ_CPF;
    const realEmitter = isValidCnpj(id) || (id.startsWith('000') && isValidCpf(id.slice(3)));
    if (realEmitter) {
      expect(buildAccessKey(partsOf(v))).toEqual({ chave: key, cDV: v.storedDV });
    } else {
      expect(errorOf(() => buildAccessKey(partsOf(v))).details.map((d) => d.field)).toEqual(['cnpjCpf']);
    }
  });

  it('rebuilds at least the five vectors with real emitters', () => {
    const rebuilt = vectors.valid.filter((v) => {
      try {
        return buildAccessKey(partsOf(v)).chave === v.key;
      } catch {
        return false;
      }
    });
    expect(rebuilt.map((v) => v.fields.CNPJ_CPF)).toEqual([
      '06929383000163',
      '11028793000173',
      '58716523000119',
      '00822602000124',
      '79569018000169',
    ]);
  });

  it.each(vectors.invalidDV.map((v) => [v.key, v] as const))('wrong check digit %s', (key, v) => {
    expect(accessKeyCheckDigit(key.slice(0, 43))).toBe(v.computedDV);
    expect(v.computedDV).not.toBe(v.storedDV);
    expect(isValidAccessKey(key)).toBe(false);
    expect(parseAccessKey(key)).toEqual({
      ok: false,
      problems: [
        { field: 'cDV', error: `check digit is ${v.storedDV}, the first 43 positions give ${v.computedDV}` },
      ],
    });
  });
});

describe('alphanumeric CNPJ (NT Conjunta 2025.001)', () => {
  // Receita Federal's example CNPJ (test-vectors/cnpj.json). No published key holds letters, so the expected
  // DV was computed by hand: sum of (ASCII - 48) x weights 2..9 from the right = 872, 872 mod 11 = 3, DV 8.
  const parts: AccessKeyParts = {
    cUF: 35,
    aamm: '2607',
    cnpjCpf: '12.ABC.345/01DE-35',
    mod: 55,
    serie: 1,
    nNF: 1,
    tpEmis: 1,
    cNF: '48213907',
  };

  it('builds, checks and parses a key with letters in positions 7-18', () => {
    const key = buildAccessKey(parts);
    expect(key).toEqual({ chave: '35260712ABC34501DE35550010000000011482139078', cDV: 8 });
    expect(weightedSum(key.chave.slice(0, 43))).toBe(872);
    const parsed = parseAccessKey(key.chave);
    expect(parsed.ok && parsed.fields.cnpjCpf).toBe('12ABC34501DE35');
    expect(parsed.ok && parsed.fields.cDV).toBe(8);
  });

  it('takes the letter value as ASCII - 48 (A = 17), not A = 10 or A = 0', () => {
    const first43 = '35260712ABC34501DE3555001000000001148213907';
    const dvWith = (value: (ch: string) => number) => {
      let sum = 0;
      for (let i = 0; i < 43; i++) sum += value(first43[42 - i] ?? '0') * (2 + (i % 8));
      return sum % 11 < 2 ? 0 : 11 - (sum % 11);
    };
    const isDigit = (ch: string) => ch >= '0' && ch <= '9';
    expect(dvWith((ch) => (isDigit(ch) ? Number(ch) : ch.charCodeAt(0) - 55))).toBe(0);
    expect(dvWith((ch) => (isDigit(ch) ? Number(ch) : 0))).toBe(3);
    expect(accessKeyCheckDigit(first43)).toBe(8);
  });

  it('refuses letters outside positions 7-18 and lower-case letters', () => {
    expect(() => accessKeyCheckDigit('A5260712ABC34501DE3555001000000001148213907')).toThrow(RangeError);
    expect(() => accessKeyCheckDigit('35260712abc34501DE3555001000000001148213907')).toThrow(RangeError);
    expect(() => accessKeyCheckDigit('35260712ABC34501DE35550010000000011482139A7')).toThrow(RangeError);
    expect(isValidAccessKey('35260712abc34501DE35550010000000011482139078')).toBe(false);
  });
});

describe('buildAccessKey', () => {
  const base: AccessKeyParts = {
    cUF: 35,
    dhEmi: '2026-03-31T23:30:00-03:00',
    cnpjCpf: '33657677000156',
    mod: 65,
    serie: 7,
    nNF: 4521,
    tpEmis: 1,
    cNF: '48213907',
  };

  it('takes AAMM from the dhEmi text, not from UTC', () => {
    // 23:30 -03:00 on 31 March is already April in UTC; the authority compares AAMM with dhEmi as written.
    expect(buildAccessKey(base).chave.slice(2, 6)).toBe('2603');
    expect(buildAccessKey({ ...base, dhEmi: '2026-04-01T00:10:00-03:00' }).chave.slice(2, 6)).toBe('2604');
  });

  it('reads a Date in the local time of the UF capital', () => {
    const instant = new Date('2026-04-01T03:30:00Z'); // 00:30 in São Paulo, 23:30 (31 March) in Manaus
    expect(buildAccessKey({ ...base, dhEmi: instant }).chave.slice(0, 6)).toBe('352604');
    expect(buildAccessKey({ ...base, cUF: 13, dhEmi: instant }).chave.slice(0, 6)).toBe('132603');
  });

  it('accepts an explicit aamm instead of dhEmi', () => {
    const { dhEmi: _dhEmi, ...rest } = base;
    expect(buildAccessKey({ ...rest, aamm: '2603' })).toEqual(buildAccessKey(base));
  });

  it('pads a CPF emitter to 14 positions with zeros', () => {
    const cpf = `123456789${cpfDigits('123456789')}`;
    const key = buildAccessKey({ ...base, cnpjCpf: cpf, mod: 55 });
    expect(key.chave.slice(6, 20)).toBe(`000${cpf}`);
    expect(buildAccessKey({ ...base, cnpjCpf: `000${cpf}`, mod: 55 })).toEqual(key);
    expect(buildAccessKey({ ...base, cnpjCpf: '123.456.789-09', mod: 55 }).chave.slice(6, 20)).toBe(
      '00012345678909',
    );
  });

  it('writes serie with 3 digits and nNF with 9', () => {
    const key = buildAccessKey(base).chave;
    expect(key.slice(20, 22)).toBe('65');
    expect(key.slice(22, 25)).toBe('007');
    expect(key.slice(25, 34)).toBe('000004521');
    expect(key.slice(34, 35)).toBe('1');
    expect(key.slice(35, 43)).toBe('48213907');
  });

  it('reports every invalid part at once', () => {
    const error = errorOf(() =>
      buildAccessKey({
        cUF: 34,
        dhEmi: '2026-02-30T10:00:00-03:00',
        cnpjCpf: '33657677000157',
        mod: 58 as ModeloChave,
        serie: 1000,
        nNF: 0,
        tpEmis: 0,
        cNF: '1234567',
      }),
    );
    expect(error.details.map((d) => d.field)).toEqual([
      'cUF',
      'dhEmi',
      'cnpjCpf',
      'mod',
      'serie',
      'nNF',
      'tpEmis',
      'cNF',
    ]);
    expect(error.message).toMatch(/^invalid access key parts: cUF: not an IBGE UF code: 34; dhEmi: /);
  });

  it('requires exactly one of dhEmi and aamm, and a valid month', () => {
    const { dhEmi: _dhEmi, ...rest } = base;
    expect(errorOf(() => buildAccessKey(rest)).details).toEqual([
      { field: 'dhEmi', error: 'give exactly one of dhEmi and aamm' },
    ]);
    expect(errorOf(() => buildAccessKey({ ...base, aamm: '2603' })).details[0]?.field).toBe('dhEmi');
    expect(errorOf(() => buildAccessKey({ ...rest, aamm: '2613' })).details[0]?.field).toBe('aamm');
    expect(errorOf(() => buildAccessKey({ ...base, dhEmi: new Date(Number.NaN) })).details[0]?.field).toBe(
      'dhEmi',
    );
    expect(errorOf(() => buildAccessKey({ ...base, dhEmi: '2026-03-31' })).details[0]?.field).toBe('dhEmi');
  });

  it('refuses the cNF values the authority rejects (897)', () => {
    for (const cNF of ['00004521', '12345678', '90123456', '77777777']) {
      expect(errorOf(() => buildAccessKey({ ...base, cNF })).details.map((d) => d.field)).toEqual(['cNF']);
    }
  });
});

describe('parseAccessKey', () => {
  const good = '43180906929383000163550010000000261000010301';

  it('reports each broken field', () => {
    const broken = '99' + '1813' + '06929383000163' + '58' + '001' + '000000000' + '0' + '00001030' + '1';
    const parsed = parseAccessKey(broken);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems.map((p) => p.field)).toEqual([
      'cUF',
      'aamm',
      'mod',
      'nNF',
      'tpEmis',
      'cDV',
    ]);
  });

  it('rejects wrong lengths, spaces and stray characters', () => {
    expect(parseAccessKey(good.slice(1))).toEqual({
      ok: false,
      problems: [{ field: 'chave', error: 'must have 44 positions, got 43 positions' }],
    });
    expect(isValidAccessKey(`${good} `)).toBe(false);
    expect(isValidAccessKey(good.replace(/(.{4})/g, '$1 ').trim())).toBe(false);
    expect(isValidAccessKey(`${good.slice(0, 30)}X${good.slice(31)}`)).toBe(false);
    expect(isValidAccessKey(good)).toBe(true);
  });
});

describe('cNF', () => {
  // The 20 values of NT 2019.001 (rejeição 897), listed literally as an independent check of the derivation.
  const listed = [
    '00000000',
    '11111111',
    '22222222',
    '33333333',
    '44444444',
    '55555555',
    '66666666',
    '77777777',
    '88888888',
    '99999999',
    '12345678',
    '23456789',
    '34567890',
    '45678901',
    '56789012',
    '67890123',
    '78901234',
    '89012345',
    '90123456',
    '01234567',
  ];

  it('forbids exactly the listed values and nNF itself', () => {
    for (const cNF of listed) expect(isForbiddenCNF(cNF, 1)).toBe(true);
    expect(isForbiddenCNF('00004521', 4521)).toBe(true);
    expect(isForbiddenCNF('00004521', 4522)).toBe(false);
    expect(isForbiddenCNF('98765432', 1)).toBe(false);
    expect(isForbiddenCNF('12345679', 1)).toBe(false);
    // Neighbours of the listed values are fine: the rule is a closed list, not "looks sequential".
    for (const cNF of listed) {
      for (const near of [Number(cNF) - 1, Number(cNF) + 1]) {
        const text = String(near).padStart(8, '0');
        if (near >= 0 && near < 100_000_000 && !listed.includes(text)) {
          expect(isForbiddenCNF(text, 999_999_999)).toBe(false);
        }
      }
    }
  });

  it('randomCNF draws 8 digits that are never forbidden', () => {
    for (let i = 0; i < 200; i++) {
      const nNF = 1 + ((i * 7919) % 999);
      const cNF = randomCNF(nNF);
      expect(cNF).toMatch(/^[0-9]{8}$/);
      expect(isForbiddenCNF(cNF, nNF)).toBe(false);
    }
  });

  it('redraws when the source hits nNF or a listed value', () => {
    const draws = [0.00004521, 0.12345678, 0.5];
    const cNF = randomCNF(4521, () => draws.shift() ?? 0.9);
    expect(cNF).toBe('50000000');
    expect(draws).toEqual([]);
  });

  it('gives up on a broken source and refuses bad inputs', () => {
    expect(() => randomCNF(1, () => 0)).toThrow(/100 consecutive draws/);
    expect(() => randomCNF(1, () => 1)).toThrow(RangeError);
    expect(() => randomCNF(0)).toThrow(RangeError);
    expect(() => randomCNF(1_000_000_000)).toThrow(RangeError);
  });
});

describe('dhEmiLocalDate', () => {
  it('reads the date as written, whatever the offset', () => {
    expect(dhEmiLocalDate('2018-10-01T07:28:14-04:00')).toEqual({ year: 2018, month: 10, day: 1 });
    expect(dhEmiLocalDate('2024-02-29T23:59:59+12:00')).toEqual({ year: 2024, month: 2, day: 29 });
    expect(dhEmiLocalDate('2023-02-29T10:00:00-03:00')).toBeUndefined();
    expect(dhEmiLocalDate('2023-01-10T24:00:00-03:00')).toBeUndefined();
    expect(dhEmiLocalDate('2023-01-10 10:00:00')).toBeUndefined();
  });
});

// ---------------------------------------------------------------- properties

const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const cnpjArb = fc
  .stringMatching(/^[0-9A-Z]{12}$/)
  .map((base) => base + cnpjCheckDigits(base))
  .filter(isValidCnpj);
const numericCnpjArb = fc
  .stringMatching(/^[0-9]{12}$/)
  .map((base) => base + cnpjCheckDigits(base))
  .filter(isValidCnpj);
const cpfArb = fc
  .stringMatching(/^[0-9]{9}$/)
  .map((base) => base + cpfDigits(base))
  .filter(isValidCpf);

const partsArb = fc
  .record({
    cUF: fc.constantFrom(...UFS.map((u) => u.cUF)),
    yy: fc.integer({ min: 0, max: 99 }),
    mm: fc.integer({ min: 1, max: 12 }),
    cnpjCpf: fc.oneof(cnpjArb, numericCnpjArb, cpfArb),
    mod: fc.constantFrom<ModeloChave>(55, 65, 57, 67),
    serie: fc.integer({ min: 0, max: 999 }),
    nNF: fc.integer({ min: 1, max: 999_999_999 }),
    tpEmis: fc.integer({ min: 1, max: 9 }),
    cNF: fc.stringMatching(/^[0-9]{8}$/),
  })
  .filter((p) => !isForbiddenCNF(p.cNF, p.nNF))
  .map(({ yy, mm, ...rest }): AccessKeyParts => ({
    ...rest,
    aamm: `${String(yy).padStart(2, '0')}${String(mm).padStart(2, '0')}`,
  }));

describe('properties', () => {
  it('build -> parse round-trips every field', () => {
    fc.assert(
      fc.property(partsArb, (parts) => {
        const { chave, cDV } = buildAccessKey(parts);
        const parsed = parseAccessKey(chave);
        expect(parsed).toEqual({
          ok: true,
          fields: {
            chave,
            cUF: parts.cUF,
            uf: UFS.find((u) => u.cUF === parts.cUF)?.sigla,
            aamm: parts.aamm,
            cnpjCpf: parts.cnpjCpf.length === 11 ? `000${parts.cnpjCpf}` : parts.cnpjCpf,
            mod: parts.mod,
            serie: parts.serie,
            nNF: parts.nNF,
            tpEmis: parts.tpEmis,
            cNF: parts.cNF,
            cDV,
          },
        });
      }),
      { numRuns: 500 },
    );
  });

  // A single substitution at position p (weight w) moves the weighted sum by w x delta. Since 11 is prime and
  // w is 2..9, the remainder changes unless 11 divides delta, which digits (|delta| <= 9) never do but letters
  // can ('6' -> 'A' is 6 -> 17). And because remainders 0 and 1 both give DV 0, a change between those two
  // remainders is also invisible. So "any single change invalidates the DV" is NOT always true: it fails
  // exactly in these two cases, which this property pins down.
  it('a single substitution keeps the DV exactly when delta = 0 mod 11 or the remainder moves within {0, 1}', () => {
    const mutation = fc.tuple(partsArb, fc.integer({ min: 0, max: 42 }), fc.integer({ min: 0, max: 35 }));
    fc.assert(
      fc.property(mutation, ([parts, position, pick]) => {
        const { chave, cDV } = buildAccessKey(parts);
        const alphabet = position >= 6 && position <= 17 ? ALNUM : ALNUM.slice(0, 10);
        const original = chave[position] ?? '';
        const replacement = alphabet[pick % alphabet.length] ?? '0';
        fc.pre(replacement !== original);
        const mutated43 = chave.slice(0, position) + replacement + chave.slice(position + 1, 43);
        const delta = replacement.charCodeAt(0) - original.charCodeAt(0);
        const before = weightedSum(chave.slice(0, 43)) % 11;
        const after = weightedSum(mutated43) % 11;
        const undetectable = delta % 11 === 0 || (before < 2 && after < 2);
        expect(accessKeyCheckDigit(mutated43) === cDV).toBe(undetectable);
        if (alphabet.length === 10) expect(delta % 11).not.toBe(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('a changed check digit is always caught', () => {
    fc.assert(
      fc.property(partsArb, fc.integer({ min: 1, max: 9 }), (parts, shift) => {
        const { chave, cDV } = buildAccessKey(parts);
        expect(isValidAccessKey(chave.slice(0, 43) + String((cDV + shift) % 10))).toBe(false);
      }),
    );
  });

  it('the blind spots exist: examples of undetected single substitutions', () => {
    // Remainder 0 -> 1 (both DV 0): vector 43101012345678901234559999999999991999999980 has remainder 0.
    // Search the cNF positions (36-43) so the mutated key stays valid in every other respect.
    const zero = '4310101234567890123455999999999999199999998';
    expect(weightedSum(zero) % 11).toBe(0);
    let found: string | undefined;
    for (let p = 35; p < 43 && found === undefined; p++) {
      for (const d of '0123456789') {
        const m = zero.slice(0, p) + d + zero.slice(p + 1);
        if (m !== zero && weightedSum(m) % 11 === 1) {
          found = m;
          break;
        }
      }
    }
    expect(found).toBeDefined();
    expect(isValidAccessKey(`${zero}0`)).toBe(true);
    expect(isValidAccessKey(`${found ?? ''}0`)).toBe(true);
    // delta 11 in the alphanumeric CNPJ positions: '6' (6) and 'A' (17).
    const alpha = buildAccessKey({
      cUF: 35,
      aamm: '2607',
      cnpjCpf: '12ABC34501DE35',
      mod: 55,
      serie: 1,
      nNF: 1,
      tpEmis: 1,
      cNF: '48213907',
    }).chave;
    const swapped = alpha.slice(0, 8) + '6' + alpha.slice(9); // position 9: 'A' -> '6'
    expect(accessKeyCheckDigit(swapped.slice(0, 43))).toBe(accessKeyCheckDigit(alpha.slice(0, 43)));
  });
});
