// IBS (state and municipal) and CBS of one item, the tax reform groups of NT 2025.002-RTC (UB12-UB66),
// with the 2026 base that leaves ICMS, PIS and COFINS out (LC 214/2025 art. 12 §2 V; NT rule UB16-10).
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { formatScaled, percentOf, pow10, roundDiv, SCALE, sum } from '../../../src-shared/money.ts';
import {
  classAllowedOn,
  classReduction,
  effectiveRate,
  ibsCbsClass,
  ibsCbsCst,
  ibsCbsTableVersion,
  type IbsCbsClass,
  ratesInForce,
} from './ibscbs-table.ts';
import { type Issues, readRate } from './issues.ts';
import type { Cents, ComputedIbsCbs, IbsCbsRates, IbsCbsReduction, IbsCbsTot, Rate } from './types.ts';

/** The item's amounts the IBS/CBS base is built from (all already rounded to cents). */
export interface IbsCbsBaseParts {
  vProd: Cents;
  vDesc: Cents;
  vFrete: Cents;
  vSeg: Cents;
  vOutro: Cents;
  vICMS: Cents;
  vFCP: Cents;
  vPIS: Cents;
  vCOFINS: Cents;
}

/**
 * vBC of IBS/CBS, NT 2025.002-RTC rule UB16-10:
 *   vProd + vServ + vFrete + vSeg + vOutro + vII − vDesc − vPIS − vCOFINS − vICMS − vICMSUFDest − vFCP
 *   − vFCPUFDest − vICMSMono − vISSQN + vIS,
 * the layout form of LC 214/2025 art. 12: the operation value (§1: freight, insurance and charges included)
 * without IPI, unconditional discounts (§2 II, III) and, from 2026 to 2032, without ICMS, ISS, PIS and
 * COFINS (§2 V; ADCT art. 133, EC 132/2023). The items here have no vServ, vII, ICMSUFDest, monophasic ICMS,
 * ISSQN or IS, so those terms are zero. Never below zero.
 */
export function ibsCbsBase(p: IbsCbsBaseParts): Cents {
  const base = p.vProd + p.vFrete + p.vSeg + p.vOutro - p.vDesc - p.vPIS - p.vCOFINS - p.vICMS - p.vFCP;
  return base > 0n ? base : 0n;
}

export interface IbsCbsInput {
  path: string;
  config: FiscalTaxes['IBSCBS'];
  /** Year defaults (TaxNoteInput.ibsCbsRates), used for a tax whose rate the dated table does not publish. */
  defaults: IbsCbsRates;
  /** Date of dhEmi in the emitter's zone (YYYY-MM-DD): picks the rates in force; null when dhEmi is invalid. */
  date: string | null;
  modelo: 55 | 65;
  base: IbsCbsBaseParts;
}

type Tax = 'IBSUF' | 'IBSMun' | 'CBS';
const TAXES: readonly Tax[] = ['IBSUF', 'IBSMun', 'CBS'];
const RATE_FIELD = { IBSUF: 'pIBSUF', IBSMun: 'pIBSMun', CBS: 'pCBS' } as const;

/** The rules of NT 2025.002-RTC (section 7, group UB) the service applies before signing, with their texts. */
export const IBSCBS_REJECTION = {
  1020: 'Rejeição: CST do IBS/CBS informado inexistente',
  1023: 'Rejeição: Classificação Tributária do IBS/CBS informada inexistente',
  1024: 'Rejeição: Classificação Tributária do IBS e da CBS incompatível com o CST informado',
  1025: 'Rejeição: CST cClassTrib do IBS/CBS não permitido neste modelo de DFe',
  1026: 'Rejeição: Alíquota do IBS da UF inválida',
  1036: 'Rejeição: Alíquota do IBS do Município inválida',
  1037: 'Rejeição: Alíquota da CBS inválida',
} as const;
const RATE_RULE = { IBSUF: 1026, IBSMun: 1036, CBS: 1037 } as const;

function rejection(cStat: keyof typeof IBSCBS_REJECTION): { cStat: string; xMotivo: string } {
  return { cStat: String(cStat), xMotivo: IBSCBS_REJECTION[cStat] };
}

/**
 * IBS and CBS of one item. The CST and cClassTrib are checked against the shipped Informe Técnico 2025.002
 * table (resources/tables/ibscbs/cclasstrib.json): the CST must exist (1020), the class must exist (1023),
 * belong to the CST (its first three digits, 1024) and be allowed on the model (1025). The rates must be
 * those in force on the emission date (1026, 1036, 1037; LC 214/2025 arts. 343-346); when the profile
 * gives none the rates in force are used.
 *
 * Values (NT 2025.002-RTC): vBC by UB16-10 (`ibsCbsBase`); for each tax p(Efet) = p × (1 − pRedAliq/100)
 * when the CST reduces the rate (200, 515: pRedAliq is the class's pRedIBS/pRedCBS, UB27-10/UB28-10),
 * vDif = vBC × p(Efet) × pDif when it defers (510, 515: UB23-10/UB42-10/UB61-10), and
 * v = vBC × p(Efet) − vDif (UB35-10/UB54-10/UB67-10), each rounded half-up to cents on its own;
 * vIBS = vIBSUF + vIBSMun (UB54a-10).
 * Supported: 000, 200, 400, 410, 510, 515. The others need groups a fiscal profile cannot fill (220/221
 * fixed rates, 222/830 base reduction, 550 and the ZFM/ALC classes gTribRegular, 620 monofasia ad rem,
 * 800 credit transfer, 810/811 adjustments) and are refused with a message saying so.
 */
export function computeIbsCbs(input: IbsCbsInput, issues: Issues): ComputedIbsCbs | null {
  const { config, path } = input;
  if (config === undefined) return null;
  const cfgPath = `${path}.taxes.IBSCBS`;
  const result: ComputedIbsCbs = { CST: config.CST, cClassTrib: config.cClassTrib, g: null };
  const cst = ibsCbsCst(config.CST);
  const version = ibsCbsTableVersion();
  if (cst === undefined) {
    issues.rule(
      `${cfgPath}.CST`,
      `IBS/CBS CST '${config.CST}' is not in the CST table (Informe Técnico 2025.002, version ${version}; ` +
        'SEFAZ rejects it with cStat 1020)',
      rejection(1020),
    );
    return result;
  }
  const cls = ibsCbsClass(config.cClassTrib);
  if (cls === undefined) {
    issues.rule(
      `${cfgPath}.cClassTrib`,
      `cClassTrib '${config.cClassTrib}' is not in the cClassTrib table (Informe Técnico 2025.002, version ` +
        `${version}; SEFAZ rejects it with cStat 1023)`,
      rejection(1023),
    );
    return result;
  }
  if (cls.CST !== config.CST) {
    issues.rule(
      `${cfgPath}.cClassTrib`,
      `cClassTrib ${cls.cClassTrib} belongs to CST ${cls.CST}, not ${config.CST} (SEFAZ rejects it with cStat 1024)`,
      rejection(1024),
    );
    return result;
  }
  if (!classAllowedOn(cls, input.modelo)) {
    issues.rule(
      `${cfgPath}.cClassTrib`,
      `cClassTrib ${cls.cClassTrib} (${cls.descricao}) may not be used on ${input.modelo === 55 ? 'an NF-e' : 'an NFC-e'} ` +
        '(SEFAZ rejects it with cStat 1025)',
      rejection(1025),
    );
    return result;
  }
  const unsupported = unsupportedReason(config.CST, cls);
  if (unsupported !== null) {
    issues.add(`${cfgPath}.CST`, `IBS/CBS CST ${config.CST} (${cst.descricao}): ${unsupported}`);
    return result;
  }
  if (config.pDif !== undefined && !cst.indGDif) {
    issues.add(
      `${cfgPath}.pDif`,
      `CST ${config.CST} (${cst.descricao}) has no deferral (gDif); leave pDif out`,
    );
  }
  if (cst.indGDif && config.pDif === undefined) {
    issues.add(
      `${cfgPath}.pDif`,
      `CST ${config.CST} (${cst.descricao}) requires pDif, the deferred percentage`,
    );
  }
  if (!cst.indGIBSCBS) return result;

  const inForce = input.date === null ? null : ratesInForce(input.date);
  const rates = {} as Record<Tax, Rate>;
  for (const tax of TAXES) {
    const field = RATE_FIELD[tax];
    const given = readRate(config[field], `${cfgPath}.${field}`, issues);
    const legal = inForce?.[field] ?? null;
    if (given !== null && legal !== null && given !== legal) {
      issues.rule(
        `${cfgPath}.${field}`,
        `${field} ${formatScaled(given, SCALE.rate)} differs from the rate in force on ${input.date ?? ''}, ` +
          `${formatScaled(legal, SCALE.rate)} (LC 214/2025 arts. 343-346; SEFAZ rejects it with cStat ${RATE_RULE[tax]})`,
        rejection(RATE_RULE[tax]),
      );
    }
    rates[tax] = given ?? legal ?? readRate(input.defaults[field], `${cfgPath}.${field}`, issues) ?? 0n;
  }
  const pDif = cst.indGDif ? (readRate(config.pDif, `${cfgPath}.pDif`, issues) ?? 0n) : null;
  if (pDif !== null && pDif > 100n * pow10(SCALE.rate)) {
    issues.add(`${cfgPath}.pDif`, 'the deferred percentage cannot exceed 100');
  }

  const vBC = ibsCbsBase(input.base);
  const red = cst.indGRed
    ? {
        IBSUF: reduction(rates.IBSUF, classReduction(cls, 'IBS')),
        IBSMun: reduction(rates.IBSMun, classReduction(cls, 'IBS')),
        CBS: reduction(rates.CBS, classReduction(cls, 'CBS')),
      }
    : null;
  const applied = (tax: Tax): Rate => red?.[tax].pAliqEfet ?? rates[tax];
  const dif =
    pDif === null
      ? null
      : {
          IBSUF: { pDif, vDif: deferred(vBC, applied('IBSUF'), pDif) },
          IBSMun: { pDif, vDif: deferred(vBC, applied('IBSMun'), pDif) },
          CBS: { pDif, vDif: deferred(vBC, applied('CBS'), pDif) },
        };
  const value = (tax: Tax): Cents => percentOf(vBC, applied(tax)) - (dif?.[tax].vDif ?? 0n);
  const vIBSUF = value('IBSUF');
  const vIBSMun = value('IBSMun');
  result.g = {
    vBC,
    pIBSUF: rates.IBSUF,
    vIBSUF,
    pIBSMun: rates.IBSMun,
    vIBSMun,
    vIBS: vIBSUF + vIBSMun,
    pCBS: rates.CBS,
    vCBS: value('CBS'),
    red,
    dif,
  };
  return result;
}

function reduction(p: Rate, pRedAliq: Rate): IbsCbsReduction {
  return { pRedAliq, pAliqEfet: effectiveRate(p, pRedAliq) };
}

/** vDif = vBC × (p / 100) × (pDif / 100), rounded half-up once (UB23-10). */
function deferred(vBC: Cents, p: Rate, pDif: Rate): Cents {
  const hundred = 100n * pow10(SCALE.rate);
  return roundDiv(vBC * p * pDif, hundred * hundred);
}

/** Why a CST/class cannot be filled from a fiscal profile, or null when it can. */
function unsupportedReason(cst: string, cls: IbsCbsClass): string | null {
  if (cls.indTribRegular) {
    return (
      `cClassTrib ${cls.cClassTrib} requires the regular-taxation group gTribRegular (zero rates plus the ` +
      'rates that would otherwise apply, rule UB68-10), which is not computed from a fiscal profile'
    );
  }
  switch (cst) {
    case '000':
    case '200':
    case '400':
    case '410':
    case '510':
    case '515':
      return null;
    case '620':
      return 'monophasic taxation (gIBSCBSMono, ad rem rates per unit of fuel) is not supported';
    case '800':
      return 'credit transfer (gTransfCred) is issued on a debit note (finNFe 6), not on a sale';
    case '810':
    case '811':
      return 'adjustments (gCredPresIBSZFM, gAjusteCompet) are issued on credit/debit notes, not on a sale';
    default:
      return 'this situation is not computed from a fiscal profile (only 000, 200, 400, 410, 510 and 515 are)';
  }
}

/**
 * total/IBSCBSTot: each field the sum of the items' rounded values (NT 2025.002-RTC W35-W56a, rejections
 * 1076-1091); null when no item carries gIBSCBS (W34-10, 1118). No item returns tax (vDevTrib) or takes a
 * presumed credit today, so those sums are zero.
 */
export function sumIbsCbs(itens: ReadonlyArray<{ ibscbs: ComputedIbsCbs | null }>): IbsCbsTot | null {
  const groups = itens.flatMap((it) => (it.ibscbs?.g ? [it.ibscbs.g] : []));
  if (groups.length === 0) return null;
  const of = (f: (g: (typeof groups)[number]) => Cents): Cents => sum(groups.map(f));
  return {
    vBCIBSCBS: of((g) => g.vBC),
    vDifIBSUF: of((g) => g.dif?.IBSUF.vDif ?? 0n),
    vDevTribIBSUF: 0n,
    vIBSUF: of((g) => g.vIBSUF),
    vDifIBSMun: of((g) => g.dif?.IBSMun.vDif ?? 0n),
    vDevTribIBSMun: 0n,
    vIBSMun: of((g) => g.vIBSMun),
    vIBS: of((g) => g.vIBS),
    vCredPresIBS: 0n,
    vCredPresCondSusIBS: 0n,
    vDifCBS: of((g) => g.dif?.CBS.vDif ?? 0n),
    vDevTribCBS: 0n,
    vCBS: of((g) => g.vCBS),
    vCredPresCBS: 0n,
    vCredPresCondSusCBS: 0n,
  };
}
