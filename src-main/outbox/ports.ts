// What the transmission queue needs from the tax authority, as a small port: the real SOAP client and test
// doubles both fit it (CONVENTIONS.md §4).

export interface ProtocolResult {
  chNFe: string;
  cStat: string;
  xMotivo: string;
  nProt: string | null;
  dhRecbto: string | null;
  /** The protNFe element exactly as received, for nfeProc. */
  xml: string;
}

export interface AuthorizeAnswer {
  /** Lote-level status (104 processed, 108/109 paused, 2xx rejection of the whole message). */
  cStat: string;
  xMotivo: string;
  protocol: ProtocolResult | null;
}

export interface ConsultAnswer {
  cStat: string;
  xMotivo: string;
  protocol: ProtocolResult | null;
}

export interface EventAnswer {
  cStat: string;
  xMotivo: string;
  /** retEvento of the single event sent, if the lote was processed. */
  result: { cStat: string; xMotivo: string; nProt: string | null; xml: string } | null;
}

export interface InutilizacaoAnswer {
  cStat: string;
  xMotivo: string;
  nProt: string | null;
  xml: string;
}

/** NFeDistribuicaoDFe (NT 2014.002): the documents addressed to the company after ultNSU. */
export interface DistribuicaoAnswer {
  /** 137 nothing found, 138 documents found, 656 consumo indevido, others rejections. */
  cStat: string;
  xMotivo: string;
  dhResp: string;
  ultNSU: string;
  maxNSU: string;
  /** Each document gunzipped: NSU, schema ('resNFe_v1.01.xsd', 'procNFe_v4.00.xsd', ...) and XML. */
  docs: { NSU: string; schema: string; xml: string }[];
}

export interface AuthorityPort {
  authorize(nfeXml: string): Promise<AuthorizeAnswer>;
  /** NFeStatusServico4 of the company's own authority (not the contingency one) for `modelo`. */
  status(modelo: 55 | 65): Promise<{ cStat: string; xMotivo: string }>;
  consult(chNFe: string): Promise<ConsultAnswer>;
  sendEvent(envEvento: string): Promise<EventAnswer>;
  sendInutilizacao(inutNFe: string): Promise<InutilizacaoAnswer>;
  /**
   * NFeDistribuicaoDFe at the Ambiente Nacional for `CNPJ` (the company's own, whose certificate signs the
   * TLS session): the documents after `ultNSU`. Optional so that queue-only test doubles need not offer it.
   */
  distribuicao?(query: { CNPJ: string; ultNSU: string }): Promise<DistribuicaoAnswer>;
}

/**
 * The authority did not answer. `mayHaveBeenReceived` is the line between a safe resend and a possible
 * duplicate: when true, the note must be looked up (NFeConsultaProtocolo4) before it is ever sent again.
 */
export class AuthorityUnavailable extends Error {
  readonly mayHaveBeenReceived: boolean;
  constructor(message: string, mayHaveBeenReceived: boolean) {
    super(message);
    this.name = 'AuthorityUnavailable';
    this.mayHaveBeenReceived = mayHaveBeenReceived;
  }
}

/** cStat of a protocol that settles a note: authorized (100, 150) or use denied (110, 301, 302, 303). */
export const AUTHORIZED_CSTAT: ReadonlySet<string> = new Set(['100', '150']);
export const DENIED_CSTAT: ReadonlySet<string> = new Set(['110', '301', '302', '303']);
/** Lote-level answers that mean "the service is not processing now": try again later, nothing was decided. */
export const PAUSED_CSTAT: ReadonlySet<string> = new Set(['108', '109']);
