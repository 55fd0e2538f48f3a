// The DACTE of a CT-e, built from its stored XML (cteProc once authorized) and kept in the outputs cache
// until what it shows changes (state, protocol, logo).
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import { logoRepository } from '../../../companies/logo.ts';
import { cachedOutput, fingerprintOf, type CachedOutput } from '../../outputs-cache.ts';
import type { DocumentRow } from '../../repository.ts';

export async function dacteOf(
  db: Db,
  clock: Clock,
  doc: DocumentRow,
  regenerate: boolean,
): Promise<CachedOutput> {
  const logo = (await logoRepository.find(db, doc.company_id))?.data;
  const cteXml = doc.proc_xml ?? doc.xml;
  const cancelled = doc.status === 'cancelada';
  return cachedOutput(
    db,
    {
      documentId: doc.id,
      output: 'dacte',
      fingerprint: fingerprintOf([cteXml, doc.status, logo]),
      mediaType: 'application/pdf',
      now: clock.now().toISOString(),
    },
    // Loaded on the first render: pdfkit and the drawings stay out of the idle service's memory.
    async () => {
      const { renderDacte } = await import('../../../outputs/pdf/dacte.ts');
      return renderDacte({ cteXml, cancelled, ...(logo === undefined ? {} : { logo }) });
    },
    regenerate,
  );
}
