// Brazilian taxpayer ids (CNPJ for companies, CPF for people): normalisation, check-digit validation and
// display formatting, shared by the main process and the renderer so both accept exactly the same ids.

/** Separators people type or paste around ids ("12.345.678/0001-95", "123.456.789-09", stray spaces). */
const SEPARATORS = /[./\-\s]/g;

/**
 * CNPJ as stored in NF-e/NFC-e XML (PL_010 `TCnpj`): since July 2026 the Receita Federal also issues
 * alphanumeric CNPJs (IN RFB 2.229/2024, NT COCAD/SUARA/RFB 49/2024) whose 12 base positions
 * (8 root + 4 branch) may hold A-Z; the two check digits stay numeric. Classic all-digit CNPJs remain valid.
 */
const CNPJ_SHAPE = /^[0-9A-Z]{12}[0-9]{2}$/;
const CNPJ_BASE_SHAPE = /^[0-9A-Z]{12}$/;
const CPF_SHAPE = /^[0-9]{11}$/;

/** Strips `.`, `/`, `-` and whitespace and upper-cases, so `12.abc.345/01de-35` becomes `12ABC34501DE35`. */
export function normalizeCnpj(input: string): string {
  return input.replace(SEPARATORS, '').toUpperCase();
}

/**
 * One modulo-11 check digit over `values`. Weights run 2..9 from the rightmost position and restart at 2
 * (so DV1 over 12 positions uses 5,4,3,2,9,8,7,6,5,4,3,2 left to right); remainder 0 or 1 gives 0,
 * otherwise 11 - remainder.
 */
function cnpjDigit(values: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[values.length - 1 - i] ?? 0;
    sum += value * (2 + (i % 8));
  }
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/**
 * The two check digits (DV) of a CNPJ base (8-character root + 4-character branch), as a 2-character
 * string. Each character counts as its ASCII code - 48 (RFB rule for the alphanumeric CNPJ): digits keep
 * their value and letters become A=17 ... Z=42. Separators are ignored and letters upper-cased first.
 * @throws RangeError when the base is not 12 characters of [0-9A-Z] after normalisation.
 */
export function cnpjCheckDigits(base12: string): string {
  const base = normalizeCnpj(base12);
  if (!CNPJ_BASE_SHAPE.test(base)) {
    throw new RangeError(`CNPJ base must be 12 characters [0-9A-Z], got ${JSON.stringify(base12)}`);
  }
  const values = Array.from(base, (ch) => ch.charCodeAt(0) - 48);
  const dv1 = cnpjDigit(values);
  const dv2 = cnpjDigit([...values, dv1]);
  return `${dv1}${dv2}`;
}

/** Repeated-character ids are never issued, yet some pass the modulo-11 test (00000000000000 has DV 00). */
function allSameCharacter(s: string): boolean {
  return s.length > 0 && [...s].every((ch) => ch === s[0]);
}

/**
 * Accepts a classic numeric or an alphanumeric CNPJ, formatted or not, in any letter case.
 * Rejects wrong lengths, characters outside [0-9A-Z], non-numeric check positions, repeated-character
 * ids and wrong check digits.
 */
export function isValidCnpj(input: string): boolean {
  const cnpj = normalizeCnpj(input);
  if (!CNPJ_SHAPE.test(cnpj) || allSameCharacter(cnpj)) return false;
  return cnpjCheckDigits(cnpj.slice(0, 12)) === cnpj.slice(12);
}

/**
 * Display form `12.ABC.345/01DE-35`. Does not check the DVs (so stored ids can still be shown);
 * @throws RangeError when the input is not 14 characters of [0-9A-Z] after normalisation.
 */
export function formatCnpj(cnpj: string): string {
  const n = normalizeCnpj(cnpj);
  if (!/^[0-9A-Z]{14}$/.test(n)) {
    throw new RangeError(`CNPJ must be 14 characters [0-9A-Z], got ${JSON.stringify(cnpj)}`);
  }
  return `${n.slice(0, 2)}.${n.slice(2, 5)}.${n.slice(5, 8)}/${n.slice(8, 12)}-${n.slice(12)}`;
}

/** Strips `.`, `-`, `/` and whitespace; a CPF has no letters so nothing else changes. */
export function normalizeCpf(input: string): string {
  return input.replace(SEPARATORS, '');
}

/**
 * CPF check digits: DV1 weights 10..2 over the 9 base digits, DV2 weights 11..2 over base + DV1;
 * remainder (mod 11) 0 or 1 gives 0, otherwise 11 - remainder.
 */
function cpfDigit(digits: readonly number[]): number {
  const firstWeight = digits.length + 1;
  let sum = 0;
  digits.forEach((d, i) => {
    sum += d * (firstWeight - i);
  });
  const remainder = sum % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

/** Accepts an 11-digit CPF, formatted or not; rejects wrong lengths, repeated digits and wrong DVs. */
export function isValidCpf(input: string): boolean {
  const cpf = normalizeCpf(input);
  if (!CPF_SHAPE.test(cpf) || allSameCharacter(cpf)) return false;
  const digits = Array.from(cpf.slice(0, 9), Number);
  const dv1 = cpfDigit(digits);
  const dv2 = cpfDigit([...digits, dv1]);
  return cpf.slice(9) === `${dv1}${dv2}`;
}

/**
 * Display form `123.456.789-09`. Does not check the DVs;
 * @throws RangeError when the input is not 11 digits after normalisation.
 */
export function formatCpf(cpf: string): string {
  const n = normalizeCpf(cpf);
  if (!CPF_SHAPE.test(n)) {
    throw new RangeError(`CPF must be 11 digits, got ${JSON.stringify(cpf)}`);
  }
  return `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6, 9)}-${n.slice(9)}`;
}
