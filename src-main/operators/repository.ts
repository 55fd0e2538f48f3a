// Persistence of operators, their sessions, supervisor authorizations and the audit of their actions.
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import type {
  OperatorActionsTable,
  OperatorAuthorizationsTable,
  OperatorSessionsTable,
  OperatorsTable,
} from '../db/schema.ts';

export type OperatorRow = OperatorsTable;
export type OperatorSessionRow = OperatorSessionsTable;
export type OperatorAuthorizationRow = OperatorAuthorizationsTable;
export type OperatorActionRow = OperatorActionsTable;

export const operatorsRepository = {
  insert: (db: Db, row: OperatorRow) => db.insertInto('operators').values(row).execute(),

  findById: (db: Db, id: string) =>
    db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst(),

  findByIds: async (db: Db, ids: string[]) =>
    ids.length === 0 ? [] : db.selectFrom('operators').selectAll().where('id', 'in', ids).execute(),

  findByCodigo: (db: Db, companyId: string, codigo: string) =>
    db
      .selectFrom('operators')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('codigo', '=', codigo)
      .executeTakeFirst(),

  list: (db: Db, companyId: string, ativo: boolean | undefined) => {
    let query = db.selectFrom('operators').selectAll().where('company_id', '=', companyId);
    if (ativo !== undefined) query = query.where('ativo', '=', ativo ? 1 : 0);
    return query
      .orderBy(sql`cast(codigo as integer)`)
      .orderBy('codigo')
      .execute();
  },

  count: async (db: Db, companyId: string) => {
    const row = await db
      .selectFrom('operators')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** The largest numeric code in use, or 0. */
  maxCodigo: async (db: Db, companyId: string) => {
    const row = await db
      .selectFrom('operators')
      .select(sql<number | null>`max(cast(codigo as integer))`.as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  update: (db: Db, id: string, changes: Partial<Omit<OperatorRow, 'id' | 'company_id' | 'created_at'>>) =>
    db.updateTable('operators').set(changes).where('id', '=', id).execute(),

  /** One more wrong PIN, counted in the database so that parallel guesses are all counted. */
  countWrongPin: async (db: Db, id: string, now: string) => {
    const row = await db
      .updateTable('operators')
      .set({ failed_pins: sql`failed_pins + 1`, updated_at: now })
      .where('id', '=', id)
      .returning(['failed_pins', 'lock_count'])
      .executeTakeFirstOrThrow();
    return row;
  },

  insertSession: (db: Db, row: OperatorSessionRow) =>
    db.insertInto('operator_sessions').values(row).execute(),

  findSessionByHash: (db: Db, tokenHash: string) =>
    db.selectFrom('operator_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst(),

  endSession: (db: Db, id: string, now: string) =>
    db
      .updateTable('operator_sessions')
      .set({ ended_at: now })
      .where('id', '=', id)
      .where('ended_at', 'is', null)
      .execute(),

  endSessionsOf: (db: Db, operatorId: string, now: string) =>
    db
      .updateTable('operator_sessions')
      .set({ ended_at: now })
      .where('operator_id', '=', operatorId)
      .where('ended_at', 'is', null)
      .execute(),

  insertAuthorization: (db: Db, row: OperatorAuthorizationRow) =>
    db.insertInto('operator_authorizations').values(row).execute(),

  findAuthorizationByHash: (db: Db, tokenHash: string) =>
    db
      .selectFrom('operator_authorizations')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst(),

  /** Marks an authorization used; false when another request used it first (single use). */
  useAuthorization: async (db: Db, id: string, now: string, documentId: string | null) => {
    const result = await db
      .updateTable('operator_authorizations')
      .set({ used_at: now, document_id: documentId })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  insertAction: (db: Db, row: OperatorActionRow) => db.insertInto('operator_actions').values(row).execute(),

  listActions: (db: Db, companyId: string, filter: { documentId?: string; operatorId?: string }) => {
    let query = db.selectFrom('operator_actions').selectAll().where('company_id', '=', companyId);
    if (filter.documentId !== undefined) query = query.where('document_id', '=', filter.documentId);
    if (filter.operatorId !== undefined) query = query.where('operator_id', '=', filter.operatorId);
    // rowid after the time: rows written in the same millisecond keep the order they were written in.
    return query
      .orderBy('created_at')
      .orderBy(sql`rowid`)
      .execute();
  },
};
