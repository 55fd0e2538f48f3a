// The national NFS-e (layout 1.01) as a kind of the generic lifecycle: a DPS prepared from the §2.8 body and
// numbered by our sequences, the national environment's answer codes, its cancellation event, its webhook
// names, and the substitution: the old note becomes `substituida` when the new one is authorized.
import type { Db } from '../../../db/client.ts';
import { DomainError, invalidState } from '../../../errors.ts';
import type { DocumentKind } from '../../kind.ts';
import { documentsRepository, type DocumentRow } from '../../repository.ts';
import { nfseEventRules } from './events.ts';
import { prepareNfseDocument, splitPayload } from './prepare.ts';
import { nfseProtocol } from './protocol.ts';
// view.ts reads NFSE_MODELO from here only inside its functions, so this cycle is safe at load.
import { nfseViewOf } from './view.ts';

/**
 * The NFS-e has no official model number; our documents, sequences and voids tables key on one, so the kind
 * takes 98, outside the SEFAZ models (55, 57, 65). Internal only: it is in no XML and no API field.
 */
export const NFSE_MODELO = 98;

const substitutionOf = (row: Pick<DocumentRow, 'payload_json'>) => {
  try {
    return splitPayload(JSON.parse(row.payload_json) as unknown).kept.subst;
  } catch {
    return null;
  }
};

/** The replaced note's id: a re-sign (rowFrom) writes `replaces` null, the kept payload still names it. */
export async function linkReplaced(trx: Db, row: DocumentRow): Promise<string | null> {
  const subst = substitutionOf(row);
  if (subst === null) return null;
  if (row.replaces !== subst.documentId) {
    await documentsRepository.update(trx, row.id, { replaces: subst.documentId });
  }
  return subst.documentId;
}

/** A substitute still on its way (or authorized) for the same note: a note is substituted once. */
const OPEN_SUBSTITUTE: readonly DocumentRow['status'][] = ['rascunho', 'processando', 'autorizada'];

/**
 * In the transaction that writes a substitute: the note it replaces must still be authorized and have no
 * other open substitute. The service checks the same before it asks the municipal parameters, but two
 * requests can both pass that check; transactions run one after the other, so only the first write wins.
 */
async function assertSoleSubstitute(trx: Db, row: DocumentRow, replacedId: string): Promise<void> {
  const other = await trx
    .selectFrom('documents')
    .select(['id', 'status'])
    .where('replaces', '=', replacedId)
    .where('id', '!=', row.id)
    .where('status', 'in', OPEN_SUBSTITUTE)
    .executeTakeFirst();
  if (other !== undefined) {
    throw new DomainError('invalid_state', `The NFS-e is already being substituted by ${other.id}.`, [
      { field: 'id', error: `substitute ${other.id} is ${other.status}` },
    ]);
  }
  const replaced = await documentsRepository.findById(trx, replacedId);
  if (replaced !== undefined && replaced.status !== 'autorizada') {
    throw invalidState(replaced.status, 'substitute');
  }
}

export const nfseKind: DocumentKind = {
  id: 'nfse',
  modelo: NFSE_MODELO,
  label: 'NFS-e',
  webhookEvents: {
    autorizada: 'nfse.autorizada',
    erro: 'nfse.rejeitada',
    cancelada: 'nfse.cancelada',
    // Substituted: the national environment registers it as cancelled by substitution (e105102).
    substituida: 'nfse.cancelada',
  },
  // §3: a receiver reads the note as GET /v1/nfse/:id shows it (`authorized`, the 50-digit key, the links),
  // with the `documentId` every document event carries.
  async webhookData(db, doc, { baseUrl }) {
    return { documentId: doc.id, ...(await nfseViewOf(db, doc, { base: baseUrl })) };
  },
  protocol: nfseProtocol,
  prepare: prepareNfseDocument,
  // The DPS series comes from our sequences (default 1): the §2.8 body names none.
  serieOf: () => null,
  async afterWrite(trx, row) {
    const replacedId = await linkReplaced(trx, row);
    if (replacedId !== null) await assertSoleSubstitute(trx, row, replacedId);
  },
  async afterAuthorized(trx, doc) {
    const replacedId = await linkReplaced(trx, doc);
    if (replacedId === null) return [];
    const old = await documentsRepository.findById(trx, replacedId);
    if (old?.status !== 'autorizada') return [];
    // `replaced_by` stays null: the queue's NFC-e recovery reads it as "a contingency re-issue owes an event".
    await documentsRepository.update(trx, old.id, { status: 'substituida', updated_at: doc.updated_at });
    return [old.id];
  },
  events: nfseEventRules,
};
