// The fiscal profile every company gets at creation, by tax regime (CRT): what an item without its own
// taxes is taxed with (simple mode). One table for the service and the migration that backfilled it.
import type { FiscalProfileCreate, FiscalTaxes } from '../contracts/catalog.ts';
import { isUf } from '../uf.ts';
import { ICMS_INTERNAL_RATE } from './icms-internal-rates.ts';

export type TaxRegime = 'simples' | 'simplesSublimite' | 'normal';

/** Código de Regime Tributário (NF-e C21) → regime: 1 Simples, 2 Simples over the sublimit, 3 normal, 4 MEI. */
export function regimeOfCrt(crt: number): TaxRegime {
  if (crt === 2) return 'simplesSublimite';
  if (crt === 3) return 'normal';
  return 'simples';
}

interface DefaultProfileTemplate {
  name: string;
  CFOP: string;
  taxes: FiscalTaxes;
  /** ICMS CST 00 takes the internal rate of the company's UF (ICMS_INTERNAL_RATE). */
  icmsAtUfRate: boolean;
}

/**
 * CFOP 5102 for all: "venda de mercadoria adquirida ou recebida de terceiros" inside the state (CFOP table of
 * Convênio s/nº de 1970, as rewritten by Ajuste SINIEF 07/2001): the common case of a shop reselling goods.
 * A manufacturer (5101) or an interstate sale (6102) edits the profile or gives another one per item.
 */
export const DEFAULT_FISCAL_PROFILES: Readonly<Record<TaxRegime, DefaultProfileTemplate>> = {
  /**
   * Simples Nacional and MEI (CRT 1 and 4). ICMS is paid inside the DAS (LC 123/2006 art. 13 VII), so the
   * note shows no ICMS: CSOSN 102 "tributada pelo Simples Nacional sem permissão de crédito" (Ajuste SINIEF
   * 03/2010 CSOSN table). 101 would need the month's pCredSN and applies only to buyers who may take the
   * credit (art. 23), so it is not a safe default. PIS and COFINS are also inside the DAS (art. 13 IV, V):
   * CST 49 "outras operações de saída", without rate. No IBS/CBS group: the 2026 test year of LC 214/2025
   * (arts. 343-346) reaches the regular regime; a Simples optant pays IBS/CBS inside the DAS unless it opts
   * for the regular regime, which it can do only from 2027.
   */
  simples: {
    name: 'Padrão Simples Nacional — venda (CSOSN 102)',
    CFOP: '5102',
    taxes: {
      ICMS: { orig: 0, CSOSN: '102' },
      PIS: { CST: '49' },
      COFINS: { CST: '49' },
    },
    icmsAtUfRate: false,
  },
  /**
   * Simples Nacional over the ICMS sublimit (CRT 2): ICMS leaves the DAS and is paid as by any other
   * taxpayer (LC 123/2006 arts. 13-A and 20 §1), so CST 00 "tributada integralmente" with the base on the
   * operation value (modBC 3) at the UF's internal rate; the federal taxes stay in the DAS, so PIS and COFINS
   * keep CST 49 and, the company being a Simples optant still, no IBS/CBS group in 2026 (see `simples`).
   */
  simplesSublimite: {
    name: 'Padrão Simples acima do sublimite — venda (ICMS CST 00)',
    CFOP: '5102',
    taxes: {
      ICMS: { orig: 0, CST: '00', modBC: 3 },
      PIS: { CST: '49' },
      COFINS: { CST: '49' },
    },
    icmsAtUfRate: true,
  },
  /**
   * Regime normal (CRT 3): ICMS CST 00 at the UF's internal rate as above. PIS 1.65 % and COFINS 7.60 % with
   * CST 01 are the non-cumulative regime of lucro real (Lei 10.637/2002 art. 2, Lei 10.833/2003 art. 2);
   * a company on lucro presumido is cumulative (0.65 % and 3 %, Lei 9.718/1998), hence the profile's name
   * tells the owner which one it assumed. IBS/CBS of the 2026 test year: CST 000 "tributação integral",
   * cClassTrib 000001, with the year's rates the tax code supplies (CBS 0.9 %, IBS 0.1 %; LC 214/2025 arts.
   * 343-344), which the regular regime must show from 2026 (NT 2025.002-RTC).
   */
  normal: {
    name: 'Padrão regime normal — venda, PIS/COFINS não cumulativos (lucro real)',
    CFOP: '5102',
    taxes: {
      ICMS: { orig: 0, CST: '00', modBC: 3 },
      PIS: { CST: '01', pPIS: '1.65' },
      COFINS: { CST: '01', pCOFINS: '7.60' },
      IBSCBS: { CST: '000', cClassTrib: '000001' },
    },
    icmsAtUfRate: true,
  },
};

/** The default profile of a company with this CRT in this UF, ready for the fiscal profile schema. */
export function defaultFiscalProfile(crt: number, uf: string): FiscalProfileCreate {
  const template = DEFAULT_FISCAL_PROFILES[regimeOfCrt(crt)];
  if (!template.icmsAtUfRate) return { name: template.name, CFOP: template.CFOP, taxes: template.taxes };
  if (!isUf(uf)) throw new Error(`no internal ICMS rate for UF '${uf}'`);
  return {
    name: template.name,
    CFOP: template.CFOP,
    taxes: { ...template.taxes, ICMS: { ...template.taxes.ICMS, pICMS: ICMS_INTERNAL_RATE[uf] } },
  };
}
