// The IBS/CBS the national environment computes into an authorized note (NFSe 1.01 group infNFSe/IBSCBS,
// TCRTCIBSCBS) from the DPS's classification, with the rates in force (resources/tables/ibscbs, the table the
// NF-e uses) and exact decimal arithmetic: bigint cents and rates, half-up rounding.
import { SCALE, formatCents, formatScaled, pow10, roundDiv } from '../../../src-shared/money.ts';
import { classReduction, effectiveRate, ibsCbsClass, ratesInForce } from '../../fiscal/taxes/ibscbs-table.ts';

/** Places of supply of annex C that are the acquirer's address or domicile (the taker's, with indDest 0). */
const AT_ACQUIRER = new Set(['030102', '050102', '100101', '100301', '100501']);

/** What the computation needs from the DPS. */
export interface IbsCbsDpsFacts {
  /** The DPS's IBSCBS group (cIndOp and gIBSCBS), or null when it has none. */
  ibscbs: { cIndOp: string; CST: string; cClassTrib: string } | null;
  dCompet: string;
  vServ: bigint;
  cLocPrestacao: string;
  /** The taker's municipality (toma/end/endNac/cMun), when the DPS gives it. */
  tomaCMun: string | null;
}

/** The note's IBSCBS group as decimal text, in the order of TCRTCIBSCBS. */
export interface NfseIbsCbs {
  cLocalidadeIncid: string;
  vBC: string;
  uf: { pIBSUF: string; pRedAliqUF: string | null; pAliqEfetUF: string };
  mun: { pIBSMun: string; pRedAliqMun: string | null; pAliqEfetMun: string };
  fed: { pCBS: string; pRedAliqCBS: string | null; pAliqEfetCBS: string };
  vTotNF: string;
  vIBSTot: string;
  vIBSUF: string;
  vIBSMun: string;
  vCBS: string;
}

const percent2 = (rate4: bigint): string => formatScaled(rate4, SCALE.rate, 2);

/**
 * The note's IBS/CBS, or null when the DPS has no IBSCBS group, its class is unknown or the table publishes
 * no rate for one of the taxes on the competence date (from 2027 the CBS rate is not published yet: nothing
 * is made up). The rules of the layout's documentation (TCRTCValoresIBSCBS, TCRTCTotalCIBS):
 * - vBC = vServ − vISSQN − vPIS − vCOFINS (2026); no discounts, reimbursements or PIS/COFINS values are
 *   written in our DPS, so vBC = vServ − vISSQN.
 * - pAliqEfet = p × (1 − pRedAliq), the class's reduction; 2 places (TSDec2V2), half-up.
 * - each tax = vBC × pAliqEfet, half-up to cents; vIBSTot = vIBSUF + vIBSMun.
 * - vTotNF = vLiq in 2026 (the taxes are "por fora" only from 2027).
 */
export function nfseIbsCbs(dps: IbsCbsDpsFacts, note: { vISSQN: bigint; vLiq: bigint }): NfseIbsCbs | null {
  if (dps.ibscbs === null) return null;
  const cls = ibsCbsClass(dps.ibscbs.cClassTrib);
  const rates = ratesInForce(dps.dCompet);
  if (cls === undefined || rates === null) return null;
  const { pCBS, pIBSUF, pIBSMun } = rates;
  if (pCBS === null || pIBSUF === null || pIBSMun === null) return null;
  const vBC = dps.vServ - note.vISSQN > 0n ? dps.vServ - note.vISSQN : 0n;
  const redIBS = classReduction(cls, 'IBS');
  const redCBS = classReduction(cls, 'CBS');
  // The effective rate as the note prints it (2 places), so that anyone can recompute the value from it.
  const efet = (p: bigint, red: bigint): bigint => roundDiv(effectiveRate(p, red), pow10(SCALE.rate - 2));
  const value = (rate2: bigint): bigint => roundDiv(vBC * rate2, 10_000n);
  const efetUF = efet(pIBSUF, redIBS);
  const efetMun = efet(pIBSMun, redIBS);
  const efetCBS = efet(pCBS, redCBS);
  const vIBSUF = value(efetUF);
  const vIBSMun = value(efetMun);
  const vCBS = value(efetCBS);
  const red = (r: bigint): string | null => (r > 0n ? percent2(r) : null);
  const atAcquirer = AT_ACQUIRER.has(dps.ibscbs.cIndOp) && dps.tomaCMun !== null;
  return {
    cLocalidadeIncid: atAcquirer && dps.tomaCMun !== null ? dps.tomaCMun : dps.cLocPrestacao,
    vBC: formatCents(vBC),
    uf: { pIBSUF: percent2(pIBSUF), pRedAliqUF: red(redIBS), pAliqEfetUF: formatCents(efetUF) },
    mun: { pIBSMun: percent2(pIBSMun), pRedAliqMun: red(redIBS), pAliqEfetMun: formatCents(efetMun) },
    fed: { pCBS: percent2(pCBS), pRedAliqCBS: red(redCBS), pAliqEfetCBS: formatCents(efetCBS) },
    vTotNF: formatCents(note.vLiq),
    vIBSTot: formatCents(vIBSUF + vIBSMun),
    vIBSUF: formatCents(vIBSUF),
    vIBSMun: formatCents(vIBSMun),
    vCBS: formatCents(vCBS),
  };
}
