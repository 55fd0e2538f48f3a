// Exact decimal values travel as strings ("12.50"); JSON numbers are accepted at the edge and turned into
// their shortest decimal text at once, so no arithmetic ever happens on binary floats.
import { z } from 'zod';

/** A non-negative decimal with at most `intDigits` integer and `fracDigits` fraction digits. */
export function decimalText(intDigits: number, fracDigits: number, label = 'a decimal number') {
  const pattern = new RegExp(`^\\d{1,${intDigits}}(\\.\\d{1,${fracDigits}})?$`);
  return z
    .union([z.string(), z.number()])
    .transform((value) => (typeof value === 'number' ? numberToDecimalText(value) : value.trim()))
    .refine((text) => pattern.test(text), {
      error: `must be ${label} with up to ${intDigits} integer and ${fracDigits} decimal digits`,
      // Later checks (like the 100% ceiling) would only repeat the complaint about the same field.
      abort: true,
    });
}

/** A percentage rate 0–100 with up to 4 decimals, as the layout's pXXX fields (TDec_0302a04). */
export const rateText = decimalText(3, 4, 'a percentage').refine((text) => Number.parseFloat(text) <= 100, {
  error: 'must not exceed 100',
});

export function numberToDecimalText(value: number): string {
  if (!Number.isFinite(value)) return 'NaN';
  // Shortest round-trip text is what the sender wrote; exponent forms are expanded for small/large values.
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/\.?0+$/, '');
}
