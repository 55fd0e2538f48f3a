// Chave de acesso (44 positions) of NF-e, NFC-e, CT-e and CT-e OS: build, check digit, parse, and the random
// cNF that makes keys unguessable. Layout: MOC 7.0 Visão Geral, "Chave de Acesso" (the CT-e MOC uses the same).

import { randomInt } from 'node:crypto';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { isValidCnpj, isValidCpf, normalizeCnpj } from '../../src-shared/tax-ids.ts';
import { ufByCode, type UfSigla } from '../../src-shared/uf.ts';
import { formatDateTimeTz } from './datetime.ts';

/**
 * Models whose key has this layout: 55 NF-e, 65 NFC-e, 57 CT-e, 67 CT-e OS. (MDF-e 58 shares it but is not
 * issued here, so a 58 key is reported as unsupported rather than silently accepted.)
 */
export type ModeloChave = 55 | 65 | 57 | 67;
const MODELOS: ReadonlySet<number> = new Set<ModeloChave>([55, 65, 57, 67]);

export interface AccessKeyParts {
  /** IBGE code of the emitter's UF (ide/cUF). */
  cUF: number;
  /**
   * Emission instant, for the key's AAMM. A string is dhEmi exactly as written in the XML
   * (`AAAA-MM-DDThh:mm:ss±hh:mm`) and its own date is used, since the authority compares AAMM with that text.
   * A Date is converted to the local time of the UF's capital (src-shared/uf.ts timeZone); emitters in a
   * municipality with another offset (western AM, Fernando de Noronha) should pass their dhEmi string.
   * Give exactly one of dhEmi and aamm.
   */
  dhEmi?: Date | string;
  /** The key's AAMM (year and month of dhEmi, 4 digits) when the caller already has it. */
  aamm?: string;
  /**
   * Emitter CNPJ (14 positions, alphanumeric allowed since NT Conjunta 2025.001) or CPF: 11 digits, which the
   * key stores left-padded with zeros to 14 (MOC 7.0, "CNPJ ou CPF do emitente"). Separators are ignored.
   */
  cnpjCpf: string;
  mod: ModeloChave;
  /** 0 to 999, written with 3 digits. */
  serie: number;
  /** 1 to 999 999 999, written with 9 digits. */
  nNF: number;
  /** ide/tpEmis, one digit. */
  tpEmis: number;
  /** 8 digits; see randomCNF. */
  cNF: string;
}

export interface AccessKey {
  chave: string;
  cDV: number;
}

export interface AccessKeyFields {
  chave: string;
  cUF: number;
  uf: UfSigla;
  aamm: string;
  /** 14 positions as stored (a CPF keeps its three leading zeros). */
  cnpjCpf: string;
  mod: ModeloChave;
  serie: number;
  nNF: number;
  tpEmis: number;
  cNF: string;
  cDV: number;
}

export type ParsedAccessKey = { ok: true; fields: AccessKeyFields } | { ok: false; problems: ErrorDetail[] };

/** Invalid AccessKeyParts; `details` lists every problem, one per field, like the /v1 error body. */
export class AccessKeyError extends RangeError {
  readonly details: ErrorDetail[];

  constructor(details: ErrorDetail[]) {
    super(`invalid access key parts: ${details.map((d) => `${d.field}: ${d.error}`).join('; ')}`);
    this.name = 'AccessKeyError';
    this.details = details;
  }
}

// Positions 7-18 hold the CNPJ root and branch, which may be letters from July 2026 (NT Conjunta 2025.001,
// and PL_010 leiauteNFe_v4.00.xsd TChNFe: [0-9]{6}[A-Z0-9]{12}[0-9]{26}); everything else stays numeric.
const FIRST_43 = /^[0-9]{6}[0-9A-Z]{12}[0-9]{25}$/;
const CHAVE = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/;

/**
 * cDV of the first 43 positions: modulo 11 with weights 2, 3, ..., 9 from the rightmost position, restarting
 * at 2; remainder 0 or 1 gives 0, otherwise 11 - remainder (MOC 7.0, "Chave de Acesso"). Each character counts as its
 * ASCII code - 48, which leaves digits unchanged and makes A = 17 ... Z = 42 (NT Conjunta 2025.001, the rule of
 * the alphanumeric CNPJ).
 * @throws RangeError unless the input is 43 positions shaped like a key (letters only in positions 7-18).
 */
export function accessKeyCheckDigit(first43: string): number {
  if (!FIRST_43.test(first43)) {
    throw new RangeError(
      `expected the first 43 positions of an access key (digits; A-Z allowed in 7-18), got ${JSON.stringify(first43)}`,
    );
  }
  const remainder = weightedSum(first43) % 11;
  return remainder < 2 ? 0 : 11 - remainder;
}

function weightedSum(s: string): number {
  let sum = 0;
  for (let i = 0; i < s.length; i++) {
    sum += (s.charCodeAt(s.length - 1 - i) - 48) * (2 + (i % 8));
  }
  return sum;
}

// NT 2019.001 (rejeição 897 "Código numérico em formato inválido"): cNF may not equal nNF nor be one of 20
// listed values, which are exactly the ten repeated digits and the ten 8-digit windows of the cycle 0123456789.
const DIGITS = '0123456789';
const WEAK_CNF: ReadonlySet<string> = new Set([
  ...Array.from(DIGITS, (d) => d.repeat(8)),
  ...Array.from(DIGITS, (_, i) => (DIGITS + DIGITS).slice(i, i + 8)),
]);

/** Whether the authority rejects this cNF for this nNF (897): equal to nNF, repeated or sequential digits. */
export function isForbiddenCNF(cNF: string, nNF: number): boolean {
  return WEAK_CNF.has(cNF) || Number(cNF) === nNF;
}

/**
 * A fresh cNF: 8 random digits that the authority accepts for this nNF (see isForbiddenCNF). The MOC calls
 * cNF a random number "para evitar acessos indevidos", so the default source is node:crypto; `random` (a
 * Math.random-like function returning [0, 1)) exists for deterministic tests.
 * @throws RangeError for an nNF outside 1..999 999 999 or a `random` returning values outside [0, 1);
 *   Error when 100 draws in a row were all forbidden (only a broken random source does that).
 */
export function randomCNF(nNF: number, random?: () => number): string {
  if (!isIntIn(nNF, 1, 999_999_999)) throw new RangeError(`nNF must be 1 to 999999999, got ${nNF}`);
  for (let attempt = 0; attempt < 100; attempt++) {
    let n: number;
    if (random === undefined) {
      n = randomInt(0, 100_000_000);
    } else {
      const r = random();
      if (!(r >= 0 && r < 1)) throw new RangeError(`random() must return a number in [0, 1), got ${r}`);
      n = Math.floor(r * 100_000_000);
    }
    const cNF = String(n).padStart(8, '0');
    if (!isForbiddenCNF(cNF, nNF)) return cNF;
  }
  throw new Error('randomCNF: 100 consecutive draws were forbidden cNF values; the random source is broken');
}

/**
 * The local calendar date written in a dhEmi (`AAAA-MM-DDThh:mm:ss±hh:mm`, leiauteNFe TDateTimeUTC; fractions
 * and `Z` tolerated), or undefined when the text is not such a date-time. The date is read from the text, not
 * converted: dhEmi already carries the emitter's local time and offset.
 */
export function dhEmiLocalDate(dhEmi: string): { year: number; month: number; day: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(dhEmi);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (
    probe.getUTCFullYear() !== year ||
    probe.getUTCMonth() !== month - 1 ||
    probe.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return undefined;
  }
  return { year, month, day };
}

function aammOf(dhEmi: Date | string, timeZone: string | undefined): string | undefined {
  if (typeof dhEmi === 'string') {
    const date = dhEmiLocalDate(dhEmi);
    return date && `${String(date.year % 100).padStart(2, '0')}${String(date.month).padStart(2, '0')}`;
  }
  if (Number.isNaN(dhEmi.getTime()) || timeZone === undefined) return undefined;
  // datetime.ts's cached formatter and last result (ide formats the same dhEmi): a new Intl.DateTimeFormat
  // per note here cost more than the rest of the key. `YYYY-MM-...`: the year's last two digits, the month.
  const text = formatDateTimeTz(dhEmi, timeZone);
  const dash = text.indexOf('-', 1);
  return `${text.slice(dash - 2, dash)}${text.slice(dash + 1, dash + 3)}`;
}

/** The 14 key positions of an emitter CNPJ or CPF, or undefined when it is neither (check digits included). */
function emitterId(input: string): string | undefined {
  const id = normalizeCnpj(input);
  if (id.length === 11) return isValidCpf(id) ? `000${id}` : undefined;
  if (id.length !== 14) return undefined;
  if (isValidCnpj(id)) return id;
  // A CPF already padded to 14, as read back from a key or ide.
  return id.startsWith('000') && isValidCpf(id.slice(3)) ? id : undefined;
}

const AAMM = /^[0-9]{2}(0[1-9]|1[0-2])$/;

function isIntIn(n: unknown, min: number, max: number): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;
}

/**
 * Builds the key and its cDV from the ide fields (MOC 7.0: cUF 2, AAMM 4, CNPJ/CPF 14, mod 2, serie 3, nNF 9,
 * tpEmis 1, cNF 8, cDV 1). Strict: validates every part, including the emitter's check digits and the cNF rule
 * of NT 2019.001, and reports all problems at once.
 * @throws AccessKeyError listing each invalid part.
 */
export function buildAccessKey(parts: AccessKeyParts): AccessKey {
  const problems: ErrorDetail[] = [];
  const add = (field: string, error: string) => problems.push({ field, error });
  const uf = isIntIn(parts.cUF, 10, 99) ? ufByCode(parts.cUF) : undefined;
  if (uf === undefined) add('cUF', `not an IBGE UF code: ${String(parts.cUF)}`);

  let aamm: string | undefined;
  if ((parts.dhEmi === undefined) === (parts.aamm === undefined)) {
    add('dhEmi', 'give exactly one of dhEmi and aamm');
  } else if (parts.aamm !== undefined) {
    if (AAMM.test(parts.aamm)) {
      aamm = parts.aamm;
    } else {
      add('aamm', `must be YYMM with month 01-12, got ${JSON.stringify(parts.aamm)}`);
    }
  } else if (parts.dhEmi !== undefined) {
    aamm = aammOf(parts.dhEmi, uf?.timeZone);
    // A Date needs the UF's zone; with an unknown cUF the cUF problem already says what is wrong.
    if (aamm === undefined && (typeof parts.dhEmi === 'string' || uf !== undefined)) {
      add('dhEmi', `must be a valid Date or AAAA-MM-DDThh:mm:ss±hh:mm, got ${JSON.stringify(parts.dhEmi)}`);
    }
  }

  const cnpjCpf = typeof parts.cnpjCpf === 'string' ? emitterId(parts.cnpjCpf) : undefined;
  if (cnpjCpf === undefined) {
    add(
      'cnpjCpf',
      `must be a valid CNPJ (14 positions) or CPF (11 digits), got ${JSON.stringify(parts.cnpjCpf)}`,
    );
  }
  if (!MODELOS.has(parts.mod)) add('mod', `must be 55, 65, 57 or 67, got ${parts.mod}`);
  if (!isIntIn(parts.serie, 0, 999)) add('serie', `must be 0 to 999, got ${parts.serie}`);
  const nNFOk = isIntIn(parts.nNF, 1, 999_999_999);
  if (!nNFOk) add('nNF', `must be 1 to 999999999, got ${parts.nNF}`);
  if (!isIntIn(parts.tpEmis, 1, 9)) add('tpEmis', `must be 1 to 9, got ${parts.tpEmis}`);
  if (typeof parts.cNF !== 'string' || !/^[0-9]{8}$/.test(parts.cNF)) {
    add('cNF', `must be 8 digits, got ${JSON.stringify(parts.cNF)}`);
  } else if (nNFOk && isForbiddenCNF(parts.cNF, parts.nNF)) {
    add('cNF', `${parts.cNF} is rejected by the authority (897): equal to nNF or repeated/sequential digits`);
  }
  if (problems.length > 0 || uf === undefined || aamm === undefined || cnpjCpf === undefined) {
    throw new AccessKeyError(problems);
  }

  const first43 =
    String(uf.cUF) +
    aamm +
    cnpjCpf +
    String(parts.mod) +
    String(parts.serie).padStart(3, '0') +
    String(parts.nNF).padStart(9, '0') +
    String(parts.tpEmis) +
    parts.cNF;
  const cDV = accessKeyCheckDigit(first43);
  return { chave: `${first43}${cDV}`, cDV };
}

/**
 * Splits a key into its fields and checks it: shape, known UF and model, month 01-12, nNF and tpEmis not zero,
 * and the check digit. Strict about form: no spaces or separators (strip the groups of four a DANFE prints
 * before calling). The emitter's own CNPJ/CPF check digits are not checked: keys identify documents that
 * exist, and the authority validates the emitter when it authorizes. Every problem is reported under its field.
 */
export function parseAccessKey(key: string): ParsedAccessKey {
  const chave = key;
  if (typeof chave !== 'string' || chave.length !== 44) {
    const got = typeof chave === 'string' ? `${chave.length} positions` : typeof chave;
    return { ok: false, problems: [{ field: 'chave', error: `must have 44 positions, got ${got}` }] };
  }
  const problems: ErrorDetail[] = [];
  const slice = (from: number, length: number) => chave.slice(from, from + length);
  const digits = (field: string, value: string) => {
    const ok = /^[0-9]+$/.test(value);
    if (!ok) problems.push({ field, error: `must be digits, got ${JSON.stringify(value)}` });
    return ok;
  };

  const cUFText = slice(0, 2);
  const uf = digits('cUF', cUFText) ? ufByCode(cUFText) : undefined;
  if (uf === undefined && /^[0-9]{2}$/.test(cUFText)) {
    problems.push({ field: 'cUF', error: `not an IBGE UF code: ${cUFText}` });
  }
  const aamm = slice(2, 4);
  if (digits('aamm', aamm) && !AAMM.test(aamm)) {
    problems.push({ field: 'aamm', error: `month must be 01-12, got ${aamm.slice(2)}` });
  }
  const cnpjCpf = slice(6, 14);
  if (!/^[0-9A-Z]{12}[0-9]{2}$/.test(cnpjCpf)) {
    problems.push({ field: 'cnpjCpf', error: `must be 12 positions [0-9A-Z] and 2 digits, got ${cnpjCpf}` });
  }
  const modText = slice(20, 2);
  const mod = Number(modText);
  if (digits('mod', modText) && !MODELOS.has(mod)) {
    problems.push({ field: 'mod', error: `model ${modText} is not 55, 65, 57 or 67` });
  }
  const serieText = slice(22, 3);
  digits('serie', serieText);
  const nNFText = slice(25, 9);
  if (digits('nNF', nNFText) && Number(nNFText) === 0) {
    problems.push({ field: 'nNF', error: 'must not be zero' });
  }
  const tpEmisText = slice(34, 1);
  if (digits('tpEmis', tpEmisText) && tpEmisText === '0') {
    problems.push({ field: 'tpEmis', error: 'must be 1 to 9' });
  }
  const cNF = slice(35, 8);
  digits('cNF', cNF);
  const cDVText = slice(43, 1);
  if (digits('cDV', cDVText) && CHAVE.test(chave)) {
    const expected = accessKeyCheckDigit(chave.slice(0, 43));
    if (Number(cDVText) !== expected) {
      problems.push({
        field: 'cDV',
        error: `check digit is ${cDVText}, the first 43 positions give ${expected}`,
      });
    }
  }

  if (problems.length > 0 || uf === undefined) return { ok: false, problems };
  return {
    ok: true,
    fields: {
      chave,
      cUF: uf.cUF,
      uf: uf.sigla,
      aamm,
      cnpjCpf,
      mod: mod as ModeloChave,
      serie: Number(serieText),
      nNF: Number(nNFText),
      tpEmis: Number(tpEmisText),
      cNF,
      cDV: Number(cDVText),
    },
  };
}

/** Whether parseAccessKey accepts the key (shape, UF, model, month, check digit). */
export function isValidAccessKey(key: string): boolean {
  return parseAccessKey(key).ok;
}
