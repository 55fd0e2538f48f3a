// Sales of a company in the shared database, counted one way for the killed-instance test and the instance it
// kills (the test sets the instance's target from it): original attempts, not their contingency re-issues.
import type { Db } from '../../src-main/db/client.ts';

/** Original attempts only: a re-issue in contingency names the attempt it replaces in `replaces`. */
export async function salesOfCompany(db: Db, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('company_id', '=', companyId)
    .where('replaces', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
