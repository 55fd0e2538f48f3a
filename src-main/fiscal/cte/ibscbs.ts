// imp/IBSCBS of the CT-e 4.00 (tax reform, NT 2025.001 CT-e RTC; type TTribCTe of DFeTiposBasicos_v1.00.xsd)
// and imp/vTotDFe: one group for the whole service, filled from the same IBS/CBS tables as the NF-e's
// (../taxes/ibscbs-table.ts: CST indicators, cClassTrib, rates in force by date).
//
// When the group is required (decision): NT 2025.001 CT-e makes its validation rules mandatory in production
// from 2026-01-05 (homologação from 2025-11-03) and exempts Simples Nacional, its excess sublimit and MEI
// (CRT 1, 2, 4). So a regime-normal carrier (CRT 3) always writes the group for a dhEmi from 2026-01-05 on,
// with CST 000 / cClassTrib 000001 (full taxation) when the company configures no other; any other carrier,
// or an earlier date, writes it only when the company configures it.
import { formatCents, formatScaled, parseScaled, percentOf, SCALE } from '../../../src-shared/money.ts';
import { ibsCbsClass, ibsCbsCst, ibsCbsTableVersion, ratesInForce } from '../taxes/ibscbs-table.ts';
import { el, group } from '../xml.ts';
import type { CteEmit, CteIbsCbs, CteModel } from './model.ts';
import type { CteFault } from './rules.ts';

/** IBS/CBS of the service as the company's fiscal settings give it; rates as percent text ("0.9000"). */
export interface CteIbsCbsSetting {
  CST: string;
  cClassTrib: string;
  /** Only needed for a period whose rate the dated table does not publish (e.g. CBS from 2027). */
  pCBS?: string;
  pIBSUF?: string;
  pIBSMun?: string;
}

/** First emission date on which the authorities require the group from regime-normal carriers. */
export const CTE_IBSCBS_REQUIRED_FROM = '2026-01-05';

/**
 * First year in which IBS and CBS are added to the document's total (vTotDFe = vTPrest + vIBS + vCBS).
 * 2026 is the test year, in which the values are informed but not charged on top of the price: the same
 * reading as the NF-e's vNFTot (../taxes/compute.ts IBS_CBS_IN_TOTAL_FROM_YEAR), kept here as its own
 * constant so the CT-e core does not load the NF-e tax computation.
 */
export const CTE_IBSCBS_IN_TOTAL_FROM_YEAR = 2027;

export const CTE_DEFAULT_IBSCBS: CteIbsCbsSetting = { CST: '000', cClassTrib: '000001' };

type Tax = 'pIBSUF' | 'pIBSMun' | 'pCBS';
const TAXES: readonly Tax[] = ['pIBSUF', 'pIBSMun', 'pCBS'];

export interface CteIbsCbsInput {
  setting: CteIbsCbsSetting | undefined;
  emit: CteEmit;
  /** YYYY-MM-DD of dhEmi as written (the emitter's own date), or null when dhEmi is malformed. */
  date: string | null;
  vTPrest: bigint;
  /** The ICMS of the service (0 when not taxed): the 2026-2032 base leaves it out. */
  vICMS: bigint;
}

/** Whether the group must be written for this carrier on this date (see the module comment). */
export function ibsCbsRequired(emit: CteEmit, date: string | null): boolean {
  return emit.CRT === 3 && date !== null && date >= CTE_IBSCBS_REQUIRED_FROM;
}

/**
 * vBC = vTPrest − vICMS: LC 214/2025 art. 12 §2 V leaves ICMS, ISS, PIS and COFINS out of the base from
 * 2026 to 2032; of these the CT-e carries only the ICMS of the service (a carrier's PIS/COFINS are not on the
 * document). Never below zero.
 */
export function cteIbsCbsBase(vTPrest: bigint, vICMS: bigint): bigint {
  const base = vTPrest - vICMS;
  return base > 0n ? base : 0n;
}

function readRate(text: string | undefined, field: string, faults: CteFault[]): bigint | null {
  if (text === undefined) return null;
  try {
    const r = parseScaled(text, SCALE.rate);
    if (r < 0n || r >= 1000n * 10n ** BigInt(SCALE.rate)) throw new RangeError('out of range');
    return r;
  } catch {
    faults.push({ field, error: 'must be a percentage from 0 to 999.9999 with up to 4 decimals' });
    return null;
  }
}

/**
 * The group for the service, or null when it is not written. Checks the CST and class against the shipped
 * Informe Técnico 2025.002 table (the authorities' rejections 1020/1023/1024 for the NF-e; the table has no
 * CT-e column, so no per-model check) and the rates against those in force on the date. Supported: the CSTs
 * that carry gIBSCBS with neither reduction, deferral nor regular-taxation group (000, 010 ...) and those
 * that carry no gIBSCBS (410 ...); the others need groups a company setting cannot fill and are refused.
 */
export function cteIbsCbs(input: CteIbsCbsInput, faults: CteFault[]): CteIbsCbs | null {
  const { date } = input;
  const setting = input.setting ?? (ibsCbsRequired(input.emit, date) ? CTE_DEFAULT_IBSCBS : undefined);
  if (setting === undefined) return null;
  const version = ibsCbsTableVersion();
  const cst = ibsCbsCst(setting.CST);
  if (cst === undefined) {
    faults.push({
      field: 'ibsCbs.CST',
      error: `IBS/CBS CST '${setting.CST}' is not in the CST table (Informe Técnico 2025.002, version ${version})`,
    });
    return null;
  }
  const cls = ibsCbsClass(setting.cClassTrib);
  if (cls === undefined || cls.CST !== setting.CST) {
    faults.push({
      field: 'ibsCbs.cClassTrib',
      error:
        cls === undefined
          ? `cClassTrib '${setting.cClassTrib}' is not in the cClassTrib table (version ${version})`
          : `cClassTrib ${cls.cClassTrib} belongs to CST ${cls.CST}, not ${setting.CST}`,
    });
    return null;
  }
  if (cst.indGRed || cst.indGDif || cst.indRedutorBC || cls.indTribRegular || cst.indGTransfCred) {
    faults.push({
      field: 'ibsCbs.CST',
      error:
        `IBS/CBS CST ${setting.CST} (${cst.descricao}) needs groups a company setting cannot fill ` +
        '(reduction, deferral, base reducer, regular taxation or credit transfer); the CT-e issues CSTs ' +
        'of full taxation and those without gIBSCBS',
    });
    return null;
  }
  if (!cst.indGIBSCBS) return { CST: setting.CST, cClassTrib: setting.cClassTrib, g: null };

  const inForce = date === null ? null : ratesInForce(date);
  const rates = {} as Record<Tax, bigint>;
  for (const tax of TAXES) {
    const field = `ibsCbs.${tax}`;
    const given = readRate(setting[tax], field, faults);
    const legal = inForce?.[tax] ?? null;
    if (given !== null && legal !== null && given !== legal) {
      faults.push({
        field,
        error:
          `${tax} ${formatScaled(given, SCALE.rate)} differs from the rate in force on ${date ?? ''}, ` +
          `${formatScaled(legal, SCALE.rate)} (LC 214/2025 arts. 343-346)`,
      });
    }
    const rate = given ?? legal;
    if (rate === null) {
      faults.push({
        field,
        error: `no ${tax} is published for ${date ?? 'the emission date'}: configure it in the company settings`,
      });
    }
    rates[tax] = rate ?? 0n;
  }

  const vBC = cteIbsCbsBase(input.vTPrest, input.vICMS);
  const vIBSUF = percentOf(vBC, rates.pIBSUF);
  const vIBSMun = percentOf(vBC, rates.pIBSMun);
  return {
    CST: setting.CST,
    cClassTrib: setting.cClassTrib,
    g: {
      vBC,
      pIBSUF: rates.pIBSUF,
      vIBSUF,
      pIBSMun: rates.pIBSMun,
      vIBSMun,
      vIBS: vIBSUF + vIBSMun,
      pCBS: rates.pCBS,
      vCBS: percentOf(vBC, rates.pCBS),
    },
  };
}

/** imp/vTotDFe: vTPrest, plus IBS and CBS from the year they are charged on top of the price. */
export function cteTotDFe(ibsCbs: CteIbsCbs | null, vTPrest: bigint, date: string | null): bigint | null {
  if (ibsCbs === null) return null;
  const year = date === null ? 0 : Number(date.slice(0, 4));
  const reform =
    year >= CTE_IBSCBS_IN_TOTAL_FROM_YEAR && ibsCbs.g !== null ? ibsCbs.g.vIBS + ibsCbs.g.vCBS : 0n;
  return vTPrest + reform;
}

const rate = (tag: string, r: bigint): string => el(tag, formatScaled(r, SCALE.rate));
const money = (tag: string, v: bigint): string => el(tag, formatCents(v));

/** IBSCBS and vTotDFe, the last two children of imp (TCTe/infCte/imp). */
export function ibsCbsXml(imp: CteModel['imp']): string {
  const t = imp.IBSCBS;
  if (t === null) return '';
  const g = t.g;
  const gIBSCBS =
    g === null
      ? ''
      : group(
          'gIBSCBS',
          money('vBC', g.vBC),
          group('gIBSUF', rate('pIBSUF', g.pIBSUF), money('vIBSUF', g.vIBSUF)),
          group('gIBSMun', rate('pIBSMun', g.pIBSMun), money('vIBSMun', g.vIBSMun)),
          money('vIBS', g.vIBS),
          group('gCBS', rate('pCBS', g.pCBS), money('vCBS', g.vCBS)),
        );
  return (
    group('IBSCBS', el('CST', t.CST), el('cClassTrib', t.cClassTrib), gIBSCBS) +
    (imp.vTotDFe === null ? '' : money('vTotDFe', imp.vTotDFe))
  );
}
