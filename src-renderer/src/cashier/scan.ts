// What the cashier makes of a burst of keys: a barcode read by a scanner (8–14 digits typed faster than a
// person types, then Enter), the limits on cash tendered, and the scale labels (EAN-13 starting with 2, the
// item's code and its price or weight inside) whose layout each terminal configures.
import { SCALE, formatScaled, lineTotal, parseScaled, pow10, roundDiv } from '../../../src-shared/money.ts';

/**
 * A scanner types a digit every few ms, but a busy page (CPU throttled ×4 in the tests) handles them up to a
 * few hundred ms apart. What tells a scan from a typed amount is mostly its shape: 8 to 14 digits without a
 * comma is R$ 1.000.000,00 or more, an amount nobody hands over at a counter (and the cash cap refuses it
 * anyway). The gap only separates the scan from what was typed before it.
 */
const SCAN_MAX_GAP_MS = 500;

/**
 * Remembers the digits typed in a row and how fast they came, so Enter can tell a scan from an amount typed by
 * hand. `snapshot` is whatever the caller needs to undo the burst (the screen before its first digit).
 */
export class BurstTracker<S> {
  private digits = '';
  private times: number[] = [];
  private before: S | null = null;

  /** A key is typed: digits extend the burst (a slow one starts a new burst), anything else ends it. */
  key(key: string, at: number, snapshot: () => S): void {
    if (/^\d$/.test(key)) {
      const last = this.times.at(-1);
      if (last === undefined || at - last > SCAN_MAX_GAP_MS) {
        this.digits = '';
        this.times = [];
        this.before = snapshot();
      }
      this.digits += key;
      this.times.push(at);
    } else if (key !== 'Enter') this.reset();
  }

  /** At Enter: the scanned code and the state before it when the burst was a scan, else null. */
  scanAt(at: number): { code: string; before: S } | null {
    const last = this.times.at(-1);
    const found =
      last !== undefined &&
      at - last <= SCAN_MAX_GAP_MS &&
      this.digits.length >= 8 &&
      this.digits.length <= 14 &&
      this.before !== null
        ? { code: this.digits, before: this.before }
        : null;
    this.reset();
    return found;
  }

  reset(): void {
    this.digits = '';
    this.times = [];
    this.before = null;
  }
}

/** The most cash one payment may be: R$ 1.000 or ten times what is left to pay, whichever is more. */
export function cashCap(remaining: bigint): bigint {
  const tenTimes = remaining * 10n;
  return tenTimes > 100_000n ? tenTimes : 100_000n;
}

/** Change worth a second look before it leaves the drawer: R$ 200 or more, or as much as the sale itself. */
export function largeChange(change: bigint, saleTotal: bigint): boolean {
  return change > 0n && (change >= 20_000n || change >= saleTotal);
}

/** How this terminal's scale prints its labels (EAN-13 `2` + item code + value + check digit). */
export interface ScaleLayout {
  /** Digits of the item code right after the leading 2 (4 to 6). */
  codeDigits: number;
  /** The value (the digits between the code and the check digit) is the price or the weight. */
  value: 'preco' | 'peso';
  /** Decimals of the value: 2 for a price in reais, 3 for a weight in kg. */
  decimals: number;
}

export const DEFAULT_SCALE_LAYOUT: ScaleLayout = { codeDigits: 4, value: 'preco', decimals: 2 };

export function validScaleLayout(l: ScaleLayout): boolean {
  return (
    Number.isInteger(l.codeDigits) &&
    l.codeDigits >= 4 &&
    l.codeDigits <= 6 &&
    (l.value === 'preco' || l.value === 'peso') &&
    Number.isInteger(l.decimals) &&
    l.decimals >= 0 &&
    l.decimals <= 3
  );
}

/** GS1 check digit of the first 12 digits of an EAN-13. */
export function ean13CheckDigit(first12: string): number {
  let total = 0;
  for (let i = 0; i < 12; i++) total += Number(first12[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (total % 10)) % 10;
}

export type ScaleLabel =
  { kind: 'scale'; itemCode: string; value: 'preco' | 'peso'; amount: string } | { kind: 'bad-check-digit' };

/**
 * An EAN-13 starting with 2 read by this layout: the item code and the value as decimal text (the price in
 * reais or the weight in kg); null when the code is not a scale label.
 */
export function parseScaleLabel(code: string, layout: ScaleLayout): ScaleLabel | null {
  if (!/^2\d{12}$/.test(code)) return null;
  if (ean13CheckDigit(code.slice(0, 12)) !== Number(code[12])) return { kind: 'bad-check-digit' };
  const itemCode = code.slice(1, 1 + layout.codeDigits);
  // The value is every digit between the code and the check digit: the fillers scales print there are
  // zeros, so 2 CCCC 0 PPPPPP D and 2 CCCCC PPPPPP D read alike.
  const raw = BigInt(code.slice(1 + layout.codeDigits, 12));
  return {
    kind: 'scale',
    itemCode,
    value: layout.value,
    amount: formatScaled(raw, layout.decimals, Math.max(layout.decimals, 0)),
  };
}

/** A weight read from a label (decimal text with a dot) as the line's quantity (at most 4 decimals). */
export function weightQuantity(amount: string): string | null {
  const q = parseScaled(amount, SCALE.quantity);
  return q > 0n ? formatScaled(q, SCALE.quantity).replace(/\.?0+$/, '') : null;
}

/** Codes a product may be registered under for a scale item code: as printed and without leading zeros. */
export function scaleItemCodes(itemCode: string): string[] {
  const bare = itemCode.replace(/^0+(?=\d)/, '');
  return bare === itemCode ? [itemCode] : [itemCode, bare];
}

/**
 * The quantity (4 decimals) that makes the line total the price printed on the label at this unit price:
 * the note says qCom × vUnCom = vProd, so the weight is derived from the price, exact to the cent.
 */
export function quantityForPrice(priceText: string, unitPrice: string): string | null {
  const price = parseScaled(priceText, SCALE.money);
  const unit = parseScaled(unitPrice, SCALE.unitPrice);
  if (price <= 0n || unit <= 0n) return null;
  const scaleGap = pow10(SCALE.quantity + SCALE.unitPrice - SCALE.money);
  const guess = roundDiv(price * scaleGap, unit);
  for (const q of [guess, guess - 1n, guess + 1n, guess - 2n, guess + 2n])
    if (q > 0n && lineTotal(q, unit) === price) return formatScaled(q, SCALE.quantity).replace(/\.?0+$/, '');
  return guess > 0n ? formatScaled(guess, SCALE.quantity).replace(/\.?0+$/, '') : null;
}
