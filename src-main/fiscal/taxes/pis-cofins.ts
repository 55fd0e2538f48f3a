// PIS and COFINS of one item by CST (MOC 7.0 annex I, groups Q and S): rate over the base for 01/02 and
// 49-99, nothing for 04-09; the quantity-based CST 03 (PISQtde/COFINSQtde) is not computed.
import { formatCents, percentOf } from '../../../src-shared/money.ts';
import { centsApart, forbidNonZero, type Issues, readMoney, readRate } from './issues.ts';
import type { Cents, ComputedPisCofins, PisCofinsCst } from './types.ts';

/** The PIS/COFINS choice each CST takes (XSD PL_010 enumerations of PISAliq, PISQtde, PISNT, PISOutr). */
const GROUP: Record<PisCofinsCst, 'Aliq' | 'Qtde' | 'NT' | 'Outr'> = {
  '01': 'Aliq',
  '02': 'Aliq',
  '03': 'Qtde',
  '04': 'NT',
  '05': 'NT',
  '06': 'NT',
  '07': 'NT',
  '08': 'NT',
  '09': 'NT',
  '49': 'Outr',
  '50': 'Outr',
  '51': 'Outr',
  '52': 'Outr',
  '53': 'Outr',
  '54': 'Outr',
  '55': 'Outr',
  '56': 'Outr',
  '60': 'Outr',
  '61': 'Outr',
  '62': 'Outr',
  '63': 'Outr',
  '64': 'Outr',
  '65': 'Outr',
  '66': 'Outr',
  '67': 'Outr',
  '70': 'Outr',
  '71': 'Outr',
  '72': 'Outr',
  '73': 'Outr',
  '74': 'Outr',
  '75': 'Outr',
  '98': 'Outr',
  '99': 'Outr',
};

function isPisCofinsCst(cst: string): cst is PisCofinsCst {
  return Object.hasOwn(GROUP, cst);
}

export interface PisCofinsInput {
  tax: 'PIS' | 'COFINS';
  path: string;
  /**
   * Plain text: catalog.ts builds the PIS/COFINS schema with a computed key, so zod's inferred type is an
   * index signature and the CST arrives as `string | undefined`; it is checked against GROUP here.
   */
  CST: string | undefined;
  /** pPIS or pCOFINS as given by the profile. */
  rateText: string | undefined;
  /**
   * The operation value vProd − vDesc + vFrete + vSeg + vOutro, less the item's own vICMS when the profile's
   * pisCofinsExcluiICMS is on (STF Tema 69); a detailed caller is checked against the same base.
   */
  base: Cents;
  /** Detailed mode: the caller's vPIS/vCOFINS text (undefined when not given); null in simple mode. */
  detailed: { value: string | undefined } | null;
}

export function computePisCofins(input: PisCofinsInput, issues: Issues): ComputedPisCofins {
  const { tax, path } = input;
  const rateName = tax === 'PIS' ? 'pPIS' : 'pCOFINS';
  const valueName = tax === 'PIS' ? 'vPIS' : 'vCOFINS';
  const cfgPath = `${path}.taxes.${tax}`;
  const rate = readRate(input.rateText, `${cfgPath}.${rateName}`, issues);
  const dValue =
    input.detailed === null ? null : readMoney(input.detailed.value, `${path}.${valueName}`, issues);
  const CST = input.CST;
  if (CST === undefined || !isPisCofinsCst(CST)) {
    issues.add(`${cfgPath}.CST`, `unknown ${tax} CST '${String(CST)}'`);
    return { CST: '99', group: 'NT', vBC: null, rate: null, value: 0n };
  }
  const group = GROUP[CST];

  if (group === 'Qtde') {
    issues.add(
      `${cfgPath}.CST`,
      `${tax} CST 03 is charged per unit (qBCProd × vAliqProd), which the item model does not carry`,
    );
    return { CST, group: 'NT', vBC: null, rate: null, value: 0n };
  }
  if (group === 'NT') {
    forbidNonZero(
      dValue,
      `${path}.${valueName}`,
      `${tax} CST ${CST} (${tax}NT) carries no ${tax} value`,
      issues,
    );
    return { CST, group: 'NT', vBC: null, rate: null, value: 0n };
  }
  if (rate === null) {
    if (group === 'Aliq') {
      issues.add(`${cfgPath}.${rateName}`, `${tax} CST ${CST} requires ${rateName}`);
      return { CST, group, vBC: input.base, rate: 0n, value: 0n };
    }
    // Outras operações without a rate: written as zero base, zero rate, zero value.
    forbidNonZero(dValue, `${path}.${valueName}`, `${rateName} is required to carry a ${valueName}`, issues);
    return { CST, group, vBC: 0n, rate: 0n, value: 0n };
  }
  const expected = percentOf(input.base, rate);
  if (input.detailed === null) return { CST, group, vBC: input.base, rate, value: expected };
  if (dValue === null) {
    // Leaving out a value that can only be zero is not worth a round trip.
    if (expected !== 0n) issues.add(`${path}.${valueName}`, `${tax} CST ${CST} requires ${valueName}`);
    return { CST, group, vBC: input.base, rate, value: 0n };
  }
  if (centsApart(dValue, expected) > 1n) {
    issues.add(
      `${path}.${valueName}`,
      `must be vBC × ${rateName} = ${formatCents(input.base)} × ${input.rateText ?? ''}% = ${formatCents(expected)} (±0.01), got ${formatCents(dValue)}`,
    );
  }
  return { CST, group, vBC: input.base, rate, value: dValue };
}
