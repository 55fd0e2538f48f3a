// The IBS/CBS code tables as data (resources/tables/ibscbs/): CST indicators and cClassTrib of Informe
// Técnico 2025.002, and the rates in force by date (LC 214/2025 arts. 343-346). Pure lookups shared by the
// service's tax computation and the sandbox authority, which must agree on what the tables say.
import fs from 'node:fs';
import { SCALE, parseScaled, pow10, roundDiv } from '../../../src-shared/money.ts';
import { resourcePath } from '../../paths.ts';
import type { Rate } from './types.ts';

/** One CST of the "Tabela de Indicadores de CST": which groups the item must or must not carry. */
export interface IbsCbsCstEntry {
  descricao: string;
  /** ind_gIBSCBS: gIBSCBS required (1) or refused (0), rules UB13-20/UB13-30 (1021/1022). */
  indGIBSCBS: boolean;
  indRedutorBC: boolean;
  /** ind_gRed: gRed required (1) or refused (0) in gIBSUF/gIBSMun/gCBS, rules UB26/UB45/UB64. */
  indGRed: boolean;
  /** ind_gDif: gDif required (1) or refused (0), rules UB22/UB40/UB59. */
  indGDif: boolean;
  indGTransfCred: boolean;
  indGIBSCBSMono: boolean;
  indGCredPresIBSZFM: boolean;
  indGAjusteCompet: boolean;
}

/** One cClassTrib of the "Tabela de Código de Classificação Tributária do IBS e CBS". */
export interface IbsCbsClass {
  cClassTrib: string;
  /** The first three digits: the CST the class belongs to (rule UB14-20, 1024). */
  CST: string;
  descricao: string;
  /** Reduction of the IBS rate fixed by the class, percent as text ("60.0000"). */
  pRedIBS: string;
  pRedCBS: string;
  tipoAliquota: string;
  indRedutorBC: boolean;
  /** The item must carry gTribRegular and zero rates (UB68-10, UB18-10 exception). */
  indTribRegular: boolean;
  /** gCredPresOper allowed (UB120-20, 1175). */
  indCredPresOper: boolean;
  indEstornoCred: boolean;
  /** Usable on NF-e (model 55) / NFC-e (model 65), rule UB14-25 (1025). */
  indNFe: boolean;
  indNFCe: boolean;
}

interface TableFile {
  versao: string;
  cst: Record<string, IbsCbsCstEntry>;
  classificacoes: IbsCbsClass[];
}

interface RatesFile {
  periodos: Array<{
    de: string;
    ate: string;
    pCBS: string | null;
    pIBSUF: string | null;
    pIBSMun: string | null;
  }>;
}

let table:
  { versao: string; cst: Map<string, IbsCbsCstEntry>; classes: Map<string, IbsCbsClass> } | undefined;
let rates: RatesFile['periodos'] | undefined;

function loadTable(): NonNullable<typeof table> {
  if (table !== undefined) return table;
  const file = JSON.parse(
    fs.readFileSync(resourcePath('tables', 'ibscbs', 'cclasstrib.json'), 'utf8'),
  ) as TableFile;
  table = {
    versao: file.versao,
    cst: new Map(Object.entries(file.cst)),
    classes: new Map(file.classificacoes.map((c) => [c.cClassTrib, c])),
  };
  return table;
}

/** Version of the shipped table, named in the messages so a store knows which table refused its code. */
export function ibsCbsTableVersion(): string {
  return loadTable().versao;
}

export function ibsCbsCst(cst: string): IbsCbsCstEntry | undefined {
  return loadTable().cst.get(cst);
}

export function ibsCbsClass(cClassTrib: string): IbsCbsClass | undefined {
  return loadTable().classes.get(cClassTrib);
}

/** Whether the class may be used on the model (indNFe / indNFCe). */
export function classAllowedOn(c: IbsCbsClass, mod: 55 | 65): boolean {
  return mod === 55 ? c.indNFe : c.indNFCe;
}

/** The rates in force on a date; a tax whose rate is not published for the period is null (not checked). */
export interface RatesInForce {
  pCBS: Rate | null;
  pIBSUF: Rate | null;
  pIBSMun: Rate | null;
}

/**
 * Rates in force on `isoDate` (YYYY-MM-DD, the date of dhEmi in the emitter's zone): 2025-2026 CBS 0.9 %,
 * IBS UF 0.1 %, IBS Mun 0 % (LC 214/2025 arts. 343, 346); 2027-2028 IBS 0.05 % + 0.05 % (art. 344), CBS
 * not yet published. null for a date outside every period of the table.
 */
export function ratesInForce(isoDate: string): RatesInForce | null {
  rates ??= (
    JSON.parse(fs.readFileSync(resourcePath('tables', 'ibscbs', 'aliquotas.json'), 'utf8')) as RatesFile
  ).periodos;
  const p = rates.find((r) => r.de <= isoDate && isoDate <= r.ate);
  if (p === undefined) return null;
  // Parsed once per period (every item asks); each caller still gets its own object.
  let parsed = parsedRates.get(p);
  if (parsed === undefined) {
    parsed = { pCBS: rateOf(p.pCBS), pIBSUF: rateOf(p.pIBSUF), pIBSMun: rateOf(p.pIBSMun) };
    parsedRates.set(p, parsed);
  }
  return { ...parsed };
}

const parsedRates = new WeakMap<object, RatesInForce>();
function rateOf(t: string | null): Rate | null {
  return t === null ? null : parseScaled(t, SCALE.rate);
}

/** Reduction percent of the class as a Rate (scale 4). */
export function classReduction(c: IbsCbsClass, tax: 'IBS' | 'CBS'): Rate {
  return parseScaled(tax === 'IBS' ? c.pRedIBS : c.pRedCBS, SCALE.rate);
}

/**
 * pAliqEfet = p × (1 − pRedAliq / 100), 4 decimals rounded half-up on the last one (NT 2025.002-RTC rules
 * UB28-10, UB47-10, UB66-10). Rates at scale 4: p × (100·10⁴ − pRed) / (100·10⁴).
 */
export function effectiveRate(p: Rate, pRedAliq: Rate): Rate {
  const hundred = 100n * pow10(SCALE.rate);
  return roundDiv(p * (hundred - pRedAliq), hundred);
}
