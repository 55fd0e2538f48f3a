// Persistence of fiscal documents and the number sequences they draw from.
import type { Db } from '../db/client.ts';
import { isPostgres } from '../db/dialect.ts';
import type { Ambiente, DocumentsTable } from '../db/schema.ts';
import type { NumberVoidsTable } from './inutilizar.ts';
import { procOf, storedProc, withProc, type ProcColumns } from './stored-xml.ts';

/** A document as the code sees it: `proc_xml` is its whole authorized copy, however the row stores it. */
export type DocumentRow = Omit<DocumentsTable, 'proc_open'>;

/** A row read with selectAll, its authorized copy rebuilt (the signed XML is stored once: stored-xml.ts). */
function read(row: DocumentsTable): DocumentRow;
function read(row: DocumentsTable | undefined): DocumentRow | undefined;
function read(row: DocumentsTable | undefined): DocumentRow | undefined {
  return row === undefined ? undefined : withProc(row);
}

/**
 * The columns to write for `changes`: an authorized copy goes in compact when it rebuilds exactly from the
 * signed XML and the protocol; a change of either of those on a row with a compact copy keeps that copy
 * (written whole when it no longer rebuilds from the new pair).
 */
async function toStore(
  db: Db,
  id: string | null,
  changes: Partial<DocumentRow>,
  known?: ProcColumns,
): Promise<Partial<DocumentsTable>> {
  if ('proc_xml' in changes || 'xml' in changes || 'prot_xml' in changes) {
    const current =
      known ??
      (id !== null && !('proc_xml' in changes && 'xml' in changes && 'prot_xml' in changes)
        ? await db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst()
        : undefined);
    const xml = changes.xml ?? current?.xml ?? '';
    const prot = 'prot_xml' in changes ? (changes.prot_xml ?? null) : (current?.prot_xml ?? null);
    const proc =
      'proc_xml' in changes ? (changes.proc_xml ?? null) : current === undefined ? null : procOf(current);
    return { ...changes, ...storedProc(proc, xml, prot) };
  }
  return changes;
}

export const documentsRepository = {
  insert: async (db: Db, row: DocumentRow) => {
    await db
      .insertInto('documents')
      .values({ ...row, ...storedProc(row.proc_xml, row.xml, row.prot_xml) })
      .execute();
  },

  findById: async (db: Db, id: string) =>
    read(await db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst()),

  /** A document the caller has just written or queued: a missing row is a bug, thrown as such. */
  getById: async (db: Db, id: string) => {
    const doc = await db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
    if (doc === undefined) throw new Error(`document ${id} vanished`);
    return read(doc);
  },

  findByChave: async (db: Db, chave: string) =>
    read(await db.selectFrom('documents').selectAll().where('chave', '=', chave).executeTakeFirst()),

  /** `current`: the row as the caller read it in the same transaction, which spares reading it again. */
  update: async (db: Db, id: string, changes: Partial<Omit<DocumentRow, 'id'>>, current?: DocumentRow) =>
    db
      .updateTable('documents')
      .set(await toStore(db, id, changes, current))
      .where('id', '=', id)
      .execute(),

  listByCompany: async (db: Db, companyId: string) =>
    (
      await db
        .selectFrom('documents')
        .selectAll()
        .where('company_id', '=', companyId)
        .orderBy('n_nf')
        .execute()
    ).map((row) => read(row)),

  /**
   * Attempts authorized although their sale was re-issued under another number, with no event queued for
   * them: each one still owes its cancellation by substitution (110112).
   */
  authorizedReplacedWithoutEvent: async (db: Db) =>
    (
      await db
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
        .execute()
    ).map((row) => read(row)),

  /**
   * Hands out the next number of a series. Runs inside the caller's transaction, so the number and the
   * document that uses it commit together or not at all (no gaps from crashes between the two).
   * Safe by itself across instances sharing a PostgreSQL store: the number is taken by one atomic UPDATE ...
   * RETURNING, whose row lock is held to the end of the transaction, so a concurrent reservation waits and
   * then reads the number after this one (or this one again, if this transaction rolls back); a series' first
   * row is inserted ON CONFLICT DO NOTHING, and the loser of that race takes the winner's row by the UPDATE.
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
      const inserted = await db
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
        .onConflict((oc) => oc.columns(['company_id', 'modelo', 'serie', 'ambiente']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return 1;
      // Another transaction created the series first (committed by now): take its next number.
      const taken = await sequences()
        .set((eb) => ({ next_number: eb('next_number', '+', 1), updated_at: now }))
        .returning('next_number')
        .executeTakeFirstOrThrow();
      return taken.next_number - 1;
    };
    // A range voided ahead of the sequence (inutilização of 5001 while the next number is 33) does not move
    // it: 33..5000 are still handed out, and only the voided numbers are stepped over when reached.
    let numero = await claim();
    // The usual case, no inutilização holding the number or the next one: one read says so for both steps.
    if ((await voidedRangeHolding(db, series, numero, numero + 1)) === undefined) return numero;
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
 * Locks a series' sequence row to the end of the caller's transaction (PostgreSQL: SELECT ... FOR UPDATE), so
 * that a decision read from it (an inutilização moving the next number) and reserveNumber on other instances
 * take turns. SQLite runs one write transaction at a time already: nothing to do there.
 */
export async function lockSeries(
  db: Db,
  series: { companyId: string; modelo: number; serie: number; ambiente: Ambiente },
): Promise<void> {
  if (!isPostgres(db)) return;
  await db
    .selectFrom('number_sequences')
    .select('next_number')
    .where('company_id', '=', series.companyId)
    .where('modelo', '=', series.modelo)
    .where('serie', '=', series.serie)
    .where('ambiente', '=', series.ambiente)
    .forUpdate()
    .execute();
}

/**
 * The inutilização that holds `numero` of a series (or any number up to `last`): being sent (processando) or
 * homologated. A refused one holds nothing, so its numbers are issued normally.
 */
async function voidedRangeHolding(
  db: Db,
  series: { companyId: string; modelo: number; serie: number; ambiente: Ambiente },
  numero: number,
  last = numero,
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
    .where('n_ini', '<=', last)
    .where('n_fin', '>=', numero)
    .orderBy('n_fin', 'desc')
    .executeTakeFirst();
}
