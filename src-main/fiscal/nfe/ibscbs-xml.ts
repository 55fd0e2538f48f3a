// IBS/CBS groups of NF-e/NFC-e (package PL_010, DFeTiposBasicos_v1.00.xsd): det/imposto/IBSCBS (TTribNFe with
// TCIBS, TRed, TDif) and total/IBSCBSTot (TIBSCBSMonoTot), from computed values, in XSD sequence order.
import { formatCents, formatScaled, SCALE } from '../../../src-shared/money.ts';
import type {
  Cents,
  ComputedIbsCbs,
  IbsCbsDeferral,
  IbsCbsReduction,
  IbsCbsTot,
  Rate,
} from '../taxes/types.ts';
import { el, group } from '../xml.ts';

const money = (tag: string, c: Cents): string => el(tag, formatCents(c));
const rate = (tag: string, r: Rate): string => el(tag, formatScaled(r, SCALE.rate));

const difXml = (d: IbsCbsDeferral | undefined): string =>
  d === undefined ? '' : group('gDif', rate('pDif', d.pDif), money('vDif', d.vDif));
const redXml = (r: IbsCbsReduction | undefined): string =>
  r === undefined ? '' : group('gRed', rate('pRedAliq', r.pRedAliq), rate('pAliqEfet', r.pAliqEfet));

/**
 * TTribNFe: CST, cClassTrib, then gIBSCBS (TCIBS) when the CST carries it. Inside each of gIBSUF, gIBSMun and
 * gCBS the order is p, gDif, gDevTrib, gRed, v (TCIBS).
 */
export function ibsCbsXml(t: ComputedIbsCbs | null): string {
  if (t === null) return '';
  const g = t.g;
  const values =
    g === null
      ? ''
      : group(
          'gIBSCBS',
          money('vBC', g.vBC),
          group(
            'gIBSUF',
            rate('pIBSUF', g.pIBSUF),
            difXml(g.dif?.IBSUF),
            redXml(g.red?.IBSUF),
            money('vIBSUF', g.vIBSUF),
          ),
          group(
            'gIBSMun',
            rate('pIBSMun', g.pIBSMun),
            difXml(g.dif?.IBSMun),
            redXml(g.red?.IBSMun),
            money('vIBSMun', g.vIBSMun),
          ),
          money('vIBS', g.vIBS),
          group('gCBS', rate('pCBS', g.pCBS), difXml(g.dif?.CBS), redXml(g.red?.CBS), money('vCBS', g.vCBS)),
        );
  return group('IBSCBS', el('CST', t.CST), el('cClassTrib', t.cClassTrib), values);
}

/** total/IBSCBSTot (W34): gIBS and gCBS are written whenever an item has gIBSCBS, mirroring the items. */
export function ibsCbsTotXml(r: IbsCbsTot): string {
  return group(
    'IBSCBSTot',
    money('vBCIBSCBS', r.vBCIBSCBS),
    group(
      'gIBS',
      group(
        'gIBSUF',
        money('vDif', r.vDifIBSUF),
        money('vDevTrib', r.vDevTribIBSUF),
        money('vIBSUF', r.vIBSUF),
      ),
      group(
        'gIBSMun',
        money('vDif', r.vDifIBSMun),
        money('vDevTrib', r.vDevTribIBSMun),
        money('vIBSMun', r.vIBSMun),
      ),
      money('vIBS', r.vIBS),
      money('vCredPres', r.vCredPresIBS),
      money('vCredPresCondSus', r.vCredPresCondSusIBS),
    ),
    group(
      'gCBS',
      money('vDif', r.vDifCBS),
      money('vDevTrib', r.vDevTribCBS),
      money('vCBS', r.vCBS),
      money('vCredPres', r.vCredPresCBS),
      money('vCredPresCondSus', r.vCredPresCondSusCBS),
    ),
  );
}
