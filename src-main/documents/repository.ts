// Persistence of fiscal documents and the number sequences they draw from.
import type { Db } from '../db/client.ts';
import type { Ambiente, DocumentsTable } from '../db/schema.ts';

export type DocumentRow = DocumentsTable;

export const documentsRepository = {
  insert: (db: Db, row: DocumentRow) => db.insertInto('documents').values(row).execute(),

  findById: (db: Db, id: string) =>
    db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst(),

  findByChave: (db: Db, chave: string) =>
    db.selectFrom('documents').selectAll().where('chave', '=', chave).executeTakeFirst(),

  update: (db: Db, id: string, changes: Partial<Omit<DocumentRow, 'id'>>) =>
    db.updateTable('documents').set(changes).where('id', '=', id).execute(),

  listByCompany: (db: Db, companyId: string) =>
    db.selectFrom('documents').selectAll().where('company_id', '=', companyId).orderBy('n_nf').execute(),

  /**
   * Attempts authorized although their sale was re-issued under another number, with no event queued for
   * them: each one still owes its cancellation by substitution (110112).
   */
  authorizedReplacedWithoutEvent: (db: Db) =>
    db
      .selectFrom('documents')
      .selectAll()
      .where('status', '=', 'autorizada')
      .where('replaced_by', 'is not', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('outbox')
              .select('outbox.id')
              .whereRef('outbox.document_id', '=', 'documents.id')
              .where('outbox.kind', '=', 'evento'),
          ),
        ),
      )
      .execute(),

  /**
   * Hands out the next number of a series. Runs inside the caller's transaction, so the number and the
   * document that uses it commit together or not at all (no gaps from crashes between the two).
   */
  reserveNumber: async (
    db: Db,
    companyId: string,
    modelo: 55 | 65,
    serie: number,
    ambiente: Ambiente,
    now: string,
  ) => {
    const row = await db
      .updateTable('number_sequences')
      .set((eb) => ({ next_number: eb('next_number', '+', 1), updated_at: now }))
      .where('company_id', '=', companyId)
      .where('modelo', '=', modelo)
      .where('serie', '=', serie)
      .where('ambiente', '=', ambiente)
      .returning('next_number')
      .executeTakeFirst();
    if (row === undefined) {
      // A series the company did not have yet (e.g. a second NFC-e terminal's series): start it at 1.
      await db
        .insertInto('number_sequences')
        .values({
          company_id: companyId,
          modelo,
          serie,
          ambiente,
          next_number: 2,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return 1;
    }
    return row.next_number - 1;
  },
};
