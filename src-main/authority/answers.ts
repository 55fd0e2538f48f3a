// What the NF-e and CT-e ports both hand the queue: an authority's protocol as a kind-neutral ProtocolResult,
// and every way of not getting an answer as AuthorityUnavailable with an honest `mayHaveBeenReceived`.
import { AuthorityUnavailable, type ProtocolResult } from '../outbox/ports.ts';
import { AuthorityResponseError } from './client.ts';
import { AuthorityUnavailableError } from './transport.ts';

/** protNFe / protCTe as the queue reads it; `chave` is the document's key (chNFe, chCTe). */
export function protocolResult(
  p: { cStat: string; xMotivo: string; nProt?: string; dhRecbto: string; xml: string },
  chave: string,
): ProtocolResult {
  return {
    chave,
    cStat: p.cStat,
    xMotivo: p.xMotivo,
    nProt: p.nProt ?? null,
    dhRecbto: p.dhRecbto,
    xml: p.xml,
  };
}

export async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof AuthorityUnavailableError)
      throw new AuthorityUnavailable(error.message, error.mayHaveBeenReceived);
    // A SOAP fault or an unreadable answer decided nothing we can rely on; only a Sender fault proves the
    // message was refused before processing.
    if (error instanceof AuthorityResponseError)
      throw new AuthorityUnavailable(error.message, error.mayHaveBeenReceived);
    throw error;
  }
}
