// det/imposto of NF-e/NFC-e 4.00 (package PL_010) from a computed item, in XSD sequence order:
// vTotTrib, ICMS, IPI, PIS, COFINS, IBSCBS. Money with 2 decimals, every rate with 4 (TDec_0302a04 takes 2-4).
import { formatCents, formatScaled, SCALE } from '../../../src-shared/money.ts';
import type {
  Cents,
  ComputedIcms,
  ComputedIpi,
  ComputedItem,
  ComputedPisCofins,
  IcmsCreditSn,
  IcmsDeferral,
  IcmsDeson,
  IcmsFcp,
  IcmsFcpSt,
  IcmsGroup,
  IcmsOwn,
  IcmsRetained,
  IcmsEffective,
  IcmsSt,
  IcmsUfDest,
  Rate,
} from '../taxes/types.ts';
import { el, group } from '../xml.ts';
import { ibsCbsXml } from './ibscbs-xml.ts';
import type { EmitModel, Modelo } from './model.ts';

export interface ImpostoContext {
  modelo: Modelo;
  CRT: EmitModel['CRT'];
}

const money = (c: Cents): string => formatCents(c);
const rate = (r: Rate): string => formatScaled(r, SCALE.rate);
const optRate = (tag: string, r: Rate | null): string => (r === null ? '' : el(tag, rate(r)));

/**
 * `<imposto>` of one item. The item must come from `computeTaxes`, which already refused what the document
 * cannot carry (CST/CSOSN against CRT, taxed IPI in NFC-e); a mismatch here is a programming error and throws.
 * NFC-e (modelo 65) never gets the IPI group (rejeição 742 "NFC-e com grupo do IPI"), nor II, PIS-ST,
 * COFINS-ST or ICMSUFDest (rejeições 743, 746, 749, 807): the computation gives ICMSUFDest only to NF-e.
 */
export function impostoXml(item: ComputedItem, ctx: ImpostoContext): string {
  const simples = ctx.CRT === 1 || ctx.CRT === 4;
  if (simples !== (item.icms.CSOSN !== null)) {
    throw new RangeError(`item ${item.nItem}: ICMS ${item.icms.group} does not fit CRT ${ctx.CRT}`);
  }
  if (ctx.modelo === 65 && item.ipi !== null) {
    throw new RangeError(`item ${item.nItem}: NFC-e cannot carry the IPI group`);
  }
  if (ctx.modelo === 65 && item.icms.ufDest !== null) {
    throw new RangeError(`item ${item.nItem}: NFC-e cannot carry ICMSUFDest`);
  }
  return group(
    'imposto',
    item.vTotTrib === null ? '' : el('vTotTrib', money(item.vTotTrib)),
    group('ICMS', icmsXml(item.icms)),
    ipiXml(item.ipi),
    pisCofinsXml('PIS', item.pis),
    pisCofinsXml('COFINS', item.cofins),
    ufDestXml(item.icms.ufDest),
    ibsCbsXml(item.ibscbs),
  );
}

function icmsXml(icms: ComputedIcms): string {
  return group(icms.group, ICMS_WRITERS[icms.group](icms));
}

function head(i: ComputedIcms): string {
  return el('orig', i.orig) + (i.CST !== null ? el('CST', i.CST) : el('CSOSN', String(i.CSOSN)));
}

function required<T>(value: T | null, what: string, i: ComputedIcms): T {
  if (value === null) throw new RangeError(`${i.group} needs ${what}`);
  return value;
}

/** modBC, vBC, pICMS, vICMS: the own-ICMS sequence of ICMS00 and ICMS10. */
function ownPlain(o: IcmsOwn): string {
  return (
    el('modBC', o.modBC) + el('vBC', money(o.vBC)) + el('pICMS', rate(o.pICMS)) + el('vICMS', money(o.vICMS))
  );
}

/** ICMS20/70 put pRedBC before vBC and require it. */
function ownReducedFirst(o: IcmsOwn, i: ComputedIcms): string {
  return (
    el('modBC', o.modBC) +
    el('pRedBC', rate(required(o.pRedBC, 'pRedBC', i))) +
    el('vBC', money(o.vBC)) +
    el('pICMS', rate(o.pICMS)) +
    el('vICMS', money(o.vICMS))
  );
}

/** ICMS90 and ICMSSN900 put the optional pRedBC after vBC; ICMS90 may carry the deferral before vICMS. */
function ownReducedAfter(o: IcmsOwn, deferral: IcmsDeferral | null): string {
  return (
    el('modBC', o.modBC) +
    el('vBC', money(o.vBC)) +
    optRate('pRedBC', o.pRedBC) +
    el('pICMS', rate(o.pICMS)) +
    (deferral === null ? '' : deferralXml(deferral)) +
    el('vICMS', money(o.vICMS))
  );
}

function deferralXml(d: IcmsDeferral): string {
  return el('vICMSOp', money(d.vICMSOp)) + el('pDif', rate(d.pDif)) + el('vICMSDif', money(d.vICMSDif));
}

function stXml(s: IcmsSt): string {
  return (
    el('modBCST', s.modBCST) +
    optRate('pMVAST', s.pMVAST) +
    optRate('pRedBCST', s.pRedBCST) +
    el('vBCST', money(s.vBCST)) +
    el('pICMSST', rate(s.pICMSST)) +
    el('vICMSST', money(s.vICMSST))
  );
}

/** vBCFCP, pFCP, vFCP (ICMS10/20/51/70/90); ICMS00 writes only pFCP and vFCP. */
function fcpXml(f: IcmsFcp | null, withBase = true): string {
  if (f === null) return '';
  return (
    (withBase ? el('vBCFCP', money(f.vBCFCP)) : '') + el('pFCP', rate(f.pFCP)) + el('vFCP', money(f.vFCP))
  );
}

function fcpStXml(f: IcmsFcpSt | null): string {
  if (f === null) return '';
  return el('vBCFCPST', money(f.vBCFCPST)) + el('pFCPST', rate(f.pFCPST)) + el('vFCPST', money(f.vFCPST));
}

function desonXml(d: IcmsDeson | null): string {
  if (d === null) return '';
  return (
    el('vICMSDeson', money(d.vICMSDeson)) +
    el('motDesICMS', d.motDesICMS) +
    el('indDeduzDeson', d.indDeduzDeson)
  );
}

/** ICMS60 and ICMSSN500: retained ST, retained FCP-ST, effective ICMS, each an optional sequence. */
function retainedXml(r: IcmsRetained | null, e: IcmsEffective | null): string {
  const ret =
    r === null
      ? ''
      : el('vBCSTRet', money(r.vBCSTRet)) +
        el('pST', rate(r.pST)) +
        (r.vICMSSubstituto === null ? '' : el('vICMSSubstituto', money(r.vICMSSubstituto))) +
        el('vICMSSTRet', money(r.vICMSSTRet)) +
        (r.fcp === null
          ? ''
          : el('vBCFCPSTRet', money(r.fcp.vBCFCPSTRet)) +
            el('pFCPSTRet', rate(r.fcp.pFCPSTRet)) +
            el('vFCPSTRet', money(r.fcp.vFCPSTRet)));
  const efet =
    e === null
      ? ''
      : el('pRedBCEfet', rate(e.pRedBCEfet)) +
        el('vBCEfet', money(e.vBCEfet)) +
        el('pICMSEfet', rate(e.pICMSEfet)) +
        el('vICMSEfet', money(e.vICMSEfet));
  return ret + efet;
}

/**
 * ICMSUFDest (NA01): pICMSInter is an enumeration of the XSD ('4.00', '7.00', '12.00'), so it is written
 * with two decimals; the other rates with four.
 */
function ufDestXml(u: IcmsUfDest | null): string {
  if (u === null) return '';
  return group(
    'ICMSUFDest',
    el('vBCUFDest', money(u.vBCUFDest)),
    u.fcp === null ? '' : el('vBCFCPUFDest', money(u.fcp.vBCFCPUFDest)),
    u.fcp === null ? '' : el('pFCPUFDest', rate(u.fcp.pFCPUFDest)),
    el('pICMSUFDest', rate(u.pICMSUFDest)),
    el('pICMSInter', formatScaled(u.pICMSInter, SCALE.rate, 2)),
    el('pICMSInterPart', rate(u.pICMSInterPart)),
    u.fcp === null ? '' : el('vFCPUFDest', money(u.fcp.vFCPUFDest)),
    el('vICMSUFDest', money(u.vICMSUFDest)),
    el('vICMSUFRemet', money(u.vICMSUFRemet)),
  );
}

function creditXml(c: IcmsCreditSn): string {
  return el('pCredSN', rate(c.pCredSN)) + el('vCredICMSSN', money(c.vCredICMSSN));
}

/** Children of each ICMS group in the PL_010 sequence (leiauteNFe_v4.00.xsd, imposto/ICMS choice). */
const ICMS_WRITERS: Record<IcmsGroup, (i: ComputedIcms) => string> = {
  ICMS00: (i) => head(i) + ownPlain(required(i.own, 'own ICMS', i)) + fcpXml(i.fcp, false),
  ICMS10: (i) =>
    head(i) +
    ownPlain(required(i.own, 'own ICMS', i)) +
    fcpXml(i.fcp) +
    stXml(required(i.st, 'ICMS-ST', i)) +
    fcpStXml(i.fcpSt),
  ICMS20: (i) =>
    head(i) + ownReducedFirst(required(i.own, 'own ICMS', i), i) + fcpXml(i.fcp) + desonXml(i.deson),
  ICMS30: (i) => head(i) + stXml(required(i.st, 'ICMS-ST', i)) + fcpStXml(i.fcpSt) + desonXml(i.deson),
  ICMS40: (i) => head(i) + desonXml(i.deson),
  // ICMS51: modBC, pRedBC, vBC, pICMS, vICMSOp, pDif, vICMSDif, vICMS, all optional.
  ICMS51: (i) =>
    head(i) +
    (i.own === null
      ? ''
      : el('modBC', i.own.modBC) +
        optRate('pRedBC', i.own.pRedBC) +
        el('vBC', money(i.own.vBC)) +
        el('pICMS', rate(i.own.pICMS)) +
        (i.deferral === null ? '' : deferralXml(i.deferral)) +
        el('vICMS', money(i.own.vICMS))),
  ICMS60: (i) => head(i) + retainedXml(i.retained, i.effective),
  ICMS70: (i) =>
    head(i) +
    ownReducedFirst(required(i.own, 'own ICMS', i), i) +
    fcpXml(i.fcp) +
    stXml(required(i.st, 'ICMS-ST', i)) +
    fcpStXml(i.fcpSt) +
    desonXml(i.deson),
  ICMS90: (i) =>
    head(i) +
    (i.own === null ? '' : ownReducedAfter(i.own, i.deferral) + fcpXml(i.fcp)) +
    (i.st === null ? '' : stXml(i.st) + fcpStXml(i.fcpSt)) +
    desonXml(i.deson),
  ICMSSN101: (i) => head(i) + creditXml(required(i.creditSn, 'pCredSN', i)),
  ICMSSN102: head,
  ICMSSN201: (i) =>
    head(i) +
    stXml(required(i.st, 'ICMS-ST', i)) +
    fcpStXml(i.fcpSt) +
    creditXml(required(i.creditSn, 'pCredSN', i)),
  ICMSSN202: (i) => head(i) + stXml(required(i.st, 'ICMS-ST', i)) + fcpStXml(i.fcpSt),
  ICMSSN500: (i) => head(i) + retainedXml(i.retained, i.effective),
  ICMSSN900: (i) =>
    head(i) +
    (i.own === null ? '' : ownReducedAfter(i.own, null)) +
    (i.st === null ? '' : stXml(i.st) + fcpStXml(i.fcpSt)) +
    (i.creditSn === null ? '' : creditXml(i.creditSn)),
};

/** TIpi: cEnq then IPITrib (vBC, pIPI, vIPI) or IPINT (CST only). */
function ipiXml(ipi: ComputedIpi | null): string {
  if (ipi === null) return '';
  const body =
    ipi.trib === null
      ? group('IPINT', el('CST', ipi.CST))
      : group(
          'IPITrib',
          el('CST', ipi.CST),
          el('vBC', money(ipi.trib.vBC)),
          el('pIPI', rate(ipi.trib.pIPI)),
          el('vIPI', money(ipi.trib.vIPI)),
        );
  return group('IPI', el('cEnq', ipi.cEnq), body);
}

function pisCofinsXml(tax: 'PIS' | 'COFINS', p: ComputedPisCofins): string {
  const children =
    p.group === 'NT'
      ? [el('CST', p.CST)]
      : [
          el('CST', p.CST),
          el('vBC', money(p.vBC ?? 0n)),
          el(`p${tax}`, rate(p.rate ?? 0n)),
          el(`v${tax}`, money(p.value)),
        ];
  return group(tax, group(`${tax}${p.group}`, ...children));
}
