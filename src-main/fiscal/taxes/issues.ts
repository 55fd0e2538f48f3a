// Collects every problem of a note instead of stopping at the first, so an integrator fixes a payload in one
// round trip; also the parsers that turn decimal text into bigint and report instead of throwing.
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { SCALE, parseScaled } from '../../../src-shared/money.ts';
import type { Cents, Rate } from './types.ts';

/** A rule of the authority the note breaks (its cStat and text, MOC 7.0), caught before signing. */
export interface TaxRejection {
  cStat: string;
  xMotivo: string;
}

export class Issues {
  readonly list: ErrorDetail[] = [];
  /** The first rule of the authority reported with `rule`; the answer carries its cStat. */
  rejection: TaxRejection | undefined;

  add(field: string, error: string): void {
    this.list.push({ field, error });
  }

  /** A fault that is one of the authority's rules: reported like any other, and its cStat kept. */
  rule(field: string, error: string, rejection: TaxRejection): void {
    this.add(field, error);
    this.rejection ??= rejection;
  }

  get empty(): boolean {
    return this.list.length === 0;
  }
}

// TDec_1302 without sign: the caller's amounts must already be in cents (MOC 7.0: values with 2 decimals).
const MONEY_TEXT = /^\d{1,13}(\.\d{1,2})?$/;
// TDec_0302a04-like, also allowing more integer digits (pMVAST may exceed 100%).
const RATE_TEXT = /^\d{1,3}(\.\d{1,4})?$/;

/**
 * Money text → cents. `undefined`/null → null. A value that is not a non-negative amount with at most
 * 2 decimals is reported and read as 0 so the rest of the note can still be checked.
 */
export function readMoney(text: string | null | undefined, field: string, issues: Issues): Cents | null {
  if (text === null || text === undefined) return null;
  const trimmed = text.trim();
  if (!MONEY_TEXT.test(trimmed)) {
    issues.add(field, `must be a non-negative amount with at most 2 decimals, got '${text}'`);
    return 0n;
  }
  return parseScaled(trimmed, SCALE.money);
}

/** Percentage text → Rate (scale 4); invalid text is reported and read as 0. */
export function readRate(text: string | null | undefined, field: string, issues: Issues): Rate | null {
  if (text === null || text === undefined) return null;
  const trimmed = text.trim();
  if (!RATE_TEXT.test(trimmed)) {
    issues.add(field, `must be a percentage 0-999 with at most 4 decimals, got '${text}'`);
    return 0n;
  }
  return parseScaled(trimmed, SCALE.rate);
}

// One pattern per scale, built once: a RegExp compiled per quantity and price read showed in the path's profile.
const SCALED_TEXT = new Map<number, RegExp>();
function scaledText(scale: number): RegExp {
  let re = SCALED_TEXT.get(scale);
  if (re === undefined) {
    re = new RegExp(`^\\d{1,15}(\\.\\d{1,${scale}})?$`);
    SCALED_TEXT.set(scale, re);
  }
  return re;
}

/** Decimal text at `scale` (quantities, unit prices); invalid text is reported and read as 0. */
export function readScaled(text: string, scale: number, field: string, issues: Issues): bigint {
  const trimmed = text.trim();
  if (!scaledText(scale).test(trimmed)) {
    issues.add(field, `must be a non-negative number with at most ${scale} decimals, got '${text}'`);
    return 0n;
  }
  return parseScaled(trimmed, scale);
}

/**
 * A value the caller of detailed mode gave for a field the tax situation cannot carry. Zero is accepted
 * as "nothing", since integrators often send 0.00 for every field they do not use.
 */
export function forbidNonZero(value: Cents | null, field: string, why: string, issues: Issues): void {
  if (value !== null && value !== 0n) issues.add(field, why);
}

/** Difference of two cent amounts, absolute. */
export function centsApart(a: Cents, b: Cents): Cents {
  return a > b ? a - b : b - a;
}
