// The numbers no document or live void explains, from the runs the store returns, against a number-by-number
// account of the same series (random series with repeated numbers, gaps at both ends and overlapping voids).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { numbersNoDocumentHolds, withoutVoids, type HeldNumbers } from './abandoned.ts';

/** The store's answers for these held numbers, counted as the index would; `calls` counts the queries. */
function heldAmong(numbers: number[]): HeldNumbers & { calls: number } {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const within = (lo: number, hi: number) => sorted.filter((n) => n >= lo && n <= hi);
  const store = {
    calls: 0,
    count: (lo: number, hi: number) => {
      store.calls++;
      return Promise.resolve(within(lo, hi).length);
    },
    list: (lo: number, hi: number) => {
      store.calls++;
      return Promise.resolve(within(lo, hi));
    },
  };
  return store;
}

/** The unexplained numbers of 1..last as maximal ranges, counted one by one. */
function bruteForce(held: number[], voids: [number, number][], last: number): [number, number][] {
  const explained = new Set(held);
  for (const [lo, hi] of voids) for (let k = lo; k <= hi; k++) explained.add(k);
  const out: [number, number][] = [];
  for (let k = 1; k <= last; k++) {
    if (explained.has(k)) continue;
    const open = out.at(-1);
    if (open !== undefined && open[1] === k - 1) open[1] = k;
    else out.push([k, k]);
  }
  return out;
}

/** Unexplained ranges as numbersWithoutDocument computes them (before chunking). */
async function unexplained(held: number[], voids: [number, number][], last: number) {
  const ranges = await numbersNoDocumentHolds(1, last, heldAmong(held), voids);
  return ranges.flatMap(([from, to]) => withoutVoids(from, to, voids));
}

describe('numbers without a document', () => {
  it('are the numbers of 1..last that neither a document nor a live void holds, as maximal ranges', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3000 }),
        fc.array(fc.integer({ min: 1, max: 3000 }), { maxLength: 3000 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3100 }), fc.integer({ min: 0, max: 700 })), {
          maxLength: 6,
        }),
        fc.boolean(),
        async (last, numbers, voidSpecs, dense) => {
          // Dense series (every number held but a few) are the common case; sparse ones test the halving.
          const held = (
            dense
              ? Array.from({ length: last }, (_, i) => i + 1).filter((n) => !numbers.slice(0, 5).includes(n))
              : numbers
          ).filter((n) => n <= last);
          const voids = voidSpecs
            .map(([lo, length]): [number, number] => [lo, lo + length])
            .filter(([lo]) => lo <= last)
            .sort((a, b) => a[0] - b[0]);
          expect(await unexplained(held, voids, last)).toEqual(bruteForce(held, voids, last));
        },
      ),
      { seed: 20261124, numRuns: 300 },
    );
  });

  it('settles a series without holes with one count', async () => {
    const held = heldAmong(Array.from({ length: 80_000 }, (_, i) => i + 1));
    expect(await numbersNoDocumentHolds(1, 80_000, held, [])).toEqual([]);
    expect(held.calls).toBe(1);
  });

  it('finds one missing number among 80k in a few queries, and the whole series when none is held', async () => {
    const held = heldAmong(Array.from({ length: 80_000 }, (_, i) => i + 1).filter((n) => n !== 51_234));
    expect(await numbersNoDocumentHolds(1, 80_000, held, [])).toEqual([[51_234, 51_234]]);
    expect(held.calls).toBeLessThan(20);
    expect(await numbersNoDocumentHolds(1, 7, heldAmong([]), [[3, 4]])).toEqual([[1, 7]]);
    // The number just past a void that covers everything before it.
    expect(await unexplained([], [[1, 1000]], 1001)).toEqual([[1001, 1001]]);
    expect(await unexplained([1002], [[1, 1000]], 1003)).toEqual([
      [1001, 1001],
      [1003, 1003],
    ]);
    expect(withoutVoids(1, 7, [[3, 4]])).toEqual([
      [1, 2],
      [5, 7],
    ]);
  });
});
