// Which stored notes have printable outputs (DANFE, DANFCe, ESC/POS) and the output model of one: shared by
// the document-file routes and the printing queue, so both print exactly the same note the same way.
import type { DocumentRow } from '../documents/repository.ts';
import type { DocumentStatus } from '../db/schema.ts';
import { parseOutputDocument, type OutputDocument } from './model.ts';

/**
 * An auxiliary document exists only for a note that is valid or was valid: authorized, issued in contingency
 * (it must go with the goods, MOC 7.0 §5.9) or cancelled (printed with CANCELADA). Drafts, refused notes and
 * attempts replaced by another note have none.
 */
export const PRINTABLE_STATES: ReadonlySet<DocumentStatus> = new Set([
  'autorizada',
  'contingencia',
  'cancelada',
]);

export function isPrintable(doc: Pick<DocumentRow, 'status'>): boolean {
  return PRINTABLE_STATES.has(doc.status);
}

/** The note as it is now: nfeProc once authorized (with the protocol), otherwise the signed NFe. */
export function outputDocumentOf(doc: Pick<DocumentRow, 'status' | 'xml' | 'proc_xml'>): OutputDocument {
  return parseOutputDocument(doc.proc_xml ?? doc.xml, { cancelled: doc.status === 'cancelada' });
}
