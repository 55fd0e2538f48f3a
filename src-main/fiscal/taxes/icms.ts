// ICMS of one item by CST (regime normal) or CSOSN (Simples Nacional): own ICMS with base reduction,
// CST 51 deferral, ICMS-ST by MVA, price list or pauta, FCP and FCP-ST, desoneração, retained ST and effective
// ICMS (CST 60 / CSOSN 500), the DIFAL group ICMSUFDest and the Simples Nacional credit, per MOC 7.0 annex I
// groups N02-N10h and NA, NT 2015.003, NT 2016.002 and NT 2023.004.
import { type FiscalTaxes, MOT_DES_ICMS } from '../../../src-shared/contracts/catalog.ts';
import {
  formatCents as fmt,
  lineTotal,
  parseScaled,
  percentOf,
  pow10,
  reduceBy,
  roundDiv,
  SCALE,
} from '../../../src-shared/money.ts';
import { ICMS_INTERNAL_RATE } from '../../../src-shared/tables/icms-internal-rates.ts';
import { interstateRate } from '../../../src-shared/tables/icms-interstate-rates.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';
import { centsApart, forbidNonZero, type Issues, readMoney, readRate, readScaled } from './issues.ts';
import type {
  Cents,
  ComputedIcms,
  IcmsCreditSn,
  IcmsCsosn,
  IcmsCst,
  IcmsDeferral,
  IcmsDeson,
  IcmsEffective,
  IcmsFcp,
  IcmsFcpSt,
  IcmsGroup,
  IcmsOwn,
  IcmsRetained,
  IcmsSt,
  IcmsUfDest,
  Crt,
  DetailedTaxes,
  Rate,
  TaxModelo,
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
  // The retained-ST fields (vBCSTRet, pST, vICMSSTRet) come from the profile's `ret` (per unit, from the
  // purchase note) and the effective ICMS from `efet`; without them 60 is written with orig and CST only.
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
const CODE_BY_CRT: Record<Crt, 'CST' | 'CSOSN'> = { 1: 'CSOSN', 2: 'CST', 3: 'CST', 4: 'CSOSN' };

/**
 * modBCST (MOC 7.0 N18): 4 MVA and 6 the operation value are computed from the item's price; 0 (preço
 * tabelado or máximo sugerido), 1-3 (lista negativa, positiva, neutra) and 5 (pauta) from the profile's value
 * per unit (st.vBCSTUnit) times the quantity.
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

/** The facts of the operation that ICMS depends on beyond the item (ide, emit and dest of the note). */
export interface IcmsOperation {
  emitUF: UfSigla;
  /** enderDest/UF; null without a recipient address. */
  destUF: UfSigla | null;
  idDest: 1 | 2 | 3;
  indFinal: 0 | 1;
  indIEDest: 1 | 2 | 9 | null;
  tpNF: 0 | 1;
  finNFe: 1 | 2 | 3 | 4;
  CFOP: string;
}

export interface IcmsInput {
  /** Path prefix for messages, e.g. `itens[2]`. */
  path: string;
  config: FiscalTaxes['ICMS'];
  CRT: Crt;
  modelo: TaxModelo;
  op: IcmsOperation;
  /** qCom at SCALE.quantity: the quantity the per-unit values (pauta, retained ST) multiply. */
  qCom: bigint;
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
    fcp: null,
    fcpSt: null,
    deson: null,
    retained: null,
    effective: null,
    ufDest: null,
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

  const difal = difalApplies(input, resolved.CST, resolved.CSOSN);
  result.fcp = ownFcp(input, { code, cfgPath, group: rule.group, own: result.own, difal }, issues);

  // ICMS-ST. Simples Nacional deducts the ICMS its own operation would pay at the normal rate even though it
  // pays none (LC 123/2006 art. 13 §6 II; MOC: vICMSST = vBCST × pICMSST − vBC × pICMS): the profile's pICMS,
  // else the emitter UF's internal rate (interstate: 4/7/12 %).
  const ownRate = pICMS ?? (resolved.CSOSN !== null ? ownOperationRate(input) : null);
  const deduction =
    result.own !== null
      ? result.own.vICMS
      : ownRate !== null
        ? percentOf(usedRedBC === null ? input.baseOwn : reduceBy(input.baseOwn, usedRedBC), ownRate)
        : 0n;
  result.st = icmsSt(input, { code, cfgPath, need: rule.st, deduction }, issues);
  result.fcpSt = fcpSt(input, { code, cfgPath, st: result.st, ownFcp: result.fcp?.vFCP ?? 0n }, issues);
  result.deson = desoneracao(input, { code, cfgPath, CST: resolved.CST, own: result.own, pICMS }, issues);
  const retained = retainedSt(input, { code, cfgPath, group: rule.group }, issues);
  result.retained = retained.retained;
  result.effective = retained.effective;
  if (difal) result.ufDest = ufDest(input, cfgPath, issues);

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
  if (kind === undefined) {
    issues.add(`${stPath}.modBCST`, `modBCST ${st.modBCST} is not a code of the layout (0-6)`);
    return null;
  }
  const red = pRedBCST ?? 0n;
  if (kind === 'price-list') {
    const unit = readUnit(st.vBCSTUnit, `${stPath}.vBCSTUnit`, issues);
    if (unit === null) {
      issues.add(
        `${stPath}.vBCSTUnit`,
        `modBCST ${st.modBCST} requires vBCSTUnit (the listed price or pauta per unit)`,
      );
      return null;
    }
    if (pMVAST !== null && pMVAST !== 0n) {
      issues.add(`${stPath}.pMVAST`, 'pMVAST applies only to modBCST 4 (MVA)');
    }
    // vBCST = qCom × value per unit × (1 − pRedBCST), rounded once (MOC 7.0 N18 modBCST 0-3 and 5).
    const vBCST = roundDiv(
      input.qCom * unit * (HUNDRED - red),
      pow10(SCALE.quantity + SCALE.unitPrice - SCALE.money) * HUNDRED,
    );
    const gross = percentOf(vBCST, pICMSST);
    const vICMSST = gross > a.deduction ? gross - a.deduction : 0n;
    return { modBCST: st.modBCST, pMVAST, pRedBCST, vBCST, pICMSST, vICMSST };
  }
  if (st.vBCSTUnit !== undefined) {
    issues.add(`${stPath}.vBCSTUnit`, 'vBCSTUnit applies only to modBCST 0-3 and 5 (price list, pauta)');
  }
  if (kind === 'mva' && pMVAST === null) issues.add(`${stPath}.pMVAST`, 'modBCST 4 (MVA) requires pMVAST');
  if (kind === 'operation' && pMVAST !== null && pMVAST !== 0n) {
    issues.add(`${stPath}.pMVAST`, 'pMVAST applies only to modBCST 4 (MVA)');
  }
  // vBCST = (vProd − vDesc + vFrete + vSeg + vOutro + vIPI) × (1 + pMVAST) × (1 − pRedBCST), rounded once at
  // the end so the MVA and the reduction do not each add a rounding.
  const mva = kind === 'mva' ? (pMVAST ?? 0n) : 0n;
  const vBCST = roundDiv(input.baseSt * (HUNDRED + mva) * (HUNDRED - red), HUNDRED * HUNDRED);
  // vICMSST = vBCST × pICMSST − ICMS of the own operation (for Simples Nacional, the ICMS at the normal
  // rate, LC 123/2006 art. 13 §6 II); never negative.
  const gross = percentOf(vBCST, pICMSST);
  const vICMSST = gross > a.deduction ? gross - a.deduction : 0n;
  return { modBCST: st.modBCST, pMVAST, pRedBCST, vBCST, pICMSST, vICMSST };
}

/** A value per unit (vUnCom-like text, up to 10 decimals) at SCALE.unitPrice; null when not given. */
function readUnit(text: string | undefined, field: string, issues: Issues): bigint | null {
  return text === undefined ? null : readScaled(text, SCALE.unitPrice, field, issues);
}

const rateOf = (text: string): Rate => parseScaled(text, SCALE.rate);

/**
 * The rate the emitter's own operation would be taxed at: the interstate rate (4/7/12 %) for a sale to
 * another UF, else the internal rate of the emitter UF (src-shared/tables/icms-internal-rates.ts).
 */
function ownOperationRate(input: IcmsInput): Rate {
  const { op } = input;
  if (op.idDest === 2 && op.destUF !== null && op.destUF !== op.emitUF) {
    return rateOf(interstateRate(input.config.orig, op.emitUF, op.destUF));
  }
  return rateOf(ICMS_INTERNAL_RATE[op.emitUF]);
}

/** CFOPs MOC rule NA01-20 exempts (exceção 9): asset transfer, simples faturamento, cupom fiscal. */
const DIFAL_EXEMPT_CFOP = new Set(['6552', '6922', '6929']);
const DIFAL_EXEMPT_CST: ReadonlySet<string> = new Set(['40', '41']);
const DIFAL_EXEMPT_CSOSN: ReadonlySet<string> = new Set(['103', '300', '400']);

/**
 * Whether the item needs ICMSUFDest (MOC 7.0 rule NA01-20, rejection 694): an NF-e leaving (tpNF 1) to another
 * UF (idDest 2) for a final consumer (indFinal 1) who is not an ICMS contributor (indIEDest 9), except for
 * exempt, immune or untaxed items (CST 40/41, CSOSN 103/300/400), Simples Nacional emitters (CRT 1),
 * complementary and adjustment notes (finNFe 2/3) and CFOPs 6552, 6922 and 6929.
 */
export function difalApplies(input: IcmsInput, CST: IcmsCst | null, CSOSN: IcmsCsosn | null): boolean {
  const { op } = input;
  return (
    input.modelo === 55 &&
    op.idDest === 2 &&
    op.indFinal === 1 &&
    op.indIEDest === 9 &&
    op.tpNF === 1 &&
    (op.finNFe === 1 || op.finNFe === 4) &&
    input.CRT !== 1 &&
    !(CST !== null && DIFAL_EXEMPT_CST.has(CST)) &&
    !(CSOSN !== null && DIFAL_EXEMPT_CSOSN.has(CSOSN)) &&
    !DIFAL_EXEMPT_CFOP.has(op.CFOP)
  );
}

/** Groups whose own ICMS carries vBCFCP/pFCP/vFCP (ICMS00 only pFCP/vFCP). CST 51 is left out: see docs. */
const OWN_FCP_GROUPS: ReadonlySet<IcmsGroup> = new Set(['ICMS00', 'ICMS10', 'ICMS20', 'ICMS70', 'ICMS90']);

/**
 * FCP on the own ICMS (N17a-N17c): vFCP = vBC × pFCP, on the same (reduced) base as the ICMS. Not in the DIFAL
 * case: an interstate sale to a non-contributor carries the destination's FCP in ICMSUFDest (rule 876).
 */
function ownFcp(
  input: IcmsInput,
  a: { code: string; cfgPath: string; group: IcmsGroup; own: IcmsOwn | null; difal: boolean },
  issues: Issues,
): IcmsFcp | null {
  const pFCP = readRate(input.config.pFCP, `${a.cfgPath}.pFCP`, issues);
  if (pFCP === null || a.difal) return null;
  if (pFCP === 0n) {
    issues.rule(
      `${a.cfgPath}.pFCP`,
      'must not be 0: leave pFCP out for goods without FCP (SEFAZ rejects it with cStat 880)',
      { cStat: '880', xMotivo: 'Rejeicao: Percentual de FCP igual a zero' },
    );
    return null;
  }
  if (!OWN_FCP_GROUPS.has(a.group) || a.own === null) {
    issues.add(
      `${a.cfgPath}.pFCP`,
      `${a.code} has no own ICMS to carry FCP (pFCP applies to CST 00, 10, 20, 70 and 90 with pICMS)`,
    );
    return null;
  }
  return { vBCFCP: a.own.vBC, pFCP, vFCP: percentOf(a.own.vBC, pFCP) };
}

/** FCP-ST (N23a-N23d): vFCPST = vBCST × pFCPST − own vFCP (MOC rule N23d-10), never negative. */
function fcpSt(
  input: IcmsInput,
  a: { code: string; cfgPath: string; st: IcmsSt | null; ownFcp: Cents },
  issues: Issues,
): IcmsFcpSt | null {
  const pFCPST = readRate(input.config.pFCPST, `${a.cfgPath}.pFCPST`, issues);
  if (pFCPST === null) return null;
  if (pFCPST === 0n) {
    issues.rule(
      `${a.cfgPath}.pFCPST`,
      'must not be 0: leave pFCPST out for goods without FCP (SEFAZ rejects it with cStat 881)',
      { cStat: '881', xMotivo: 'Rejeicao: Percentual de FCPST igual a zero' },
    );
    return null;
  }
  if (a.st === null) {
    issues.add(`${a.cfgPath}.pFCPST`, `${a.code} has no ICMS-ST to carry FCP-ST`);
    return null;
  }
  const gross = percentOf(a.st.vBCST, pFCPST);
  return { vBCFCPST: a.st.vBCST, pFCPST, vFCPST: gross > a.ownFcp ? gross - a.ownFcp : 0n };
}

/**
 * Desoneração (N28, N28a): the ICMS the relief waives. CST 20/70 (and 90 with a reduced own base): the part the
 * reduction takes off, base × pICMS − vICMS; CST 30/40/41/50 (and 90 without own ICMS): base × rate, the rate
 * being the profile's pICMS or, without it, the rate of the operation (internal or interstate).
 */
function desoneracao(
  input: IcmsInput,
  a: { code: string; cfgPath: string; CST: IcmsCst | null; own: IcmsOwn | null; pICMS: Rate | null },
  issues: Issues,
): IcmsDeson | null {
  const { config } = input;
  const mot = config.motDesICMS;
  if (mot === undefined) {
    if (config.indDeduzDeson !== undefined) {
      issues.add(`${a.cfgPath}.indDeduzDeson`, 'applies only with motDesICMS (desoneração)');
    }
    return null;
  }
  const allowed = a.CST === null ? undefined : MOT_DES_ICMS[a.CST];
  if (allowed === undefined || !allowed.includes(mot)) {
    issues.add(
      `${a.cfgPath}.motDesICMS`,
      allowed === undefined
        ? `${a.code} has no desoneração (motDesICMS exists for CST 20, 30, 40, 41, 50, 70 and 90)`
        : `${a.code} admits motDesICMS ${allowed.join(', ')}`,
    );
    return null;
  }
  let vICMSDeson: Cents;
  if (a.own !== null && (a.CST === '20' || a.CST === '70' || a.CST === '90')) {
    const full = percentOf(input.baseOwn, a.own.pICMS);
    vICMSDeson = full > a.own.vICMS ? full - a.own.vICMS : 0n;
  } else {
    vICMSDeson = percentOf(input.baseOwn, a.pICMS ?? ownOperationRate(input));
  }
  if (vICMSDeson === 0n) {
    issues.rule(
      `${a.cfgPath}.motDesICMS`,
      'the desoneração computes to 0.00 (no base or no reduction); leave motDesICMS out (SEFAZ rejects it with cStat 627)',
      { cStat: '627', xMotivo: 'Rejeicao: O valor do ICMS desonerado deve ser informado' },
    );
    return null;
  }
  return { vICMSDeson, motDesICMS: mot, indDeduzDeson: config.indDeduzDeson ?? 0 };
}

const RETAINED_GROUPS: ReadonlySet<IcmsGroup> = new Set(['ICMS60', 'ICMSSN500']);

/**
 * CST 60 / CSOSN 500 (N26-N27d, N33): the ST retained earlier, per unit from the purchase note times qCom:
 * vBCSTRet = qCom × vBCSTRetUnit, vICMSSTRet = vBCSTRet × pST − vICMSSubstituto; FCP-ST retained on the same
 * base; and, for a final consumer, the effective ICMS vICMSEfet = vBC × (1 − pRedBCEfet) × pICMSEfet, the rate
 * defaulting to the emitter UF's internal rate (NT 2016.002 v1.60, rule N33-10, 906 at the UF's discretion).
 */
function retainedSt(
  input: IcmsInput,
  a: { code: string; cfgPath: string; group: IcmsGroup },
  issues: Issues,
): { retained: IcmsRetained | null; effective: IcmsEffective | null } {
  const { config } = input;
  const none = { retained: null, effective: null };
  if (!RETAINED_GROUPS.has(a.group)) {
    for (const field of ['ret', 'efet', 'pFCPSTRet'] as const) {
      if (config[field] !== undefined) {
        issues.add(`${a.cfgPath}.${field}`, `applies only to CST 60 and CSOSN 500, not ${a.code}`);
      }
    }
    return none;
  }
  let retained: IcmsRetained | null = null;
  const pFCPSTRet = readRate(config.pFCPSTRet, `${a.cfgPath}.pFCPSTRet`, issues);
  if (config.ret !== undefined) {
    const r = config.ret;
    const unit = readUnit(r.vBCSTRetUnit, `${a.cfgPath}.ret.vBCSTRetUnit`, issues) ?? 0n;
    const subUnit = readUnit(r.vICMSSubstitutoUnit, `${a.cfgPath}.ret.vICMSSubstitutoUnit`, issues);
    const pST = readRate(r.pST, `${a.cfgPath}.ret.pST`, issues) ?? 0n;
    const vBCSTRet = lineTotal(input.qCom, unit);
    const vICMSSubstituto = subUnit === null ? null : lineTotal(input.qCom, subUnit);
    const gross = percentOf(vBCSTRet, pST);
    const own = vICMSSubstituto ?? 0n;
    let fcp: IcmsRetained['fcp'] = null;
    if (pFCPSTRet !== null) {
      if (pFCPSTRet === 0n) {
        issues.rule(
          `${a.cfgPath}.pFCPSTRet`,
          'must not be 0: leave pFCPSTRet out for goods without FCP (SEFAZ rejects it with cStat 881)',
          { cStat: '881', xMotivo: 'Rejeicao: Percentual de FCPST igual a zero' },
        );
      } else {
        fcp = { vBCFCPSTRet: vBCSTRet, pFCPSTRet, vFCPSTRet: percentOf(vBCSTRet, pFCPSTRet) };
      }
    }
    retained = { vBCSTRet, pST, vICMSSubstituto, vICMSSTRet: gross > own ? gross - own : 0n, fcp };
  } else if (pFCPSTRet !== null) {
    issues.add(`${a.cfgPath}.pFCPSTRet`, 'requires ret (the retained ST base and rate)');
  }
  let effective: IcmsEffective | null = null;
  if (config.efet !== undefined && input.op.indFinal === 1) {
    const pRedBCEfet = readRate(config.efet.pRedBCEfet, `${a.cfgPath}.efet.pRedBCEfet`, issues) ?? 0n;
    const pICMSEfet =
      readRate(config.efet.pICMSEfet, `${a.cfgPath}.efet.pICMSEfet`, issues) ??
      rateOf(ICMS_INTERNAL_RATE[input.op.emitUF]);
    const vBCEfet = reduceBy(input.baseOwn, pRedBCEfet);
    effective = { pRedBCEfet, vBCEfet, pICMSEfet, vICMSEfet: percentOf(vBCEfet, pICMSEfet) };
  }
  return { retained, effective };
}

/** pICMSInterPart: the destination's share of the DIFAL, 100 % since 2019 (EC 87/2015, ADCT art. 99). */
const INTER_PART_SINCE_2019 = HUNDRED;

/**
 * ICMSUFDest (NA01-NA15): DIFAL on a single base, vBCUFDest = the value of the operation (with IPI, which
 * integrates the base for a final consumer), vICMSUFDest = vBCUFDest × (pICMSUFDest − pICMSInter), all of it
 * to the destination (vICMSUFRemet 0), and vFCPUFDest = vBCUFDest × pFCPUFDest when the destination charges
 * FCP. UFs whose law takes the double base ("base dupla", LC 190/2022) are not modelled: see docs/api.md.
 */
function ufDest(input: IcmsInput, cfgPath: string, issues: Issues): IcmsUfDest | null {
  const { op, config } = input;
  if (op.destUF === null) {
    issues.rule(
      'dest.enderDest.UF',
      'the DIFAL group ICMSUFDest needs the recipient UF (SEFAZ rejects it with cStat 694)',
      { cStat: '694', xMotivo: 'Rejeicao: Nao informado o grupo de ICMS para a UF de destino' },
    );
    return null;
  }
  const pICMSUFDest =
    readRate(config.pICMSUFDest, `${cfgPath}.pICMSUFDest`, issues) ?? rateOf(ICMS_INTERNAL_RATE[op.destUF]);
  const pICMSInter = rateOf(interstateRate(config.orig, op.emitUF, op.destUF));
  const vBCUFDest = input.baseOwn;
  const pFCPUFDest = readRate(config.pFCPUFDest, `${cfgPath}.pFCPUFDest`, issues);
  const fcp =
    pFCPUFDest === null || pFCPUFDest === 0n
      ? null
      : { vBCFCPUFDest: vBCUFDest, pFCPUFDest, vFCPUFDest: percentOf(vBCUFDest, pFCPUFDest) };
  const diff = pICMSUFDest - pICMSInter;
  return {
    vBCUFDest,
    fcp,
    pICMSUFDest,
    pICMSInter,
    pICMSInterPart: INTER_PART_SINCE_2019,
    vICMSUFDest: diff > 0n ? percentOf(vBCUFDest, diff) : 0n,
    vICMSUFRemet: 0n,
  };
}
