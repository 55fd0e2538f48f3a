// Persistence of printer profiles and print jobs (Kysely over the service's SQLite file).
import { newId } from '../ids.ts';
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import { pageOf } from '../db/paginate.ts';
import type { PrintJobsTable, PrintersTable } from '../db/schema.ts';
import type { PrintJobStatus } from '../../src-shared/contracts/printers.ts';

export type PrinterRow = PrintersTable;
export type PrintJobRow = PrintJobsTable;
/** A job as lists show it: the bytes stay in the database, their size comes along. */
export type PrintJobSummary = Omit<PrintJobRow, 'bytes'> & { size: number };

const SUMMARY_COLUMNS = [
  'id',
  'company_id',
  'printer_id',
  'printer_nome',
  'document_id',
  'reason',
  'kind',
  'status',
  'attempts',
  'last_error',
  'next_try_at',
  'expires_at',
  'dedupe_key',
  'created_at',
  'updated_at',
  'printed_at',
] as const;

/** Ids of printers and print jobs: UUIDs like every other row's (src-main/ids.ts). */
export function printingId(): string {
  return newId();
}

/** better-sqlite3 binds Buffers as BLOBs (a plain Uint8Array is refused). */
export const asBlob = (bytes: Uint8Array): Buffer =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export const printersRepository = {
  insert: (db: Db, row: PrinterRow) => db.insertInto('printers').values(row).execute(),

  findById: (db: Db, id: string) =>
    db.selectFrom('printers').selectAll().where('id', '=', id).executeTakeFirst(),

  update: (db: Db, id: string, changes: Partial<Omit<PrinterRow, 'id' | 'company_id'>>) =>
    db.updateTable('printers').set(changes).where('id', '=', id).execute(),

  delete: (db: Db, id: string) => db.deleteFrom('printers').where('id', '=', id).execute(),

  defaultOf: (db: Db, companyId: string) =>
    db
      .selectFrom('printers')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('padrao', '=', 1)
      .executeTakeFirst(),

  countOf: async (db: Db, companyId: string) =>
    Number(
      (
        await db
          .selectFrom('printers')
          .select(sql<number>`count(*)`.as('n'))
          .where('company_id', '=', companyId)
          .executeTakeFirstOrThrow()
      ).n,
    ),

  clearDefault: (db: Db, companyId: string, now: string) =>
    db
      .updateTable('printers')
      .set({ padrao: 0, updated_at: now })
      .where('company_id', '=', companyId)
      .where('padrao', '=', 1)
      .execute(),

  list: (db: Db, companyId: string, page: number, pageSize: number) =>
    pageOf(
      db.selectFrom('printers').where('company_id', '=', companyId),
      (q) => q.selectAll().orderBy('created_at').orderBy('id'),
      pageSize,
      (page - 1) * pageSize,
    ),
};

export const printJobsRepository = {
  /** Inserts and tells whether the row is new; a repeated dedupe key is skipped. */
  insert: async (db: Db, row: PrintJobRow): Promise<boolean> => {
    const result = await db
      .insertInto('print_jobs')
      .values({ ...row, bytes: asBlob(row.bytes) })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  },

  findById: (db: Db, id: string) =>
    db.selectFrom('print_jobs').selectAll().where('id', '=', id).executeTakeFirst(),

  update: (db: Db, id: string, changes: Partial<Omit<PrintJobRow, 'id' | 'bytes'>>) =>
    db.updateTable('print_jobs').set(changes).where('id', '=', id).execute(),

  /** Jobs of a document that are not cancelled (auto-print prints a note once, whatever came before). */
  liveOfDocument: (db: Db, documentId: string) =>
    db
      .selectFrom('print_jobs')
      .select(['id', 'status', 'reason'])
      .where('document_id', '=', documentId)
      .where('status', '!=', 'cancelled')
      .execute(),

  /**
   * The oldest unfinished job of each printer, in queue order: a printer prints its receipts in the order
   * they were queued, so a newer job never overtakes one waiting for paper.
   */
  headsOfQueues: (db: Db) =>
    db
      .selectFrom('print_jobs as j')
      .selectAll()
      .where('j.status', '=', 'pending')
      .where('j.printer_id', 'is not', null)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('print_jobs as older')
              .select('older.id')
              .whereRef('older.printer_id', '=', 'j.printer_id')
              .where('older.status', 'in', ['pending', 'printing'])
              .where((o) =>
                o.or([
                  o('older.created_at', '<', o.ref('j.created_at')),
                  o.and([
                    o('older.created_at', '=', o.ref('j.created_at')),
                    o(sql.ref('older.rowid'), '<', sql.ref('j.rowid')),
                  ]),
                ]),
              ),
          ),
        ),
      )
      .execute(),

  /** A new job (or a retry) wakes the printer's queue: the job it waits behind is tried now. */
  wakePrinter: (db: Db, printerId: string, now: string) =>
    db
      .updateTable('print_jobs')
      .set({ next_try_at: now })
      .where('printer_id', '=', printerId)
      .where('status', '=', 'pending')
      .where('next_try_at', '>', now)
      .execute(),

  list: (
    db: Db,
    companyId: string,
    filters: { status?: PrintJobStatus | undefined; documentId?: string | undefined },
    page: number,
    pageSize: number,
  ) => {
    let query = db.selectFrom('print_jobs').where('company_id', '=', companyId);
    if (filters.status !== undefined) query = query.where('status', '=', filters.status);
    if (filters.documentId !== undefined) query = query.where('document_id', '=', filters.documentId);
    return pageOf(
      query,
      (q) =>
        q
          .select([...SUMMARY_COLUMNS, sql<number>`length(bytes)`.as('size')])
          .orderBy('created_at', 'desc')
          .orderBy(sql`rowid`, 'desc'),
      pageSize,
      (page - 1) * pageSize,
    );
  },
};
