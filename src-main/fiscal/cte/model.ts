// Internal model of a normal CT-e 4.00 (model 57) for the road modal, with the layout's tag names
// (MOC CT-e 4.00, cteTiposBasico_v4.00.xsd TCTe). Money is integer cents; rates are text as written.
import type { UfSigla } from '../../../src-shared/uf.ts';
import type { StreetAddress } from '../emitter.ts';

export const CTE_VERSAO = '4.00';
export const CTE_MODELO = 57;

export interface CteAddress extends StreetAddress {
  CEP: string | null;
}

/** emit: the transport company (TEndeEmi has a phone, rem/dest addresses do not). */
export interface CteEmit {
  /** 14 positions, alphanumeric allowed (TCnpj `[A-Z0-9]{12}[0-9]{2}`). */
  CNPJ: string;
  IE: string;
  xNome: string;
  xFant: string | null;
  enderEmit: CteAddress & { fone: string | null };
  /** 1 Simples Nacional, 2 SN excess, 3 normal, 4 MEI (TCRT). */
  CRT: 1 | 2 | 3 | 4;
}

/** rem / dest: exactly one of CNPJ and CPF. */
export interface CteParty {
  CNPJ?: string;
  CPF?: string;
  /** null for a non-contributor. */
  IE: string | null;
  xNome: string;
  ender: CteAddress;
}

/** ICMS of the service (TImp): the three situations issued here, as data. */
export type CteIcms =
  /** ICMS00: taxed at pICMS (TDec_0302 text such as `12.00`) on vBC = vTPrest. */
  | { kind: '00'; CST: '00'; vBC: bigint; pICMS: string; vICMS: bigint }
  /** ICMS45: 40 isenta, 41 não tributada, 51 diferida. */
  | { kind: '45'; CST: '40' | '41' | '51' }
  /** ICMSSN: Simples Nacional (CST 90 with indSN 1). */
  | { kind: 'SN'; CST: '90'; indSN: 1 };

/** 1 normal, 7 SVC-RS, 8 SVC-SP. */
export type CteTpEmis = 1 | 7 | 8;

export interface CteContingency {
  /** AAAA-MM-DDThh:mm:ss±hh:mm (TDateTimeUTC). */
  dhCont: string;
  /** 15 to 256 characters. */
  xJust: string;
}

export interface CteObsCont {
  /** Attribute, 1 to 20 characters. */
  xCampo: string;
  /** 1 to 160 characters. */
  xTexto: string;
}

export interface CteCompl {
  xObs: string | null;
  ObsCont: CteObsCont[];
}

/**
 * imp/IBSCBS (TTribCTe of DFeTiposBasicos_v1.00.xsd). `g` is gIBSCBS, absent for a CST whose indicator table
 * says the group is not carried (e.g. 410 immune). Rates are percent at SCALE.rate (4), amounts cents.
 */
export interface CteIbsCbs {
  CST: string;
  cClassTrib: string;
  g: {
    vBC: bigint;
    pIBSUF: bigint;
    vIBSUF: bigint;
    pIBSMun: bigint;
    vIBSMun: bigint;
    vIBS: bigint;
    pCBS: bigint;
    vCBS: bigint;
  } | null;
}

export interface CteComp {
  xNome: string;
  vComp: bigint;
}

export interface CteInfQ {
  /** 00 M3, 01 KG, 02 TON, 03 UNIDADE, 04 LITROS, 05 MMBTU. */
  cUnid: '00' | '01' | '02' | '03' | '04' | '05';
  tpMed: string;
  /** TDec_1104 text. */
  qCarga: string;
}

export interface CteModel {
  ide: {
    cUF: number;
    cCT: string;
    CFOP: string;
    natOp: string;
    serie: number;
    nCT: number;
    /** AAAA-MM-DDThh:mm:ss±hh:mm, as written. */
    dhEmi: string;
    /** 1 retrato. */
    tpImp: 1 | 2;
    /** 1 normal, 7 SVC-RS, 8 SVC-SP (the virtual contingency authorities; see contingency.ts). */
    tpEmis: CteTpEmis;
    tpAmb: 1 | 2;
    verProc: string;
    cMunEnv: string;
    xMunEnv: string;
    UFEnv: UfSigla;
    /** 01 rodoviário. */
    modal: '01';
    /** 0 normal. */
    tpServ: 0;
    cMunIni: string;
    xMunIni: string;
    UFIni: UfSigla;
    cMunFim: string;
    xMunFim: string;
    UFFim: UfSigla;
    /** 0 the recipient picks up at the carrier, 1 not. */
    retira: 0 | 1;
    /** 1 ICMS contributor, 2 exempt, 9 non-contributor (of the taker). */
    indIEToma: 1 | 2 | 9;
    /** toma3: 0 remetente, 1 expedidor, 2 recebedor, 3 destinatário; toma4: 4 another party. */
    toma: 0 | 1 | 2 | 3 | 4;
    /** The taker of toma 4 (ide/toma4 with enderToma); null for the others. */
    toma4: CteParty | null;
    /** dhCont and xJust, present exactly when tpEmis is a contingency mode. */
    cont: CteContingency | null;
  };
  /** compl: free observations (xObs) and the labelled ones (ObsCont) that carry the vehicle. */
  compl: CteCompl | null;
  emit: CteEmit;
  rem: CteParty;
  /** exped / receb: required when they take the service (toma 1 / 2), optional otherwise. */
  exped: CteParty | null;
  receb: CteParty | null;
  dest: CteParty;
  vPrest: { vTPrest: bigint; vRec: bigint; Comp: CteComp[] };
  imp: {
    ICMS: CteIcms;
    /** IBS/CBS of the service (imp/IBSCBS, TTribCTe); null where the group is not issued (see ibscbs.ts). */
    IBSCBS: CteIbsCbs | null;
    /** imp/vTotDFe, written beside IBSCBS. */
    vTotDFe: bigint | null;
  };
  infCTeNorm: {
    infCarga: { vCarga: bigint | null; proPred: string; infQ: CteInfQ[] };
    /** Access keys of the carried NF-e (infDoc/infNFe/chave). */
    infNFe: string[];
    rodo: { RNTRC: string };
  };
}
