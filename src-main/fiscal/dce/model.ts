// The DC-e 1.00 (model 99) as the builder writes it: the layout's tags (dceTiposBasico_v1.00.xsd), values already
// in their XML text form (decimals as exact text, codes as strings), so build.ts only arranges them.
import type { StreetAddress } from '../emitter.ts';

/** TEndeEmi / TEndeDest: cPais is always 1058 (Brasil) here; only the recipient's address has an e-mail. */
export interface DceAddress extends StreetAddress {
  CEP: string;
  fone: string | null;
  email: string | null;
}

/** emit (the declarant) or dest: exactly one of CNPJ, CPF, idOutros. */
export interface DceParty {
  CNPJ?: string;
  CPF?: string;
  idOutros?: string;
  xNome: string;
  ender: DceAddress;
}

/** tpEmit 1, 2, 3: the issuer types Balcão issues as (0 the fisco's app and 4 the Correios are not ours). */
export type DceTpEmit = 1 | 2 | 3;

/** The group of the system that issues for the declarant: Marketplace (tpEmit 1) or Transportadora (3). */
export type DceIssuer =
  | { group: 'Marketplace'; CNPJ: string; xNome: string; Site: string }
  | { group: 'Transportadora'; CNPJ: string; xNome: string };

export interface DceItem {
  xProd: string;
  /** The 2-digit chapter or the 8-digit NCM. */
  NCM: string;
  /** TDec_1104Opc text: an integer, or 4 decimals. */
  qCom: string;
  /** TDec_1302_1308 text: 2 to 8 decimals. */
  vUnCom: string;
  /** qCom × vUnCom rounded half-up to cents. */
  vProd: string;
  infAdProd: string | null;
}

export interface DceObs {
  xCampo: string;
  xTexto: string;
}

export interface DceModel {
  ide: {
    cUF: number;
    cDC: string;
    serie: number;
    nDC: number;
    /** AAAA-MM-DDThh:mm:ss±hh:mm. */
    dhEmi: string;
    /**
     * 1 normal. The offline contingency (tpEmis 9 in the layout's documentation; TtpEmis of the 1.00 schema
     * enumerates 1 and 2) is not issued by Balcão yet: a DC-e waits in the queue until the authority answers.
     */
    tpEmis: 1;
    tpEmit: DceTpEmit;
    /** 0: the authorizer has a single site. */
    nSiteAutoriz: number;
    cDV: number;
    tpAmb: 1 | 2;
    verProc: string;
  };
  emit: DceParty;
  issuer: DceIssuer | null;
  dest: DceParty;
  det: DceItem[];
  /** vDC = Σ vProd. */
  vDC: string;
  transp: { modTrans: 0 | 1 | 2; CNPJTransp: string | null };
  infAdic: { infCpl: string | null; obsTag: 'obsEmit' | 'obsMarketplace'; obs: DceObs[] } | null;
  chave: string;
  supl: { qrCodDCe: string; urlChave: string };
}
