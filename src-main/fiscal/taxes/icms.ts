// ICMS of one item by CST (regime normal) or CSOSN (Simples Nacional): own ICMS with base reduction,
// CST 51 deferral, ICMS-ST by MVA and the Simples Nacional credit, per MOC 7.0 annex I groups N02-N10h.
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import {
  formatCents as fmt,
  percentOf,
  pow10,
  reduceBy,
  roundDiv,
  SCALE,
} from '../../../src-shared/money.ts';
import type { DetailedTaxes, EmitModel, Modelo } from '../nfe/model.ts';
import { centsApart, forbidNonZero, type Issues, readMoney, readRate } from './issues.ts';
import type {
  Cents,
  ComputedIcms,
  IcmsCreditSn,
  IcmsCsosn,
  IcmsCst,
  IcmsDeferral,
  IcmsGroup,
  IcmsOwn,
  IcmsSt,
  Rate,
} from './types.ts';

type Need = 'required' | 'optional' | 'none';

interface IcmsRule {
  group: IcmsGroup;
  /** Own ICMS (vBC/pICMS/vICMS); 'deferred' is CST 51, written with the deferral fields. */
  own: Need | 'deferred';
  /** pRedBC of the own base: required by ICMS20/70, optional in 51/90/SN900. */
  pRedBC: Need;
  st: Need;
  creditSn: Need;
  /** Rejection an NFC-e (modelo 65) with this situation gets. */
  nfceRejection?: string;
  /** Why the situation cannot be computed from a fiscal profile. */
  unsupported?: string;
}

const NONE = { own: 'none', pRedBC: 'none', st: 'none', creditSn: 'none' } as const;
const MONOFASICO =
  'ICMS monofásico on fuels (CST 02, 15, 53, 61) is computed from ad rem quantities (qBCMono, adRemICMS) ' +
  'that the item model does not carry';

/** Regime normal (CRT 2 and 3). Groups and their required fields: MOC 7.0 annex I, N02-N10; XSD PL_010. */
const CST_RULES: Record<IcmsCst, IcmsRule> = {
  '00': { ...NONE, group: 'ICMS00', own: 'required' },
  '02': { ...NONE, group: 'ICMS00', unsupported: MONOFASICO },
  '10': { ...NONE, group: 'ICMS10', own: 'required', st: 'required' },
  '15': { ...NONE, group: 'ICMS00', unsupported: MONOFASICO },
  '20': { ...NONE, group: 'ICMS20', own: 'required', pRedBC: 'required' },
  '30': { ...NONE, group: 'ICMS30', st: 'required' },
  '40': { ...NONE, group: 'ICMS40' },
  '41': { ...NONE, group: 'ICMS40' },
  '50': { ...NONE, group: 'ICMS40', nfceRejection: '766 NFC-e com CST 50-Suspensão' },
  '51': {
    ...NONE,
    group: 'ICMS51',
    own: 'deferred',
    pRedBC: 'optional',
    nfceRejection: '740 NFC-e com CST 51-Diferimento',
  },
  '53': { ...NONE, group: 'ICMS00', unsupported: MONOFASICO },
  // The retained-ST fields (vBCSTRet, pST, vICMSSTRet) are optional in the XSD and required only by some UFs
  // outside sales to final consumers (NT 2018.005 rule 938); the model has no place for them, so 60 is
  // written with orig and CST only.
  '60': { ...NONE, group: 'ICMS60' },
  '61': { ...NONE, group: 'ICMS00', unsupported: MONOFASICO },
  '70': { ...NONE, group: 'ICMS70', own: 'required', pRedBC: 'required', st: 'required' },
  '90': { ...NONE, group: 'ICMS90', own: 'optional', pRedBC: 'optional', st: 'optional' },
};

/** Simples Nacional (CRT 1 and 4). Groups ICMSSN101 ... ICMSSN900 (MOC 7.0 annex I, N10c-N10h). */
const CSOSN_RULES: Record<IcmsCsosn, IcmsRule> = {
  '101': { ...NONE, group: 'ICMSSN101', creditSn: 'required' },
  '102': { ...NONE, group: 'ICMSSN102' },
  '103': { ...NONE, group: 'ICMSSN102' },
  '201': { ...NONE, group: 'ICMSSN201', st: 'required', creditSn: 'required' },
  '202': { ...NONE, group: 'ICMSSN202', st: 'required' },
  '203': { ...NONE, group: 'ICMSSN202', st: 'required' },
  '300': { ...NONE, group: 'ICMSSN102' },
  '400': { ...NONE, group: 'ICMSSN102' },
  '500': { ...NONE, group: 'ICMSSN500' },
  '900': {
    ...NONE,
    group: 'ICMSSN900',
    own: 'optional',
    pRedBC: 'optional',
    st: 'optional',
    creditSn: 'optional',
  },
};

/**
 * Which ICMS code each CRT uses: CST for regime normal and the Simples Nacional over the sublimit, CSOSN for
 * Simples Nacional and MEI (MOC 7.0 rejections 590/591; CRT 4 per NT 2024.001 / XSD ICMSSN900 annotation).
 */
const CODE_BY_CRT: Record<EmitModel['CRT'], 'CST' | 'CSOSN'> = { 1: 'CSOSN', 2: 'CST', 3: 'CST', 4: 'CSOSN' };

/**
 * modBCST (MOC 7.0 N18): only MVA (4) and the operation value (6) can be computed from a profile; the
 * others need a price list or pauta per unit.
 */
const MOD_BC_ST: Record<number, 'mva' | 'operation' | 'price-list'> = {
  0: 'price-list',
  1: 'price-list',
  2: 'price-list',
  3: 'price-list',
  4: 'mva',
  5: 'price-list',
  6: 'operation',
};

const HUNDRED = 100n * pow10(SCALE.rate);

export interface IcmsInput {
  /** Path prefix for messages, e.g. `itens[2]`. */
  path: string;
  config: FiscalTaxes['ICMS'];
  CRT: EmitModel['CRT'];
  modelo: Modelo;
  /** Base of the own ICMS before any reduction: the operation value, plus IPI where it integrates it. */
  baseOwn: Cents;
  /** Base of ICMS-ST before MVA: operation value plus IPI (Convênio ICMS 142/2018, cláusula décima terceira). */
  baseSt: Cents;
  detailed: DetailedTaxes | null;
}

export function computeIcms(input: IcmsInput, issues: Issues): ComputedIcms {
  const { config, path } = input;
  const cfgPath = `${path}.taxes.ICMS`;
  const resolved = resolveRule(input, issues);
  const rule = resolved.rule;
  const result: ComputedIcms = {
    orig: config.orig,
    group: rule.group,
    CST: resolved.CST,
    CSOSN: resolved.CSOSN,
    own: null,
    deferral: null,
    st: null,
    creditSn: null,
  };
  if (rule.unsupported !== undefined) {
    issues.add(`${cfgPath}.CST`, rule.unsupported);
    return result;
  }
  const code = resolved.CST !== null ? `CST ${resolved.CST}` : `CSOSN ${String(resolved.CSOSN)}`;
  if (input.modelo === 65 && rule.nfceRejection !== undefined) {
    issues.add(`${cfgPath}.CST`, `${code} is not allowed in NFC-e (rejeição ${rule.nfceRejection})`);
  }

  const pICMS = readRate(config.pICMS, `${cfgPath}.pICMS`, issues);
  const pRedBC = readRate(config.pRedBC, `${cfgPath}.pRedBC`, issues);
  if (rule.pRedBC === 'required' && pRedBC === null) {
    issues.add(`${cfgPath}.pRedBC`, `${code} requires pRedBC (base reduction)`);
  }
  const usedRedBC = rule.pRedBC === 'none' ? null : pRedBC;
  const modBC = (config.modBC ?? 3) as IcmsOwn['modBC'];

  const d = input.detailed;
  const dVBC = d === null ? null : readMoney(d.vBC, `${path}.vBC`, issues);
  const dVICMS = d === null ? null : readMoney(d.vICMS, `${path}.vICMS`, issues);

  // Own ICMS.
  if (rule.own === 'none') {
    if (d !== null) {
      forbidNonZero(dVBC, `${path}.vBC`, `${code} has no own ICMS base`, issues);
      forbidNonZero(dVICMS, `${path}.vICMS`, `${code} has no own ICMS`, issues);
    }
  } else if (rule.own === 'deferred') {
    const own = deferredOwn(input, { code, cfgPath, pICMS, pRedBC: usedRedBC, modBC, dVBC, dVICMS }, issues);
    result.own = own?.own ?? null;
    result.deferral = own?.deferral ?? null;
  } else {
    result.own = ownIcms(
      input,
      { code, cfgPath, need: rule.own, pICMS, pRedBC: usedRedBC, modBC, dVBC, dVICMS },
      issues,
    );
  }

  // ICMS-ST.
  const deduction =
    result.own !== null
      ? result.own.vICMS
      : pICMS !== null
        ? percentOf(usedRedBC === null ? input.baseOwn : reduceBy(input.baseOwn, usedRedBC), pICMS)
        : 0n;
  result.st = icmsSt(input, { code, cfgPath, need: rule.st, deduction }, issues);

  // Simples Nacional credit (LC 123/2006 art. 23): pCredSN over the operation value.
  if (rule.creditSn !== 'none') {
    const pCredSN = readRate(config.pCredSN, `${cfgPath}.pCredSN`, issues);
    if (pCredSN === null) {
      if (rule.creditSn === 'required') issues.add(`${cfgPath}.pCredSN`, `${code} requires pCredSN`);
    } else {
      const credit: IcmsCreditSn = { pCredSN, vCredICMSSN: percentOf(input.baseOwn, pCredSN) };
      result.creditSn = credit;
    }
  }
  return result;
}

function resolveRule(
  input: IcmsInput,
  issues: Issues,
): { rule: IcmsRule; CST: IcmsCst | null; CSOSN: IcmsCsosn | null } {
  const { config, path } = input;
  const expected = CODE_BY_CRT[input.CRT];
  if (config.CST !== undefined && config.CSOSN === undefined) {
    if (expected === 'CSOSN') {
      issues.add(
        `${path}.taxes.ICMS.CST`,
        `an emitter with CRT ${input.CRT} (Simples Nacional) must use CSOSN, not CST (rejeição 590)`,
      );
    }
    return { rule: CST_RULES[config.CST], CST: config.CST, CSOSN: null };
  }
  if (config.CSOSN !== undefined && config.CST === undefined) {
    if (expected === 'CST') {
      issues.add(
        `${path}.taxes.ICMS.CSOSN`,
        `an emitter with CRT ${input.CRT} must use CST, not CSOSN (rejeição 591)`,
      );
    }
    return { rule: CSOSN_RULES[config.CSOSN], CST: null, CSOSN: config.CSOSN };
  }
  issues.add(`${path}.taxes.ICMS.CST`, 'give exactly one of CST (regime normal) or CSOSN (Simples Nacional)');
  return { rule: CST_RULES['40'], CST: '40', CSOSN: null };
}

interface OwnArgs {
  code: string;
  cfgPath: string;
  pICMS: Rate | null;
  pRedBC: Rate | null;
  modBC: IcmsOwn['modBC'];
  dVBC: Cents | null;
  dVICMS: Cents | null;
}

function ownIcms(
  input: IcmsInput,
  a: OwnArgs & { need: 'required' | 'optional' },
  issues: Issues,
): IcmsOwn | null {
  const { path } = input;
  if (input.detailed === null) {
    // Simple mode: an optional own ICMS (CST 90, CSOSN 900) exists when the profile gives its rate.
    if (a.pICMS === null) {
      if (a.need === 'required') issues.add(`${a.cfgPath}.pICMS`, `${a.code} requires pICMS`);
      return null;
    }
    const vBC = a.pRedBC === null ? input.baseOwn : reduceBy(input.baseOwn, a.pRedBC);
    return { modBC: a.modBC, pRedBC: a.pRedBC, vBC, pICMS: a.pICMS, vICMS: percentOf(vBC, a.pICMS) };
  }
  // Detailed mode: the caller's vBC/vICMS; optional groups exist when the caller gave a non-zero value.
  const given = (a.dVBC !== null && a.dVBC !== 0n) || (a.dVICMS !== null && a.dVICMS !== 0n);
  if (a.need === 'optional' && !given) return null;
  if (a.dVBC === null) issues.add(`${path}.vBC`, `${a.code} requires the ICMS base vBC`);
  if (a.dVICMS === null) issues.add(`${path}.vICMS`, `${a.code} requires vICMS`);
  if (a.pICMS === null) {
    issues.add(`${a.cfgPath}.pICMS`, `${a.code} requires pICMS to write the ICMS group`);
    return null;
  }
  const vBC = a.dVBC ?? 0n;
  const vICMS = a.dVICMS ?? 0n;
  const expected = percentOf(vBC, a.pICMS);
  // Rejeição 528 "Valor do ICMS difere do produto BC e Alíquota": one cent of rounding is tolerated here.
  if (a.dVBC !== null && a.dVICMS !== null && centsApart(vICMS, expected) > 1n) {
    issues.add(
      `${path}.vICMS`,
      `must be vBC × pICMS = ${fmt(expected)} (±0.01), got ${fmt(vICMS)} (rejeição 528)`,
    );
  }
  return { modBC: a.modBC, pRedBC: a.pRedBC, vBC, pICMS: a.pICMS, vICMS };
}

/**
 * CST 51. The model has no pDif, so a profile with pICMS is written as full deferral (pDif 100%: vICMSOp =
 * vICMSDif, vICMS 0), which is what rules 351-353 accept; without pICMS only orig and CST are written.
 */
function deferredOwn(
  input: IcmsInput,
  a: OwnArgs,
  issues: Issues,
): { own: IcmsOwn; deferral: IcmsDeferral } | null {
  const { path } = input;
  let vBC: Cents;
  if (input.detailed === null) {
    if (a.pICMS === null) return null;
    vBC = a.pRedBC === null ? input.baseOwn : reduceBy(input.baseOwn, a.pRedBC);
  } else {
    forbidNonZero(
      a.dVICMS,
      `${path}.vICMS`,
      'CST 51 is written with full deferral (the model has no pDif), so vICMS must be 0',
      issues,
    );
    if (a.dVBC === null || a.dVBC === 0n) return null;
    if (a.pICMS === null) {
      issues.add(`${a.cfgPath}.pICMS`, 'CST 51 with a base requires pICMS');
      return null;
    }
    vBC = a.dVBC;
  }
  const vICMSOp = percentOf(vBC, a.pICMS);
  return {
    own: { modBC: a.modBC, pRedBC: a.pRedBC, vBC, pICMS: a.pICMS, vICMS: 0n },
    deferral: { vICMSOp, pDif: HUNDRED, vICMSDif: vICMSOp },
  };
}

function icmsSt(
  input: IcmsInput,
  a: { code: string; cfgPath: string; need: Need; deduction: Cents },
  issues: Issues,
): IcmsSt | null {
  const { path, config } = input;
  const d = input.detailed;
  const dVBCST = d === null ? null : readMoney(d.vBCST, `${path}.vBCST`, issues);
  const dVICMSST = d === null ? null : readMoney(d.vICMSST, `${path}.vICMSST`, issues);
  if (a.need === 'none') {
    forbidNonZero(dVBCST, `${path}.vBCST`, `${a.code} has no ICMS-ST`, issues);
    forbidNonZero(dVICMSST, `${path}.vICMSST`, `${a.code} has no ICMS-ST`, issues);
    return null;
  }
  const givenDetailed = (dVBCST !== null && dVBCST !== 0n) || (dVICMSST !== null && dVICMSST !== 0n);
  if (a.need === 'optional' && (d === null ? config.st === undefined : !givenDetailed)) return null;
  const st = config.st;
  if (st === undefined) {
    issues.add(`${a.cfgPath}.st`, `${a.code} requires the ICMS-ST group (modBCST, pICMSST ...)`);
    return null;
  }
  const stPath = `${a.cfgPath}.st`;
  const pMVAST = readRate(st.pMVAST, `${stPath}.pMVAST`, issues);
  const pRedBCST = readRate(st.pRedBCST, `${stPath}.pRedBCST`, issues);
  const pICMSST = readRate(st.pICMSST, `${stPath}.pICMSST`, issues) ?? 0n;

  if (d !== null) {
    if (dVBCST === null) issues.add(`${path}.vBCST`, `${a.code} requires vBCST`);
    if (dVICMSST === null) issues.add(`${path}.vICMSST`, `${a.code} requires vICMSST`);
    const vBCST = dVBCST ?? 0n;
    const vICMSST = dVICMSST ?? 0n;
    const ceiling = percentOf(vBCST, pICMSST);
    if (vICMSST > ceiling + 1n) {
      issues.add(`${path}.vICMSST`, `cannot exceed vBCST × pICMSST = ${fmt(ceiling)}, got ${fmt(vICMSST)}`);
    }
    return { modBCST: st.modBCST, pMVAST, pRedBCST, vBCST, pICMSST, vICMSST };
  }

  const kind = MOD_BC_ST[st.modBCST];
  if (kind === undefined || kind === 'price-list') {
    issues.add(
      `${stPath}.modBCST`,
      `modBCST ${st.modBCST} needs a price list or pauta per unit; only 4 (MVA) and 6 (valor da operação) are computed`,
    );
    return null;
  }
  if (kind === 'mva' && pMVAST === null) issues.add(`${stPath}.pMVAST`, 'modBCST 4 (MVA) requires pMVAST');
  if (kind === 'operation' && pMVAST !== null && pMVAST !== 0n) {
    issues.add(`${stPath}.pMVAST`, 'pMVAST applies only to modBCST 4 (MVA)');
  }
  // vBCST = (vProd − vDesc + vFrete + vSeg + vOutro + vIPI) × (1 + pMVAST) × (1 − pRedBCST), rounded once at
  // the end so the MVA and the reduction do not each add a rounding.
  const mva = kind === 'mva' ? (pMVAST ?? 0n) : 0n;
  const red = pRedBCST ?? 0n;
  const vBCST = roundDiv(input.baseSt * (HUNDRED + mva) * (HUNDRED - red), HUNDRED * HUNDRED);
  // vICMSST = vBCST × pICMSST − ICMS of the own operation (for Simples Nacional, the ICMS at the normal
  // rate, LC 123/2006 art. 13 §6 II); never negative.
  const gross = percentOf(vBCST, pICMSST);
  const vICMSST = gross > a.deduction ? gross - a.deduction : 0n;
  return { modBCST: st.modBCST, pMVAST, pRedBCST, vBCST, pICMSST, vICMSST };
}
