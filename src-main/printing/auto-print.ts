// Automatic printing of the NFC-e receipt: once per note, when it first becomes autorizada or contingencia
// and the company's default printer prints automatically. Called after the sale and by the queue worker;
// it never throws, so printing can never fail or undo a sale.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { DocumentRow } from '../documents/repository.ts';
import { printJobsRepository, printersRepository } from './repository.ts';
import { nfceReceiptBytes } from './receipt.ts';
import { queueJob } from './service.ts';

const AUTO_STATES: ReadonlySet<DocumentRow['status']> = new Set(['autorizada', 'contingencia']);

/** Returns the queued job's id, or null when nothing was queued (not due, already printed, or an error). */
export async function autoPrintDocument(
  deps: { db: Db; clock: Clock; logger?: Logger },
  doc: DocumentRow,
): Promise<string | null> {
  try {
    // A sale attempt replaced by a new number is cancelled by substitution: the customer has the other one.
    if (doc.modelo !== 65 || !AUTO_STATES.has(doc.status) || doc.replaced_by !== null) return null;
    const printer = await printersRepository.defaultOf(deps.db, doc.company_id);
    if (printer === undefined || printer.impressao_automatica !== 1) return null;
    // Notes issued before automatic printing was switched on are not printed when they settle later.
    if (printer.auto_since !== null && doc.created_at < printer.auto_since) return null;
    // A note printed in contingency (automatically or by hand) is not printed again once authorized.
    if ((await printJobsRepository.liveOfDocument(deps.db, doc.id)).length > 0) return null;
    return await queueJob(deps, {
      printer,
      documentId: doc.id,
      reason: 'auto',
      // The note's first receipt: a cash sale opens the drawer with it.
      bytes: nfceReceiptBytes(doc, printer, { openDrawer: true }),
      dedupeKey: `auto:${doc.id}`,
    });
  } catch (error) {
    deps.logger?.error('automatic print not queued', {
      documentId: doc.id,
      companyId: doc.company_id,
      error: String(error),
    });
    return null;
  }
}
