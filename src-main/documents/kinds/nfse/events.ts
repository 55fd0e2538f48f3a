// The NFS-e's cancellation as the lifecycle plugs it: the pedRegEvento e101101 from an authorized note, one
// per note, signed by the pure builder (fiscal/nfse/events.ts) and checked against pedRegEvento_v1.01.xsd.
// The national layout has no correction letter; substitution is a new DPS (service.ts), not an event we send.
import { DomainError, validationError } from '../../../errors.ts';
import { formatDateTimeTz } from '../../../fiscal/datetime.ts';
import { buildSignedPedRegEvento, cancelMotivoOf } from '../../../fiscal/nfse/events.ts';
import { validateXml } from '../../../fiscal/schema.ts';
import { zodDetails } from '../../../validation.ts';
import { nfseCancelRequestSchema } from '../../../../src-shared/contracts/nfse-view.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import { VER_PROC, type BuiltEvent, type EventBuildInput, type EventRule } from '../../kind.ts';

/** tpEvento of the cancellation as the queue and document_events record it (the layout's e101101). */
export const NFSE_TP_CANCEL = '101101';

/** The request's reason by the contract's rule (a caller other than POST /v1/nfse/:id/cancel may reach here). */
function motivoOf(details: Readonly<Record<string, unknown>>): 1 | 2 | 3 {
  const parsed = nfseCancelRequestSchema.shape.codigo_motivo.safeParse(details['codigo_motivo']);
  if (parsed.success) return parsed.data;
  throw validationError(zodDetails(parsed.error).map((d) => ({ ...d, field: 'codigo_motivo' })));
}

export const nfseCancelRule: EventRule = {
  tpEvento: NFSE_TP_CANCEL,
  action: 'cancel',
  settles: 'cancelada',
  allowedFrom: ['autorizada'],
  maxSeq: 1,
  build(input: EventBuildInput): BuiltEvent {
    const { doc, fiscal } = input;
    if (!/^\d{50}$/.test(doc.chave)) {
      throw validationError([{ field: 'status', error: 'the NFS-e has no 50-digit national key' }]);
    }
    const codigo = motivoOf(input.details);
    const justificativa =
      typeof input.details['justificativa'] === 'string' ? input.details['justificativa'] : '';
    const { cMotivo, xMotivo } = cancelMotivoOf(codigo, justificativa);
    const timeZone = ufBySigla(fiscal.company.uf)?.timeZone ?? 'America/Sao_Paulo';
    const { xml } = buildSignedPedRegEvento(
      {
        tpAmb: doc.ambiente === 'producao' ? 1 : 2,
        dhEvento: formatDateTimeTz(input.now, timeZone),
        verAplic: VER_PROC,
        autor: { CNPJ: fiscal.company.cnpj },
        chNFSe: doc.chave,
        nPedRegEvento: 1,
        evento: { tipo: 'e101101', cMotivo, xMotivo },
      },
      fiscal.certificate,
    );
    const valid = validateXml(xml, 'nfse-evento');
    if (!valid.valid) {
      throw new DomainError(
        'fiscal_rejection',
        'The cancellation does not validate against the national schema.',
        valid.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
      );
    }
    return { xml, payload: { codigo_motivo: codigo, justificativa: xMotivo, cMotivo } };
  },
};

export const nfseEventRules: readonly EventRule[] = [nfseCancelRule];
