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
  IcmsGroup,
  IcmsOwn,
  IcmsSt,
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
 * COFINS-ST or ICMSUFDest (rejeições 743, 746, 749, 807), none of which this writer produces.
 */
export function impostoXml(item: ComputedItem, ctx: ImpostoContext): string {
  const simples = ctx.CRT === 1 || ctx.CRT === 4;
  if (simples !== (item.icms.CSOSN !== null)) {
    throw new RangeError(`item ${item.nItem}: ICMS ${item.icms.group} does not fit CRT ${ctx.CRT}`);
  }
  if (ctx.modelo === 65 && item.ipi !== null) {
    throw new RangeError(`item ${item.nItem}: NFC-e cannot carry the IPI group`);
  }
  return group(
    'imposto',
    item.vTotTrib === null ? '' : el('vTotTrib', money(item.vTotTrib)),
    group('ICMS', icmsXml(item.icms)),
    ipiXml(item.ipi),
    pisCofinsXml('PIS', item.pis),
    pisCofinsXml('COFINS', item.cofins),
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

function creditXml(c: IcmsCreditSn): string {
  return el('pCredSN', rate(c.pCredSN)) + el('vCredICMSSN', money(c.vCredICMSSN));
}

/** Children of each ICMS group in the PL_010 sequence (leiauteNFe_v4.00.xsd, imposto/ICMS choice). */
const ICMS_WRITERS: Record<IcmsGroup, (i: ComputedIcms) => string> = {
  ICMS00: (i) => head(i) + ownPlain(required(i.own, 'own ICMS', i)),
  ICMS10: (i) => head(i) + ownPlain(required(i.own, 'own ICMS', i)) + stXml(required(i.st, 'ICMS-ST', i)),
  ICMS20: (i) => head(i) + ownReducedFirst(required(i.own, 'own ICMS', i), i),
  ICMS30: (i) => head(i) + stXml(required(i.st, 'ICMS-ST', i)),
  ICMS40: head,
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
  ICMS60: head,
  ICMS70: (i) =>
    head(i) + ownReducedFirst(required(i.own, 'own ICMS', i), i) + stXml(required(i.st, 'ICMS-ST', i)),
  ICMS90: (i) =>
    head(i) + (i.own === null ? '' : ownReducedAfter(i.own, i.deferral)) + (i.st === null ? '' : stXml(i.st)),
  ICMSSN101: (i) => head(i) + creditXml(required(i.creditSn, 'pCredSN', i)),
  ICMSSN102: head,
  ICMSSN201: (i) =>
    head(i) + stXml(required(i.st, 'ICMS-ST', i)) + creditXml(required(i.creditSn, 'pCredSN', i)),
  ICMSSN202: (i) => head(i) + stXml(required(i.st, 'ICMS-ST', i)),
  ICMSSN500: head,
  ICMSSN900: (i) =>
    head(i) +
    (i.own === null ? '' : ownReducedAfter(i.own, null)) +
    (i.st === null ? '' : stXml(i.st)) +
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
