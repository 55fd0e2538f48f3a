// Computes every tax value of an NF-e/NFC-e from the internal model: item amounts, apportioned note charges,
// ICMS/ICMS-ST, IPI, PIS, COFINS, IBS/CBS, and totals that are sums of the items' rounded values.
import type { ErrorDetail } from '../../../src-shared/contracts/errors.ts';
import { formatDateTimeTz } from '../datetime.ts';
import {
  apportion,
  formatCents as fmt,
  lineTotal,
  percentOf,
  SCALE,
  sum,
} from '../../../src-shared/money.ts';
import { ufBySigla } from '../../../src-shared/uf.ts';
import { computeIbsCbs, sumIbsCbs } from './ibscbs.ts';
import { idDestOf } from './destination.ts';
import { computeIcms, type IcmsOperation } from './icms.ts';
import { computeIpi } from './ipi.ts';
import { Issues, readMoney, readRate, readScaled, type TaxRejection } from './issues.ts';
import { computePisCofins } from './pis-cofins.ts';
import type {
  Cents,
  ComputedItem,
  ComputedNote,
  IbsCbsTot,
  IcmsTot,
  TaxItemInput,
  TaxNoteInput,
} from './types.ts';

export type * from './types.ts';

/**
 * The outcome of `computeTaxes`. Problems are collected for the whole note (every item, every field) and
 * returned together, in the `{ field, error }` shape of the API's ErrorDetail, rather than thrown one at a
 * time; `computeTaxesOrThrow` turns them into a `TaxComputationError` for callers that prefer exceptions.
 */
export type ComputeResult =
  { ok: true; note: ComputedNote } | { ok: false; errors: ErrorDetail[]; rejection?: TaxRejection };

export class TaxComputationError extends Error {
  constructor(readonly details: ErrorDetail[]) {
    super(`tax computation failed: ${details.map((d) => `${d.field}: ${d.error}`).join('; ')}`);
    this.name = 'TaxComputationError';
  }
}

/**
 * First year in which IBS and CBS count in det/vItem and total/vNFTot. 2026 is the test year: the values are
 * informed but not charged on top of the price (NT 2025.002-RTC rule W60-10; sped-nfe PR #1299).
 */
export const IBS_CBS_IN_TOTAL_FROM_YEAR = 2027;

export function computeTaxesOrThrow(model: TaxNoteInput): ComputedNote {
  const result = computeTaxes(model);
  if (!result.ok) throw new TaxComputationError(result.errors);
  return result.note;
}

type ChargeName = 'vDesc' | 'vFrete' | 'vSeg' | 'vOutro';
const CHARGES: readonly ChargeName[] = ['vDesc', 'vFrete', 'vSeg', 'vOutro'];

/**
 * Computes a note. Simple mode (item.detailed null) derives every value from the item's fiscal profile;
 * detailed mode takes the caller's values (vBC, vICMS, vBCST, vICMSST, vPIS, vCOFINS, vIPI, vTotTrib), checks
 * them against the tax situation and still derives what the caller cannot give (IBS/CBS, Simples credit).
 * Rounding: half-up to cents once per value (src-shared/money.ts), totals are plain sums of those values.
 */
export function computeTaxes(model: TaxNoteInput): ComputeResult {
  const issues = new Issues();
  if (model.itens.length === 0) issues.add('itens', 'a note needs at least one item');

  const lines = model.itens.map((item, i) => readLine(item, `itens[${i}]`, issues));
  const weights = lines.map((l) => l.vProd);
  const shares: Record<ChargeName, Cents[]> = { vDesc: [], vFrete: [], vSeg: [], vOutro: [] };
  for (const name of CHARGES) {
    const total = readMoney(model[name], name, issues) ?? 0n;
    // Note-level charges are split over the items by vProd so that the items add up to the note exactly
    // (rejections 535-537 and 604 compare the total with the sum of the items).
    shares[name] = lines.length === 0 ? [] : apportion(total, weights);
  }
  const totalVProd = sum(weights);
  const noteDesc = sum(shares.vDesc);
  if (noteDesc > totalVProd) {
    issues.add(
      'vDesc',
      `the note discount ${fmt(noteDesc)} exceeds the sum of the items' vProd ${fmt(totalVProd)}`,
    );
  }

  const validDate = !Number.isNaN(model.dhEmi.getTime());
  if (!validDate) issues.add('dhEmi', 'must be a valid date');
  const ibsCbsInTotal = validDate && emissionYear(model) >= IBS_CBS_IN_TOTAL_FROM_YEAR;
  const itens = model.itens.map((item, i) =>
    computeItem(model, item, i, {
      qCom: lines[i]?.qCom ?? 0n,
      vProd: lines[i]?.vProd ?? 0n,
      vDesc: (lines[i]?.vDesc ?? 0n) + (shares.vDesc[i] ?? 0n),
      vFrete: (lines[i]?.vFrete ?? 0n) + (shares.vFrete[i] ?? 0n),
      vSeg: (lines[i]?.vSeg ?? 0n) + (shares.vSeg[i] ?? 0n),
      vOutro: (lines[i]?.vOutro ?? 0n) + (shares.vOutro[i] ?? 0n),
      ibsCbsInTotal,
      issues,
    }),
  );
  if (!issues.empty) {
    const { rejection } = issues;
    return { ok: false, errors: issues.list, ...(rejection === undefined ? {} : { rejection }) };
  }

  const icmsTot = totalIcms(itens);
  const ibsCbsTot = totalIbsCbs(itens);
  return {
    ok: true,
    note: {
      modelo: model.modelo,
      CRT: model.emit.CRT,
      itens,
      icmsTot,
      ibsCbsTot,
      ibsCbsInTotal,
      vNFTot: sum(itens.map((it) => it.vItem)),
    },
  };
}

interface Line {
  /** qCom at SCALE.quantity (pauta and retained-ST values are per unit). */
  qCom: bigint;
  vProd: Cents;
  vDesc: Cents;
  vFrete: Cents;
  vSeg: Cents;
  vOutro: Cents;
}

function readLine(item: TaxItemInput, path: string, issues: Issues): Line {
  const qCom = readScaled(item.qCom, SCALE.quantity, `${path}.qCom`, issues);
  const vUnCom = readScaled(item.vUnCom, SCALE.unitPrice, `${path}.vUnCom`, issues);
  return {
    qCom,
    vProd: lineTotal(qCom, vUnCom),
    vDesc: readMoney(item.vDesc, `${path}.vDesc`, issues) ?? 0n,
    vFrete: readMoney(item.vFrete, `${path}.vFrete`, issues) ?? 0n,
    vSeg: readMoney(item.vSeg, `${path}.vSeg`, issues) ?? 0n,
    vOutro: readMoney(item.vOutro, `${path}.vOutro`, issues) ?? 0n,
  };
}

function computeItem(
  model: TaxNoteInput,
  item: TaxItemInput,
  index: number,
  a: Line & { ibsCbsInTotal: boolean; issues: Issues },
): ComputedItem {
  const path = `itens[${index}]`;
  const { issues } = a;
  const taxes = item.taxes;
  const detailed = item.detailed;
  if (a.vDesc > a.vProd) {
    issues.add(
      `${path}.vDesc`,
      `the item discount (with its share of the note's) ${fmt(a.vDesc)} exceeds vProd ${fmt(a.vProd)}`,
    );
  }
  // The operation value: base of ICMS, IPI, PIS and COFINS (MOC 7.0 annex I, N15 "valor da operação").
  const vOper = a.vProd - a.vDesc + a.vFrete + a.vSeg + a.vOutro;

  // A devolução returns the IPI in impostoDevol (group UA) instead of an IPI group; it counts where vIPI would.
  const impostoDevol = readImpostoDevol(item, path, issues);
  const ipi =
    impostoDevol === null
      ? computeIpi({ path, config: taxes.IPI, modelo: model.modelo, base: vOper, detailed }, issues)
      : null;
  const vIPI = (ipi?.trib?.vIPI ?? 0n) + (impostoDevol?.vIPIDevol ?? 0n);

  // IPI integrates the ICMS base except between contributors for resale or industrialization
  // (CF art. 155 §2 XI); indFinal = 1 is read as "not for resale". It always integrates the ST base.
  const icms = computeIcms(
    {
      path,
      config: taxes.ICMS,
      CRT: model.emit.CRT,
      modelo: model.modelo,
      op: icmsOperation(model, item),
      qCom: a.qCom,
      baseOwn: vOper + (model.indFinal === 1 ? vIPI : 0n),
      baseSt: vOper + vIPI,
      detailed,
    },
    issues,
  );

  // STF RE 574.706 (Tema 69), Lei 14.592/2023: with the profile's switch on, the item's own ICMS leaves the base.
  const pisCofinsBase = taxes.pisCofinsExcluiICMS === true ? vOper - (icms.own?.vICMS ?? 0n) : vOper;
  const pis = computePisCofins(
    {
      tax: 'PIS',
      path,
      CST: taxes.PIS.CST,
      rateText: taxes.PIS.pPIS,
      base: pisCofinsBase,
      detailed: detailed === null ? null : { value: detailed.vPIS },
    },
    issues,
  );
  const cofins = computePisCofins(
    {
      tax: 'COFINS',
      path,
      CST: taxes.COFINS.CST,
      rateText: taxes.COFINS.pCOFINS,
      base: pisCofinsBase,
      detailed: detailed === null ? null : { value: detailed.vCOFINS },
    },
    issues,
  );

  const ibscbs = computeIbsCbs(
    {
      path,
      config: taxes.IBSCBS,
      defaults: model.ibsCbsRates,
      date: Number.isNaN(model.dhEmi.getTime()) ? null : emissionDate(model),
      modelo: model.modelo,
      base: {
        vProd: a.vProd,
        vDesc: a.vDesc,
        vFrete: a.vFrete,
        vSeg: a.vSeg,
        vOutro: a.vOutro,
        // The base leaves out every ICMS and FCP of the item (LC 214/2025 art. 12 §2), the DIFAL to the
        // destination UF (vICMSUFDest, vFCPUFDest) included.
        vICMS: (icms.own?.vICMS ?? 0n) + (icms.ufDest?.vICMSUFDest ?? 0n),
        vFCP: (icms.fcp?.vFCP ?? 0n) + (icms.ufDest?.fcp?.vFCPUFDest ?? 0n),
        vPIS: pis.value,
        vCOFINS: cofins.value,
      },
    },
    issues,
  );

  // Lei 12.741/2012: approximate burden over the sale value, from the profile's pTotTrib (IBPT table).
  let vTotTrib: Cents | null = null;
  const dTotTrib = detailed === null ? null : readMoney(detailed.vTotTrib, `${path}.vTotTrib`, issues);
  if (dTotTrib !== null) vTotTrib = dTotTrib;
  else {
    const pTotTrib = readRate(taxes.pTotTrib, `${path}.taxes.pTotTrib`, issues);
    if (pTotTrib !== null) vTotTrib = percentOf(vOper, pTotTrib);
  }

  // det/vItem (NT 2025.002-RTC VB01): the classic vNF formula per item, plus IBS/CBS once they are charged.
  const vICMSST = (icms.st?.vICMSST ?? 0n) + (icms.fcpSt?.vFCPST ?? 0n);
  const reform = a.ibsCbsInTotal && ibscbs?.g ? ibscbs.g.vIBS + ibscbs.g.vCBS : 0n;
  const vItem =
    a.vProd - a.vDesc - deductedDeson(icms) + vICMSST + a.vFrete + a.vSeg + a.vOutro + vIPI + reform;

  return {
    nItem: index + 1,
    vProd: a.vProd,
    vDesc: a.vDesc,
    vFrete: a.vFrete,
    vSeg: a.vSeg,
    vOutro: a.vOutro,
    icms,
    ipi,
    pis,
    cofins,
    ibscbs,
    vTotTrib,
    impostoDevol,
    vItem,
  };
}

/** Group UA of a devolução item: pDevol (scale 2) and vIPIDevol; a detailed vIPI beside it is refused. */
function readImpostoDevol(
  item: TaxItemInput,
  path: string,
  issues: Issues,
): { pDevol: bigint; vIPIDevol: Cents } | null {
  const devol = item.impostoDevol;
  if (devol == null) return null;
  const pDevol = readScaled(devol.pDevol, 2, `${path}.impostoDevol.pDevol`, issues);
  const vIPIDevol = readMoney(devol.vIPIDevol, `${path}.impostoDevol.vIPIDevol`, issues) ?? 0n;
  const dVIPI = item.detailed === null ? null : readMoney(item.detailed.vIPI, `${path}.vIPI`, issues);
  if (dVIPI !== null && dVIPI !== 0n) {
    issues.add(`${path}.vIPI`, 'a returned item carries its IPI in impostoDevol.vIPIDevol, not in vIPI');
  }
  return { pDevol, vIPIDevol };
}

function totalIcms(itens: readonly ComputedItem[]): IcmsTot {
  // One pass with bigint accumulators (an array per total, twenty per note, showed in the path's profile).
  let vBC = 0n;
  let vICMS = 0n;
  let vICMSDeson = 0n;
  let vFCP = 0n;
  let vBCST = 0n;
  let vST = 0n;
  let vFCPST = 0n;
  let vFCPSTRet = 0n;
  let vProd = 0n;
  let vFrete = 0n;
  let vSeg = 0n;
  let vDesc = 0n;
  let vIPI = 0n;
  let vIPIDevol = 0n;
  let vPIS = 0n;
  let vCOFINS = 0n;
  let vOutro = 0n;
  let vTotTrib = 0n;
  let anyTotTrib = false;
  let deducted = 0n;
  for (const it of itens) {
    const icms = it.icms;
    vBC += icms.own?.vBC ?? 0n;
    vICMS += icms.own?.vICMS ?? 0n;
    vICMSDeson += icms.deson?.vICMSDeson ?? 0n;
    vFCP += icms.fcp?.vFCP ?? 0n;
    vBCST += icms.st?.vBCST ?? 0n;
    vST += icms.st?.vICMSST ?? 0n;
    vFCPST += icms.fcpSt?.vFCPST ?? 0n;
    vFCPSTRet += icms.retained?.fcp?.vFCPSTRet ?? 0n;
    vProd += it.vProd;
    vFrete += it.vFrete;
    vSeg += it.vSeg;
    vDesc += it.vDesc;
    vIPI += it.ipi?.trib?.vIPI ?? 0n;
    vIPIDevol += it.impostoDevol?.vIPIDevol ?? 0n;
    vPIS += it.pis.value;
    vCOFINS += it.cofins.value;
    vOutro += it.vOutro;
    if (it.vTotTrib !== null) anyTotTrib = true;
    vTotTrib += it.vTotTrib ?? 0n;
    deducted += deductedDeson(it);
  }
  const t: Omit<IcmsTot, 'vNF'> = {
    vBC,
    vICMS,
    vICMSDeson,
    vFCP,
    vBCST,
    vST,
    vFCPST,
    vFCPSTRet,
    vProd,
    vFrete,
    vSeg,
    vDesc,
    vII: 0n,
    vIPI,
    vIPIDevol,
    vPIS,
    vCOFINS,
    vOutro,
    vTotTrib: anyTotTrib ? vTotTrib : null,
    ...difalTotals(itens),
  };
  // MOC 7.0 annex I, W16 (rejeição 610): the total of the note; vICMSDeson only where indDeduzDeson is 1
  // (NT 2023.004; W16 exceção 3 accepts a vNF that does not subtract it).
  const vNF =
    t.vProd -
    t.vDesc -
    deducted +
    t.vST +
    t.vFCPST +
    t.vFrete +
    t.vSeg +
    t.vOutro +
    t.vII +
    t.vIPI +
    t.vIPIDevol;
  return { ...t, vNF };
}

/** The vICMSDeson an item takes off vNF and vItem: only with indDeduzDeson 1 (NT 2023.004). */
function deductedDeson(it: { icms: ComputedItem['icms'] } | ComputedItem['icms']): Cents {
  const icms = 'icms' in it ? it.icms : it;
  return icms.deson?.indDeduzDeson === 1 ? icms.deson.vICMSDeson : 0n;
}

/** W04c-W04e: written only when an item has ICMSUFDest. */
function difalTotals(
  itens: readonly ComputedItem[],
): Pick<IcmsTot, 'vFCPUFDest' | 'vICMSUFDest' | 'vICMSUFRemet'> {
  const groups = itens.flatMap((it) => (it.icms.ufDest === null ? [] : [it.icms.ufDest]));
  if (groups.length === 0) return { vFCPUFDest: null, vICMSUFDest: null, vICMSUFRemet: null };
  return {
    vFCPUFDest: sum(groups.map((g) => g.fcp?.vFCPUFDest ?? 0n)),
    vICMSUFDest: sum(groups.map((g) => g.vICMSUFDest)),
    vICMSUFRemet: sum(groups.map((g) => g.vICMSUFRemet)),
  };
}

/** What ICMS reads of the note beyond the item: UFs, idDest (as ide.ts writes it), indFinal, recipient. */
function icmsOperation(model: TaxNoteInput, item: TaxItemInput): IcmsOperation {
  return {
    emitUF: model.emit.enderEmit.UF,
    destUF: model.dest?.enderDest?.UF ?? null,
    idDest: idDestOf(model),
    indFinal: model.indFinal,
    indIEDest: model.dest?.indIEDest ?? null,
    tpNF: model.tpNF,
    finNFe: model.finNFe,
    CFOP: item.CFOP,
  };
}

function totalIbsCbs(itens: readonly ComputedItem[]): IbsCbsTot | null {
  return sumIbsCbs(itens);
}

/** Date (YYYY-MM-DD) of dhEmi in the emitter UF's zone: the IBS/CBS rates in force are those of that day. */
function emissionDate(model: TaxNoteInput): string {
  const timeZone = ufBySigla(model.emit.enderEmit.UF)?.timeZone ?? 'America/Sao_Paulo';
  return formatDateTimeTz(model.dhEmi, timeZone).slice(0, 10);
}

/** Year of dhEmi in the emitter UF's zone, the date the authority reads from the document. */
function emissionYear(model: TaxNoteInput): number {
  const timeZone = ufBySigla(model.emit.enderEmit.UF)?.timeZone ?? 'America/Sao_Paulo';
  // The cached formatter of datetime.ts: building an Intl.DateTimeFormat per note cost ~9% of the whole path.
  return Number(formatDateTimeTz(model.dhEmi, timeZone).slice(0, 4));
}
