// Group I (prod) of each item: product data and its amounts after apportionment, MOC 7.0 annex I.
import { formatCents, formatScaled, parseScaled, SCALE } from '../../../src-shared/money.ts';
import { el, group, opt } from '../xml.ts';
import type { ItemModel, NfeModel } from './model.ts';

/** Rule 373 (NFC-e): in homologação the first item's description must be this text. */
export const HOMOLOGACAO_ITEM_NAME = 'NOTA FISCAL EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL';

export interface ItemAmounts {
  vProd: bigint;
  vDesc: bigint;
  vFrete: bigint;
  vSeg: bigint;
  vOutro: bigint;
}

// Quantities and unit prices repeat from sale to sale ("1", "2.000", "4.99"): each text is written once per
// scale and remembered, in a bounded memory (past it, texts are still written, only no longer remembered).
const writtenDecimals = [new Map<string, string>(), new Map<string, string>()];

/** TDec_1104v / TDec_1110v accept 0 to 4 (10) decimals; writing at least 2 keeps receipts readable. */
function variableDecimals(text: string, scale: number): string {
  const memory = writtenDecimals[scale === SCALE.quantity ? 0 : 1]!;
  const known = memory.get(text);
  if (known !== undefined) return known;
  const written = writeVariableDecimals(text, scale);
  // Only the two scales this module writes share the memory (anything else is written every time).
  if (memory.size < 2048 && (scale === SCALE.quantity || scale === SCALE.unitPrice))
    memory.set(text, written);
  return written;
}

function writeVariableDecimals(text: string, scale: number): string {
  const full = formatScaled(parseScaled(text, scale), scale);
  const [int, frac = ''] = full.split('.');
  const trimmed = frac.replace(/0+$/, '');
  return `${int}.${trimmed.padEnd(2, '0')}`;
}

const optMoney = (tag: string, value: bigint) => (value === 0n ? '' : el(tag, formatCents(value)));

export function prodXml(model: NfeModel, item: ItemModel, index: number, amounts: ItemAmounts): string {
  const xProd = model.tpAmb === 2 && model.modelo === 65 && index === 0 ? HOMOLOGACAO_ITEM_NAME : item.xProd;
  const qCom = variableDecimals(item.qCom, SCALE.quantity);
  const vUnCom = variableDecimals(item.vUnCom, SCALE.unitPrice);
  return group(
    'prod',
    el('cProd', item.cProd),
    el('cEAN', item.cEAN),
    el('xProd', xProd),
    el('NCM', item.NCM),
    opt('CEST', item.CEST),
    el('CFOP', item.CFOP),
    el('uCom', item.uCom),
    el('qCom', qCom),
    el('vUnCom', vUnCom),
    el('vProd', formatCents(amounts.vProd)),
    // The taxable unit is the commercial one: the catalogue carries no separate tributable unit.
    el('cEANTrib', item.cEAN),
    el('uTrib', item.uCom),
    el('qTrib', qCom),
    el('vUnTrib', vUnCom),
    optMoney('vFrete', amounts.vFrete),
    optMoney('vSeg', amounts.vSeg),
    optMoney('vDesc', amounts.vDesc),
    optMoney('vOutro', amounts.vOutro),
    // 1: the item's vProd makes up the note's vProd (I17b).
    el('indTot', 1),
  );
}

/** `vItem` (PL_010, VB01) is already XML: it follows infAdProd in the det sequence. */
export function detXml(
  nItem: number,
  prod: string,
  imposto: string,
  infAdProd: string | null,
  vItem = '',
): string {
  return `<det nItem="${nItem}">${prod}${imposto}${opt('infAdProd', infAdProd)}${vItem}</det>`;
}
