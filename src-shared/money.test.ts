import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  apportion,
  cents,
  formatCents,
  formatScaled,
  lineTotal,
  parseScaled,
  percentOf,
  reduceBy,
  roundDiv,
  SCALE,
} from './money.ts';

describe('money', () => {
  it('parses and formats exactly', () => {
    expect(cents('12.5')).toBe(1250n);
    expect(cents('0.1')).toBe(10n);
    expect(cents('-3.07')).toBe(-307n);
    expect(formatCents(1250n)).toBe('12.50');
    expect(formatCents(-7n)).toBe('-0.07');
    expect(formatScaled(123456n, 4, 2)).toBe('12.35');
    expect(parseScaled('1.5000', 2)).toBe(150n);
    expect(() => parseScaled('1.505', 2)).toThrow(/more than 2 decimals/);
    expect(() => parseScaled('1e3', 2)).toThrow(/not a decimal/);
  });

  it('rounds half away from zero', () => {
    expect(roundDiv(5n, 10n)).toBe(1n);
    expect(roundDiv(4n, 10n)).toBe(0n);
    expect(roundDiv(-5n, 10n)).toBe(-1n);
    expect(roundDiv(15n, 10n)).toBe(2n);
    expect(roundDiv(25n, 10n)).toBe(3n);
  });

  it('computes line totals, rates and reductions to the cent', () => {
    // 3 × 0.3333333333 = 0.9999999999 → 1.00
    expect(lineTotal(parseScaled('3', SCALE.quantity), parseScaled('0.3333333333', SCALE.unitPrice))).toBe(
      100n,
    );
    // 0.1 + 0.2 style trap: 1.005 kg × 10.00 = 10.05
    expect(lineTotal(parseScaled('1.005', SCALE.quantity), parseScaled('10', SCALE.unitPrice))).toBe(1005n);
    expect(percentOf(cents('100.00'), parseScaled('18', SCALE.rate))).toBe(1800n);
    expect(percentOf(cents('10.05'), parseScaled('0.9', SCALE.rate))).toBe(9n); // 0.09045 → 0.09
    expect(percentOf(cents('33.35'), parseScaled('1.65', SCALE.rate))).toBe(55n); // 0.550275 → 0.55
    expect(reduceBy(cents('100.00'), parseScaled('33.33', SCALE.rate))).toBe(6667n);
  });

  it('apportions so that parts sum to the total, in proportion', () => {
    expect(apportion(1000n, [1n, 1n, 1n])).toEqual([334n, 333n, 333n]);
    expect(apportion(1n, [500n, 500n])).toEqual([1n, 0n]);
    expect(apportion(0n, [5n, 6n])).toEqual([0n, 0n]);
    expect(apportion(10n, [0n, 0n])).toEqual([5n, 5n]);
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 10n }), { minLength: 1, maxLength: 60 }),
        (total, weights) => {
          const parts = apportion(total, weights);
          expect(parts.reduce((a, b) => a + b, 0n)).toBe(total);
          const weightSum = weights.reduce((a, b) => a + b, 0n);
          parts.forEach((p, i) => {
            if (weightSum === 0n) return;
            // Each part is within one cent of its exact share.
            const exact = (total * (weights[i] as bigint)) / weightSum;
            expect(p - exact >= 0n && p - exact <= 1n).toBe(true);
          });
        },
      ),
    );
  });
});
