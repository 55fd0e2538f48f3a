// The NF-e 4.00 web services' answers (MOC 7.0, shared by models 55 and 65), classified for the generic
// queue: the one place that knows which cStat authorizes, denies, pauses or settles an event or a void.
import { nfeProc } from '../../../fiscal/proc.ts';
import { protocolOutcomeOf, type KindProtocol } from '../../kind.ts';

/** Authorized (100, 150 out of time) and use denied (110, 301, 302, 303): both settle the note. */
const AUTHORIZED: ReadonlySet<string> = new Set(['100', '150']);
const DENIED: ReadonlySet<string> = new Set(['110', '301', '302', '303']);
/** 204 duplicate of an authorized note, 539 duplicate with a different key: an earlier send got through. */
const DUPLICATE: ReadonlySet<string> = new Set(['204', '539']);
/** 108/109: the service is paused, nothing was decided. */
const PAUSED: ReadonlySet<string> = new Set(['108', '109']);
/** 103/104: the lote was received / processed; its protocols say the rest. */
const PROCESSED: ReadonlySet<string> = new Set(['103', '104']);
/** Events on record: 135/136 registered, 155 cancellation out of time, 573 registered before. */
const EVENT_DONE: ReadonlySet<string> = new Set(['135', '136', '155', '573']);

export const nfProtocol: KindProtocol = {
  protocolOutcome: protocolOutcomeOf({ authorized: AUTHORIZED, denied: DENIED, duplicate: DUPLICATE }),
  messageOutcome(cStat) {
    if (PAUSED.has(cStat)) return 'paused';
    return PROCESSED.has(cStat) ? 'processed' : 'rejected';
  },
  // 217 "NF-e não consta na base de dados": never received. 101/151 (cancelled) carry the protocol.
  consultOutcome: (cStat) => (cStat === '217' ? 'not_found' : 'unknown'),
  eventDone: (cStat) => EVENT_DONE.has(cStat),
  // 102 voided now, 563 the same request before; 256 "a number of the range is already void" settles a
  // single-number range only.
  voidDone: (cStat, singleNumber) => cStat === '102' || cStat === '563' || (cStat === '256' && singleNumber),
  inService: (cStat) => cStat === '107',
  // nfeProc (MOC 7.0 §5.4): the signed NFe and the protocol, both byte for byte; the assembler checks that
  // the protocol belongs to this note (key, digest, environment).
  proc: (signedXml, protocolXml) => nfeProc(signedXml, protocolXml, { validate: false }).xml,
};
