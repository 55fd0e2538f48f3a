// Contingency of the CT-e 4.00 on the virtual authorities: tpEmis 7 (SVC-RS) and 8 (SVC-SP), with the moment
// the carrier entered contingency (dhCont) and why (xJust) in ide. Which SVC serves a UF, and when to switch,
// is the document kind's decision (it knows the authority's health); the core only writes what it is told
// and refuses what the authority would. tpEmis is also the 35th digit of the access key (build.ts).
// The QR code does not change: SVC authorises on line, so the DACTE is a normal one (MOC CT-e 4.00 annex II:
// one barcode "em operação normal ou em contingência utilizando a Sefaz Virtual de Contingência").
import { normalizeFreeText } from '../xml.ts';
import type { CteContingency, CteTpEmis } from './model.ts';
import { rejection, type CteFault } from './rules.ts';

export interface CteContingencyContext {
  /** 7 SVC-RS, 8 SVC-SP. */
  tpEmis: 7 | 8;
  /** AAAA-MM-DDThh:mm:ss±hh:mm: when the carrier entered contingency. */
  dhCont: string;
  /** Why (15 to 256 characters after the free-text normalization). */
  xJust: string;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;

/** tpEmis and ide's dhCont/xJust for the context, with every fault of the contingency fields. */
export function contingencyOf(
  ctx: CteContingencyContext | undefined,
  dhEmi: string,
  faults: CteFault[],
): { tpEmis: CteTpEmis; cont: CteContingency | null } {
  if (ctx === undefined) return { tpEmis: 1, cont: null };
  const before = faults.length;
  if (ctx.tpEmis !== 7 && ctx.tpEmis !== 8) {
    faults.push({ field: 'contingency.tpEmis', error: 'must be 7 (SVC-RS) or 8 (SVC-SP)' });
  }
  const xJust = normalizeFreeText(ctx.xJust, 256);
  if (xJust.length < 15) {
    faults.push({ field: 'contingency.xJust', error: 'must have 15 to 256 characters' });
  }
  if (!DATE_TIME.test(ctx.dhCont) || Number.isNaN(Date.parse(ctx.dhCont))) {
    faults.push({ field: 'contingency.dhCont', error: 'must be AAAA-MM-DDThh:mm:ss±hh:mm' });
  } else if (Date.parse(ctx.dhCont) > Date.parse(dhEmi)) {
    faults.push(rejection('contingency.dhCont', '588'));
  }
  if (faults.length > before) return { tpEmis: 1, cont: null };
  return { tpEmis: ctx.tpEmis, cont: { dhCont: ctx.dhCont, xJust } };
}
