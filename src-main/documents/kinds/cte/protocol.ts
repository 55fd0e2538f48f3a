// What the CT-e authority's answers mean (MOC CT-e 4.00 cStat table): the queue asks these pure functions and
// knows no code itself. An unknown code gets the safe meaning (rejected / unknown / not done).
import type { KindProtocol } from '../../kind.ts';

/** 100 Autorizado o uso do CT-e. */
const AUTHORIZED = new Set(['100']);
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

export const CTE_NS = 'http://www.portalfiscal.inf.br/cte';

const withoutDeclaration = (xml: string) => xml.replace(/^\s*<\?xml[^>]*\?>\s*/, '');

export const cteProtocol: KindProtocol = {
  protocolOutcome(cStat) {
    if (AUTHORIZED.has(cStat)) return 'authorized';
    if (DENIED.has(cStat)) return 'denied';
    if (DUPLICATE.has(cStat)) return 'duplicate';
    return 'rejected';
  },
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
  proc(signedXml, protocolXml) {
    // cteProc (procCTe_v4.00.xsd): the signed CTe and its protCTe, byte for byte.
    return (
      `<?xml version="1.0" encoding="UTF-8"?><cteProc xmlns="${CTE_NS}" versao="4.00">` +
      `${withoutDeclaration(signedXml)}${withoutDeclaration(protocolXml)}</cteProc>`
    );
  },
};
