// PIS/COFINS base with and without the item's own ICMS (STF RE 574.706, Tema 69; Lei 14.592/2023), by hand.
import { describe, expect, it } from 'vitest';
import { computeTaxes } from './compute.ts';
import { item, note, profile } from './test-model.ts';

const taxes = (excludes: boolean | undefined) =>
  profile(
    { orig: 0, CST: '00', modBC: 3, pICMS: '18.00' },
    {
      PIS: { CST: '01', pPIS: '1.65' },
      COFINS: { CST: '01', pCOFINS: '7.60' },
      ...(excludes === undefined ? {} : { pisCofinsExcluiICMS: excludes }),
    },
  );

function pisCofins(excludes: boolean | undefined, over: Parameters<typeof item>[1] = {}) {
  const result = computeTaxes(note([item(taxes(excludes), { vUnCom: '100', vDesc: '10.00', ...over })]));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  const [it] = result.note.itens;
  return { pis: it?.pis, cofins: it?.cofins, tot: result.note.icmsTot };
}

describe('PIS/COFINS base without ICMS (Tema 69)', () => {
  it('off (default): the base is the operation value 90.00', () => {
    const { pis, cofins } = pisCofins(undefined);
    // 100.00 − 10.00 = 90.00; PIS 1.65 % = 1.485 → 1.49; COFINS 7.6 % = 6.84.
    expect([pis?.vBC, pis?.value, cofins?.vBC, cofins?.value]).toEqual([9000n, 149n, 9000n, 684n]);
  });

  it('on: the base is 90.00 − vICMS 16.20 = 73.80; PIS 1.2177 → 1.22, COFINS 5.6088 → 5.61', () => {
    const { pis, cofins, tot } = pisCofins(true);
    expect(tot.vICMS).toBe(1620n);
    expect([pis?.vBC, pis?.value, cofins?.vBC, cofins?.value]).toEqual([7380n, 122n, 7380n, 561n]);
    expect([tot.vPIS, tot.vCOFINS]).toEqual([122n, 561n]);
  });

  it('detailed mode: a caller who excluded ICMS is accepted only when the switch is on', () => {
    const detailed = { vBC: '90.00', vICMS: '16.20', vPIS: '1.22', vCOFINS: '5.61' };
    expect(pisCofins(true, { detailed }).pis?.value).toBe(122n);
    const off = computeTaxes(note([item(taxes(false), { vUnCom: '100', vDesc: '10.00', detailed })]));
    expect(off.ok).toBe(false);
    if (off.ok) return;
    expect(off.errors.map((e) => e.field)).toEqual(['itens[0].vPIS', 'itens[0].vCOFINS']);
  });
});
