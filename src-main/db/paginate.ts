// One page of a filtered query plus the total count, for the list endpoints (seed §4.1/§4.2/§4.6 shapes).
import { sql, type SelectQueryBuilder } from 'kysely';

/** The rows one page of a list reads: at most `limit`, after skipping `offset`. */
export interface RowWindow {
  limit: number;
  offset: number;
}

/**
 * `base` carries the filters; `list` adds the selection and the order. Both queries see the same filters,
 * so `total` always counts what the pages walk through.
 */
export async function pageOf<DB, TB extends keyof DB, Row>(
  base: SelectQueryBuilder<DB, TB, object>,
  list: (query: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, Row>,
  limit: number,
  offset: number,
): Promise<{ rows: Row[]; total: number }> {
  const [rows, count] = await Promise.all([
    list(base).limit(limit).offset(offset).execute(),
    base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number((count as { n: number }).n) };
}
