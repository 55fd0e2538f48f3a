// Hand-checked tax computations per CST/CSOSN family, apportionment and detailed-mode checks, plus a
// property test over random carts: every total is the sum of the items and vNF follows its formula.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { formatScaled, lineTotal, pow10, SCALE, sum } from '../../../src-shared/money.ts';
import type { ItemModel, NfeModel } from '../nfe/model.ts';
import { computeTaxes, computeTaxesOrThrow, TaxComputationError } from './compute.ts';
import { cents as c, computed, item, note, only, profile, rate as r, simplesNote } from './test-model.ts';

function errorsOf(model: NfeModel): { field: string; error: string }[] {
  const result = computeTaxes(model);
  if (result.ok) throw new Error('expected errors');
  return result.errors;
}

const PIS_165 = { CST: '01', pPIS: '1.65' } as const;
const COFINS_76 = { CST: '01', pCOFINS: '7.6' } as const;

describe('vProd and the regime-normal ICMS', () => {
  it('CST 00 with PIS 1.65, COFINS 7.6, 2026 IBS/CBS and vTotTrib', () => {
    const taxes = profile(
      { orig: 0, CST: '00', pICMS: '18' },
      { PIS: PIS_165, COFINS: COFINS_76, IBSCBS: { CST: '000', cClassTrib: '000001' }, pTotTrib: '31.45' },
    );
    const { n, it } = only(note([item(taxes, { qCom: '2', vUnCom: '10.555' })]));
    // vProd = 2 × 10.555 = 21.11
    expect(it.vProd).toBe(c('21.11'));
    // vICMS = 21.11 × 18% = 3.7998 → 3.80
    expect(it.icms.group).toBe('ICMS00');
    expect(it.icms.own).toEqual({
      modBC: 3,
      pRedBC: null,
      vBC: c('21.11'),
      pICMS: r('18'),
      vICMS: c('3.80'),
    });
    // vPIS = 21.11 × 1.65% = 0.348315 → 0.35; vCOFINS = 21.11 × 7.6% = 1.60436 → 1.60
    expect(it.pis).toEqual({ CST: '01', group: 'Aliq', vBC: c('21.11'), rate: r('1.65'), value: c('0.35') });
    expect(it.cofins.value).toBe(c('1.60'));
    // IBS/CBS base = 21.11 − 3.80 − 0.35 − 1.60 = 15.36 (LC 214 art. 12 §2 V)
    // vCBS = 15.36 × 0.9% = 0.13824 → 0.14; vIBSUF = 15.36 × 0.1% = 0.01536 → 0.02; vIBSMun = 0
    expect(it.ibscbs?.g).toEqual({
      vBC: c('15.36'),
      pIBSUF: r('0.1'),
      vIBSUF: c('0.02'),
      pIBSMun: 0n,
      vIBSMun: 0n,
      vIBS: c('0.02'),
      pCBS: r('0.9'),
      vCBS: c('0.14'),
      red: null,
      dif: null,
    });
    // vTotTrib = 21.11 × 31.45% = 6.639095 → 6.64
    expect(it.vTotTrib).toBe(c('6.64'));
    expect(n.icmsTot).toMatchObject({
      vBC: c('21.11'),
      vICMS: c('3.80'),
      vPIS: c('0.35'),
      vCOFINS: c('1.60'),
    });
    expect(n.icmsTot.vNF).toBe(c('21.11'));
    expect(n.icmsTot.vTotTrib).toBe(c('6.64'));
    expect(n.ibsCbsTot).toMatchObject({
      vBCIBSCBS: c('15.36'),
      vIBSUF: c('0.02'),
      vIBSMun: 0n,
      vIBS: c('0.02'),
      vCBS: c('0.14'),
      vDifCBS: 0n,
    });
    // 2026: IBS/CBS stay out of vItem/vNFTot
    expect(n.ibsCbsInTotal).toBe(false);
    expect(it.vItem).toBe(c('21.11'));
    expect(n.vNFTot).toBe(c('21.11'));
  });

  it('rounds vProd half-up at the cent', () => {
    const taxes = profile({ orig: 0, CST: '40' });
    // 3 × 0.3333333333 = 0.9999999999 → 1.00
    expect(only(note([item(taxes, { qCom: '3', vUnCom: '0.3333333333' })])).it.vProd).toBe(c('1.00'));
    // 1.5 × 0.005 = 0.0075 → 0.01
    expect(only(note([item(taxes, { qCom: '1.5', vUnCom: '0.005' })])).it.vProd).toBe(c('0.01'));
    // 0.0001 × 49.99 = 0.004999 → 0.00
    expect(only(note([item(taxes, { qCom: '0.0001', vUnCom: '49.99' })])).it.vProd).toBe(0n);
  });

  it('CST 20 reduces the base before the rate', () => {
    const { it } = only(note([item(profile({ orig: 0, CST: '20', pICMS: '18', pRedBC: '33.3333' }))]));
    // vBC = 100 × (1 − 0.333333) = 66.6667 → 66.67; vICMS = 66.67 × 18% = 12.0006 → 12.00
    expect(it.icms.own).toEqual({
      modBC: 3,
      pRedBC: r('33.3333'),
      vBC: c('66.67'),
      pICMS: r('18'),
      vICMS: c('12.00'),
    });
  });

  it('CST 10: ICMS-ST by MVA minus the own ICMS', () => {
    const st = { modBCST: 4, pMVAST: '40', pICMSST: '18' };
    const { n, it } = only(note([item(profile({ orig: 0, CST: '10', pICMS: '18', st }))]));
    // own: 100 × 18% = 18.00; vBCST = 100 × 1.40 = 140.00; vICMSST = 140 × 18% − 18.00 = 25.20 − 18.00 = 7.20
    expect(it.icms.own?.vICMS).toBe(c('18.00'));
    expect(it.icms.st).toEqual({
      modBCST: 4,
      pMVAST: r('40'),
      pRedBCST: null,
      vBCST: c('140.00'),
      pICMSST: r('18'),
      vICMSST: c('7.20'),
    });
    // vNF = 100 + 7.20
    expect(n.icmsTot).toMatchObject({ vBCST: c('140.00'), vST: c('7.20'), vNF: c('107.20') });
  });

  it('CST 10 in an NF-e with IPI: IPI enters the ST base, and the own base only for final consumers', () => {
    const taxes = profile(
      { orig: 0, CST: '10', pICMS: '18', st: { modBCST: 4, pMVAST: '40', pICMSST: '18' } },
      { IPI: { CST: '50', cEnq: '999', pIPI: '10' } },
    );
    // Sale for resale (indFinal 0): vIPI = 100 × 10% = 10.00; own base 100 → vICMS 18.00;
    // vBCST = (100 + 10) × 1.40 = 154.00; vICMSST = 154 × 18% − 18 = 27.72 − 18.00 = 9.72
    const resale = only(note([item(taxes)], { modelo: 55, indFinal: 0 }));
    expect(resale.it.ipi).toEqual({
      cEnq: '999',
      CST: '50',
      trib: { vBC: c('100'), pIPI: r('10'), vIPI: c('10.00') },
    });
    expect(resale.it.icms.own?.vBC).toBe(c('100.00'));
    expect(resale.it.icms.st?.vBCST).toBe(c('154.00'));
    expect(resale.it.icms.st?.vICMSST).toBe(c('9.72'));
    // vNF = 100 + 9.72 (ST) + 10.00 (IPI) = 119.72
    expect(resale.n.icmsTot.vNF).toBe(c('119.72'));
    expect(resale.n.icmsTot.vIPI).toBe(c('10.00'));
    // Final consumer: own base 110.00 → vICMS 19.80; vICMSST = 27.72 − 19.80 = 7.92
    const consumer = only(note([item(taxes)], { modelo: 55, indFinal: 1 }));
    expect(consumer.it.icms.own?.vBC).toBe(c('110.00'));
    expect(consumer.it.icms.own?.vICMS).toBe(c('19.80'));
    expect(consumer.it.icms.st?.vICMSST).toBe(c('7.92'));
  });

  it('reduces the ST base by pRedBCST, rounding once', () => {
    const taxes = profile(
      { orig: 0, CST: '10', pICMS: '18', st: { modBCST: 4, pMVAST: '40', pRedBCST: '10', pICMSST: '18' } },
      { IPI: { CST: '50', cEnq: '999', pIPI: '10' } },
    );
    const { it } = only(note([item(taxes)], { modelo: 55, indFinal: 0 }));
    // vBCST = 110 × 1.40 × 0.90 = 138.60; 138.60 × 18% = 24.948 → 24.95; − 18.00 = 6.95
    expect(it.icms.st?.vBCST).toBe(c('138.60'));
    expect(it.icms.st?.vICMSST).toBe(c('6.95'));
  });

  it('CST 70: reduced own base and reduced ST base', () => {
    const taxes = profile({
      orig: 0,
      CST: '70',
      pICMS: '12',
      pRedBC: '20',
      st: { modBCST: 4, pMVAST: '50', pRedBCST: '20', pICMSST: '18' },
    });
    const { it } = only(note([item(taxes, { qCom: '2' })]));
    // vProd 200; vBC = 200 × 0.8 = 160.00; vICMS = 160 × 12% = 19.20
    expect(it.icms.own?.vBC).toBe(c('160.00'));
    expect(it.icms.own?.vICMS).toBe(c('19.20'));
    // vBCST = 200 × 1.5 × 0.8 = 240.00; vICMSST = 240 × 18% − 19.20 = 43.20 − 19.20 = 24.00
    expect(it.icms.st?.vBCST).toBe(c('240.00'));
    expect(it.icms.st?.vICMSST).toBe(c('24.00'));
  });

  it('CST 30: ST only, deducting the own-operation ICMS only when the profile gives pICMS', () => {
    const st = { modBCST: 4, pMVAST: '30', pICMSST: '17' };
    // vProd 50; vBCST = 50 × 1.30 = 65.00; 65 × 17% = 11.05
    const plain = only(note([item(profile({ orig: 0, CST: '30', st }), { vUnCom: '50' })])).it;
    expect(plain.icms.own).toBeNull();
    expect(plain.icms.st?.vICMSST).toBe(c('11.05'));
    // with pICMS 17: 11.05 − 50 × 17% (8.50) = 2.55
    const deducted = only(
      note([item(profile({ orig: 0, CST: '30', pICMS: '17', st }), { vUnCom: '50' })]),
    ).it;
    expect(deducted.icms.st?.vICMSST).toBe(c('2.55'));
  });

  it('modBCST 6 (valor da operação) applies no MVA', () => {
    const taxes = profile({ orig: 0, CST: '10', pICMS: '12', st: { modBCST: 6, pICMSST: '18' } });
    const { it } = only(note([item(taxes)]));
    // vBCST = 100.00; 18.00 − 12.00 = 6.00
    expect(it.icms.st?.vBCST).toBe(c('100.00'));
    expect(it.icms.st?.vICMSST).toBe(c('6.00'));
  });

  it('CST 40, 41 and 60 carry no values; 50 is fine in an NF-e', () => {
    for (const CST of ['40', '41', '60'] as const) {
      const { n, it } = only(note([item(profile({ orig: 2, CST }))]));
      expect(it.icms).toMatchObject({ orig: 2, CST, own: null, st: null, creditSn: null });
      expect(n.icmsTot.vBC).toBe(0n);
    }
    expect(only(note([item(profile({ orig: 0, CST: '50' }))], { modelo: 55 })).it.icms.group).toBe('ICMS40');
  });

  it('CST 51 with pICMS is written as full deferral and counts its base in the total', () => {
    const { n, it } = only(note([item(profile({ orig: 0, CST: '51', pICMS: '18' }))], { modelo: 55 }));
    // vICMSOp = 100 × 18% = 18.00, pDif 100%, vICMSDif = 18.00, vICMS = 18.00 − 18.00 = 0.00
    expect(it.icms.own).toEqual({ modBC: 3, pRedBC: null, vBC: c('100'), pICMS: r('18'), vICMS: 0n });
    expect(it.icms.deferral).toEqual({ vICMSOp: c('18.00'), pDif: r('100'), vICMSDif: c('18.00') });
    expect(n.icmsTot.vBC).toBe(c('100.00'));
    expect(n.icmsTot.vICMS).toBe(0n);
    // without pICMS only orig and CST
    expect(only(note([item(profile({ orig: 0, CST: '51' }))], { modelo: 55 })).it.icms.own).toBeNull();
  });

  it('CST 90 with own ICMS and ST, or with nothing', () => {
    const taxes = profile({
      orig: 0,
      CST: '90',
      pICMS: '7',
      st: { modBCST: 4, pMVAST: '10', pICMSST: '18' },
    });
    const { it } = only(note([item(taxes)]));
    // own 100 × 7% = 7.00; vBCST = 110.00; 110 × 18% = 19.80 − 7.00 = 12.80
    expect(it.icms.own?.vICMS).toBe(c('7.00'));
    expect(it.icms.st?.vICMSST).toBe(c('12.80'));
    const bare = only(note([item(profile({ orig: 0, CST: '90' }))])).it;
    expect(bare.icms.own).toBeNull();
    expect(bare.icms.st).toBeNull();
  });
});

describe('Simples Nacional (CSOSN)', () => {
  it('101: credit over the operation value', () => {
    const { it } = only(
      simplesNote([item(profile({ orig: 0, CSOSN: '101', pCredSN: '2.56' }), { vUnCom: '150' })]),
    );
    // 150 × 2.56% = 3.84
    expect(it.icms.group).toBe('ICMSSN101');
    expect(it.icms.creditSn).toEqual({ pCredSN: r('2.56'), vCredICMSSN: c('3.84') });
    expect(it.icms.own).toBeNull();
  });

  it('102, 103, 300, 400 share ICMSSN102; 500 has its own group', () => {
    for (const CSOSN of ['102', '103', '300', '400'] as const) {
      const { n, it } = only(simplesNote([item(profile({ orig: 0, CSOSN }))]));
      expect(it.icms.group).toBe('ICMSSN102');
      expect(n.icmsTot.vICMS).toBe(0n);
    }
    expect(only(simplesNote([item(profile({ orig: 0, CSOSN: '500' }))])).it.icms.group).toBe('ICMSSN500');
  });

  it('201 and 202: ST deducting the ICMS at the normal rate (LC 123 art. 13 §6 II)', () => {
    const st = { modBCST: 4, pMVAST: '40', pICMSST: '18' };
    const sn201 = only(
      simplesNote([item(profile({ orig: 0, CSOSN: '201', pICMS: '18', pCredSN: '1.25', st }))]),
    ).it;
    // vBCST = 140.00; 25.20 − 100 × 18% = 7.20; credit 100 × 1.25% = 1.25
    expect(sn201.icms.st?.vICMSST).toBe(c('7.20'));
    expect(sn201.icms.creditSn?.vCredICMSSN).toBe(c('1.25'));
    // 202 without pICMS: the deduction is at the emitter UF's internal rate (SP 18 %): 25.20 − 18.00 = 7.20
    const sn202 = only(simplesNote([item(profile({ orig: 0, CSOSN: '202', st }))])).it;
    expect(sn202.icms.group).toBe('ICMSSN202');
    expect(sn202.icms.st?.vICMSST).toBe(c('7.20'));
  });

  it('900 with everything', () => {
    const taxes = profile({
      orig: 0,
      CSOSN: '900',
      pICMS: '18',
      pRedBC: '10',
      pCredSN: '3',
      st: { modBCST: 4, pMVAST: '40', pICMSST: '18' },
    });
    const { n, it } = only(simplesNote([item(taxes)]));
    // vBC = 100 × 0.9 = 90.00; vICMS = 16.20; vBCST = 140.00; 25.20 − 16.20 = 9.00; credit 3.00
    expect(it.icms.own).toEqual({
      modBC: 3,
      pRedBC: r('10'),
      vBC: c('90.00'),
      pICMS: r('18'),
      vICMS: c('16.20'),
    });
    expect(it.icms.st?.vICMSST).toBe(c('9.00'));
    expect(it.icms.creditSn?.vCredICMSSN).toBe(c('3.00'));
    expect(n.icmsTot).toMatchObject({ vBC: c('90.00'), vICMS: c('16.20'), vST: c('9.00'), vNF: c('109.00') });
  });
});

describe('PIS, COFINS and IPI', () => {
  it('PIS 1.65% and COFINS 7.6% (non-cumulative regime) on 1234.56', () => {
    const taxes = profile({ orig: 0, CST: '41' }, { PIS: PIS_165, COFINS: COFINS_76 });
    const { n, it } = only(note([item(taxes, { vUnCom: '1234.56' })]));
    // 1234.56 × 1.65% = 20.37024 → 20.37; 1234.56 × 7.6% = 93.82656 → 93.83
    expect(it.pis.value).toBe(c('20.37'));
    expect(it.cofins.value).toBe(c('93.83'));
    expect(n.icmsTot.vPIS).toBe(c('20.37'));
    expect(n.icmsTot.vCOFINS).toBe(c('93.83'));
  });

  it('PISOutr with and without a rate, PISNT', () => {
    const withRate = profile(
      { orig: 0, CST: '41' },
      { PIS: { CST: '49', pPIS: '0.65' }, COFINS: { CST: '99' } },
    );
    const { it } = only(note([item(withRate, { vUnCom: '1234.56' })]));
    // 1234.56 × 0.65% = 8.02464 → 8.02
    expect(it.pis).toEqual({
      CST: '49',
      group: 'Outr',
      vBC: c('1234.56'),
      rate: r('0.65'),
      value: c('8.02'),
    });
    expect(it.cofins).toEqual({ CST: '99', group: 'Outr', vBC: 0n, rate: 0n, value: 0n });
    const nt = only(note([item(profile({ orig: 0, CST: '41' }, { PIS: { CST: '04' } }))])).it;
    expect(nt.pis).toEqual({ CST: '04', group: 'NT', vBC: null, rate: null, value: 0n });
  });

  it('IPINT is kept in NF-e and left out of NFC-e', () => {
    const taxes = profile({ orig: 0, CST: '00', pICMS: '18' }, { IPI: { CST: '53', cEnq: '999' } });
    expect(only(note([item(taxes)], { modelo: 55 })).it.ipi).toEqual({ cEnq: '999', CST: '53', trib: null });
    expect(only(note([item(taxes)], { modelo: 65 })).it.ipi).toBeNull();
  });
});

describe('apportionment of note-level charges', () => {
  it('splits freight and discount by vProd with exact sums', () => {
    const taxes = profile({ orig: 0, CST: '40' });
    const model = note(
      [
        item(taxes, { vUnCom: '10', vDesc: '1.00' }),
        item(taxes, { vUnCom: '20', vFrete: '0.50' }),
        item(taxes, { vUnCom: '30.01' }),
      ],
      { vFrete: '10.00', vDesc: '5.00' },
    );
    const n = computed(model);
    // weights 1000, 2000, 3001 cents (sum 6001).
    // freight 1000 cents: 1000·1000/6001 = 166 r 3834; 1000·2000/6001 = 333 r 1667; 1000·3001/6001 = 500 r 500;
    // 999 handed out, the last cent goes to the largest remainder (item 1): 1.67, 3.33, 5.00
    // plus item 2's own 0.50 freight
    expect(n.itens.map((i) => i.vFrete)).toEqual([c('1.67'), c('3.83'), c('5.00')]);
    // discount 500 cents: 83 r 1917; 166 r 3834; 250 r 250 → 499, last cent to item 2: 0.83, 1.67, 2.50,
    // plus item 1's own 1.00
    expect(n.itens.map((i) => i.vDesc)).toEqual([c('1.83'), c('1.67'), c('2.50')]);
    expect(n.icmsTot.vFrete).toBe(c('10.50'));
    expect(n.icmsTot.vDesc).toBe(c('6.00'));
    // vNF = 60.01 − 6.00 + 10.50 = 64.51
    expect(n.icmsTot.vNF).toBe(c('64.51'));
    expect(n.vNFTot).toBe(n.icmsTot.vNF);
  });

  it('feeds the apportioned amounts into every base', () => {
    const taxes = profile({ orig: 0, CST: '00', pICMS: '18' }, { PIS: PIS_165 });
    const n = computed(
      note([item(taxes, { vUnCom: '30' }), item(taxes, { vUnCom: '70' })], { vDesc: '10', vSeg: '3' }),
    );
    // discount 10.00 → 3.00 / 7.00; insurance 3.00 → 0.90 / 2.10
    // item 1: 30 − 3 + 0.90 = 27.90 → ICMS 5.022 → 5.02; PIS 0.46035 → 0.46
    // item 2: 70 − 7 + 2.10 = 65.10 → ICMS 11.718 → 11.72; PIS 1.07415 → 1.07
    expect(n.itens.map((i) => i.icms.own?.vBC)).toEqual([c('27.90'), c('65.10')]);
    expect(n.itens.map((i) => i.icms.own?.vICMS)).toEqual([c('5.02'), c('11.72')]);
    expect(n.icmsTot.vICMS).toBe(c('16.74'));
    expect(n.icmsTot.vPIS).toBe(c('1.53'));
    expect(n.icmsTot.vNF).toBe(c('93.00'));
  });
});

describe('IBS/CBS', () => {
  it('uses the profile rates where the dated table publishes none (2029 on)', () => {
    const taxes = profile(
      { orig: 0, CST: '40' },
      { IBSCBS: { CST: '000', cClassTrib: '000001', pCBS: '8.8', pIBSUF: '17.7', pIBSMun: '1' } },
    );
    // base 100 (no ICMS, PIS or COFINS): CBS 8.80, IBS UF 17.70, IBS Mun 1.00, vIBS 18.70
    const later = { dhEmi: new Date('2029-03-10T12:00:00-03:00') };
    const g = only(note([item(taxes)], later)).it.ibscbs?.g;
    expect(g).toMatchObject({
      vBC: c('100'),
      vCBS: c('8.80'),
      vIBSUF: c('17.70'),
      vIBSMun: c('1.00'),
      vIBS: c('18.70'),
    });
  });

  it('CST 410 carries no values and no total group', () => {
    const taxes = profile({ orig: 0, CST: '40' }, { IBSCBS: { CST: '410', cClassTrib: '410001' } });
    const { n, it } = only(note([item(taxes)]));
    expect(it.ibscbs).toEqual({ CST: '410', cClassTrib: '410001', g: null });
    expect(n.ibsCbsTot).toBeNull();
  });

  it('counts IBS/CBS in vItem and vNFTot from 2027, by the date in the emitter UF', () => {
    const taxes = profile(
      { orig: 0, CST: '00', pICMS: '18' },
      { PIS: PIS_165, COFINS: COFINS_76, IBSCBS: { CST: '000', cClassTrib: '000001' } },
    );
    const line = item(taxes, { qCom: '2', vUnCom: '10.555' });
    // 2027-01-01 01:00 UTC is still 2026-12-31 22:00 in São Paulo.
    expect(computed(note([line], { dhEmi: new Date('2027-01-01T01:00:00Z') })).ibsCbsInTotal).toBe(false);
    const n = computed(note([line], { dhEmi: new Date('2027-03-10T12:00:00-03:00') }));
    expect(n.ibsCbsInTotal).toBe(true);
    // same values as the CST 00 case: vIBS 0.02 + vCBS 0.14 on top of 21.11
    expect(n.itens[0]?.vItem).toBe(c('21.27'));
    expect(n.vNFTot).toBe(c('21.27'));
    expect(n.icmsTot.vNF).toBe(c('21.11'));
  });
});

describe('detailed mode', () => {
  const detailedTaxes = profile({ orig: 0, CST: '00', pICMS: '18' }, { PIS: PIS_165, COFINS: COFINS_76 });

  it('takes the caller values and totals them', () => {
    const n = computed(
      note([
        item(
          { ...detailedTaxes, IBSCBS: { CST: '000', cClassTrib: '000001' } },
          { detailed: { vBC: '100.00', vICMS: '18.00', vPIS: '1.65', vCOFINS: '7.60', vTotTrib: '30' } },
        ),
      ]),
    );
    const it = n.itens[0];
    expect(it?.icms.own?.vICMS).toBe(c('18.00'));
    expect(it?.vTotTrib).toBe(c('30.00'));
    // IBS/CBS base = 100 − 18.00 − 1.65 − 7.60 = 72.75: CBS 0.65475 → 0.65, IBS UF 0.07275 → 0.07
    expect(it?.ibscbs?.g).toMatchObject({ vBC: c('72.75'), vCBS: c('0.65'), vIBSUF: c('0.07') });
    expect(n.icmsTot).toMatchObject({
      vICMS: c('18.00'),
      vPIS: c('1.65'),
      vCOFINS: c('7.60'),
      vTotTrib: c('30.00'),
    });
  });

  it('lists every fault of every item at once', () => {
    const errors = errorsOf(
      note([
        item(profile({ orig: 0, CST: '40' }), { detailed: { vICMS: '5.00' } }),
        item(detailedTaxes, { detailed: { vBC: '100.00', vICMS: '10.00', vPIS: '1.65', vCOFINS: '7.60' } }),
        item(detailedTaxes, { detailed: { vBC: '100.001', vPIS: '-1', vCOFINS: '7.60' } }),
        item(detailedTaxes, { detailed: { vBC: '100', vICMS: '18', vBCST: '3.00', vCOFINS: '7.60' } }),
      ]),
    );
    const fields = errors.map((e) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'itens[0].vICMS', // CST 40 has no own ICMS
        'itens[1].vICMS', // 100 × 18% ≠ 10.00 (rejeição 528)
        'itens[2].vBC', // three decimals
        'itens[2].vICMS', // required by CST 00
        'itens[2].vPIS', // negative
        'itens[3].vBCST', // CST 00 has no ST
        'itens[3].vPIS', // PIS 01 needs the caller's vPIS
      ]),
    );
    expect(errors.length).toBeGreaterThanOrEqual(7);
    expect(errors.find((e) => e.field === 'itens[1].vICMS')?.error).toMatch(/18\.00.*528/);
  });

  it('refuses vICMS for CSOSN 102 and vIPI without an IPI group', () => {
    const errors = errorsOf(
      simplesNote([item(profile({ orig: 0, CSOSN: '102' }), { detailed: { vICMS: '1.00', vIPI: '2.00' } })]),
    );
    expect(errors.map((e) => e.field)).toEqual(['itens[0].vIPI', 'itens[0].vICMS']);
  });

  it('accepts zeros for fields the situation cannot carry', () => {
    const n = computed(
      simplesNote([item(profile({ orig: 0, CSOSN: '102' }), { detailed: { vICMS: '0.00' } })]),
    );
    expect(n.icmsTot.vICMS).toBe(0n);
  });
});

describe('configurations that cannot be issued', () => {
  it('reports CST/CSOSN against CRT (rejeições 590 and 591)', () => {
    expect(errorsOf(simplesNote([item(profile({ orig: 0, CST: '00', pICMS: '18' }))]))[0]?.error).toMatch(
      /590/,
    );
    expect(errorsOf(note([item(profile({ orig: 0, CSOSN: '102' }))]))[0]?.error).toMatch(/591/);
  });

  it('reports the NFC-e restrictions (740, 742, 766)', () => {
    const errors = errorsOf(
      note([
        item(profile({ orig: 0, CST: '50' })),
        item(profile({ orig: 0, CST: '51' })),
        item(profile({ orig: 0, CST: '00', pICMS: '18' }, { IPI: { CST: '50', cEnq: '999', pIPI: '5' } })),
      ]),
    );
    expect(errors.map((e) => [e.field, /\d{3}/.exec(e.error)?.[0]])).toEqual([
      ['itens[0].taxes.ICMS.CST', '766'],
      ['itens[1].taxes.ICMS.CST', '740'],
      ['itens[2].taxes.IPI.CST', '742'],
    ]);
  });

  it('reports what simple mode does not compute', () => {
    const errors = errorsOf(
      note(
        [
          item(profile({ orig: 0, CST: '02' })),
          item(profile({ orig: 0, CST: '41' }, { PIS: { CST: '03' } })),
          item(profile({ orig: 0, CST: '41' }, { IBSCBS: { CST: '620', cClassTrib: '620001' } })),
          item(profile({ orig: 0, CST: '10', pICMS: '18', st: { modBCST: 0, pICMSST: '18' } })),
          item(profile({ orig: 0, CST: '20', pICMS: '18' })),
        ],
        { modelo: 55 },
      ),
    );
    expect(errors.map((e) => e.field)).toEqual([
      'itens[0].taxes.ICMS.CST',
      'itens[1].taxes.PIS.CST',
      'itens[2].taxes.IBSCBS.CST',
      'itens[3].taxes.ICMS.st.vBCSTUnit',
      'itens[4].taxes.ICMS.pRedBC',
    ]);
  });

  it('reports discounts larger than the products and an empty note', () => {
    const taxes = profile({ orig: 0, CST: '40' });
    const errors = errorsOf(note([item(taxes, { vDesc: '60' }), item(taxes)], { vDesc: '250' }));
    expect(errors.map((e) => e.field)).toEqual(['vDesc', 'itens[0].vDesc', 'itens[1].vDesc']);
    expect(errorsOf(note([]))).toEqual([{ field: 'itens', error: 'a note needs at least one item' }]);
    expect(errorsOf(note([item(taxes)], { dhEmi: new Date('not a date') }))).toEqual([
      { field: 'dhEmi', error: 'must be a valid date' },
    ]);
  });

  it('throws a TaxComputationError carrying the list', () => {
    const model = note([item(profile({ orig: 0, CST: '02' })), item(profile({ orig: 0, CST: '53' }))]);
    expect(() => computeTaxesOrThrow(model)).toThrow(TaxComputationError);
    try {
      computeTaxesOrThrow(model);
    } catch (e) {
      expect((e as TaxComputationError).details).toHaveLength(2);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------
// Property: random carts. Totals are sums of the items to the cent, vNF follows its formula, each rounded
// value is within half a cent of the exact product, and the apportioned charges add up to the note's.

const rateArb = (max: number) => fc.integer({ min: 0, max }).map((v) => formatScaled(BigInt(v), SCALE.rate));

const stArb = fc.record({
  modBCST: fc.constant(4),
  pMVAST: rateArb(1_000_000),
  pRedBCST: fc.option(rateArb(900_000), { nil: undefined }),
  pICMSST: rateArb(300_000),
});

const icmsNormalArb: fc.Arbitrary<FiscalTaxes['ICMS']> = fc.oneof(
  rateArb(300_000).map((pICMS) => ({ orig: 0, CST: '00' as const, pICMS })),
  fc
    .record({ pICMS: rateArb(300_000), pRedBC: rateArb(990_000) })
    .map((v) => ({ orig: 1, CST: '20' as const, ...v })),
  fc.record({ pICMS: rateArb(300_000), st: stArb }).map((v) => ({ orig: 0, CST: '10' as const, ...v })),
  fc
    .record({ pICMS: rateArb(300_000), pRedBC: rateArb(990_000), st: stArb })
    .map((v) => ({ orig: 0, CST: '70' as const, ...v })),
  fc.record({ st: stArb }).map((v) => ({ orig: 0, CST: '30' as const, ...v })),
  fc.constantFrom(...(['40', '41', '60'] as const)).map((CST) => ({ orig: 0, CST })),
  fc
    .record({
      pICMS: fc.option(rateArb(300_000), { nil: undefined }),
      st: fc.option(stArb, { nil: undefined }),
    })
    .map((v) => ({ orig: 0, CST: '90' as const, ...v })),
);

const icmsSimplesArb: fc.Arbitrary<FiscalTaxes['ICMS']> = fc.oneof(
  rateArb(50_000).map((pCredSN) => ({ orig: 0, CSOSN: '101' as const, pCredSN })),
  fc.constantFrom(...(['102', '103', '300', '400', '500'] as const)).map((CSOSN) => ({ orig: 0, CSOSN })),
  fc
    .record({ pCredSN: rateArb(50_000), st: stArb, pICMS: rateArb(300_000) })
    .map((v) => ({ orig: 0, CSOSN: '201' as const, ...v })),
  fc.record({ st: stArb }).map((v) => ({ orig: 0, CSOSN: '202' as const, ...v })),
  fc
    .record({ pICMS: rateArb(300_000), st: fc.option(stArb, { nil: undefined }) })
    .map((v) => ({ orig: 0, CSOSN: '900' as const, ...v })),
);

const pisArb = (name: 'pPIS' | 'pCOFINS') =>
  fc.oneof(
    rateArb(100_000).map((rate) => ({ CST: '01', [name]: rate })),
    fc.option(rateArb(100_000), { nil: undefined }).map((rate) => ({ CST: '49', [name]: rate })),
    fc.constant({ CST: '07' }),
  );

const ipiArb = fc.oneof(
  fc.constant(undefined),
  rateArb(500_000).map((pIPI) => ({ CST: '50' as const, cEnq: '999', pIPI })),
  fc.constant({ CST: '53' as const, cEnq: '999' }),
);

const ibsArb = fc.oneof(
  fc.constant(undefined),
  fc.constant({ CST: '000', cClassTrib: '000001' }),
  fc.constant({ CST: '410', cClassTrib: '410001' }),
);

const lineArb = (crt: 1 | 3, modelo: 55 | 65) =>
  fc.record({
    qCom: fc.integer({ min: 1, max: 10_000_000 }),
    vUnCom: fc.bigInt({ min: 0n, max: 5_000_000_000_000n }),
    ownDescPermille: fc.integer({ min: 0, max: 500 }),
    vFrete: fc.integer({ min: 0, max: 5_000 }),
    vOutro: fc.integer({ min: 0, max: 5_000 }),
    icms: crt === 3 ? icmsNormalArb : icmsSimplesArb,
    // The computed key loses the CST literal type; the arbitrary only builds valid PIS/COFINS groups.
    PIS: pisArb('pPIS') as fc.Arbitrary<FiscalTaxes['PIS']>,
    COFINS: pisArb('pCOFINS') as fc.Arbitrary<FiscalTaxes['COFINS']>,
    IPI: modelo === 55 ? ipiArb : fc.constant(undefined),
    IBSCBS: ibsArb,
    pTotTrib: fc.option(rateArb(500_000), { nil: undefined }),
  });

const cartArb = fc
  .record({ crt: fc.constantFrom<1 | 3>(1, 3), modelo: fc.constantFrom<55 | 65>(55, 65) })
  .chain(({ crt, modelo }) =>
    fc.record({
      crt: fc.constant(crt),
      modelo: fc.constant(modelo),
      indFinal: fc.constantFrom<0 | 1>(0, 1),
      lines: fc.array(lineArb(crt, modelo), { minLength: 1, maxLength: 8 }),
      descPermille: fc.integer({ min: 0, max: 400 }),
      vFrete: fc.integer({ min: 0, max: 100_000 }),
      vSeg: fc.integer({ min: 0, max: 100_000 }),
      vOutro: fc.integer({ min: 0, max: 100_000 }),
    }),
  );

const money = (v: bigint | number): string => formatScaled(BigInt(v), SCALE.money);
const HUNDRED = 100n * pow10(SCALE.rate);

function assertWithinHalfCent(value: bigint, scaledExact: bigint, scale: bigint): void {
  // |value − exact| ≤ 0.5 cent ⇔ |value·scale − exact·…| ≤ scale/2
  const diff = value * scale - scaledExact;
  expect(2n * (diff < 0n ? -diff : diff) <= scale).toBe(true);
}

describe('property: random carts', () => {
  it('totals are the sums of the items and vNF follows its formula', () => {
    fc.assert(
      fc.property(cartArb, (cart) => {
        const itens: ItemModel[] = cart.lines.map((l) => {
          const qCom = formatScaled(BigInt(l.qCom), SCALE.quantity);
          const vUnCom = formatScaled(l.vUnCom, SCALE.unitPrice);
          const vProd = lineTotal(BigInt(l.qCom), l.vUnCom);
          const taxes: FiscalTaxes = {
            ICMS: l.icms,
            PIS: l.PIS,
            COFINS: l.COFINS,
            IPI: l.IPI,
            IBSCBS: l.IBSCBS,
          };
          if (l.pTotTrib !== undefined) taxes.pTotTrib = l.pTotTrib;
          return item(taxes, {
            qCom,
            vUnCom,
            vDesc: money((vProd * BigInt(l.ownDescPermille)) / 1000n),
            vFrete: money(l.vFrete),
            vOutro: money(l.vOutro),
          });
        });
        const vProds = cart.lines.map((l) => lineTotal(BigInt(l.qCom), l.vUnCom));
        const noteDesc = (sum(vProds) * BigInt(cart.descPermille)) / 1000n;
        const model = note(itens, {
          modelo: cart.modelo,
          indFinal: cart.indFinal,
          vDesc: money(noteDesc),
          vFrete: money(cart.vFrete),
          vSeg: money(cart.vSeg),
          vOutro: money(cart.vOutro),
        });
        const base = model.emit;
        const result = computeTaxes({ ...model, emit: { ...base, CRT: cart.crt } });
        if (!result.ok) throw new Error(JSON.stringify(result.errors));
        const n = result.note;
        const t = n.icmsTot;
        const of = (f: (i: (typeof n.itens)[number]) => bigint) => sum(n.itens.map(f));

        expect(t.vProd).toBe(sum(vProds));
        expect(t.vDesc).toBe(of((i) => i.vDesc));
        expect(t.vFrete).toBe(of((i) => i.vFrete));
        expect(t.vSeg).toBe(of((i) => i.vSeg));
        expect(t.vOutro).toBe(of((i) => i.vOutro));
        // apportioned charges add up exactly to the note's amount plus the items' own
        expect(t.vDesc).toBe(noteDesc + sum(itens.map((i) => c(i.vDesc ?? '0'))));
        expect(t.vFrete).toBe(BigInt(cart.vFrete) + sum(cart.lines.map((l) => BigInt(l.vFrete))));
        expect(t.vSeg).toBe(BigInt(cart.vSeg));
        expect(t.vOutro).toBe(BigInt(cart.vOutro) + sum(cart.lines.map((l) => BigInt(l.vOutro))));
        expect(t.vBC).toBe(of((i) => i.icms.own?.vBC ?? 0n));
        expect(t.vICMS).toBe(of((i) => i.icms.own?.vICMS ?? 0n));
        expect(t.vBCST).toBe(of((i) => i.icms.st?.vBCST ?? 0n));
        expect(t.vST).toBe(of((i) => i.icms.st?.vICMSST ?? 0n));
        expect(t.vIPI).toBe(of((i) => i.ipi?.trib?.vIPI ?? 0n));
        expect(t.vPIS).toBe(of((i) => i.pis.value));
        expect(t.vCOFINS).toBe(of((i) => i.cofins.value));
        if (t.vTotTrib !== null) expect(t.vTotTrib).toBe(of((i) => i.vTotTrib ?? 0n));
        expect(t.vNF).toBe(
          t.vProd -
            t.vDesc -
            t.vICMSDeson +
            t.vST +
            t.vFCPST +
            t.vFrete +
            t.vSeg +
            t.vOutro +
            t.vII +
            t.vIPI +
            t.vIPIDevol,
        );
        expect(n.vNFTot).toBe(of((i) => i.vItem));
        expect(n.vNFTot).toBe(t.vNF); // 2026
        const groups = n.itens.flatMap((i) => (i.ibscbs?.g ? [i.ibscbs.g] : []));
        if (groups.length === 0) expect(n.ibsCbsTot).toBeNull();
        else {
          expect(n.ibsCbsTot?.vBCIBSCBS).toBe(sum(groups.map((g) => g.vBC)));
          expect(n.ibsCbsTot?.vIBS).toBe(sum(groups.map((g) => g.vIBS)));
          expect(n.ibsCbsTot?.vCBS).toBe(sum(groups.map((g) => g.vCBS)));
          expect(n.ibsCbsTot?.vIBS).toBe((n.ibsCbsTot?.vIBSUF ?? 0n) + (n.ibsCbsTot?.vIBSMun ?? 0n));
        }

        for (const it of n.itens) {
          expect(it.vDesc <= it.vProd).toBe(true);
          const vOper = it.vProd - it.vDesc + it.vFrete + it.vSeg + it.vOutro;
          const own = it.icms.own;
          if (own !== null && it.icms.deferral === null)
            assertWithinHalfCent(own.vICMS, own.vBC * own.pICMS, HUNDRED);
          const st = it.icms.st;
          if (st !== null) {
            const baseSt = vOper + (it.ipi?.trib?.vIPI ?? 0n);
            const exact = baseSt * (HUNDRED + (st.pMVAST ?? 0n)) * (HUNDRED - (st.pRedBCST ?? 0n));
            assertWithinHalfCent(st.vBCST, exact, HUNDRED * HUNDRED);
            expect(st.vICMSST >= 0n).toBe(true);
          }
          if (it.pis.rate !== null && it.pis.vBC !== null) {
            assertWithinHalfCent(it.pis.value, it.pis.vBC * it.pis.rate, HUNDRED);
          }
          const g = it.ibscbs?.g;
          if (g) {
            const expected = vOper - (own?.vICMS ?? 0n) - it.pis.value - it.cofins.value;
            expect(g.vBC).toBe(expected > 0n ? expected : 0n);
            assertWithinHalfCent(g.vCBS, g.vBC * g.pCBS, HUNDRED);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
