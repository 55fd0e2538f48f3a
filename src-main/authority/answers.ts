// What the NF-e, CT-e and DC-e ports hand the queue alike: an authority's protocol as a kind-neutral
// ProtocolResult, a one-event answer as an EventAnswer, and every way of not getting an answer as
// AuthorityUnavailable with an honest `mayHaveBeenReceived`.
import { AuthorityUnavailable, type EventAnswer, type ProtocolResult } from '../outbox/ports.ts';
import { AuthorityResponseError } from './client.ts';
import { AuthorityUnavailableError } from './transport.ts';

/** protNFe / protCTe / protDCe as the queue reads it; `chave` is the document's key (chNFe, chCTe, chDCe). */
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

/**
 * retEventoCTe / retEventoDCe: a family with no event batch answers one event per message, so its answer is both
 * the message's and the event's result.
 */
export function singleEventAnswer(answer: {
  cStat: string;
  xMotivo: string;
  nProt?: string;
  xml: string;
}): EventAnswer {
  const { cStat, xMotivo } = answer;
  return { cStat, xMotivo, result: { cStat, xMotivo, nProt: answer.nProt ?? null, xml: answer.xml } };
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
