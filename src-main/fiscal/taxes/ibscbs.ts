// IBS (state and municipal) and CBS of one item, the tax reform groups of NT 2025.002-RTC (UB12-UB66),
// with the 2026 base that leaves ICMS, PIS and COFINS out (LC 214/2025 art. 12 §2 V; NT rule UB16-10).
import type { FiscalTaxes } from '../../../src-shared/contracts/catalog.ts';
import { percentOf } from '../../../src-shared/money.ts';
import type { NfeModel } from '../nfe/model.ts';
import { type Issues, readRate } from './issues.ts';
import type { Cents, ComputedIbsCbs } from './types.ts';

/**
 * CST of IBS/CBS (Informe Técnico 2025.002, "Tabela CST"): `gIBSCBS` says whether the item carries the
 * gIBSCBS group (ind_gIBSCBS), `computed` whether this module can fill it from a profile. Reductions (200,
 * 210, 222 need gRed), deferral and suspension (510, 515, 550 need gDif) and the special groups (620
 * monofasia, 800 transfer, 811 adjustments) need data the profile does not have.
 */
const CST_TABLE: Record<string, { name: string; gIBSCBS: boolean; computed: boolean }> = {
  '000': { name: 'Tributação integral', gIBSCBS: true, computed: true },
  '010': { name: 'Tributação com alíquotas uniformes', gIBSCBS: false, computed: false },
  '011': { name: 'Tributação com alíquotas uniformes reduzidas', gIBSCBS: false, computed: false },
  '200': { name: 'Alíquota reduzida', gIBSCBS: true, computed: false },
  '210': { name: 'Redução de alíquota com redutor de base de cálculo', gIBSCBS: true, computed: false },
  '220': { name: 'Alíquota fixa', gIBSCBS: true, computed: false },
  '221': { name: 'Alíquota fixa proporcional', gIBSCBS: false, computed: false },
  '222': { name: 'Redução de base de cálculo', gIBSCBS: true, computed: false },
  '400': { name: 'Isenção', gIBSCBS: false, computed: true },
  '410': { name: 'Imunidade e não incidência', gIBSCBS: false, computed: true },
  '510': { name: 'Diferimento', gIBSCBS: true, computed: false },
  '515': { name: 'Diferimento com redução de alíquota', gIBSCBS: true, computed: false },
  '550': { name: 'Suspensão', gIBSCBS: true, computed: false },
  '620': { name: 'Tributação monofásica', gIBSCBS: false, computed: false },
  '800': { name: 'Transferência de crédito', gIBSCBS: false, computed: false },
  '810': { name: 'Ajuste de IBS na ZFM', gIBSCBS: false, computed: false },
  '811': { name: 'Ajustes', gIBSCBS: false, computed: false },
  '820': { name: 'Tributação em declaração de regime específico', gIBSCBS: false, computed: false },
  '830': { name: 'Exclusão de base de cálculo', gIBSCBS: true, computed: false },
};

/** The item's amounts the IBS/CBS base is built from (all already rounded to cents). */
export interface IbsCbsBaseParts {
  vProd: Cents;
  vDesc: Cents;
  vFrete: Cents;
  vSeg: Cents;
  vOutro: Cents;
  vICMS: Cents;
  vFCP: Cents;
  vPIS: Cents;
  vCOFINS: Cents;
}

/**
 * vBC of IBS/CBS, NT 2025.002-RTC rule UB16-10:
 *   vProd + vServ + vFrete + vSeg + vOutro + vII − vDesc − vPIS − vCOFINS − vICMS − vICMSUFDest − vFCP
 *   − vFCPUFDest − vICMSMono − vISSQN + vIS,
 * the layout form of LC 214/2025 art. 12: the operation value (§1: freight, insurance and charges included)
 * without IPI, unconditional discounts (§2 II, III) and, from 2026 to 2032, without ICMS, ISS, PIS and
 * COFINS (§2 V; ADCT art. 133, EC 132/2023). The items here have no vServ, vII, ICMSUFDest, monophasic ICMS,
 * ISSQN or IS, so those terms are zero. Never below zero.
 */
export function ibsCbsBase(p: IbsCbsBaseParts): Cents {
  const base = p.vProd + p.vFrete + p.vSeg + p.vOutro - p.vDesc - p.vPIS - p.vCOFINS - p.vICMS - p.vFCP;
  return base > 0n ? base : 0n;
}

export interface IbsCbsInput {
  path: string;
  config: FiscalTaxes['IBSCBS'];
  /** Year defaults (NfeModel.ibsCbsRates): 2026 CBS 0.9%, IBS UF 0.1%, IBS Mun 0% (LC 214/2025 arts. 343-346). */
  defaults: NfeModel['ibsCbsRates'];
  base: IbsCbsBaseParts;
}

export function computeIbsCbs(input: IbsCbsInput, issues: Issues): ComputedIbsCbs | null {
  const { config, path } = input;
  if (config === undefined) return null;
  const cfgPath = `${path}.taxes.IBSCBS`;
  const entry = CST_TABLE[config.CST];
  const result: ComputedIbsCbs = { CST: config.CST, cClassTrib: config.cClassTrib, g: null };
  if (entry === undefined) {
    issues.add(`${cfgPath}.CST`, `unknown IBS/CBS CST '${config.CST}' (Informe Técnico 2025.002)`);
    return result;
  }
  if (!entry.computed) {
    issues.add(
      `${cfgPath}.CST`,
      `IBS/CBS CST ${config.CST} (${entry.name}) needs groups (reduction, deferral, monofasia, credit ` +
        'transfer ...) that are not computed from a fiscal profile; only 000, 400 and 410 are',
    );
    return result;
  }
  if (!entry.gIBSCBS) return result;

  const pIBSUF = readRate(config.pIBSUF ?? input.defaults.pIBSUF, `${cfgPath}.pIBSUF`, issues) ?? 0n;
  const pIBSMun = readRate(config.pIBSMun ?? input.defaults.pIBSMun, `${cfgPath}.pIBSMun`, issues) ?? 0n;
  const pCBS = readRate(config.pCBS ?? input.defaults.pCBS, `${cfgPath}.pCBS`, issues) ?? 0n;
  const vBC = ibsCbsBase(input.base);
  // Each value rounded half-up to cents on its own; vIBS is the sum of the two rounded parts (UB35), so
  // the totals of gIBSUF, gIBSMun and gIBS agree to the cent.
  const vIBSUF = percentOf(vBC, pIBSUF);
  const vIBSMun = percentOf(vBC, pIBSMun);
  result.g = {
    vBC,
    pIBSUF,
    vIBSUF,
    pIBSMun,
    vIBSMun,
    vIBS: vIBSUF + vIBSMun,
    pCBS,
    vCBS: percentOf(vBC, pCBS),
  };
  return result;
}
