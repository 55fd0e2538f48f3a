// What the DC-e authority's answers mean, read from the one table of its codes (src-shared/tables/dce-codes.ts):
// the queue asks these pure functions and knows no code itself. An unknown code gets the safe meaning.
import { dceProc, procEventoDCe } from '../../../fiscal/dce/proc.ts';
import { DCE_CODES, dceCodeMeaning, dceCodeText } from '../../../../src-shared/tables/dce-codes.ts';
import type { KindProtocol } from '../../kind.ts';

export const dceProtocol: KindProtocol = {
  protocolOutcome(cStat) {
    const meaning = dceCodeMeaning(cStat);
    if (meaning === 'authorized') return 'authorized';
    // 204: the authority holds a DC-e under this key (a lost answer): the queue consults for its protocol.
    if (cStat === DCE_CODES.duplicate.code) return 'duplicate';
    // The DC-e has no denial of use: a declaration is either authorized or refused.
    return 'rejected';
  },
  messageOutcome(cStat) {
    const meaning = dceCodeMeaning(cStat);
    if (meaning === 'paused') return 'paused';
    // Synchronous, one DC-e per message: retDCe's own cStat is the protocol's decision.
    if (meaning === 'authorized' || cStat === DCE_CODES.duplicate.code) return 'processed';
    return 'rejected';
  },
  consultOutcome: (cStat) => (dceCodeMeaning(cStat) === 'notFound' ? 'not_found' : 'unknown'),
  // 135 registered now; 573 the same event (same Id) is already on record. (The sandbox answers a repeat with
  // its first registration, 135; an authority answering 573 holds the event all the same.)
  eventDone: (cStat) => cStat === DCE_CODES.eventRegistered.code || cStat === DCE_CODES.duplicateEvent.code,
  // The DC-e has no inutilização: an unused nDC needs no voiding (Ajuste SINIEF 05/21 provides none).
  voidDone: () => false,
  inService: (cStat) => dceCodeMeaning(cStat) === 'inService',
  // dceProc (procDCe_v1.00.xsd): the signed DCe and its protDCe, byte for byte.
  proc: (signedXml, protocolXml) => dceProc(signedXml, protocolXml),
  // procEventoDCe: the signed eventoDCe and the retEventoDCe, byte for byte.
  eventProc: (signedEvent, answerXml) => procEventoDCe(signedEvent, answerXml),
  answerText: (cStat) => dceCodeText(cStat) ?? null,
};
