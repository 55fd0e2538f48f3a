// What the national NFS-e environment's answers mean, read from the one table of its codes
// (src-shared/tables/nfse-codes.ts): the queue asks these pure functions and knows no code itself.
import { nfseCode, nfseCodeMeaning } from '../../../../src-shared/tables/nfse-codes.ts';
import type { KindProtocol } from '../../kind.ts';

/**
 * The port's answer to status(): the company municipality's convênio was answered. The national API has no
 * status service; the port speaks the queue's convention, shared with the SOAP kinds, not a national code.
 */
const IN_SERVICE = '107';

export const nfseProtocol: KindProtocol = {
  protocolOutcome(cStat) {
    const meaning = nfseCodeMeaning(cStat);
    if (meaning === 'authorized') return 'authorized';
    if (meaning === 'duplicate') return 'duplicate';
    // The national environment denies no note: a DPS is either made a note or refused.
    return 'rejected';
  },
  // 201 carries the note (100 or 101): processed; anything else the Sefin answered is a refusal. It never
  // answers "paused": unavailability is a 5xx/429, which the port throws as AuthorityUnavailable.
  messageOutcome: (cStat) => (nfseCodeMeaning(cStat) === 'authorized' ? 'processed' : 'rejected'),
  consultOutcome: (cStat) => (nfseCodeMeaning(cStat) === 'not_found' ? 'not_found' : 'unknown'),
  eventDone: (cStat) => nfseCodeMeaning(cStat) === 'event_done',
  // The national NFS-e has no inutilização: its DPS numbers are the provider's own and need no voiding.
  voidDone: () => false,
  inService: (cStat) => cStat === IN_SERVICE,
  // The authorized <NFSe> embeds the signed DPS: it is the document of record, stored as received.
  proc: (_signedXml, protocolXml) => protocolXml,
  // The <evento> the Sefin answers embeds the signed pedRegEvento.
  eventProc: (_signedEvent, answerXml) => answerXml,
  answerText: (cStat) => nfseCode(cStat)?.text ?? null,
};
