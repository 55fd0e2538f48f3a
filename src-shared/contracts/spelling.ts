// The two payload spellings of the specification: how a spelling-A (camelCase) name is written in spelling B
// (snake_case). One table for the service, which names a caller's faults in its own spelling, and for the
// OpenAPI document, which describes spelling B.

/** Spelling-B names that are not the mechanical camelCase → snake_case of the spelling-A name. */
export const SPELLING_B_NAMES: Readonly<Record<string, string>> = {
  customer: 'destinatario',
  forma: 'metodo',
  nome: 'razao_social',
  indIEDest: 'ind_ie_dest',
  aPrazo: 'a_prazo',
};

/**
 * `valorUnitario` → `valor_unitario`. The layout's tags (`xLgr`, `cMun`: one letter, then a capital) and names
 * with capital runs (`CFOP`) are the same in both spellings.
 */
export function spellingBName(name: string): string {
  const special = SPELLING_B_NAMES[name];
  if (special !== undefined) return special;
  if (!/^[a-z][a-z0-9]+(?:[A-Z][a-z0-9]+)+$/.test(name)) return name;
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
