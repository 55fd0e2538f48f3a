// Exact decimal arithmetic for money, quantities and rates: values are bigint integers at a fixed scale
// (cents = scale 2). Rounding is written once here: half-up at the last kept decimal, the commercial rule
// the MOC 7.0 (annex I, "arredondamento") expects for vProd, bases and tax values.

/** Number of decimals of each kind of number in the NF-e 4.00 layout. */
export const SCALE = {
  /** Money values: TDec_1302 (vProd, vBC, vICMS, vNF, vPag ...). */
  money: 2,
  /** Quantities: TDec_1104v (qCom, qTrib). */
  quantity: 4,
  /** Unit prices: TDec_1110v (vUnCom, vUnTrib). */
  unitPrice: 10,
  /** Rates in percent: TDec_0302a04 (pICMS, pPIS ...). */
  rate: 4,
} as const;

const TEN = 10n;
// Every rounding asks for a power of ten; a bigint exponentiation per call showed in the fiscal path's profile.
const POW10: readonly bigint[] = Array.from({ length: 40 }, (_, i) => TEN ** BigInt(i));

export function pow10(n: number): bigint {
  return POW10[n] ?? TEN ** BigInt(n);
}

/** Parses decimal text ("12.5", "-0.01") to an integer at `scale`; more decimals than `scale` is an error. */
export function parseScaled(text: string, scale: number): bigint {
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (match === null) throw new RangeError(`not a decimal number: '${text}'`);
  const [, sign, int, frac = ''] = match;
  if (frac.length > scale) {
    if (/[1-9]/.test(frac.slice(scale))) throw new RangeError(`'${text}' has more than ${scale} decimals`);
  }
  const digits = BigInt(`${int}${frac.slice(0, scale).padEnd(scale, '0')}`);
  return sign === '-' ? -digits : digits;
}

/** Formats an integer at `scale` as decimal text with exactly `places` decimals (places ≤ scale rounds). */
export function formatScaled(value: bigint, scale: number, places = scale): string {
  const v = places < scale ? roundDiv(value, pow10(scale - places)) : value * pow10(places - scale);
  const negative = v < 0n;
  const digits = (negative ? -v : v).toString().padStart(places + 1, '0');
  const int = digits.slice(0, digits.length - places);
  const frac = digits.slice(digits.length - places);
  return `${negative ? '-' : ''}${int}${places > 0 ? `.${frac}` : ''}`;
}

/** Integer division rounding half away from zero. */
export function roundDiv(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  const q = (n * 2n + denominator) / (2n * denominator);
  return negative ? -q : q;
}

/** Money text → cents. */
export function cents(text: string): bigint {
  return parseScaled(text, SCALE.money);
}

/** Cents → "12.34". */
export function formatCents(value: bigint): string {
  return formatScaled(value, SCALE.money);
}

/** qCom × vUnCom rounded to cents (vProd, MOC 7.0 rule 629 tolerates only the rounding). */
export function lineTotal(quantity: bigint, unitPrice: bigint): bigint {
  return roundDiv(quantity * unitPrice, pow10(SCALE.quantity + SCALE.unitPrice - SCALE.money));
}

/** `rate`% (at SCALE.rate) of a money amount, rounded to cents. */
export function percentOf(amountCents: bigint, rate: bigint): bigint {
  return roundDiv(amountCents * rate, 100n * pow10(SCALE.rate));
}

/** amount × (1 − rate%), rounded to cents: a base reduced by pRedBC. */
export function reduceBy(amountCents: bigint, rate: bigint): bigint {
  const full = 100n * pow10(SCALE.rate);
  return roundDiv(amountCents * (full - rate), full);
}

/**
 * Splits `total` over `weights` in proportion, so that the parts add up to `total` exactly: each part is
 * floored and the cents left over go to the largest remainders (ties to the earlier item). Used for
 * freight, insurance, discount and other charges given for the whole note (MOC: vFrete of the total
 * must equal the sum of the items' vFrete).
 */
export function apportion(total: bigint, weights: readonly bigint[]): bigint[] {
  if (total < 0n) throw new RangeError('cannot apportion a negative amount');
  const sum = weights.reduce((a, b) => a + b, 0n);
  if (weights.length === 0) {
    if (total === 0n) return [];
    throw new RangeError('nothing to apportion over');
  }
  if (sum <= 0n) {
    // No weight at all: spread evenly.
    return apportion(
      total,
      weights.map(() => 1n),
    );
  }
  const parts = weights.map((w) => (total * w) / sum);
  const remainders = weights.map((w, i) => ({ i, r: (total * w) % sum }));
  let left = total - parts.reduce((a, b) => a + b, 0n);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0n) break;
    parts[i] = (parts[i] as bigint) + 1n;
    left -= 1n;
  }
  return parts;
}

export function sum(values: readonly bigint[]): bigint {
  return values.reduce((a, b) => a + b, 0n);
}
