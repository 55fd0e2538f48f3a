// The national tax code of a service (cTribNac, TSCodTribNac): item (2) + subitem (2) + desdobro (2) of the
// national service list, which follows the list annexed to Lei Complementar 116/2003 (items 01 to 40) plus
// item 99 (services outside ISSQN and ICMS). Checked by structure: the list itself is an annex we keep only
// as test data (its copy comes from an AGPL project), so a code of a valid shape that the annex lacks passes.

/** Why a code is not a national tax code, or null when it is one. */
export function nationalServiceCodeFault(code: string): string | null {
  if (!/^\d{6}$/.test(code)) return 'must be the 6-digit national tax code (item, subitem, desdobro)';
  const item = Number(code.slice(0, 2));
  const subitem = Number(code.slice(2, 4));
  const desdobro = Number(code.slice(4, 6));
  if (!((item >= 1 && item <= 40) || item === 99))
    return `item ${code.slice(0, 2)} is not in the national list`;
  if (subitem < 1) return 'subitem 00 is not in the national list';
  if (desdobro < 1) return 'desdobro 00 is not in the national list';
  return null;
}

export function isNationalServiceCode(code: string): boolean {
  return nationalServiceCodeFault(code) === null;
}
