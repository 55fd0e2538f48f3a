// The DANFSe of an authorized NFS-e, drawn locally from the <NFSe> the national environment returned and
// kept in the outputs cache until what it shows changes (state, note, logo); and the note's XML parts.
import { logoRepository } from '../../../companies/logo.ts';
import { DomainError } from '../../../errors.ts';
import type { KindDeps } from '../../kind.ts';
import { cachedOutput, fingerprintOf } from '../../outputs-cache.ts';
import type { DocumentRow } from '../../repository.ts';

/** The signed DPS, and the authorized <NFSe> (which embeds it) once there is one. */
export function nfseXmlOf(doc: DocumentRow): { dps: string; nfse: string | null } {
  return { dps: doc.xml, nfse: doc.prot_xml };
}

/**
 * The PDF; 409 before the note exists (a DPS is no note: the DANFSe prints what the national environment
 * generated). A cancelled or substituted note prints with the cancelled mark.
 */
export async function danfseOf(
  deps: Pick<KindDeps, 'db' | 'clock'>,
  doc: DocumentRow,
  options: { regenerate?: boolean } = {},
): Promise<Buffer> {
  const { nfse } = nfseXmlOf(doc);
  const printable = doc.status === 'autorizada' || doc.status === 'cancelada' || doc.status === 'substituida';
  if (nfse === null || !printable) {
    throw new DomainError(
      'invalid_state',
      `The NFS-e is ${doc.status}: it has no DANFSe before authorization.`,
      [{ field: 'status', error: doc.status }],
    );
  }
  const logo = (await logoRepository.find(deps.db, doc.company_id))?.data;
  const cancelled = doc.status !== 'autorizada';
  const out = await cachedOutput(
    deps.db,
    {
      documentId: doc.id,
      output: 'danfse',
      fingerprint: fingerprintOf([nfse, doc.status, logo]),
      mediaType: 'application/pdf',
      now: deps.clock.now().toISOString(),
    },
    // Loaded on the first render: pdfkit and the drawings stay out of the idle service's memory.
    async () => {
      const { renderDanfse } = await import('../../../outputs/pdf/danfse.ts');
      return renderDanfse({ nfseXml: nfse, cancelled, ...(logo === undefined ? {} : { logo }) });
    },
    options.regenerate ?? false,
  );
  return out.data;
}
