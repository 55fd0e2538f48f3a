// Inscrição Estadual (IE) of the 27 UFs: length, fixed prefix and check digits as each state publishes them
// (SINTEGRA "Conferência de Inscrições Estaduais"), shared by the service, the sandbox authority and the UI.
import type { UfSigla } from './uf.ts';

/** How a remainder becomes a check digit. Most states share `standard`; the odd ones are named by state. */
type DigitRule =
  /** r = sum mod 11; r 0 or 1 gives 0, otherwise 11 - r (the same as "11 - r, 10 and 11 give 0"). */
  | 'standard'
  /** RO and PE's old 14-digit IE: 11 - r, and 10 or 11 give 0 or 1 (subtract 10). */
  | 'minus10'
  /** AL, RN: (sum × 10) mod 11, 10 gives 0. */
  | 'times10'
  /** SP: the rightmost digit of r = sum mod 11 (10 gives 0). */
  | 'rightmost'
  /** BA modulo 10: 10 - (sum mod 10), 10 gives 0. */
  | 'mod10'
  /** RR: sum mod 9. */
  | 'mod9'
  /** AM: below 11 the digit is 11 - sum, otherwise `standard`. */
  | 'am';

function digitOf(sum: number, rule: DigitRule): number {
  const r = sum % 11;
  switch (rule) {
    case 'standard':
      return r < 2 ? 0 : 11 - r;
    case 'minus10':
      return 11 - r >= 10 ? 11 - r - 10 : 11 - r;
    case 'times10':
      return ((sum * 10) % 11) % 10;
    case 'rightmost':
      return r % 10;
    case 'mod10':
      return (10 - (sum % 10)) % 10;
    case 'mod9':
      return sum % 9;
    case 'am':
      return sum < 11 ? 11 - sum : r < 2 ? 0 : 11 - r;
  }
}

const weighted = (digits: readonly number[], weights: readonly number[]): number =>
  weights.reduce((sum, w, i) => sum + w * (digits[i] ?? 0), 0);

/** Weights 9, 8, …, 2 over eight digits (or n+1 … 2 over n): the shape most states use. */
const down = (from: number): number[] => Array.from({ length: from - 1 }, (_, i) => from - i);

/**
 * One IE format: its length, an optional fixed prefix, and its check digits, each computed over the digits
 * before it (positions 0…at-1) with `weights`, in order — unless the format has its own `check`.
 */
interface Format {
  length: number;
  prefix?: RegExp;
  dvs?: ReadonlyArray<{ weights: readonly number[]; rule: DigitRule }>;
  check?: (d: readonly number[]) => boolean;
}

/** Check digits at the end, each over every digit before it. */
function trailingDvsMatch(d: readonly number[], dvs: NonNullable<Format['dvs']>): boolean {
  const start = d.length - dvs.length;
  return dvs.every(({ weights, rule }, k) => digitOf(weighted(d, weights), rule) === d[start + k]);
}

const standard9: Format = { length: 9, dvs: [{ weights: down(9), rule: 'standard' }] };

/** BA: two DVs at the end, the last one computed first; modulo 10 or 11 by the first (or second) digit. */
function bahia(length: 8 | 9): Format {
  return {
    length,
    check: (d) => {
      const base = d.slice(0, length - 2);
      const lead = d[length === 8 ? 0 : 1] ?? 0;
      const rule: DigitRule = [6, 7, 9].includes(lead) ? 'standard' : 'mod10';
      const dv2 = digitOf(weighted(base, down(length - 1)), rule);
      const dv1 = digitOf(weighted([...base, dv2], down(length)), rule);
      return d[length - 2] === dv1 && d[length - 1] === dv2;
    },
  };
}

/** MG: DV1 by the "sum of the products' digits" over the IE with a 0 after the municipality, DV2 modulo 11. */
const minasGerais: Format = {
  length: 13,
  check: (d) => {
    const padded = [...d.slice(0, 3), 0, ...d.slice(3, 11)];
    const text = padded.map((v, i) => String(v * (i % 2 === 0 ? 1 : 2))).join('');
    const sum = [...text].reduce((s, ch) => s + Number(ch), 0);
    const dv1 = (10 - (sum % 10)) % 10;
    const dv2 = digitOf(
      weighted([...d.slice(0, 11), dv1], [3, 2, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2]),
      'standard',
    );
    return d[11] === dv1 && d[12] === dv2;
  },
};

/** AP: p and d by the range of the number; 10 gives 0 and 11 gives d. */
const amapa: Format = {
  length: 9,
  prefix: /^03/,
  check: (d) => {
    const n = Number(d.slice(0, 8).join(''));
    const [p, dd] = n >= 3000001 && n <= 3017000 ? [5, 0] : n >= 3017001 && n <= 3019022 ? [9, 1] : [0, 0];
    const dv = 11 - ((p + weighted(d, down(9))) % 11);
    return d[8] === (dv === 10 ? 0 : dv === 11 ? dd : dv);
  },
};

/** GO: remainder 1 gives 1 for the numbers 10103105…10119997, else 0. */
const goias: Format = {
  length: 9,
  prefix: /^(1[015]|2[0-9])/,
  check: (d) => {
    const n = Number(d.slice(0, 8).join(''));
    const r = weighted(d, down(9)) % 11;
    const dv = r === 0 ? 0 : r === 1 ? (n >= 10103105 && n <= 10119997 ? 1 : 0) : 11 - r;
    // SINTEGRA: 11094402 is valid with either 0 or 1.
    return d[8] === dv || (n === 11094402 && (d[8] === 0 || d[8] === 1));
  },
};

/** SP (comércio e indústria): DV1 at the 9th position over the first 8, DV2 at the 12th over the first 11. */
const saoPaulo: Format = {
  length: 12,
  check: (d) =>
    digitOf(weighted(d, [1, 3, 4, 5, 6, 7, 8, 10]), 'rightmost') === d[8] &&
    digitOf(weighted(d, [3, 2, 10, 9, 8, 7, 6, 5, 4, 3, 2]), 'rightmost') === d[11],
};

/** RO before 2000 (9 digits): 3 of the municipality, 5 of the company and the DV over those 5. */
const rondoniaOld: Format = {
  length: 9,
  check: (d) => digitOf(weighted(d.slice(3, 8), [6, 5, 4, 3, 2]), 'minus10') === d[8],
};

/** TO before 2002 (11 digits): positions 3-4 are the company type (01, 02, 03, 99) and left out of the DV. */
const tocantinsOld: Format = {
  length: 11,
  check: (d) =>
    ['01', '02', '03', '99'].includes(`${d[2]}${d[3]}`) &&
    digitOf(weighted([...d.slice(0, 2), ...d.slice(4, 10)], down(9)), 'standard') === d[10],
};

/** AC and DF: 13 digits under the state's prefix, two mod-11 check digits over 11 and 12 positions. */
function thirteenDigits(prefix: RegExp): Format {
  return {
    length: 13,
    prefix,
    dvs: [
      { weights: [4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], rule: 'standard' },
      { weights: [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], rule: 'standard' },
    ],
  };
}

/** The formats each UF accepts (a UF with two lists the current one first). */
const FORMATS: Readonly<Record<UfSigla, readonly Format[]>> = {
  AC: [thirteenDigits(/^01/)],
  AL: [{ length: 9, prefix: /^24/, dvs: [{ weights: down(9), rule: 'times10' }] }],
  AP: [amapa],
  AM: [{ length: 9, dvs: [{ weights: down(9), rule: 'am' }] }],
  BA: [bahia(8), bahia(9)],
  CE: [standard9],
  DF: [thirteenDigits(/^07/)],
  ES: [standard9],
  GO: [goias],
  MA: [{ ...standard9, prefix: /^12/ }],
  // MT: SINTEGRA has shorter numbers completed with zeros on the left to 11 digits (see normalizeIe).
  MT: [{ length: 11, dvs: [{ weights: [3, 2, 9, 8, 7, 6, 5, 4, 3, 2], rule: 'standard' }] }],
  // MS: 28 from the start, 50 for registrations since 2021.
  MS: [{ ...standard9, prefix: /^(28|50)/ }],
  MG: [minasGerais],
  // PA: 15, and 75-79 for the special registrations.
  PA: [{ ...standard9, prefix: /^(15|7[5-9])/ }],
  PB: [standard9],
  PR: [
    {
      length: 10,
      dvs: [
        { weights: [3, 2, 7, 6, 5, 4, 3, 2], rule: 'standard' },
        { weights: [4, 3, 2, 7, 6, 5, 4, 3, 2], rule: 'standard' },
      ],
    },
  ],
  PE: [
    {
      length: 9,
      dvs: [
        { weights: down(8), rule: 'standard' },
        { weights: down(9), rule: 'standard' },
      ],
    },
    // The 14-digit IE of before e-Fisco is still found on older registrations.
    { length: 14, dvs: [{ weights: [5, 4, 3, 2, 1, 9, 8, 7, 6, 5, 4, 3, 2], rule: 'minus10' }] },
  ],
  PI: [standard9],
  RJ: [{ length: 8, dvs: [{ weights: [2, 7, 6, 5, 4, 3, 2], rule: 'standard' }] }],
  RN: [
    { length: 9, prefix: /^20/, dvs: [{ weights: down(9), rule: 'times10' }] },
    { length: 10, prefix: /^20/, dvs: [{ weights: down(10), rule: 'times10' }] },
  ],
  RS: [{ length: 10, dvs: [{ weights: [2, 9, 8, 7, 6, 5, 4, 3, 2], rule: 'standard' }] }],
  RO: [
    { length: 14, dvs: [{ weights: [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], rule: 'minus10' }] },
    rondoniaOld,
  ],
  RR: [{ length: 9, prefix: /^24/, dvs: [{ weights: [1, 2, 3, 4, 5, 6, 7, 8], rule: 'mod9' }] }],
  SC: [standard9],
  SP: [saoPaulo],
  SE: [standard9],
  TO: [standard9, tocantinsOld],
};

/** The IE as the layout writes it: digits only (dots, dashes, slashes and spaces dropped), or `ISENTO`. */
export function normalizeIe(input: string): string {
  const s = input.trim().replace(/[./\-\s]/g, '');
  return s.toUpperCase() === 'ISENTO' ? 'ISENTO' : s;
}

/** MT's numbers are completed with zeros on the left to 11 digits before the check (SINTEGRA). */
function padFor(uf: UfSigla, digits: string): string {
  return uf === 'MT' && digits.length < 11 ? digits.padStart(11, '0') : digits;
}

/**
 * Why `ie` is not a valid IE of `uf` (digits only, after normalizeIe), or null when it is. `ISENTO` is not
 * an IE: the callers decide where it is allowed.
 */
export function ieProblem(uf: UfSigla, ie: string): string | null {
  const value = normalizeIe(ie);
  if (!/^\d{2,14}$/.test(value)) return 'must be 2 to 14 digits';
  const digits = padFor(uf, value);
  const formats = FORMATS[uf];
  const sameLength = formats.filter((f) => f.length === digits.length);
  if (sameLength.length === 0) {
    const lengths = [...new Set(formats.map((f) => f.length))].join(' or ');
    return `an IE of ${uf} has ${lengths} digits`;
  }
  const d = Array.from(digits, Number);
  const withPrefix = sameLength.filter((f) => f.prefix === undefined || f.prefix.test(digits));
  if (withPrefix.length === 0) return `not an IE of ${uf} (wrong leading digits)`;
  const ok = withPrefix.some((f) => (f.check ? f.check(d) : trailingDvsMatch(d, f.dvs ?? [])));
  return ok ? null : `check digits do not match an IE of ${uf}`;
}

export function isValidIe(uf: UfSigla, ie: string): boolean {
  return ieProblem(uf, ie) === null;
}
