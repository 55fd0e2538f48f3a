// IPI of one item: IPITrib (rate over the operation value) or IPINT by CST (MOC 7.0 annex I, group O),
// and the NFC-e restriction that keeps the IPI group out of model 65 (rejeição 742).
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { formatCents, percentOf } from '../../../src-shared/money.ts';
import { centsApart, forbidNonZero, type Issues, readMoney, readRate } from './issues.ts';
import type { Cents, ComputedIpi, DetailedTaxes, IpiCst, TaxModelo } from './types.ts';

/** Which TIpi choice each CST takes (XSD PL_010: IPITrib enumerates 00/49/50/99, IPINT the rest). */
const IPI_GROUP: Record<IpiCst, 'IPITrib' | 'IPINT'> = {
  '00': 'IPITrib',
  '01': 'IPINT',
  '02': 'IPINT',
  '03': 'IPINT',
  '04': 'IPINT',
  '05': 'IPINT',
  '49': 'IPITrib',
  '50': 'IPITrib',
  '51': 'IPINT',
  '52': 'IPINT',
  '53': 'IPINT',
  '54': 'IPINT',
  '55': 'IPINT',
  '99': 'IPITrib',
};

export interface IpiInput {
  path: string;
  config: FiscalTaxes['IPI'];
  modelo: TaxModelo;
  /**
   * IPI base: the operation value vProd − vDesc + vFrete + vSeg + vOutro (RIPI, Decreto 7.212/2010 art. 190;
   * unconditional discounts excluded since STF RE 567.935).
   */
  base: Cents;
  detailed: DetailedTaxes | null;
}

export function computeIpi(input: IpiInput, issues: Issues): ComputedIpi | null {
  const { config, path } = input;
  const d = input.detailed;
  const dVIPI = d === null ? null : readMoney(d.vIPI, `${path}.vIPI`, issues);
  if (config === undefined) {
    forbidNonZero(dVIPI, `${path}.vIPI`, 'the item has no IPI group in its fiscal profile', issues);
    return null;
  }
  const cfgPath = `${path}.taxes.IPI`;
  const group = IPI_GROUP[config.CST];
  if (group === 'IPINT') {
    forbidNonZero(dVIPI, `${path}.vIPI`, `IPI CST ${config.CST} (IPINT) carries no IPI value`, issues);
    // NFC-e has no IPI group at all (rejeição 742 "NFC-e com grupo do IPI"); a non-taxed IPI adds nothing
    // to the note, so the group is simply left out instead of failing the sale.
    if (input.modelo === 65) return null;
    return { cEnq: config.cEnq, CST: config.CST, trib: null };
  }
  if (input.modelo === 65) {
    issues.add(
      `${cfgPath}.CST`,
      `NFC-e cannot carry taxed IPI (CST ${config.CST}): rejeição 742 "NFC-e com grupo do IPI"`,
    );
    return null;
  }
  const pIPI = readRate(config.pIPI, `${cfgPath}.pIPI`, issues);
  if (pIPI === null) {
    issues.add(`${cfgPath}.pIPI`, `IPI CST ${config.CST} (IPITrib) requires pIPI`);
    return null;
  }
  if (d === null) {
    return {
      cEnq: config.cEnq,
      CST: config.CST,
      trib: { vBC: input.base, pIPI, vIPI: percentOf(input.base, pIPI) },
    };
  }
  const expected = percentOf(input.base, pIPI);
  if (dVIPI === null) {
    issues.add(`${path}.vIPI`, `IPI CST ${config.CST} requires vIPI`);
  } else if (centsApart(dVIPI, expected) > 1n) {
    issues.add(
      `${path}.vIPI`,
      `must be vBC × pIPI = ${formatCents(input.base)} × ${config.pIPI ?? ''}% = ${formatCents(expected)} (±0.01)`,
    );
  }
  return { cEnq: config.cEnq, CST: config.CST, trib: { vBC: input.base, pIPI, vIPI: dVIPI ?? 0n } };
}
