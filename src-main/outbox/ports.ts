// What the transmission queue needs from the tax authority, as a small port: the real SOAP clients (one per
// document kind: NF-e, CT-e) and test doubles all fit it (CONVENTIONS.md §4). It is kind-neutral: what an
// answer's cStat means is the document kind's business (documents/kind.ts KindProtocol), never the queue's.

export interface ProtocolResult {
  /** The document's access key (chNFe / chCTe). */
  chave: string;
  cStat: string;
  xMotivo: string;
  nProt: string | null;
  dhRecbto: string | null;
  /** The protocol element (protNFe / protCTe) exactly as received, for the proc. */
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
  /** retEvento of the single event sent, if the message was processed. */
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
  /** Sends one signed document for authorization (synchronous lote of one / CTeRecepcaoSinc). */
  authorize(signedXml: string): Promise<AuthorizeAnswer>;
  /** The status service of the company's own authority for the port's kind (not the contingency one). */
  status(): Promise<{ cStat: string; xMotivo: string }>;
  consult(chave: string): Promise<ConsultAnswer>;
  sendEvent(signedEvent: string): Promise<EventAnswer>;
  /** Optional: not every kind's authority voids numbers. */
  sendInutilizacao?(signed: string): Promise<InutilizacaoAnswer>;
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
