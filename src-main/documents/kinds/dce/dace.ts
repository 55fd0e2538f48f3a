// The DACE of a DC-e (A4, or the 100 × 150 mm label that goes on the package), drawn from the dceProc once
// authorized and kept in the outputs cache until what it shows changes (state, DC-e, logo); a draft prints
// only on request, marked as a preview.
import { logoRepository } from '../../../companies/logo.ts';
import { DomainError } from '../../../errors.ts';
import { daceModelOf } from '../../../outputs/dce-model.ts';
import type { KindDeps } from '../../kind.ts';
import { cachedOutput, fingerprintOf, type CachedOutput } from '../../outputs-cache.ts';
import type { DocumentRow } from '../../repository.ts';

export interface DaceRequest {
  formato: 'a4' | 'etiqueta';
  /** Print a DC-e the authority has not authorized, marked PRÉVIA — SEM VALOR, for checking. */
  previa?: boolean;
  /** Rebuild instead of serving the cached file. */
  regenerate?: boolean;
}

/**
 * The PDF. The DACE travels with an authorized DC-e: before the authorization it is refused (409) unless a
 * preview is asked for; a cancelled DC-e prints with CANCELADA.
 */
export async function daceOf(
  deps: Pick<KindDeps, 'db' | 'clock'>,
  doc: DocumentRow,
  request: DaceRequest,
): Promise<CachedOutput> {
  const authorized = doc.proc_xml !== null && (doc.status === 'autorizada' || doc.status === 'cancelada');
  if (!authorized && request.previa !== true) {
    throw new DomainError(
      'invalid_state',
      `The DC-e is ${doc.status}: its DACE exists once the authority authorized it. ` +
        'Ask for previa=true to print the draft for checking (no value, not to travel with the goods).',
      [{ field: 'status', error: `current state is '${doc.status}'` }],
    );
  }
  const xml = authorized ? (doc.proc_xml ?? doc.xml) : doc.xml;
  const cancelled = doc.status === 'cancelada';
  const logo =
    request.formato === 'a4' ? (await logoRepository.find(deps.db, doc.company_id))?.data : undefined;
  return cachedOutput(
    deps.db,
    {
      documentId: doc.id,
      output: `dace-${request.formato}`,
      fingerprint: fingerprintOf([xml, doc.status, authorized ? 'final' : 'preview', logo]),
      mediaType: 'application/pdf',
      now: deps.clock.now().toISOString(),
    },
    // Loaded on the first render: pdfkit and the drawings stay out of the idle service's memory.
    async () => {
      const { renderDaceA4, renderDaceLabel } = await import('../../../outputs/pdf/dace.ts');
      const model = daceModelOf(xml);
      const options = { cancelled, preview: !authorized, ...(logo === undefined ? {} : { logo }) };
      return request.formato === 'etiqueta' ? renderDaceLabel(model, options) : renderDaceA4(model, options);
    },
    request.regenerate ?? false,
  );
}
