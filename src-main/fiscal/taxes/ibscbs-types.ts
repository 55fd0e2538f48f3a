// What the IBS/CBS computation hands to the XML writers (NT 2025.002-RTC groups UB12-UB82 and W34-W59):
// amounts as bigint cents, rates as bigint percent at scale 4 (src-shared/money.ts).
import type { Cents, Rate } from './types.ts';

/** gRed of one tax (TRed): the reduction fixed by the cClassTrib and the rate it leaves (UB28-10). */
export interface IbsCbsReduction {
  pRedAliq: Rate;
  /** p × (1 − pRedAliq/100), 4 decimals. */
  pAliqEfet: Rate;
}

/** gDif of one tax (TDif): vDif = vBC × p(Efet) × pDif (UB23-10, UB42-10, UB61-10). */
export interface IbsCbsDeferral {
  pDif: Rate;
  vDif: Cents;
}

/** IBS/CBS group (NT 2025.002-RTC, UB12). `g` is gIBSCBS, absent for CSTs that carry no values (400, 410). */
export interface ComputedIbsCbs {
  CST: string;
  cClassTrib: string;
  g: {
    vBC: Cents;
    pIBSUF: Rate;
    /** vBC × p(Efet) − vDif (UB35-10). */
    vIBSUF: Cents;
    pIBSMun: Rate;
    vIBSMun: Cents;
    /** vIBSUF + vIBSMun (UB54a-10). */
    vIBS: Cents;
    pCBS: Rate;
    vCBS: Cents;
    /** gRed of each tax when the CST reduces the rate (200, 515); null otherwise. */
    red: { IBSUF: IbsCbsReduction; IBSMun: IbsCbsReduction; CBS: IbsCbsReduction } | null;
    /** gDif of each tax when the CST defers (510, 515); null otherwise. */
    dif: { IBSUF: IbsCbsDeferral; IBSMun: IbsCbsDeferral; CBS: IbsCbsDeferral } | null;
  } | null;
}

/**
 * total/IBSCBSTot (W34, type TIBSCBSMonoTot): every field the sum of the items' (W35-W56a, rejections
 * 1076-1091). Returned tax (vDevTrib) and presumed credit are sums of items that carry none today, so 0.
 */
export interface IbsCbsTot {
  vBCIBSCBS: Cents;
  vDifIBSUF: Cents;
  vDevTribIBSUF: Cents;
  vIBSUF: Cents;
  vDifIBSMun: Cents;
  vDevTribIBSMun: Cents;
  vIBSMun: Cents;
  vIBS: Cents;
  vCredPresIBS: Cents;
  vCredPresCondSusIBS: Cents;
  vDifCBS: Cents;
  vDevTribCBS: Cents;
  vCBS: Cents;
  vCredPresCBS: Cents;
  vCredPresCondSusCBS: Cents;
}
