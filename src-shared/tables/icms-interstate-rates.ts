// Interstate ICMS rate of a sale from one UF to another, used for the DIFAL (ICMSUFDest/pICMSInter) and for the
// own-ICMS deduction of Simples Nacional ST: shared by the tax computation and the sandbox authority's rule 698.
//
// Provenance: Resolução do Senado Federal 22/1989 (12 %; 7 % from the South and Southeast, except Espírito
// Santo, to the North, Northeast, Centre-West and Espírito Santo) and Resolução do Senado Federal 13/2012 (4 % for
// imported goods or goods with more than 40 % imported content: origem 1, 2, 3 and 8 of the MOC's orig table;
// 6 and 7, imported without a national similar listed by CAMEX, keep the 7/12 % rates).
import type { UfSigla } from '../uf.ts';

export type InterstateRate = '4.00' | '7.00' | '12.00';

/** South and Southeast without Espírito Santo: the origins whose sales to the others pay 7 %. */
const SOUTH_SOUTHEAST_NO_ES: ReadonlySet<UfSigla> = new Set(['MG', 'PR', 'RJ', 'RS', 'SC', 'SP']);

/** orig codes of Resolução do Senado 13/2012 (MOC 7.0 N11 table). */
export const IMPORTED_ORIG: ReadonlySet<number> = new Set([1, 2, 3, 8]);

/** The 7 or 12 % rate between two different UFs, disregarding the origin of the goods. */
export function regionalInterstateRate(from: UfSigla, to: UfSigla): '7.00' | '12.00' {
  return SOUTH_SOUTHEAST_NO_ES.has(from) && !SOUTH_SOUTHEAST_NO_ES.has(to) ? '7.00' : '12.00';
}

/** The interstate rate of an item of origin `orig` sold from `from` to `to` (different UFs). */
export function interstateRate(orig: number, from: UfSigla, to: UfSigla): InterstateRate {
  return IMPORTED_ORIG.has(orig) ? '4.00' : regionalInterstateRate(from, to);
}
