// The DACTE of a CT-e, built from its stored XML (cteProc once authorized) and kept in the outputs cache
// until what it shows changes (state, protocol, logo).
import type { Clock } from '../../../clock.ts';
import type { Db } from '../../../db/client.ts';
import { logoRepository } from '../../../companies/logo.ts';
import { renderDacte } from '../../../outputs/pdf/dacte.ts';
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
    () => renderDacte({ cteXml, cancelled, ...(logo === undefined ? {} : { logo }) }),
    regenerate,
  );
}
