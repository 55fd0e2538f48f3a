// Persistence of the transmission queue: one row per message to deliver to the authority.
import { whileLeased, type Db } from '../db/client.ts';
import type { OutboxTable } from '../db/schema.ts';
import type { Selectable, Insertable } from 'kysely';

export type OutboxRow = Selectable<OutboxTable>;

export interface QueuedMessage {
  documentId: string | null;
  companyId: string;
  /** The operation. */
  kind: OutboxTable['kind'];
  /** The document kind (KindId): its authority and its protocol. */
  docKind: string;
  /** tpEvento, for events. */
  eventType?: string | null;
  /** A substitution's replacement, which must be authorized before the event is sent. */
  waitsForDocumentId?: string | null;
  singleNumber?: boolean;
  /** The signed message; AUTHORIZATION_MESSAGE for an authorization (it is the document's own XML). */
  message: string;
  now: string;
}

/**
 * An authorization row's message: the row references its document, whose signed XML (`documents.xml`) the
 * worker sends, instead of keeping a copy of it (issue 18: a note's XML is stored once). A row sent before
 * the document was re-signed keeps the XML it sent (outboxRepository.keepSentMessages).
 */
export const AUTHORIZATION_MESSAGE = '';

export const outboxRepository = {
  enqueue: async (db: Db, row: Insertable<OutboxTable>): Promise<number> => {
    const inserted = await db.insertInto('outbox').values(row).returning('id').executeTakeFirstOrThrow();
    return inserted.id;
  },

  /**
   * Queues one message to deliver now: the common case of `enqueue`. The row says what the message is, so
   * the queue never reads it: its operation (`kind`), the document kind, the event type, the document a
   * substitution waits for and whether a void covers a single number.
   */
  enqueueMessage: (db: Db, m: QueuedMessage): Promise<number> =>
    outboxRepository.enqueue(db, {
      document_id: m.documentId,
      company_id: m.companyId,
      kind: m.kind,
      doc_kind: m.docKind,
      event_type: m.eventType ?? null,
      waits_for_document_id: m.waitsForDocumentId ?? null,
      single_number: m.singleNumber === true ? 1 : 0,
      message: m.message,
      state: 'pending',
      attempts: 0,
      next_try_at: m.now,
      last_error: null,
      last_c_stat: null,
      created_at: m.now,
      updated_at: m.now,
    }),

  /** The message an authorization row delivers(ed): its own copy, or else the document's signed XML. */
  messageOf: (row: Pick<OutboxRow, 'message'>, documentXml: string): string =>
    row.message === AUTHORIZATION_MESSAGE ? documentXml : row.message,

  /**
   * A document is about to be re-signed: its authorization rows that were sent keep the XML they sent
   * (`xml`, the one being replaced) instead of referencing the document's new one.
   */
  keepSentMessages: (db: Db, documentId: string, xml: string) =>
    db
      .updateTable('outbox')
      .set({ message: xml })
      .where('document_id', '=', documentId)
      .where('kind', '=', 'autorizacao')
      .where('message', '=', AUTHORIZATION_MESSAGE)
      .where('attempts', '>', 0)
      .execute(),

  findById: (db: Db, id: number) =>
    db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst(),

  /** Event messages (CC-e, cancellation) of these notes not yet settled by the authority. */
  openEventsFor: (db: Db, documentIds: readonly string[]) =>
    db
      .selectFrom('outbox')
      .select(['document_id', 'message', 'event_type'])
      .where('document_id', 'in', documentIds)
      .where('kind', '=', 'evento')
      .where('state', 'in', ['pending', 'in_flight', 'unknown'])
      .execute(),

  openForDocument: (db: Db, documentId: string) =>
    db
      .selectFrom('outbox')
      .selectAll()
      .where('document_id', '=', documentId)
      .where('state', 'in', ['pending', 'in_flight', 'unknown'])
      .orderBy('id')
      .execute(),

  due: (db: Db, now: string, limit: number) =>
    db
      .selectFrom('outbox')
      .selectAll()
      .where('state', 'in', ['pending', 'unknown'])
      .where('next_try_at', '<=', now)
      .orderBy('next_try_at')
      .orderBy('id')
      .limit(limit)
      .execute(),

  update: (db: Db, id: number, changes: Partial<Omit<OutboxRow, 'id'>>) =>
    db.updateTable('outbox').set(changes).where('id', '=', id).execute(),

  /**
   * A send interrupted by a crash may or may not have reached the authority: look it up before resending.
   * Only rows whose lease this instance can take: in server mode a row in flight under another live
   * instance's lease is being sent right now, and that instance settles it.
   */
  recoverInterrupted: async (db: Db, now: string): Promise<number> => {
    const inFlight = await db.selectFrom('outbox').select('id').where('state', '=', 'in_flight').execute();
    let recovered = 0;
    for (const { id } of inFlight) {
      const result = await whileLeased(db, 'outbox', id, () =>
        db
          .updateTable('outbox')
          .set({
            state: 'unknown',
            next_try_at: now,
            updated_at: now,
            last_error: 'interrupted while sending',
          })
          .where('id', '=', id)
          // Read again under the lease: the instance that held it may have settled the row meanwhile.
          .where('state', '=', 'in_flight')
          .executeTakeFirst(),
      );
      recovered += Number(result?.numUpdatedRows ?? 0);
    }
    return recovered;
  },

  counts: (db: Db) =>
    db
      .selectFrom('outbox')
      .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('state')
      .execute(),
};
