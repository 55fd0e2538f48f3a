// The DC-e's one event as the lifecycle plugs it: the cancellation 110111 (evCancDCe) of an authorized DC-e,
// once, within DCE_CANCEL_DEADLINE_HOURS of the authorization (checked here: past it nothing is queued), built
// and signed by the pure builder (fiscal/dce/events.ts), which checks eventoDCe and evCancDCe's schemas.
import { DomainError, validationError } from '../../../errors.ts';
import { buildSignedDceCancel, EventError } from '../../../fiscal/dce/events.ts';
import { readDce } from '../../../fiscal/dce/parse.ts';
import { normalizeFreeText } from '../../../fiscal/xml.ts';
import { DCE_CANCEL_DEADLINE_HOURS, DCE_CODES } from '../../../../src-shared/tables/dce-codes.ts';
import { deadlineAfterAuthorization } from '../../event-deadline.ts';
import type { BuiltEvent, EventBuildInput, EventRule } from '../../kind.ts';

/** tpEvento of the cancellation (evCancDCe). */
export const DCE_TP_CANCEL = '110111';

const DEADLINE_MS = DCE_CANCEL_DEADLINE_HOURS * 3600_000;

export const dceCancelRule: EventRule = {
  tpEvento: DCE_TP_CANCEL,
  action: 'cancel',
  settles: 'cancelada',
  allowedFrom: ['autorizada'],
  maxSeq: 1,
  deadline: deadlineAfterAuthorization(
    DEADLINE_MS,
    `The DC-e was authorized more than ${DCE_CANCEL_DEADLINE_HOURS} hours ago: it can no longer be cancelled (cStat ${DCE_CODES.cancelDeadline.code}).`,
    { cStat: DCE_CODES.cancelDeadline.code, xMotivo: DCE_CODES.cancelDeadline.text },
  ),
  build(input: EventBuildInput): BuiltEvent {
    const { doc, fiscal } = input;
    if (doc.n_prot === null) {
      throw validationError([{ field: 'status', error: 'the DC-e has no authorization protocol' }]);
    }
    const raw = input.details['justificativa'];
    const xJust = typeof raw === 'string' ? raw : '';
    const dce = readDce(doc.xml);
    let signed;
    try {
      signed = buildSignedDceCancel(
        {
          key: doc.chave,
          nProt: doc.n_prot,
          xJust,
          tpAmb: doc.ambiente === 'producao' ? 1 : 2,
          tpEmit: dce.ide.tpEmit,
          // The system that signed the DC-e (its CNPJ is in the key) signs its events: the company.
          CNPJAutor: fiscal.company.cnpj,
          emitId: dce.emit.id,
          // Written in the local time of the key's UF by the builder.
          dhEvento: input.now,
        },
        fiscal.certificate,
      );
    } catch (error) {
      if (!(error instanceof EventError)) throw error;
      throw validationError(
        error.details.map((d) => ({
          field: d.field === 'xJust' ? 'justificativa' : d.field,
          error: d.error,
        })),
      );
    }
    if (signed.errors.length > 0) {
      throw new DomainError(
        'fiscal_rejection',
        'The cancellation does not validate against the DC-e schema.',
        signed.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
      );
    }
    // The justification as it went into the XML (the builder normalizes free text the same way).
    return { xml: signed.xml, payload: { justificativa: normalizeFreeText(xJust, 255) } };
  },
};

export const dceEventRules: readonly EventRule[] = [dceCancelRule];
