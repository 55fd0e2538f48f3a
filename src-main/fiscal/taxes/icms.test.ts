// ICMS depth (issue 14 items 4, 8, 9), hand-checked: Simples Nacional ST deducting the own ICMS at the UF's
// rate, FCP and FCP-ST, DIFAL (ICMSUFDest), desoneração, CST 60 retained ST and effective ICMS, and the ST base
// from a price list or pauta per unit.
import { describe, expect, it } from 'vitest';
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import type { DestModel, ItemModel, NfeModel } from '../nfe/model.ts';
import { computeTaxes } from './compute.ts';
import { cents as c, consumerIn, item, note, only, profile, rate as r, simplesNote } from './test-model.ts';

function rejected(model: NfeModel) {
  const result = computeTaxes(model);
  if (result.ok) throw new Error('expected errors');
  return result;
}

/** The note issued from another UF (the emitter's address moved there). */
function from(uf: NfeModel['emit']['enderEmit']['UF'], model: NfeModel): NfeModel {
  return { ...model, emit: { ...model.emit, enderEmit: { ...model.emit.enderEmit, UF: uf } } };
}

/** An NF-e from SP to a consumer in `uf` (idDest 2, indFinal 1, indIEDest 9). */
function interstate(itens: ItemModel[], uf: NonNullable<DestModel['enderDest']>['UF'] = 'RJ'): NfeModel {
  return note(itens, { modelo: 55, dest: consumerIn(uf), indFinal: 1 });
}

describe('Simples Nacional ST: own ICMS deducted without pICMS (LC 123/2006 art. 13 §6 II)', () => {
  // The case: vProd 179.80 in a UF with a 20 % internal rate (CE), MVA 41.38 %, pICMSST 20 %.
  // vBCST = 179.80 × 1.4138 = 254.20; gross 50.84; own 179.80 × 20 % = 35.96; vICMSST 14.88.
  const st = { modBCST: 4, pMVAST: '41.38', pICMSST: '20' };
  const sale = (CSOSN: '201' | '202') =>
    from(
      'CE',
      simplesNote([
        item(profile({ orig: 0, CSOSN, ...(CSOSN === '201' ? { pCredSN: '1.25' } : {}), st }), {
          qCom: '2',
          vUnCom: '89.90',
        }),
      ]),
    );

  it('201 charges 14.88, not the gross 50.84', () => {
    const { n, it } = only(sale('201'));
    expect(it.vProd).toBe(c('179.80'));
    expect(it.icms.st?.vBCST).toBe(c('254.20'));
    expect(it.icms.st?.vICMSST).toBe(c('14.88'));
    expect(n.icmsTot.vST).toBe(c('14.88'));
    expect(n.icmsTot.vNF).toBe(c('194.68'));
  });

  it('202 likewise; a profile pICMS still wins over the table', () => {
    expect(only(sale('202')).it.icms.st?.vICMSST).toBe(c('14.88'));
    const withRate = from(
      'CE',
      simplesNote([
        item(profile({ orig: 0, CSOSN: '202', pICMS: '18', st }), { qCom: '2', vUnCom: '89.90' }),
      ]),
    );
    // 50.84 − 179.80 × 18 % (32.36) = 18.48
    expect(only(withRate).it.icms.st?.vICMSST).toBe(c('18.48'));
  });

  it('to another UF the deduction is at the interstate rate (SP → BA 7 %, imported goods 4 %)', () => {
    const taxes = (orig: number) =>
      profile({ orig, CSOSN: '202', st: { modBCST: 4, pMVAST: '40', pICMSST: '20.5' } });
    const sale202 = (orig: number) =>
      simplesNote([item(taxes(orig))], { modelo: 55, dest: consumerIn('BA'), indFinal: 1 });
    // vBCST 140.00 × 20.5 % = 28.70; − 100 × 7 % = 21.70; − 100 × 4 % = 24.70
    expect(only(sale202(0)).it.icms.st?.vICMSST).toBe(c('21.70'));
    expect(only(sale202(1)).it.icms.st?.vICMSST).toBe(c('24.70'));
  });
});

describe('FCP and FCP-ST (NT 2016.002)', () => {
  it('CST 00 with pFCP: vFCP on vBC, total vFCP, not in vNF, out of the IBS/CBS base', () => {
    const ibs = { IBSCBS: { CST: '000', cClassTrib: '000001' } };
    const plain = only(note([item(profile({ orig: 0, CST: '00', pICMS: '18' }, ibs))]));
    const { n, it } = only(note([item(profile({ orig: 0, CST: '00', pICMS: '18', pFCP: '2' }, ibs))]));
    expect(it.icms.fcp).toEqual({ vBCFCP: c('100.00'), pFCP: r('2'), vFCP: c('2.00') });
    expect(n.icmsTot.vFCP).toBe(c('2.00'));
    expect(n.icmsTot.vNF).toBe(c('100.00'));
    expect(plain.it.ibscbs?.g?.vBC).toBe(c('82.00'));
    expect(it.ibscbs?.g?.vBC).toBe(c('80.00'));
  });

  it('CST 10: FCP-ST = vBCST × pFCPST − own vFCP, added to vNF', () => {
    const taxes = profile({
      orig: 0,
      CST: '10',
      pICMS: '18',
      pFCP: '2',
      pFCPST: '2',
      st: { modBCST: 4, pMVAST: '40', pICMSST: '18' },
    });
    const { n, it } = only(note([item(taxes)], { modelo: 55 }));
    // vBCST 140.00: ST 25.20 − 18.00 = 7.20; FCP-ST 2.80 − 2.00 = 0.80
    expect(it.icms.fcpSt).toEqual({ vBCFCPST: c('140.00'), pFCPST: r('2'), vFCPST: c('0.80') });
    expect(n.icmsTot.vFCPST).toBe(c('0.80'));
    expect(n.icmsTot.vNF).toBe(c('108.00'));
    expect(it.vItem).toBe(c('108.00'));
  });

  it('pFCP 0 and pFCPST 0 are refused as rejections 880 and 881; pFCP on a group without own ICMS is refused', () => {
    const zero = rejected(note([item(profile({ orig: 0, CST: '00', pICMS: '18', pFCP: '0' }))]));
    expect(zero.rejection).toEqual({ cStat: '880', xMotivo: 'Rejeicao: Percentual de FCP igual a zero' });
    expect(zero.errors.map((e) => e.field)).toEqual(['itens[0].taxes.ICMS.pFCP']);
    const st = rejected(
      note([item(profile({ orig: 0, CST: '30', pFCPST: '0', st: { modBCST: 6, pICMSST: '18' } }))]),
    );
    expect(st.rejection?.cStat).toBe('881');
    expect(st.errors.map((e) => e.field)).toEqual(['itens[0].taxes.ICMS.pFCPST']);
    const sn = rejected(simplesNote([item(profile({ orig: 0, CSOSN: '102', pFCP: '2' }))]));
    expect(sn.errors.map((e) => e.field)).toEqual(['itens[0].taxes.ICMS.pFCP']);
  });
});

describe('DIFAL: ICMSUFDest (EC 87/2015, LC 190/2022, MOC rule NA01-20 / 694)', () => {
  const cst00 = (over: Partial<FiscalTaxes['ICMS']> = {}) =>
    item(profile({ orig: 0, CST: '00', pICMS: '12', ...over }), { qCom: '1', vUnCom: '1000', CFOP: '6102' });

  it('SP → RJ: 12 % interstate, RJ 20 % internal, 2 % FCP, all to the destination', () => {
    const { n, it } = only(interstate([cst00({ pFCPUFDest: '2' })], 'RJ'));
    expect(it.icms.ufDest).toEqual({
      vBCUFDest: c('1000.00'),
      fcp: { vBCFCPUFDest: c('1000.00'), pFCPUFDest: r('2'), vFCPUFDest: c('20.00') },
      pICMSUFDest: r('20'),
      pICMSInter: r('12'),
      pICMSInterPart: r('100'),
      vICMSUFDest: c('80.00'),
      vICMSUFRemet: c('0.00'),
    });
    expect([n.icmsTot.vFCPUFDest, n.icmsTot.vICMSUFDest, n.icmsTot.vICMSUFRemet]).toEqual([
      c('20.00'),
      c('80.00'),
      0n,
    ]);
    // DIFAL is paid by the seller, not charged on top of the price.
    expect(n.icmsTot.vNF).toBe(c('1000.00'));
  });

  it('SP → BA is 7 % (South/Southeast to Northeast), imported goods 4 %, BA 20.5 %', () => {
    expect(only(interstate([cst00()], 'BA')).it.icms.ufDest?.vICMSUFDest).toBe(c('135.00'));
    const imported = only(interstate([cst00({ orig: 1 })], 'BA')).it.icms.ufDest;
    expect(imported?.pICMSInter).toBe(r('4'));
    expect(imported?.vICMSUFDest).toBe(c('165.00'));
  });

  it('the profile pICMSUFDest wins over the table; the own pFCP goes nowhere (rule 876)', () => {
    const { n, it } = only(interstate([cst00({ pICMSUFDest: '22', pFCP: '2' })], 'RJ'));
    expect(it.icms.ufDest?.vICMSUFDest).toBe(c('100.00'));
    expect(it.icms.fcp).toBeNull();
    expect(n.icmsTot.vFCP).toBe(0n);
  });

  it('not for a contributor, an exempt item, a Simples Nacional emitter or an internal sale', () => {
    const contributor = note([cst00()], {
      modelo: 55,
      indFinal: 1,
      dest: { ...consumerIn('RJ'), indIEDest: 1, IE: '12345678' },
    });
    expect(only(contributor).it.icms.ufDest).toBeNull();
    expect(only(interstate([item(profile({ orig: 0, CST: '40' }))])).it.icms.ufDest).toBeNull();
    const sn = simplesNote([item(profile({ orig: 0, CSOSN: '102' }))], {
      modelo: 55,
      indFinal: 1,
      dest: consumerIn('RJ'),
    });
    expect(only(sn).it.icms.ufDest).toBeNull();
    const internal = only(interstate([cst00()], 'SP'));
    expect(internal.it.icms.ufDest).toBeNull();
    expect(internal.n.icmsTot.vICMSUFDest).toBeNull();
  });
});

describe('desoneração (N28, NT 2023.004 indDeduzDeson)', () => {
  it('CST 40 without pICMS: the ICMS at the UF rate; subtracted from vNF only with indDeduzDeson 1', () => {
    const kept = only(note([item(profile({ orig: 0, CST: '40', motDesICMS: 9 }))]));
    expect(kept.it.icms.deson).toEqual({ vICMSDeson: c('18.00'), motDesICMS: 9, indDeduzDeson: 0 });
    expect(kept.n.icmsTot.vICMSDeson).toBe(c('18.00'));
    expect(kept.n.icmsTot.vNF).toBe(c('100.00'));
    const deducted = only(note([item(profile({ orig: 0, CST: '40', motDesICMS: 8, indDeduzDeson: 1 }))]));
    expect(deducted.n.icmsTot.vNF).toBe(c('82.00'));
    expect(deducted.it.vItem).toBe(c('82.00'));
  });

  it('CST 20: the part the base reduction takes off', () => {
    const taxes = profile({ orig: 0, CST: '20', pICMS: '18', pRedBC: '10', motDesICMS: 9 });
    // full 18.00 − reduced 90.00 × 18 % (16.20) = 1.80
    expect(only(note([item(taxes)])).it.icms.deson?.vICMSDeson).toBe(c('1.80'));
  });

  it('a desoneração of 0.00 is refused as rejection 627 (a CST 20 whose reduction is 0 %)', () => {
    const zero = rejected(
      note([item(profile({ orig: 0, CST: '20', pICMS: '18', pRedBC: '0', motDesICMS: 9 }))]),
    );
    expect(zero.rejection).toEqual({
      cStat: '627',
      xMotivo: 'Rejeicao: O valor do ICMS desonerado deve ser informado',
    });
    expect(zero.errors.map((e) => e.field)).toEqual(['itens[0].taxes.ICMS.motDesICMS']);
  });

  it('a motDesICMS the CST does not admit is refused', () => {
    const bad = rejected(note([item(profile({ orig: 0, CST: '00', pICMS: '18', motDesICMS: 9 }))]));
    expect(bad.errors.map((e) => e.field)).toEqual(['itens[0].taxes.ICMS.motDesICMS']);
    const bad30 = rejected(note([item(profile({ orig: 0, CST: '40', motDesICMS: 12 }))]));
    expect(bad30.errors[0]?.error).toMatch(/admits motDesICMS 1, 3, 4/);
  });
});

describe('CST 60 / CSOSN 500: retained ST and effective ICMS', () => {
  const ret = { vBCSTRetUnit: '12.50', pST: '18', vICMSSubstitutoUnit: '1.20' };

  it('per unit from the purchase note times qCom, FCP-ST retained, effective ICMS for a final consumer', () => {
    const taxes = profile({ orig: 0, CST: '60', ret, pFCPSTRet: '2', efet: {} });
    const { n, it } = only(note([item(taxes, { qCom: '3', vUnCom: '20' })]));
    // vBCSTRet 37.50 × 18 % = 6.75 − substituto 3.60 = 3.15; FCP 0.75; effective 60.00 × 18 % (SP) = 10.80
    expect(it.icms.retained).toEqual({
      vBCSTRet: c('37.50'),
      pST: r('18'),
      vICMSSubstituto: c('3.60'),
      vICMSSTRet: c('3.15'),
      fcp: { vBCFCPSTRet: c('37.50'), pFCPSTRet: r('2'), vFCPSTRet: c('0.75') },
    });
    expect(it.icms.effective).toEqual({
      pRedBCEfet: 0n,
      vBCEfet: c('60.00'),
      pICMSEfet: r('18'),
      vICMSEfet: c('10.80'),
    });
    expect(n.icmsTot.vFCPSTRet).toBe(c('0.75'));
    // Retained ST was paid before: it is in neither vST nor vNF.
    expect([n.icmsTot.vST, n.icmsTot.vNF]).toEqual([0n, c('60.00')]);
  });

  it('CSOSN 500 likewise; no effective group for a sale to a reseller', () => {
    const taxes = profile({ orig: 0, CSOSN: '500', ret, efet: { pRedBCEfet: '10', pICMSEfet: '17' } });
    const sale = simplesNote([item(taxes)], { modelo: 55, indFinal: 0 });
    expect(only(sale).it.icms.effective).toBeNull();
    const toConsumer = only(simplesNote([item(taxes)])).it.icms.effective;
    expect(toConsumer?.vICMSEfet).toBe(c('15.30'));
  });

  it('ret on another CST is refused', () => {
    const bad = rejected(note([item(profile({ orig: 0, CST: '00', pICMS: '18', ret }))]));
    expect(bad.errors.map((e) => e.field)).toEqual(['itens[0].taxes.ICMS.ret']);
  });
});

describe('modBCST 0-3 and 5: ST base from a price list or pauta per unit', () => {
  it('vBCST = qCom × vBCSTUnit (× (1 − pRedBCST))', () => {
    const pauta = (modBCST: number, extra: Record<string, string> = {}) =>
      profile({ orig: 0, CST: '10', pICMS: '18', st: { modBCST, pICMSST: '18', vBCSTUnit: '15', ...extra } });
    // own 30.00 × 18 % = 5.40; vBCST 45.00 × 18 % = 8.10 − 5.40 = 2.70
    for (const modBCST of [0, 1, 2, 3, 5]) {
      const st = only(note([item(pauta(modBCST), { qCom: '3', vUnCom: '10' })])).it.icms.st;
      expect([st?.modBCST, st?.vBCST, st?.vICMSST]).toEqual([modBCST, c('45.00'), c('2.70')]);
    }
    const reduced = only(note([item(pauta(5, { pRedBCST: '10' }), { qCom: '3', vUnCom: '10' })]));
    expect(reduced.it.icms.st?.vBCST).toBe(c('40.50'));
  });
});
