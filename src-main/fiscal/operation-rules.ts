// Tables and algorithms of the operation rules (CFOP against the operation, NFC-e CFOPs, infRespTec per UF,
// hashCSRT), read by both the service's checks before signing and the sandbox authority's own rules.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resourcePath } from '../paths.ts';

/** What the first digit of a CFOP says (CFOP table, Convênio SINIEF s/nº de 1970, Ajuste SINIEF 07/01). */
export interface CfopScope {
  /** 1/2/3 entradas, 5/6/7 saídas. */
  direction: 'entrada' | 'saida';
  /** 1/5 within the state (idDest 1), 2/6 another state (idDest 2), 3/7 abroad (idDest 3). */
  idDest: 1 | 2 | 3;
}

export function cfopScope(cfop: string): CfopScope | undefined {
  if (!/^\d{4}$/.test(cfop)) return undefined;
  const first = cfop[0];
  const scopes: Record<string, CfopScope> = {
    '1': { direction: 'entrada', idDest: 1 },
    '2': { direction: 'entrada', idDest: 2 },
    '3': { direction: 'entrada', idDest: 3 },
    '5': { direction: 'saida', idDest: 1 },
    '6': { direction: 'saida', idDest: 2 },
    '7': { direction: 'saida', idDest: 3 },
  };
  return first === undefined ? undefined : scopes[first];
}

/** The operation rules a CFOP can break, in the order SEFAZ checks them (MOC 7.0 annex, group I08). */
export type CfopRule = 518 | 519 | 725 | 731 | 732 | 733;

/**
 * The first rule `cfop` breaks on a note of model `mod`, direction `tpNF` and destination `idDest`, or null.
 * 518/519 (I08-20/30): entrada CFOP on a saída and the reverse; 725 (I08-150): an NFC-e only takes the CFOPs
 * of resources/tables/operation/nfce-cfop.json, so an interstate or foreign CFOP there is 725 rather than
 * 732/731; 731/732/733 (rules of idDest since layout 3.10, NT 2013.005): the CFOP's scope against idDest.
 */
export function cfopRuleBroken(cfop: string, mod: 55 | 65, tpNF: 0 | 1, idDest: 1 | 2 | 3): CfopRule | null {
  const scope = cfopScope(cfop);
  if (scope === undefined) return null; // the schema (TCfop) refuses it first
  if (tpNF === 1 && scope.direction === 'entrada') return 518;
  if (tpNF === 0 && scope.direction === 'saida') return 519;
  if (mod === 65) return nfceCfops().has(cfop) ? null : 725;
  if (scope.idDest === idDest) return null;
  return scope.idDest === 3 ? 731 : scope.idDest === 2 ? 732 : 733;
}

let nfceTable: ReadonlySet<string> | undefined;

/** The CFOPs an NFC-e may carry (MOC 7.0 rule I08-150, cStat 725). */
export function nfceCfops(): ReadonlySet<string> {
  if (nfceTable !== undefined) return nfceTable;
  const file = resourcePath('tables', 'operation', 'nfce-cfop.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { cfops?: unknown };
  const codes = typeof raw.cfops === 'object' && raw.cfops !== null ? Object.keys(raw.cfops) : [];
  if (codes.length === 0 || codes.some((c) => !/^5\d{3}$/.test(c))) {
    throw new Error(`${file}: expected {cfops: {"5xxx": description}}`);
  }
  nfceTable = new Set(codes);
  return nfceTable;
}

export interface RespTecRule {
  /** First day the group is required (ZD01-10, cStat 972), YYYY-MM-DD. */
  since: string;
  /** When the UF also requires idCSRT + hashCSRT (ZD07-10, cStat 975): for which models, from which day. */
  csrt: { modelos: readonly (55 | 65)[]; homologacao: string; producao: string } | null;
}

let respTecTable: ReadonlyMap<string, RespTecRule> | undefined;

function respTecRules(): ReadonlyMap<string, RespTecRule> {
  if (respTecTable !== undefined) return respTecTable;
  const file = resourcePath('tables', 'operation', 'resp-tec-ufs.json');
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { ufs?: Record<string, unknown> };
  const date = /^\d{4}-\d{2}-\d{2}$/;
  const table = new Map<string, RespTecRule>();
  for (const [uf, entry] of Object.entries(raw.ufs ?? {})) {
    const e = entry as {
      since?: unknown;
      csrt?: { modelos?: unknown; homologacao?: unknown; producao?: unknown };
    };
    const csrt = e.csrt;
    const valid =
      /^[A-Z]{2}$/.test(uf) &&
      typeof e.since === 'string' &&
      date.test(e.since) &&
      (csrt === undefined ||
        (Array.isArray(csrt.modelos) &&
          csrt.modelos.every((m) => m === 55 || m === 65) &&
          typeof csrt.homologacao === 'string' &&
          date.test(csrt.homologacao) &&
          typeof csrt.producao === 'string' &&
          date.test(csrt.producao)));
    if (!valid) throw new Error(`${file}: bad entry for ${uf}`);
    table.set(uf, {
      since: e.since as string,
      csrt:
        csrt === undefined
          ? null
          : {
              modelos: csrt.modelos as (55 | 65)[],
              homologacao: csrt.homologacao as string,
              producao: csrt.producao as string,
            },
    });
  }
  respTecTable = table;
  return table;
}

/** What the emitter's UF requires of infRespTec on a note issued on `day` (YYYY-MM-DD, the UF's date). */
export function respTecRequirement(
  uf: string,
  mod: 55 | 65,
  tpAmb: 1 | 2,
  day: string,
): { group: boolean; csrt: boolean } {
  const rule = respTecRules().get(uf);
  if (rule === undefined || day < rule.since) return { group: false, csrt: false };
  const csrtSince = rule.csrt === null ? undefined : tpAmb === 1 ? rule.csrt.producao : rule.csrt.homologacao;
  const csrt =
    rule.csrt !== null && rule.csrt.modelos.includes(mod) && csrtSince !== undefined && day >= csrtSince;
  return { group: true, csrt };
}

/** The UFs whose notes must carry infRespTec (for the docs and the settings screen). */
export function respTecUfs(): string[] {
  return [...respTecRules().keys()].sort();
}

/**
 * hashCSRT (ZD09): "resultado da função hash (SHA-1 – Base64) do CSRT fornecido pelo fisco mais a Chave de
 * Acesso" (NT 2018.005 §2, leiaute ZD09): base64(SHA-1(CSRT + chave)), 28 characters.
 */
export function hashCsrt(csrt: string, chave: string): string {
  return createHash('sha1').update(`${csrt}${chave}`, 'utf8').digest('base64');
}
