// The one internal model of an NF-e/NFC-e 4.00 that both payload spellings normalize into; tags and codes
// follow the Manual de Orientação do Contribuinte 7.0 so each field can be looked up there.
import type { UfSigla } from '../../../src-shared/uf.ts';
import type { DetailedTaxes, TaxItemInput } from '../taxes/types.ts';
import type { EmitModel, RespTecModel, StreetAddress } from '../emitter.ts';

export type Modelo = 55 | 65;
export type TpAmb = 1 | 2;

export interface DestModel {
  CNPJ?: string;
  CPF?: string;
  idEstrangeiro?: string;
  xNome?: string;
  /** 1 contribuinte, 2 isento, 9 não contribuinte. */
  indIEDest: 1 | 2 | 9;
  IE?: string;
  email?: string;
  enderDest?: StreetAddress & { CEP: string | null; fone: string | null };
}

/**
 * Item as sold: what the tax computation reads (CFOP, quantity, unit price, the item-level vDesc/vFrete/vSeg/
 * vOutro given by the caller before note-level ones are apportioned, the taxes, the devolução share) and what
 * the note prints. Amounts are exact decimal text.
 */
export interface ItemModel extends TaxItemInput {
  cProd: string;
  cEAN: string;
  xProd: string;
  NCM: string;
  CEST: string | null;
  uCom: string;
  infAdProd: string | null;
  /**
   * Lei 12.741/2012: the IBPT rates (percent, decimal text) the item's vTotTrib came from, for the tributos line
   * of infCpl (notices.ts); absent when the profile gave pTotTrib or the table does not list the NCM.
   */
  ibpt?: { federal: string; estadual: string; municipal: string; chave: string };
}

// Detailed mode's tax values are the tax computation's input type, and the emitter and its technical
// responsible are every kind's (fiscal/emitter.ts); the NF-e model carries them as they are.
export type { DetailedTaxes, EmitModel, RespTecModel };

export interface DetPagModel {
  /** Meio de pagamento (tPag) code, e.g. '01' dinheiro, '17' PIX. */
  tPag: string;
  xPag: string | null;
  vPag: string;
  /** 0 à vista, 1 a prazo. */
  indPag: 0 | 1 | null;
  card: { tpIntegra: 1 | 2; CNPJ: string | null; tBand: string | null; cAut: string | null } | null;
}

export interface NfeModel {
  modelo: Modelo;
  serie: number;
  nNF: number;
  /** Random 8-digit code of the access key; different from nNF. */
  cNF: string;
  /** Emission instant; rendered in the emitter UF's offset. */
  dhEmi: Date;
  tpAmb: TpAmb;
  /** 1 normal, 6 SVC-AN, 7 SVC-RS, 9 NFC-e offline contingency. */
  tpEmis: 1 | 6 | 7 | 9;
  contingency: { dhCont: Date; xJust: string } | null;
  natOp: string;
  /** 0 entrada, 1 saída. */
  tpNF: 0 | 1;
  /** 1 normal, 2 complementar, 3 ajuste, 4 devolução. */
  finNFe: 1 | 2 | 3 | 4;
  indFinal: 0 | 1;
  indPres: 0 | 1 | 2 | 3 | 4 | 5 | 9;
  indIntermed: 0 | 1 | null;
  verProc: string;
  emit: EmitModel;
  dest: DestModel | null;
  itens: ItemModel[];
  /** Note-level amounts to apportion over the items (decimal text). */
  vFrete: string | null;
  vSeg: string | null;
  vDesc: string | null;
  vOutro: string | null;
  /** 0 emitente, 1 destinatário, 2 terceiros, 3 próprio remetente, 4 próprio destinatário, 9 sem frete. */
  modFrete: 0 | 1 | 2 | 3 | 4 | 9;
  detPag: DetPagModel[];
  /** Change given back (vTroco); computed when payments exceed vNF. */
  vTroco: string | null;
  infCpl: string | null;
  infAdFisco: string | null;
  /** Access keys of referenced notes (NFref/refNFe), e.g. for devolução. */
  NFref: string[];
  /**
   * Technical responsible (group ZD, NT 2018.005), written when the company configured one; `csrt` is the
   * token the UF issued, hashed with the access key into hashCSRT (never written itself).
   */
  infRespTec: RespTecModel | null;
  /** Group X beyond modFrete (NF-e only): carrier, vehicle and volumes. */
  transp?: TranspModel | null;
  /** Group Y (NF-e only): the invoice and its instalments. */
  cobr?: CobrModel | null;
  /** Tax reform rates for the year (LC 214/2025 transition): percent text. */
  ibsCbsRates: { pCBS: string; pIBSUF: string; pIBSMun: string };
}

/** 2026 is the test year of the reform: CBS 0.9%, state IBS 0.1%, municipal IBS 0% (LC 214/2025 art. 343-346). */
export const IBS_CBS_2026_RATES = { pCBS: '0.9000', pIBSUF: '0.1000', pIBSMun: '0.0000' } as const;

/** transporta (X03), veicTransp (X18) and vol (X26) of group X; every field optional as in the layout. */
export interface TranspModel {
  transporta: {
    CNPJ?: string;
    CPF?: string;
    xNome?: string;
    IE?: string;
    xEnder?: string;
    xMun?: string;
    UF?: UfSigla;
  } | null;
  veicTransp: { placa: string; UF?: UfSigla; RNTC?: string } | null;
  vol: {
    qVol?: string;
    esp?: string;
    marca?: string;
    nVol?: string;
    /** Kilograms, decimal text with 3 decimals. */
    pesoL?: string;
    pesoB?: string;
  }[];
}

/** Group Y: fat (Y02) is always written whole (rule 905); dup (Y07) numbered 001, 002... (rule 852). */
export interface CobrModel {
  fat: { nFat: string; vOrig: string; vDesc: string; vLiq: string };
  dup: { nDup: string; dVenc: string; vDup: string }[];
}
