// What the CT-e authority's answers mean (MOC CT-e 4.00 cStat table): the queue asks these pure functions and
// knows no code itself. An unknown code gets the safe meaning (rejected / unknown / not done).
import { cteProc, procEventoCTe } from '../../../fiscal/cte/proc.ts';
import { protocolOutcomeOf, type KindProtocol } from '../../kind.ts';

/** 100 Autorizado o uso do CT-e; 150 the same, out of time. */
const AUTHORIZED = new Set(['100', '150']);
/** 110 Uso Denegado; 301-303 Uso Denegado: irregularidade fiscal of the emitter, sender or recipient. */
const DENIED = new Set(['110', '301', '302', '303']);
/** 204 Duplicidade de CT-e; 539 Duplicidade de CT-e com diferença na chave de acesso. */
const DUPLICATE = new Set(['204', '539']);
/** 108 Serviço paralisado momentaneamente; 109 Serviço paralisado sem previsão. */
const PAUSED = new Set(['108', '109']);
/** 134/135/136 Evento registrado (vinculado or not); 631 Duplicidade de evento: already on record. */
const EVENT_DONE = new Set(['134', '135', '136', '631']);
/** 102 Inutilização de número homologado; 563 a repeated request of a voided single number. */
const VOID_DONE = new Set(['102']);

/**
 * Texts of the answers the queue keeps only as a cStat (event answers), from the MOC CT-e code table as the
 * sandbox authority's table transcribes it (sandbox/cte/cstat.ts, which kinds may not import).
 */
const ANSWER_TEXT: Readonly<Record<string, string>> = {
  '134': 'Evento registrado e vinculado a CT-e com alerta para situação do documento',
  '135': 'Evento registrado e vinculado a CT-e',
  '136': 'Evento registrado, mas não vinculado a CT-e',
  '220': 'Rejeição: CT-e autorizado há mais de 7 dias (168 horas)',
  '631': 'Rejeição: Duplicidade de evento',
  '636': 'Rejeição: O numero sequencial do evento é maior que o permitido',
  '681': 'Rejeição: Informação não pode ser alterada por carta de correção',
};

export const cteProtocol: KindProtocol = {
  protocolOutcome: protocolOutcomeOf({ authorized: AUTHORIZED, denied: DENIED, duplicate: DUPLICATE }),
  messageOutcome(cStat) {
    if (PAUSED.has(cStat)) return 'paused';
    // 103/104: taken (a protocol follows); 100/110/301-303: the synchronous answer's own decision.
    if (cStat === '103' || cStat === '104' || AUTHORIZED.has(cStat) || DENIED.has(cStat)) return 'processed';
    return 'rejected';
  },
  consultOutcome(cStat) {
    // 217 CT-e não consta na base de dados da SEFAZ: never received, safe to send.
    return cStat === '217' ? 'not_found' : 'unknown';
  },
  eventDone: (cStat) => EVENT_DONE.has(cStat),
  voidDone: (cStat, singleNumber) => VOID_DONE.has(cStat) || (singleNumber && cStat === '563'),
  inService: (cStat) => cStat === '107',
  // cteProc (procCTe_v4.00.xsd): the signed CTe and its protCTe, byte for byte; the schema is checked by the
  // tests, not on every authorization (the parts were validated when built and when received).
  proc: (signedXml, protocolXml) => cteProc(signedXml, protocolXml, { validate: false }).xml,
  // procEventoCTe: the signed eventoCTe and the retEventoCTe, byte for byte.
  eventProc: (signedEvent, answerXml) => procEventoCTe(signedEvent, answerXml, { validate: false }).xml,
  answerText: (cStat) => ANSWER_TEXT[cStat] ?? null,
};
