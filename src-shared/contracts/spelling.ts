// The two payload spellings of the specification: how a spelling-A (camelCase) name is written in spelling B
// (snake_case). One table for the service, which names a caller's faults in its own spelling, and for the
// OpenAPI document, which describes spelling B; and the renaming of a body to spelling A with the way back.
import { formatFieldPath } from './errors.ts';

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

/** How a kind renames one key of a body to spelling A (its snake_case → camelCase plus its own aliases). */
export type SpellingARename = (key: string) => string;

/** The body with every key renamed to spelling A, at any depth. */
export function renameToSpellingA(node: unknown, rename: SpellingARename): unknown {
  if (Array.isArray(node)) return node.map((child: unknown) => renameToSpellingA(child, rename));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) out[rename(key)] = renameToSpellingA(child, rename);
  return out;
}

/** Names a spelling-A path of a body the way its caller wrote it. */
export type FieldNamer = (path: readonly PropertyKey[]) => string;

/**
 * The namer of a body's faults: the part of a path the caller wrote keeps the caller's own names, the rest
 * (fields it did not send) is named in its spelling. The caller's paths are walked on the first fault named,
 * so a valid body never pays for them.
 */
export function callerFieldNamer(raw: unknown, rename: SpellingARename, spellingB: boolean): FieldNamer {
  let paths: Map<string, string> | undefined;
  const callerPaths = (): Map<string, string> => {
    const found = new Map<string, string>();
    const walk = (node: unknown, from: PropertyKey[], to: PropertyKey[]): void => {
      found.set(formatFieldPath(to), formatFieldPath(from));
      if (Array.isArray(node)) node.forEach((child: unknown, i) => walk(child, [...from, i], [...to, i]));
      else if (typeof node === 'object' && node !== null) {
        for (const [key, child] of Object.entries(node)) walk(child, [...from, key], [...to, rename(key)]);
      }
    };
    walk(raw, [], []);
    return found;
  };
  const own = (part: PropertyKey) => (typeof part === 'string' && spellingB ? spellingBName(part) : part);
  return (path) => {
    paths ??= callerPaths();
    for (let known = path.length; known > 0; known--) {
      const prefix = paths.get(formatFieldPath(path.slice(0, known)));
      if (prefix === undefined) continue;
      const rest = path.slice(known).map(own);
      if (rest.length === 0) return prefix;
      const tail = formatFieldPath(rest);
      return typeof rest[0] === 'number' ? `${prefix}${tail}` : `${prefix}.${tail}`;
    }
    return formatFieldPath(path.map(own));
  };
}
