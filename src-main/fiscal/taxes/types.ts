// What the tax computation hands to the XML writers: every amount of every item as exact bigint (cents at
// scale 2, rates in percent at scale 4, as src-shared/money.ts), and note totals that are sums of those.
import type {
  FiscalTaxes,
  ICMS_CSOSN,
  ICMS_CST,
  IPI_CST,
  PIS_COFINS_CST,
} from '../../../src-shared/contracts/catalog.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';
// IBS/CBS item and total shapes live beside their computation.
import type { ComputedIbsCbs, IbsCbsTot } from './ibscbs-types.ts';

export type * from './ibscbs-types.ts';

// The input side: what the computation reads of a note. Each document kind's model (fiscal/nfe's NfeModel
// today) is structurally one of these and is passed in as is; taxes never imports a kind's model.

/** The model of the document the taxes are computed for: 55 NF-e, 65 NFC-e. */
export type TaxModelo = 55 | 65;
/** Código de Regime Tributário of the emitter: 1 Simples, 2 Simples excesso, 3 normal, 4 MEI. */
export type Crt = 1 | 2 | 3 | 4;

/** Tax values a caller already computed (detailed mode), all decimal text. */
export interface DetailedTaxes {
  vBC?: string;
  vICMS?: string;
  vBCST?: string;
  vICMSST?: string;
  vPIS?: string;
  vCOFINS?: string;
  vIPI?: string;
  vTotTrib?: string;
}

/** Tax reform rates for the year (LC 214/2025 transition): percent text. */
export interface IbsCbsRates {
  pCBS: string;
  pIBSUF: string;
  pIBSMun: string;
}

/** An item as the computation reads it: amounts are exact decimal text. */
export interface TaxItemInput {
  CFOP: string;
  /** Decimal text, up to 4 decimals. */
  qCom: string;
  /** Decimal text, up to 10 decimals. */
  vUnCom: string;
  vDesc: string | null;
  vFrete: string | null;
  vSeg: string | null;
  vOutro: string | null;
  /** Simple mode: rules from a fiscal profile. */
  taxes: FiscalTaxes;
  /** Detailed mode: values the caller computed; the computation checks and totals them. */
  detailed: DetailedTaxes | null;
  /**
   * Devolução (finNFe 4, group UA): the returned share in percent (pDevol, 2 decimals) and the IPI returned
   * (vIPIDevol), which then takes the place of the item's IPI group. Decimal text.
   */
  impostoDevol?: { pDevol: string; vIPIDevol: string } | null;
}

/** A note as the computation reads it: the operation (who sells to whom, where, why) and its items. */
export interface TaxNoteInput {
  modelo: TaxModelo;
  /** Emission instant: picks the rates in force, in the emitter UF's zone. */
  dhEmi: Date;
  /** 0 entrada, 1 saída. */
  tpNF: 0 | 1;
  /** 1 normal, 2 complementar, 3 ajuste, 4 devolução. */
  finNFe: 1 | 2 | 3 | 4;
  indFinal: 0 | 1;
  emit: { CRT: Crt; enderEmit: { UF: UfSigla } };
  dest: { idEstrangeiro?: string; indIEDest: 1 | 2 | 9; enderDest?: { UF: UfSigla } } | null;
  itens: readonly TaxItemInput[];
  /** Note-level amounts apportioned over the items by vProd (decimal text). */
  vFrete: string | null;
  vSeg: string | null;
  vDesc: string | null;
  vOutro: string | null;
  ibsCbsRates: IbsCbsRates;
}

/** Money in cents (SCALE.money = 2). */
export type Cents = bigint;
/** A percentage at SCALE.rate = 4: 18% is 180000n. */
export type Rate = bigint;

export type IcmsCst = (typeof ICMS_CST)[number];
export type IcmsCsosn = (typeof ICMS_CSOSN)[number];
export type IpiCst = (typeof IPI_CST)[number];
export type PisCofinsCst = (typeof PIS_COFINS_CST)[number];

/** The element of the ICMS choice (MOC 7.0 groups N02..N10h) that an item is written with. */
export type IcmsGroup =
  | 'ICMS00'
  | 'ICMS10'
  | 'ICMS20'
  | 'ICMS30'
  | 'ICMS40'
  | 'ICMS51'
  | 'ICMS60'
  | 'ICMS70'
  | 'ICMS90'
  | 'ICMSSN101'
  | 'ICMSSN102'
  | 'ICMSSN201'
  | 'ICMSSN202'
  | 'ICMSSN500'
  | 'ICMSSN900';

/** The emitter's own ICMS (vBC, pICMS, vICMS). For CST 51 `vICMS` is what is left after the deferral. */
export interface IcmsOwn {
  /** 0 MVA, 1 pauta, 2 preço tabelado máximo, 3 valor da operação. */
  modBC: 0 | 1 | 2 | 3;
  pRedBC: Rate | null;
  vBC: Cents;
  pICMS: Rate;
  vICMS: Cents;
}

/** CST 51 (and 90) deferral: vICMSOp = vBC × pICMS, vICMSDif = vICMSOp × pDif, vICMS = vICMSOp − vICMSDif. */
export interface IcmsDeferral {
  vICMSOp: Cents;
  pDif: Rate;
  vICMSDif: Cents;
}

/** ICMS retained by substitution (ICMS-ST) charged on top of the price. */
export interface IcmsSt {
  /** 0-3 price lists, 4 MVA, 5 pauta, 6 valor da operação. */
  modBCST: number;
  pMVAST: Rate | null;
  pRedBCST: Rate | null;
  vBCST: Cents;
  pICMSST: Rate;
  vICMSST: Cents;
}

/** Simples Nacional credit the buyer may take (LC 123/2006 art. 23). */
export interface IcmsCreditSn {
  pCredSN: Rate;
  vCredICMSSN: Cents;
}

/** Fundo de Combate à Pobreza on the own ICMS (N17a-N17c): vFCP = vBCFCP × pFCP. ICMS00 writes no vBCFCP. */
export interface IcmsFcp {
  vBCFCP: Cents;
  pFCP: Rate;
  vFCP: Cents;
}

/** FCP retained by substitution (N23a-N23d): vFCPST = vBCFCPST × pFCPST − own vFCP (MOC rule N23d-10). */
export interface IcmsFcpSt {
  vBCFCPST: Cents;
  pFCPST: Rate;
  vFCPST: Cents;
}

/** Desoneração (N28, N28a, PL_010 indDeduzDeson): the ICMS the relief waives. */
export interface IcmsDeson {
  vICMSDeson: Cents;
  motDesICMS: number;
  /** 1: vICMSDeson is subtracted from vNF (and vItem); 0: informative only. */
  indDeduzDeson: 0 | 1;
}

/** CST 60 / CSOSN 500: ICMS-ST retained earlier (N26-N27d) and the effective ICMS (N33, NT 2016.002). */
export interface IcmsRetained {
  vBCSTRet: Cents;
  pST: Rate;
  vICMSSubstituto: Cents | null;
  vICMSSTRet: Cents;
  fcp: { vBCFCPSTRet: Cents; pFCPSTRet: Rate; vFCPSTRet: Cents } | null;
}

export interface IcmsEffective {
  pRedBCEfet: Rate;
  vBCEfet: Cents;
  pICMSEfet: Rate;
  vICMSEfet: Cents;
}

/**
 * ICMSUFDest (NA01-NA15, EC 87/2015, LC 190/2022): the DIFAL of an interstate sale to a non-contributor final
 * consumer, 100 % to the destination UF since 2019 (pICMSInterPart 100, vICMSUFRemet 0).
 */
export interface IcmsUfDest {
  vBCUFDest: Cents;
  /** vBCFCPUFDest, pFCPUFDest, vFCPUFDest: present when the destination UF charges FCP on the item. */
  fcp: { vBCFCPUFDest: Cents; pFCPUFDest: Rate; vFCPUFDest: Cents } | null;
  pICMSUFDest: Rate;
  /** 4, 7 or 12 % (Resolução do Senado 22/1989 and 13/2012). */
  pICMSInter: Rate;
  pICMSInterPart: Rate;
  vICMSUFDest: Cents;
  vICMSUFRemet: Cents;
}

export interface ComputedIcms {
  orig: number;
  group: IcmsGroup;
  /** Exactly one of CST (regime normal, CRT 2/3) and CSOSN (Simples Nacional, CRT 1/4) is set. */
  CST: IcmsCst | null;
  CSOSN: IcmsCsosn | null;
  own: IcmsOwn | null;
  deferral: IcmsDeferral | null;
  st: IcmsSt | null;
  creditSn: IcmsCreditSn | null;
  fcp: IcmsFcp | null;
  fcpSt: IcmsFcpSt | null;
  deson: IcmsDeson | null;
  retained: IcmsRetained | null;
  effective: IcmsEffective | null;
  /** The item's ICMSUFDest group (written after COFINS in det/imposto). */
  ufDest: IcmsUfDest | null;
}

export interface ComputedIpi {
  cEnq: string;
  CST: IpiCst;
  /** IPITrib (CST 00/49/50/99) values; null for IPINT. */
  trib: { vBC: Cents; pIPI: Rate; vIPI: Cents } | null;
}

/** PIS or COFINS of one item; `group` is the element suffix (PISAliq, PISNT, PISOutr ...). */
export interface ComputedPisCofins {
  CST: PisCofinsCst;
  group: 'Aliq' | 'NT' | 'Outr';
  /** null for the NT group, which carries only the CST. */
  vBC: Cents | null;
  rate: Rate | null;
  value: Cents;
}

export interface ComputedItem {
  /** 1-based det/@nItem. */
  nItem: number;
  /** qCom × vUnCom rounded half-up to cents (MOC rule 629 tolerates only that rounding). */
  vProd: Cents;
  /** The item's own amount plus its share of the note-level one (apportioned by vProd). */
  vDesc: Cents;
  vFrete: Cents;
  vSeg: Cents;
  vOutro: Cents;
  icms: ComputedIcms;
  ipi: ComputedIpi | null;
  pis: ComputedPisCofins;
  cofins: ComputedPisCofins;
  ibscbs: ComputedIbsCbs | null;
  /** Lei 12.741/2012 approximate burden; null when neither pTotTrib nor a detailed value was given. */
  vTotTrib: Cents | null;
  /** Devolução (group UA): pDevol (percent, scale 2) and the IPI returned; null elsewhere. */
  impostoDevol?: { pDevol: bigint; vIPIDevol: Cents } | null;
  /**
   * det/vItem (NT 2025.002-RTC, VB01): the item's share of the note total. In 2026 it is the classic vNF
   * formula applied to the item; IBS/CBS are added only from 2027 (see `ComputedNote.ibsCbsInTotal`).
   */
  vItem: Cents;
}

/** total/ICMSTot (W02), every field a sum of the items' rounded values. */
export interface IcmsTot {
  vBC: Cents;
  vICMS: Cents;
  vICMSDeson: Cents;
  vFCP: Cents;
  vBCST: Cents;
  vST: Cents;
  vFCPST: Cents;
  vFCPSTRet: Cents;
  vProd: Cents;
  vFrete: Cents;
  vSeg: Cents;
  vDesc: Cents;
  vII: Cents;
  vIPI: Cents;
  vIPIDevol: Cents;
  vPIS: Cents;
  vCOFINS: Cents;
  vOutro: Cents;
  /**
   * vProd − vDesc − vICMSDeson + vST + vFCPST + vFrete + vSeg + vOutro + vII + vIPI + vIPIDevol, where only
   * the vICMSDeson of items with indDeduzDeson 1 is subtracted (NT 2023.004).
   */
  vNF: Cents;
  /** null when no item carries vTotTrib (the element is optional). */
  vTotTrib: Cents | null;
  /** DIFAL totals (W04c-W04e): null when no item has ICMSUFDest, and then not written. */
  vFCPUFDest: Cents | null;
  vICMSUFDest: Cents | null;
  vICMSUFRemet: Cents | null;
}

export interface ComputedNote {
  modelo: TaxModelo;
  CRT: Crt;
  itens: ComputedItem[];
  icmsTot: IcmsTot;
  /** Present when at least one item has a gIBSCBS group. */
  ibsCbsTot: IbsCbsTot | null;
  /**
   * Whether IBS/CBS count in vItem/vNFTot: not in 2026, the test year in which they are informative only
   * (NT 2025.002-RTC rule W60-10; sped-nfe PR #1299 "vItem não deve somar IBSCBS em 2026").
   */
  ibsCbsInTotal: boolean;
  /** total/vNFTot (W60): Σ vItem. Equal to vNF while `ibsCbsInTotal` is false. */
  vNFTot: Cents;
}
