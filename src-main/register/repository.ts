// Rows of register sessions, their movements and voids, and what the shift report reads about the
// session's notes. The only module of src-main/register that writes SQL.
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import type { RegisterMovementsTable, RegisterSessionsTable, RegisterVoidsTable } from '../db/schema.ts';
import type { ReportOperator } from './report.ts';

export type SessionRow = RegisterSessionsTable;
export type MovementRow = RegisterMovementsTable;
export type VoidRow = RegisterVoidsTable;

export interface SessionFilter {
  status?: 'aberta' | 'fechada' | undefined;
  caixa?: string | undefined;
  /** Opened at or after this instant / before this instant (ISO, UTC: the local days' bounds). */
  from?: string | undefined;
  before?: string | undefined;
}

export const registerRepository = {
  async insertSession(db: Db, row: SessionRow): Promise<void> {
    await db.insertInto('register_sessions').values(row).execute();
  },

  findSession(db: Db, id: string): Promise<SessionRow | undefined> {
    return db.selectFrom('register_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  },

  openSessionOf(db: Db, companyId: string, caixa: string): Promise<SessionRow | undefined> {
    return db
      .selectFrom('register_sessions')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('caixa', '=', caixa)
      .where('status', '=', 'aberta')
      .executeTakeFirst();
  },

  async listSessions(
    db: Db,
    companyId: string,
    filter: SessionFilter,
    window: { limit: number; offset: number },
  ): Promise<{ rows: SessionRow[]; total: number }> {
    let query = db.selectFrom('register_sessions').where('company_id', '=', companyId);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.caixa !== undefined) query = query.where('caixa', '=', filter.caixa);
    if (filter.from !== undefined) query = query.where('opened_at', '>=', filter.from);
    if (filter.before !== undefined) query = query.where('opened_at', '<', filter.before);
    const counted = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    const rows = await query
      .selectAll()
      .orderBy('opened_at', 'desc')
      .orderBy('id')
      .limit(window.limit)
      .offset(window.offset)
      .execute();
    return { rows, total: Number(counted?.n ?? 0) };
  },

  async closeSession(
    db: Db,
    id: string,
    values: Pick<SessionRow, 'closed_by' | 'closed_at' | 'contagem' | 'esperado' | 'report'>,
  ): Promise<boolean> {
    const result = await db
      .updateTable('register_sessions')
      .set({ ...values, status: 'fechada' })
      .where('id', '=', id)
      .where('status', '=', 'aberta')
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  },

  async insertMovement(db: Db, row: MovementRow): Promise<void> {
    await db.insertInto('register_movements').values(row).execute();
  },

  async setMovementPrintJob(db: Db, id: string, jobId: string): Promise<void> {
    await db.updateTable('register_movements').set({ print_job_id: jobId }).where('id', '=', id).execute();
  },

  movementsOf(db: Db, sessionIds: readonly string[]): Promise<MovementRow[]> {
    if (sessionIds.length === 0) return Promise.resolve([]);
    return (
      db
        .selectFrom('register_movements')
        .selectAll()
        .where('session_id', 'in', sessionIds)
        .orderBy('created_at')
        // Same instant (a manual clock, a fast cashier): the order they were written in.
        .orderBy(sql`rowid`)
        .execute()
    );
  },

  async insertVoid(db: Db, row: VoidRow): Promise<void> {
    await db.insertInto('register_voids').values(row).execute();
  },

  voidsOf(db: Db, sessionId: string): Promise<VoidRow[]> {
    return db
      .selectFrom('register_voids')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy(sql`rowid`)
      .execute();
  },

  /** The notes a session's sales produced, with what the report reads of them. */
  documentsOf(db: Db, sessionId: string) {
    return db
      .selectFrom('documents')
      .select(['id', 'n_nf', 'serie', 'status', 'replaced_by', 'v_nf', 'xml'])
      .where('register_session_id', '=', sessionId)
      .orderBy('created_at')
      .orderBy(sql`rowid`)
      .execute();
  },

  /** Notes that stand as sales, per session (the SessionView's `vendas.quantidade`). */
  async saleCounts(db: Db, sessionIds: readonly string[]): Promise<Map<string, number>> {
    if (sessionIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('documents')
      .select(['register_session_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('register_session_id', 'in', sessionIds)
      .where((eb) =>
        eb.or([
          eb('status', 'in', ['autorizada', 'contingencia']),
          eb.and([eb('status', '=', 'processando'), eb('replaced_by', 'is', null)]),
        ]),
      )
      .groupBy('register_session_id')
      .execute();
    return new Map(rows.map((r) => [r.register_session_id ?? '', Number(r.n)]));
  },

  async operatorRefs(db: Db, ids: ReadonlyArray<string | null>): Promise<Map<string, ReportOperator>> {
    const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
    if (wanted.length === 0) return new Map();
    const rows = await db
      .selectFrom('operators')
      .select(['id', 'codigo', 'nome'])
      .where('id', 'in', wanted)
      .execute();
    return new Map(rows.map((r) => [r.id, { id: r.id, codigo: r.codigo, nome: r.nome }]));
  },
};
