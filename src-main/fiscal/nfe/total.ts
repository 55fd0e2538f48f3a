// total of NF-e/NFC-e 4.00 (package PL_010): ICMSTot, then IBSCBSTot and vNFTot when items carry IBS/CBS,
// each value the sum of the items' rounded values as computeTaxes produced them (no recomputation here).
import { formatCents } from '../../../src-shared/money.ts';
import type { ComputedNote } from '../taxes/types.ts';
import { el, group } from '../xml.ts';
import { ibsCbsTotXml } from './ibscbs-xml.ts';

const money = (tag: string, c: bigint): string => el(tag, formatCents(c));
const ZERO = 0n;

/**
 * `<total>`: ICMSTot in XSD order (W02-W16; the DIFAL totals vFCPUFDest, vICMSUFDest and vICMSUFRemet only
 * when an item has ICMSUFDest, the monophasic ones never, since no item produces them), IBSCBSTot (W34, TIBSCBSMonoTot) and vNFTot (W60).
 * gIBS and gCBS are written whenever an item has gIBSCBS, mirroring the item groups; deferral, returned tax
 * and presumed credit totals are zero since no item carries them. vNFTot is TDec_1302Opc, which has no
 * zero value, so it is left out of a note totalling 0.00.
 */
export function totalXml(note: ComputedNote): string {
  const t = note.icmsTot;
  const icmsTot = group(
    'ICMSTot',
    money('vBC', t.vBC),
    money('vICMS', t.vICMS),
    money('vICMSDeson', t.vICMSDeson),
    t.vFCPUFDest === null ? '' : money('vFCPUFDest', t.vFCPUFDest),
    t.vICMSUFDest === null ? '' : money('vICMSUFDest', t.vICMSUFDest),
    t.vICMSUFRemet === null ? '' : money('vICMSUFRemet', t.vICMSUFRemet),
    money('vFCP', t.vFCP),
    money('vBCST', t.vBCST),
    money('vST', t.vST),
    money('vFCPST', t.vFCPST),
    money('vFCPSTRet', t.vFCPSTRet),
    money('vProd', t.vProd),
    money('vFrete', t.vFrete),
    money('vSeg', t.vSeg),
    money('vDesc', t.vDesc),
    money('vII', t.vII),
    money('vIPI', t.vIPI),
    money('vIPIDevol', t.vIPIDevol),
    money('vPIS', t.vPIS),
    money('vCOFINS', t.vCOFINS),
    money('vOutro', t.vOutro),
    money('vNF', t.vNF),
    t.vTotTrib === null ? '' : money('vTotTrib', t.vTotTrib),
  );
  const r = note.ibsCbsTot;
  if (r === null) return group('total', icmsTot);
  const ibsCbsTot = ibsCbsTotXml(r);
  return group('total', icmsTot, ibsCbsTot, note.vNFTot > ZERO ? money('vNFTot', note.vNFTot) : '');
}
