// Persistence of fiscal documents and the number sequences they draw from.
import type { Db } from '../db/client.ts';
import type { Ambiente, DocumentsTable } from '../db/schema.ts';
import type { NumberVoidsTable } from './inutilizar.ts';

export type DocumentRow = DocumentsTable;

export const documentsRepository = {
  insert: (db: Db, row: DocumentRow) => db.insertInto('documents').values(row).execute(),

  findById: (db: Db, id: string) =>
    db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst(),

  /** A document the caller has just written or queued: a missing row is a bug, thrown as such. */
  getById: async (db: Db, id: string) => {
    const doc = await db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
    if (doc === undefined) throw new Error(`document ${id} vanished`);
    return doc;
  },

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
    modelo: number,
    serie: number,
    ambiente: Ambiente,
    now: string,
  ): Promise<number> => {
    const series = { companyId, modelo, serie, ambiente };
    const sequences = () =>
      db
        .updateTable('number_sequences')
        .where('company_id', '=', companyId)
        .where('modelo', '=', modelo)
        .where('serie', '=', serie)
        .where('ambiente', '=', ambiente);
    const claim = async (): Promise<number> => {
      const row = await sequences()
        .set((eb) => ({ next_number: eb('next_number', '+', 1), updated_at: now }))
        .returning('next_number')
        .executeTakeFirst();
      if (row !== undefined) return row.next_number - 1;
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
    };
    // A range voided ahead of the sequence (inutilização of 5001 while the next number is 33) does not move
    // it: 33..5000 are still handed out, and only the voided numbers are stepped over when reached.
    let numero = await claim();
    for (let range = await voidedRangeHolding(db, series, numero); range !== undefined;) {
      await sequences()
        .set({ next_number: range.n_fin + 1, updated_at: now })
        .where('next_number', '<=', range.n_fin)
        .execute();
      numero = await claim();
      range = await voidedRangeHolding(db, series, numero);
    }
    // Step over a voided range that starts right after, so the series' proximo_numero is the one issued next.
    let next = numero + 1;
    for (let range = await voidedRangeHolding(db, series, next); range !== undefined;) {
      next = range.n_fin + 1;
      range = await voidedRangeHolding(db, series, next);
    }
    if (next !== numero + 1) {
      await sequences()
        .set({ next_number: next, updated_at: now })
        .where('next_number', '=', numero + 1)
        .execute();
    }
    return numero;
  },
};

/**
 * The inutilização that holds `numero` of a series: being sent (processando) or homologated. A refused one
 * holds nothing, so its numbers are issued normally.
 */
async function voidedRangeHolding(
  db: Db,
  series: { companyId: string; modelo: number; serie: number; ambiente: Ambiente },
  numero: number,
) {
  return db
    .withTables<{ number_voids: NumberVoidsTable }>()
    .selectFrom('number_voids')
    .select(['n_ini', 'n_fin'])
    .where('company_id', '=', series.companyId)
    .where('modelo', '=', series.modelo)
    .where('serie', '=', series.serie)
    .where('ambiente', '=', series.ambiente)
    .where('status', 'in', ['processando', 'homologada'])
    .where('n_ini', '<=', numero)
    .where('n_fin', '>=', numero)
    .orderBy('n_fin', 'desc')
    .executeTakeFirst();
}
