// One page of a kind's documents for its §4.6 list (status and creation period filters, newest first): the
// query every kind's list route runs; the kind maps its filter's status names and draws each row's view.
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../db/client.ts';
import { pageOf, type RowWindow } from '../db/paginate.ts';
import type { Database } from '../db/schema.ts';
import type { DocumentRow } from './repository.ts';

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
  return pageOf(
    narrow === undefined ? query : narrow(query),
    (q) => newestFirst(q.selectAll()),
    window.limit,
    window.offset,
  );
}
