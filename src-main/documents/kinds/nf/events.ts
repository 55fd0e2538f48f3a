// The NF-e 4.00 events (MOC 7.0 §6) as event rules of the two NF kinds: cancellation 110111 with its
// deadline per model, the correction letter 110110 (NF-e only) and the NFC-e cancellation by substitution
// 110112. Each builds and signs the envEvento the queue sends.
import { DomainError, fiscalRejection, validationError } from '../../../errors.ts';
import { buildEvent, EventError, signEvent } from '../../../fiscal/events.ts';
import { VER_PROC, type EventBuildInput, type EventRule } from '../../kind.ts';
import { CSTAT_TEXT, MAX_CCE, TP_CCE } from '../../events-service.ts';
import { firstElementText, unescapeText } from '../../../fiscal/xml.ts';

/** Signs a built envEvento; a schema failure is a fiscal rule failure of a well-formed request. */
function signed(xml: string, input: EventBuildInput, what: string): string {
  const result = signEvent(xml, input.fiscal.certificate);
  if (result.errors.length > 0) {
    throw new DomainError(
      'fiscal_rejection',
      `The ${what} does not validate against the schema.`,
      result.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
    );
  }
  return result.xml;
}

const idLoteOf = (now: Date) => now.getTime() % 1_000_000_000_000_000;

/** What an event the caller asks for carries of its document, its sequence and its moment. */
const eventHeader = (input: EventBuildInput) => ({
  tpAmb: input.fiscal.tpAmb,
  CNPJ: input.fiscal.emit.CNPJ,
  chNFe: input.doc.chave,
  nSeqEvento: input.nSeq,
  dhEvento: input.now,
  idLote: idLoteOf(input.now),
});

/** Cancellation 110111, within `deadlineMs` of the authorization (MOC 7.0 rejection 501). */
export function nfCancelRule(deadlineMs: number, deadlineText: string): EventRule {
  return {
    tpEvento: '110111',
    action: 'cancel',
    settles: 'cancelada',
    allowedFrom: ['autorizada'],
    maxSeq: 1,
    deadline(doc, now) {
      const authorizedAt = new Date(doc.authorized_at ?? doc.dh_emi);
      if (now.getTime() - authorizedAt.getTime() <= deadlineMs) return null;
      return fiscalRejection(
        deadlineText,
        [{ field: 'status', error: `authorized at ${authorizedAt.toISOString()}` }],
        {
          cStat: '501',
          xMotivo: 'Rejeição: Prazo de cancelamento superior ao previsto na Legislação',
        },
      );
    },
    build(input) {
      const justificativa = String(input.details['justificativa'] ?? '');
      let built;
      try {
        built = buildEvent({
          tpEvento: '110111',
          ...eventHeader(input),
          nProt: input.doc.n_prot ?? '',
          xJust: justificativa,
        });
      } catch (error) {
        // The justification is counted after its free text is cleaned (emoji and control characters go), so
        // a text of 15 characters may be too short for the event: the caller's field, not a failure of ours.
        if (!(error instanceof EventError)) throw error;
        const justification = error.details.filter((d) => d.field === 'xJust');
        if (justification.length === 0) throw error;
        throw validationError(justification.map((d) => ({ field: 'justificativa', error: d.error })));
      }
      // The payload keeps the text actually written (free text is cleaned for XML).
      const xJust = firstElementText(built.xml, 'xJust');
      return {
        xml: signed(built.xml, input, 'cancellation event'),
        payload: { justificativa: xJust === undefined ? justificativa : unescapeText(xJust) },
      };
    },
  };
}

/** Carta de correção 110110 (NF-e only), nSeqEvento 1..20 (rejection 594 beyond). */
export const nfCorrectionRule: EventRule = {
  tpEvento: TP_CCE,
  action: 'correct',
  allowedFrom: ['autorizada'],
  maxSeq: MAX_CCE,
  beyondMax(nSeq, field) {
    return fiscalRejection(
      `An NF-e takes at most ${MAX_CCE} correction letters; the last one replaces all the earlier ones.`,
      [{ field, error: `letter ${nSeq} exceeds the limit of ${MAX_CCE}` }],
      { cStat: '594', xMotivo: CSTAT_TEXT['594'] ?? '' },
    );
  },
  build(input) {
    const correcao = String(input.details['correcao'] ?? '');
    const field = String(input.details['field'] ?? 'correcao');
    let built;
    try {
      built = buildEvent({
        tpEvento: '110110',
        ...eventHeader(input),
        xCorrecao: correcao,
      });
    } catch (error) {
      if (!(error instanceof EventError)) throw error;
      throw validationError(
        error.details.map((d) => ({ field: d.field === 'xCorrecao' ? field : d.field, error: d.error })),
      );
    }
    return {
      xml: signed(built.xml, input, 'correction letter'),
      payload: { correcao: unescapeText(firstElementText(built.xml, 'xCorrecao') ?? correcao) },
    };
  },
};

/**
 * NFC-e cancellation by substitution 110112 (NT 2018.004): the attempt authorized after its sale was
 * re-issued in contingency. `details`: the replacement's `chave` and `numero`. Queued by the queue itself.
 */
export const nfceSubstitutionRule: EventRule = {
  tpEvento: '110112',
  action: 'substitution',
  settles: 'cancelada',
  allowedFrom: ['autorizada'],
  maxSeq: 1,
  build(input) {
    if (input.doc.n_prot === null) throw new Error(`document ${input.doc.id} has no protocol to cancel`);
    const built = buildEvent({
      tpEvento: '110112',
      tpAmb: input.fiscal.tpAmb,
      CNPJ: input.fiscal.emit.CNPJ,
      chNFe: input.doc.chave,
      nSeqEvento: 1,
      dhEvento: input.now,
      idLote: Date.now() % 1_000_000_000_000_000,
      verAplic: VER_PROC,
      nProt: input.doc.n_prot,
      xJust:
        'Venda reemitida em contingencia off-line; NFC-e substituida pela de numero ' +
        String(input.details['numero']),
      chNFeRef: String(input.details['chave']),
    });
    const result = signEvent(built.xml, input.fiscal.certificate);
    if (result.errors.length > 0) {
      throw new Error(
        `cancel by substitution does not validate: ${result.errors.map((e) => e.message).join('; ')}`,
      );
    }
    return { xml: result.xml, payload: {} };
  },
};
