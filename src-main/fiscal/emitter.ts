// The issuing company as every fiscal document names it (NF-e and CT-e emit) and its technical responsible
// (infRespTec, NT 2018.005 and its CT-e counterpart): kind-neutral, so that the company's fiscal context
// (documents/context.ts) depends on no one kind's model.
import type { UfSigla } from '../../src-shared/uf.ts';

/** The street part every address of the NF-e, CT-e and DC-e layouts has (TEndereco, TEndeEmi, TEndeDest). */
export interface StreetAddress {
  xLgr: string;
  nro: string;
  xCpl: string | null;
  xBairro: string;
  cMun: string;
  xMun: string;
  UF: UfSigla;
}

export interface EmitModel {
  CNPJ: string;
  xNome: string;
  xFant: string | null;
  IE: string;
  IM: string | null;
  CRT: 1 | 2 | 3 | 4;
  enderEmit: StreetAddress & { CEP: string; fone: string | null };
}

/**
 * Technical responsible, written when the company configured one; `csrt` is the token the UF issued, hashed
 * with the access key into hashCSRT (never written itself).
 */
export interface RespTecModel {
  CNPJ: string;
  xContato: string;
  email: string;
  fone: string;
  csrt: { idCSRT: string; CSRT: string } | null;
}
