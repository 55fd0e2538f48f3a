// The services catalogue gains the tax classification a service's NFS-e carries: IBS/CBS CST, cClassTrib and
// the operation indicator (cIndOp) of the DPS's IBSCBS group, and the PIS/COFINS CST of tribFed. All nullable:
// null means the default (src-shared/nfse-ibscbs.ts), so the services already registered keep issuing.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('services')
    .addColumn('ibscbs_cst', 'text', (c) => c.check(sql`ibscbs_cst is null or length(ibscbs_cst) = 3`))
    .execute();
  await db.schema
    .alterTable('services')
    .addColumn('c_class_trib', 'text', (c) => c.check(sql`c_class_trib is null or length(c_class_trib) = 6`))
    .execute();
  await db.schema
    .alterTable('services')
    .addColumn('c_ind_op', 'text', (c) => c.check(sql`c_ind_op is null or length(c_ind_op) = 6`))
    .execute();
  await db.schema
    .alterTable('services')
    .addColumn('pis_cofins_cst', 'text', (c) =>
      c.check(sql`pis_cofins_cst is null or length(pis_cofins_cst) = 2`),
    )
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
