// The CT-e's events as the lifecycle plugs them: cancellation 110111 (from autorizada, within 168 h of the
// authorization) and the carta de correção 110110 (sequence 1 to 20, forbidden fields refused before signing),
// built and signed by the pure CT-e event builder.
import { conflict, DomainError, fiscalRejection, validationError } from '../../../errors.ts';
import { EventError, prepareCteEvent, correcaoLivre, type CteCorrecao } from '../../../fiscal/cte/events.ts';
import { normalizeFreeText } from '../../../fiscal/xml.ts';
import type { ErrorDetail } from '../../../../src-shared/contracts/errors.ts';
import { deadlineAfterAuthorization } from '../../event-deadline.ts';
import type { BuiltEvent, EventBuildInput, EventRule } from '../../kind.ts';

/** MOC CT-e 4.00: the cancellation is accepted up to 168 hours (7 days) after the authorization. */
export const CTE_CANCEL_DEADLINE_MS = 168 * 3600_000;

/**
 * The authority's answer past the deadline. Best text found for CT-e 4.00 (the MOC's table is not in the
 * reference data): 220 "CT-e autorizado há mais de 7 dias (168 horas)".
 */
export const CTE_CANCEL_LATE = {
  cStat: '220',
  xMotivo: 'Rejeição: CT-e autorizado há mais de 7 dias (168 horas)',
};

/** What the authority answers for such a CC-e (MOC CT-e table, 681). */
export const CTE_CCE_FORBIDDEN_FIELD = {
  cStat: '681',
  xMotivo: 'Rejeição: Informação não pode ser alterada por carta de correção',
};

/** 636: the sequence of the event is beyond what the authority allows (20 CC-e). */
export const CTE_CCE_TOO_MANY = {
  cStat: '636',
  xMotivo: 'Rejeição: O numero sequencial do evento é maior que o permitido',
};

/** Fields of the builder as the API names them. */
function apiField(field: string, fromText: boolean): string {
  if (field === 'xJust') return 'justificativa';
  if (fromText && field.startsWith('correcoes[0].')) return 'correcao';
  return field;
}

/** A field the CC-e may not correct (the shared table's message) makes the request a fiscal refusal. */
const isForbidden = (d: ErrorDetail) => d.error.includes('cannot be corrected by CC-e');

function eventFault(error: unknown, fromText: boolean): never {
  if (!(error instanceof EventError)) throw error;
  const details = error.details.map((d) => ({ field: apiField(d.field, fromText), error: d.error }));
  if (details.some(isForbidden)) {
    throw fiscalRejection(
      'A CC-e may not change tax values, rates, the parties’ identity or dates (cStat 681).',
      details,
      CTE_CCE_FORBIDDEN_FIELD,
    );
  }
  throw validationError(details);
}

function sign(input: EventBuildInput, event: Parameters<typeof prepareCteEvent>[0], fromText: boolean) {
  let signed;
  try {
    signed = prepareCteEvent(event, input.fiscal.certificate);
  } catch (error) {
    eventFault(error, fromText);
  }
  if (signed.errors.length > 0) {
    throw new DomainError(
      'fiscal_rejection',
      'The event does not validate against the official schema.',
      signed.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
    );
  }
  return signed.xml;
}

const common = (input: EventBuildInput) => ({
  tpAmb: input.doc.ambiente === 'producao' ? (1 as const) : (2 as const),
  CNPJ: input.fiscal.emit.CNPJ,
  chCTe: input.doc.chave,
  nSeqEvento: input.nSeq,
  dhEvento: input.now,
});

export const cteCancelRule: EventRule = {
  tpEvento: '110111',
  action: 'cancel',
  settles: 'cancelada',
  allowedFrom: ['autorizada'],
  maxSeq: 1,
  deadline: deadlineAfterAuthorization(
    CTE_CANCEL_DEADLINE_MS,
    'The CT-e was authorized more than 7 days (168 h) ago: it can no longer be cancelled.',
    CTE_CANCEL_LATE,
  ),
  build(input): BuiltEvent {
    const raw = input.details['justificativa'];
    const xJust = typeof raw === 'string' ? normalizeFreeText(raw, 255) : '';
    if (input.doc.n_prot === null) {
      throw validationError([{ field: 'status', error: 'the CT-e has no authorization protocol' }]);
    }
    const xml = sign(input, { ...common(input), tpEvento: '110111', nProt: input.doc.n_prot, xJust }, false);
    return { xml, payload: { justificativa: xJust } };
  },
};

function correcoesOf(details: Readonly<Record<string, unknown>>): {
  correcoes: CteCorrecao[];
  fromText: boolean;
} {
  const text = details['correcao'];
  if (typeof text === 'string')
    return { correcoes: [correcaoLivre(normalizeFreeText(text, 500))], fromText: true };
  const list = details['correcoes'];
  return { correcoes: Array.isArray(list) ? (list as CteCorrecao[]) : [], fromText: false };
}

export const cteCceRule: EventRule = {
  tpEvento: '110110',
  action: 'correct',
  allowedFrom: ['autorizada'],
  maxSeq: 20,
  beyondMax: (nSeq, field) =>
    fiscalRejection(
      'A CT-e takes at most 20 CC-e (cStat 636).',
      [{ field, error: `CC-e ${nSeq} exceeds the limit of 20` }],
      CTE_CCE_TOO_MANY,
    ),
  build(input): BuiltEvent {
    // §2.7 `sequencia`: the caller's count of its letters; it must be the next one, so a retry of a letter
    // that was already queued is not sent twice under a new number.
    const sequencia = input.details['sequencia'];
    if (typeof sequencia === 'number' && sequencia !== input.nSeq) {
      throw conflict(`The next CC-e of this CT-e is number ${input.nSeq}.`, [
        { field: 'sequencia', error: `is ${sequencia}; the next free sequence is ${input.nSeq}` },
      ]);
    }
    const { correcoes, fromText } = correcoesOf(input.details);
    const xml = sign(input, { ...common(input), tpEvento: '110110', correcoes }, fromText);
    return {
      xml,
      payload: fromText ? { correcao: correcoes[0]?.valorAlterado ?? '', correcoes } : { correcoes },
    };
  },
};

export const cteEventRules: readonly EventRule[] = [cteCancelRule, cteCceRule];
