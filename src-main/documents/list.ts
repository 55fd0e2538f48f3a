// One page of a kind's documents for its §4.6 list (status and creation period filters, newest first): the
// query every kind's list route runs; the kind maps its filter's status names and draws each row's view.
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/client.ts';
import { pageOf, type RowWindow } from '../db/paginate.ts';
import type { Database } from '../db/schema.ts';
import type { DocumentRow } from './repository.ts';
import { withProc } from './stored-xml.ts';

export interface KindListFilter {
  /** The stored status (the kind maps its API's names, e.g. `rejeitada` is stored `erro`). */
  status?: DocumentRow['status'] | undefined;
  /** Created at or after: a date or an instant. */
  from?: string | undefined;
  /** Created before the end of this date, or before this instant. */
  to?: string | undefined;
}

/** The base query of a kind's list, which a kind may narrow further (its own search). */
export type KindListQuery = SelectQueryBuilder<Database, 'documents', object>;

/** A bare date ends at the end of its day; an instant is taken as given (exclusive). */
const endOf = (to: string) => (/^\d{4}-\d{2}-\d{2}$/.test(to) ? `${to}T99` : to);

/** Every list shows the newest first; `id` breaks ties so that pages never repeat or skip a row. */
export const newestFirst = <O>(query: SelectQueryBuilder<Database, 'documents', O>) =>
  query.orderBy('created_at', 'desc').orderBy('id');

/** The filters of the NF-e/NFC-e list (/v1/nfe, /v1/nfce): the models shown, stored statuses, emission dates. */
export interface NfListFilter {
  modelos: readonly number[];
  statuses?: readonly DocumentRow['status'][] | undefined;
  /** dhEmi on or after this date. */
  from?: string | undefined;
  /** dhEmi on or before this date. */
  to?: string | undefined;
}

/** The base query of the NF-e/NFC-e list, shared by the route and by what checks its query plan. */
export function nfListQuery(db: Db, companyId: string, filter: NfListFilter): KindListQuery {
  let query: KindListQuery = db
    .selectFrom('documents')
    .where('company_id', '=', companyId)
    .where('modelo', 'in', filter.modelos);
  if (filter.statuses !== undefined) query = query.where('status', 'in', filter.statuses);
  if (filter.from !== undefined) query = query.where('dh_emi', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('dh_emi', '<', `${filter.to}T99`);
  return query;
}

/** The base query of a kind's list: its model, and the status and creation period of its filter. */
export function kindListQuery(
  db: Db,
  companyId: string,
  modelo: number,
  filter: KindListFilter,
): KindListQuery {
  let query: KindListQuery = db
    .selectFrom('documents')
    .where('company_id', '=', companyId)
    .where('modelo', '=', modelo);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<', endOf(filter.to));
  return query;
}

export async function pageOfKind(
  db: Db,
  companyId: string,
  modelo: number,
  filter: KindListFilter,
  window: RowWindow,
  /** The kind's own filter beyond status and period (the DC-e's search `q`); the count sees it too. */
  narrow?: (query: KindListQuery) => KindListQuery,
): Promise<{ rows: DocumentRow[]; total: number }> {
  const query = kindListQuery(db, companyId, modelo, filter);
  const page = await pageOf(
    narrow === undefined ? query : narrow(query),
    (q) => newestFirst(q.selectAll()),
    window.limit,
    window.offset,
  );
  // Each row's authorized copy whole, as documentsRepository reads it (stored-xml.ts).
  return { rows: page.rows.map((row) => withProc(row)), total: page.total };
}

/** Where a keyset page starts: just after this row of the list order, the `offset`-th row when it was read. */
export interface ListCursor {
  createdAt: string;
  id: string;
  offset: number;
}

/** The rows after `cursor` in the list order (newest first, then id): rows written since never shift a page. */
export function afterCursor(query: KindListQuery, cursor: ListCursor): KindListQuery {
  return query
    .where('created_at', '<=', cursor.createdAt)
    .where((eb) =>
      eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '>', cursor.id)]),
      ]),
    );
}

/**
 * The NF-e/NFC-e list's total from the counters of migrations 0030 and 0032 (per company, model, status,
 * emission day and creation day, kept exact by triggers): a sum of a few counters per day and status, instead
 * of a count of every listed row, which took 10–20 ms at 100k notes even from a covering index.
 */
export async function nfListTotal(db: Db, companyId: string, filter: NfListFilter): Promise<number> {
  const row = await nfListTotalQuery(db, companyId, filter).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The counters of the rows a filter lists. */
function nfListCounters(db: Db, companyId: string, filter: NfListFilter) {
  let query = db
    .selectFrom('document_counts')
    .where('company_id', '=', companyId)
    .where('modelo', 'in', filter.modelos);
  if (filter.statuses !== undefined) query = query.where('status', 'in', filter.statuses);
  // dh_emi >= 'AAAA-MM-DD' and dh_emi < 'AAAA-MM-DDT99' compare as its date part does.
  if (filter.from !== undefined) query = query.where('dia', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('dia', '<=', filter.to);
  return query;
}

/** The query nfListTotal runs (the bench reads its plan). */
export function nfListTotalQuery(db: Db, companyId: string, filter: NfListFilter) {
  return nfListCounters(db, companyId, filter).select(sql<number | null>`sum(n)`.as('n'));
}

/** How many listed rows each creation day holds, newest day first (migration 0032's counters). */
export function nfListDaysQuery(db: Db, companyId: string, filter: NfListFilter) {
  return nfListCounters(db, companyId, filter)
    .select(['created_day', sql<number | string>`sum(n)`.as('n')])
    .groupBy('created_day')
    .orderBy('created_day', 'desc');
}

/**
 * From this offset on, a page skips whole creation days by their counters (one grouped read of a few hundred
 * counters) before it walks the list index, and walks it within the day its first row falls in only.
 */
export const SKIP_DAYS_FROM_OFFSET = 1000;

/**
 * Where the `offset`-th listed row is, by the counters: the creation day it falls in and how many rows the newer
 * days hold (null past the last row); and the total.
 */
async function dayOfOffset(
  db: Db,
  companyId: string,
  filter: NfListFilter,
  offset: number,
): Promise<{ day: { created: string; before: number } | null; total: number }> {
  const days = await nfListDaysQuery(db, companyId, filter).execute();
  let total = 0;
  let day: { created: string; before: number } | null = null;
  for (const row of days) {
    const n = Number(row.n);
    if (day === null && total + n > offset) day = { created: row.created_day, before: total };
    total += n;
  }
  return { day, total };
}

/** Which rows of a list one request reads: from an offset, or just after a keyset cursor. */
export type ListWindowOf = { limit: number; offset: number } | { limit: number; cursor: ListCursor };

/**
 * One page of the NF-e/NFC-e list, with its total, the position of its first row and the cursor of the row
 * after its last (null on the last page). One row more than the page is read to know whether one follows.
 */
export async function nfListPage<Row extends { id: string; created_at: string }>(
  db: Db,
  companyId: string,
  filter: NfListFilter,
  window: ListWindowOf,
  select: (query: KindListQuery) => SelectQueryBuilder<Database, 'documents', Row>,
  /** From which offset whole days are skipped by their counters (tests lower it to reach it with few rows). */
  skipDaysFrom = SKIP_DAYS_FROM_OFFSET,
): Promise<{ rows: Row[]; total: number; offset: number; next: ListCursor | null }> {
  const base = nfListQuery(db, companyId, filter);
  const cursor = 'cursor' in window ? window.cursor : null;
  const offset = cursor === null ? (window as { offset: number }).offset : cursor.offset;
  const paged = cursor === null ? base : afterCursor(base, cursor);
  let page = newestFirst(select(paged)).limit(window.limit + 1);
  let counted: number | null = null;
  if (cursor === null && offset > 0) {
    // Deep: the days newer than the one the page starts in are skipped by their counters, and the index is
    // walked from that day's last row.
    let within = base;
    let skip = offset;
    if (offset >= skipDaysFrom) {
      const found = await dayOfOffset(db, companyId, filter, offset);
      counted = found.total;
      if (found.day === null) return { rows: [], total: found.total, offset, next: null };
      // created_at < 'AAAA-MM-DDT99' takes that day and the older ones (created_at is an ISO instant).
      within = base.where('created_at', '<', `${found.day.created}T99`);
      skip = offset - found.day.before;
    }
    // The rows skipped are walked in the list index alone (ids), and only the page's rows are then read:
    // at 72k rows skipped of 100k, 0.55–0.8 of the time of skipping whole rows.
    const ids = newestFirst(within.select('id'))
      .limit(window.limit + 1)
      .offset(skip);
    page = newestFirst(select(db.selectFrom('documents').where('id', 'in', ids)));
  }
  const [read, total] = await Promise.all([page.execute(), counted ?? nfListTotal(db, companyId, filter)]);
  const rows = read.slice(0, window.limit);
  const last = rows[rows.length - 1];
  const next =
    read.length > window.limit && last !== undefined
      ? { createdAt: last.created_at, id: last.id, offset: offset + rows.length }
      : null;
  return { rows, total, offset, next };
}
