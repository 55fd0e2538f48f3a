// The notices the law asks the note to carry in infCpl, after the caller's own text: the Simples Nacional
// statements (LC 123/2006 art. 23; Resolução CGSN 140/2018 art. 59) and the Lei 12.741/2012 tributos line.
import { apportion, formatCents, formatScaled, parseScaled, SCALE } from '../../../src-shared/money.ts';
import type { ComputedNote } from '../taxes/types.ts';
import type { NfeModel } from './model.ts';

/** TNFe infCpl: xs:string of 1 to 5000 characters. */
export const INF_CPL_MAX = 5000;
const SEPARATOR = ' | ';

/** Resolução CGSN 140/2018 art. 59 §1º I: the note of a Simples Nacional ME/EPP says so. */
export const SIMPLES_NOTICE = 'DOCUMENTO EMITIDO POR ME OU EPP OPTANTE PELO SIMPLES NACIONAL';
/** Resolução CGSN 140/2018 art. 59 §1º II: the Simples taxpayer's IPI is not creditable by the buyer. */
export const SIMPLES_IPI_NOTICE = 'NAO GERA DIREITO A CREDITO FISCAL DE IPI';

/** "1234.5" cents → "1.234,50": Brazilian money as printed. */
export function brMoney(cents: bigint): string {
  const [int = '0', dec = '00'] = formatCents(cents).split('.');
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${dec}`;
}

/** A rate at scale 4 → "2,56" (at least 2 decimals, more only when the rate has them). */
function brRate(rate: bigint): string {
  const text = formatScaled(rate, SCALE.rate).replace(/(\.\d\d\d*?)0+$/, '$1');
  return text.replace('.', ',');
}

/**
 * LC 123/2006 art. 23 §§ 1º-2º: a Simples Nacional seller's note of a sale to a contributor states the ICMS
 * credit the buyer may take, one statement per pCredSN the note uses (items of CSOSN 101 and 201).
 */
function creditStatements(model: NfeModel, computed: ComputedNote): string[] {
  const byRate = new Map<bigint, bigint>();
  computed.itens.forEach((item, i) => {
    const csosn = model.itens[i]?.taxes.ICMS.CSOSN;
    const credit = item.icms.creditSn;
    if (credit === null || (csosn !== '101' && csosn !== '201')) return;
    byRate.set(credit.pCredSN, (byRate.get(credit.pCredSN) ?? 0n) + credit.vCredICMSSN);
  });
  return [...byRate.entries()]
    .filter(([, value]) => value > 0n)
    .map(
      ([rate, value]) =>
        `PERMITE O APROVEITAMENTO DO CREDITO DE ICMS NO VALOR DE R$ ${brMoney(value)}; CORRESPONDENTE A ALIQUOTA DE ${brRate(rate)}%, NOS TERMOS DO ART. 23 DA LC 123/2006`,
    );
}

/**
 * Lei 12.741/2012 with Decreto 8.264/2014: the approximate taxes by sphere, in the line the IBPT tables come
 * with ("Trib aprox R$ ... Federal, R$ ... Estadual e R$ ... Municipal Fonte: IBPT <chave>"). Each item's
 * vTotTrib is split over its three rates (apportion: the parts add up to it exactly). Written only when every
 * item that has a vTotTrib took it from the IBPT table; otherwise the parts would not add up to vTotTrib.
 */
export function tributosLine(model: NfeModel, computed: ComputedNote): string | null {
  let chave: string | undefined;
  const totals = [0n, 0n, 0n];
  for (const [i, item] of computed.itens.entries()) {
    if (item.vTotTrib === null) continue;
    const ibpt = model.itens[i]?.ibpt;
    if (ibpt === undefined) return null;
    chave ??= ibpt.chave;
    const weights = [ibpt.federal, ibpt.estadual, ibpt.municipal].map((r) => parseScaled(r, SCALE.rate));
    apportion(item.vTotTrib, weights).forEach((part, k) => {
      totals[k] = (totals[k] ?? 0n) + part;
    });
  }
  if (chave === undefined) return null;
  const [federal = 0n, estadual = 0n, municipal = 0n] = totals;
  return `Trib aprox R$ ${brMoney(federal)} Federal, R$ ${brMoney(estadual)} Estadual e R$ ${brMoney(municipal)} Municipal Fonte: IBPT ${chave}`;
}

/** The notices of this note, in the order they are written. */
export function notices(model: NfeModel, computed: ComputedNote): string[] {
  const found: string[] = [];
  // CRT 1 (Simples Nacional) and 4 (MEI, also an optant) — not 2 (Simples over the sublimit, ICMS by CST).
  // Only on the NF-e: the statements speak to a buyer who takes credits, and the DANFE prints them.
  if (model.modelo === 55 && (model.emit.CRT === 1 || model.emit.CRT === 4)) {
    found.push(SIMPLES_NOTICE, SIMPLES_IPI_NOTICE, ...creditStatements(model, computed));
  }
  const tributos = tributosLine(model, computed);
  if (tributos !== null) found.push(tributos);
  return found;
}

/**
 * infCpl as written: the caller's informacoesAdicionais first, then the notices. Within 5000 characters the
 * notices, which the law requires, win: the caller's text is shortened (ending in "...") to leave them room.
 */
export function composeInfCpl(model: NfeModel, computed: ComputedNote): string | null {
  const added = notices(model, computed).join(SEPARATOR);
  if (added === '') return model.infCpl;
  const caller = model.infCpl;
  if (caller === null || caller === '') return added.slice(0, INF_CPL_MAX);
  const room = INF_CPL_MAX - added.length - SEPARATOR.length;
  if (caller.length <= room) return `${caller}${SEPARATOR}${added}`;
  if (room <= 3) return added.slice(0, INF_CPL_MAX);
  return `${caller.slice(0, room - 3).trimEnd()}...${SEPARATOR}${added}`;
}
