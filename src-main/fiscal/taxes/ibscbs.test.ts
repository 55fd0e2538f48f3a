// IBS/CBS beyond CST 000: reduction (gRed), deferral (gDif), the table checks (1020, 1023, 1024, 1025) and the
// rates in force (1026, 1036, 1037), each value computed by hand in the comments.
import { describe, expect, it } from 'vitest';
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { cents, parseScaled, SCALE } from '../../../src-shared/money.ts';
import { computeTaxes } from './compute.ts';
import { effectiveRate, ibsCbsClass, ratesInForce } from './ibscbs-table.ts';
import { item, note, profile } from './test-model.ts';
import type { ComputedNote } from './types.ts';

const c = cents;
const r = (t: string) => parseScaled(t, SCALE.rate);

// ICMS 40 and no PIS/COFINS values (CST 07), so the IBS/CBS base is vProd alone.
const taxes = (IBSCBS: FiscalTaxes['IBSCBS']) =>
  profile({ orig: 0, CST: '40' }, { PIS: { CST: '07' }, COFINS: { CST: '07' }, IBSCBS });

function computed(ibs: FiscalTaxes['IBSCBS'], over: Parameters<typeof note>[1] = {}): ComputedNote {
  const res = computeTaxes(note([item(taxes(ibs), { qCom: '1', vUnCom: '1234.56' })], over));
  if (!res.ok) throw new Error(JSON.stringify(res.errors));
  return res.note;
}

function refused(ibs: FiscalTaxes['IBSCBS'], over: Parameters<typeof note>[1] = {}) {
  const res = computeTaxes(note([item(taxes(ibs), { qCom: '1', vUnCom: '1234.56' })], over));
  if (res.ok) throw new Error('expected a refusal');
  return res;
}

describe('IBS/CBS tables', () => {
  it('rates in force by date: 2026 test rates, 2027-2028 IBS 0.05 + 0.05 with CBS unpublished', () => {
    expect(ratesInForce('2026-07-01')).toEqual({ pCBS: r('0.9'), pIBSUF: r('0.1'), pIBSMun: 0n });
    expect(ratesInForce('2027-01-01')).toEqual({ pCBS: null, pIBSUF: r('0.05'), pIBSMun: r('0.05') });
    expect(ratesInForce('2029-01-01')).toBeNull();
  });

  it('cClassTrib carries its CST, reductions and models', () => {
    expect(ibsCbsClass('200034')).toMatchObject({
      CST: '200',
      pRedIBS: '60.0000',
      indNFe: true,
      indNFCe: true,
    });
    expect(ibsCbsClass('200003')).toMatchObject({ pRedIBS: '100.0000', pRedCBS: '100.0000' });
    expect(ibsCbsClass('410004')).toMatchObject({ indNFe: true, indNFCe: false });
    expect(ibsCbsClass('999999')).toBeUndefined();
  });

  it('pAliqEfet rounds half-up on the 4th decimal (UB28-10)', () => {
    // 0.9 × (1 − 0.60) = 0.36; 0.1 × 0.4 = 0.04; 0.9 × (1 − 0.3333) = 0.60003 → 0.6000
    expect(effectiveRate(r('0.9'), r('60'))).toBe(r('0.36'));
    expect(effectiveRate(r('0.1'), r('60'))).toBe(r('0.04'));
    expect(effectiveRate(r('0.9'), r('33.33'))).toBe(r('0.6'));
    // 0.1 × (1 − 0.33335) = 0.066665 → 0.0667
    expect(effectiveRate(r('0.1'), r('33.335'))).toBe(r('0.0667'));
  });
});

describe('IBS/CBS CSTs', () => {
  it('200 with a 60 % class: gRed with pRedAliq 60 and pAliqEfet, values at the effective rate', () => {
    const n = computed({ CST: '200', cClassTrib: '200034' });
    const g = n.itens[0]?.ibscbs?.g;
    // vBC 1234.56; CBS 0.36 % → 4.444416 → 4.44; IBS UF 0.04 % → 0.493824 → 0.49; Mun 0
    expect(g).toMatchObject({ vBC: c('1234.56'), pCBS: r('0.9'), vCBS: c('4.44'), vIBSUF: c('0.49') });
    expect(g?.vIBSMun).toBe(0n);
    expect(g?.vIBS).toBe(c('0.49'));
    expect(g?.red).toEqual({
      IBSUF: { pRedAliq: r('60'), pAliqEfet: r('0.04') },
      IBSMun: { pRedAliq: r('60'), pAliqEfet: 0n },
      CBS: { pRedAliq: r('60'), pAliqEfet: r('0.36') },
    });
    expect(g?.dif).toBeNull();
    expect(n.ibsCbsTot).toMatchObject({ vBCIBSCBS: c('1234.56'), vCBS: c('4.44'), vIBS: c('0.49') });
  });

  it('200 with a 100 % class (cesta básica): zero effective rates and zero values', () => {
    const g = computed({ CST: '200', cClassTrib: '200003' }).itens[0]?.ibscbs?.g;
    expect(g?.red?.CBS).toEqual({ pRedAliq: r('100'), pAliqEfet: 0n });
    expect([g?.vIBSUF, g?.vIBSMun, g?.vCBS]).toEqual([0n, 0n, 0n]);
    expect(g?.pCBS).toBe(r('0.9'));
  });

  it('510 deferral: vDif = vBC × p × pDif, value net of it, totals carry vDif', () => {
    const n = computed({ CST: '510', cClassTrib: '510001', pDif: '40' }, { modelo: 55 });
    const g = n.itens[0]?.ibscbs?.g;
    // CBS: 1234.56 × 0.9 % = 11.11104 → 11.11; vDif = 1234.56 × 0.9 % × 40 % = 4.444416 → 4.44; vCBS 6.67
    // IBS UF: 1234.56 × 0.1 % = 1.23456 → 1.23; vDif = 0.493824 → 0.49; vIBSUF 0.74
    expect(g?.dif).toEqual({
      IBSUF: { pDif: r('40'), vDif: c('0.49') },
      IBSMun: { pDif: r('40'), vDif: 0n },
      CBS: { pDif: r('40'), vDif: c('4.44') },
    });
    expect([g?.vCBS, g?.vIBSUF, g?.vIBS]).toEqual([c('6.67'), c('0.74'), c('0.74')]);
    expect(g?.red).toBeNull();
    expect(n.ibsCbsTot).toMatchObject({ vDifCBS: c('4.44'), vDifIBSUF: c('0.49'), vDifIBSMun: 0n });
  });

  it('515 deferral with reduction: deferral over the effective rate (UB23-10 obs. 2)', () => {
    const g = computed({ CST: '515', cClassTrib: '515001', pDif: '100' }, { modelo: 55 }).itens[0]?.ibscbs?.g;
    // CBS effective 0.36 %: 4.444416 → 4.44 deferred entirely (pDif 100): vDif 4.44, vCBS 0
    expect(g?.red?.CBS).toEqual({ pRedAliq: r('60'), pAliqEfet: r('0.36') });
    expect(g?.dif?.CBS).toEqual({ pDif: r('100'), vDif: c('4.44') });
    expect([g?.vCBS, g?.vIBSUF]).toEqual([0n, 0n]);
  });

  it('510 without pDif and pDif on a CST without deferral are reported', () => {
    expect(refused({ CST: '510', cClassTrib: '510001' }, { modelo: 55 }).errors).toEqual([
      { field: 'itens[0].taxes.IBSCBS.pDif', error: expect.stringContaining('requires pDif') },
    ]);
    expect(refused({ CST: '000', cClassTrib: '000001', pDif: '10' }).errors[0]?.field).toBe(
      'itens[0].taxes.IBSCBS.pDif',
    );
  });

  it('410 carries no gIBSCBS; 550, 620 and 800 are refused with the group they would need', () => {
    expect(computed({ CST: '410', cClassTrib: '410999' }).itens[0]?.ibscbs?.g).toBeNull();
    const susp = refused({ CST: '550', cClassTrib: '550001' }, { modelo: 55 });
    expect(susp.errors[0]?.error).toContain('gTribRegular');
    expect(susp.rejection).toBeUndefined();
    expect(refused({ CST: '620', cClassTrib: '620001' }).errors[0]?.error).toContain('gIBSCBSMono');
    expect(refused({ CST: '800', cClassTrib: '800001' }, { modelo: 55 }).errors[0]?.error).toContain(
      'gTransfCred',
    );
  });
});

describe('IBS/CBS rules of the authority before signing', () => {
  it('1020: CST not in the table', () => {
    const res = refused({ CST: '999', cClassTrib: '999001' });
    expect(res.errors[0]?.field).toBe('itens[0].taxes.IBSCBS.CST');
    expect(res.rejection).toEqual({
      cStat: '1020',
      xMotivo: 'Rejeição: CST do IBS/CBS informado inexistente',
    });
  });

  it('1023: cClassTrib not in the table', () => {
    const res = refused({ CST: '000', cClassTrib: '000099' });
    expect(res.errors[0]?.field).toBe('itens[0].taxes.IBSCBS.cClassTrib');
    expect(res.errors[0]?.error).toContain('2025.002');
    expect(res.rejection?.cStat).toBe('1023');
  });

  it('1024: cClassTrib of another CST', () => {
    const res = refused({ CST: '000', cClassTrib: '200034' });
    expect(res.rejection).toEqual({
      cStat: '1024',
      xMotivo: 'Rejeição: Classificação Tributária do IBS e da CBS incompatível com o CST informado',
    });
  });

  it('1025: class not allowed on the model (export on an NFC-e)', () => {
    expect(refused({ CST: '410', cClassTrib: '410004' }).rejection?.cStat).toBe('1025');
    expect(computed({ CST: '410', cClassTrib: '410004' }, { modelo: 55 }).itens[0]?.ibscbs?.CST).toBe('410');
  });

  it('1026, 1036, 1037: rates other than those in force on the date, every one reported', () => {
    const res = refused({ CST: '000', cClassTrib: '000001', pCBS: '8.8', pIBSUF: '17.7', pIBSMun: '1' });
    expect(res.errors.map((e) => e.field)).toEqual([
      'itens[0].taxes.IBSCBS.pIBSUF',
      'itens[0].taxes.IBSCBS.pIBSMun',
      'itens[0].taxes.IBSCBS.pCBS',
    ]);
    expect(res.errors[2]?.error).toContain('cStat 1037');
    expect(res.rejection).toEqual({ cStat: '1026', xMotivo: 'Rejeição: Alíquota do IBS da UF inválida' });
    // the rates in force given explicitly pass
    expect(
      computed({ CST: '000', cClassTrib: '000001', pCBS: '0.90', pIBSUF: '0.1', pIBSMun: '0' }),
    ).toBeTruthy();
  });

  it('in 2027 the IBS rates are 0.05 + 0.05 and the CBS is taken from the profile', () => {
    const in2027 = { dhEmi: new Date('2027-06-10T12:00:00-03:00') };
    expect(refused({ CST: '000', cClassTrib: '000001', pIBSUF: '0.1' }, in2027).rejection?.cStat).toBe(
      '1026',
    );
    const g = computed({ CST: '000', cClassTrib: '000001', pCBS: '8.8' }, in2027).itens[0]?.ibscbs?.g;
    // 1234.56 × 0.05 % = 0.61728 → 0.62 each; CBS 8.8 % = 108.64128 → 108.64
    expect([g?.vIBSUF, g?.vIBSMun, g?.vCBS]).toEqual([c('0.62'), c('0.62'), c('108.64')]);
  });
});
