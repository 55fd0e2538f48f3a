// Persistence of customers (NF-e recipients / identified NFC-e consumers).
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import { isPostgres } from '../db/dialect.ts';
import { pageOf, type RowWindow } from '../db/paginate.ts';
import type { CustomersTable } from '../db/schema.ts';

export type CustomerRow = CustomersTable;

export const customersRepository = {
  insert: (db: Db, row: CustomerRow) => db.insertInto('customers').values(row).execute(),

  findById: (db: Db, id: string) =>
    db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst(),

  findByTaxId: (db: Db, companyId: string, field: 'cpf' | 'cnpj', value: string) =>
    db
      .selectFrom('customers')
      .selectAll()
      .where('company_id', '=', companyId)
      .where(field, '=', value)
      .executeTakeFirst(),

  replace: (db: Db, id: string, row: Omit<CustomerRow, 'id' | 'company_id' | 'created_at'>) =>
    db.updateTable('customers').set(row).where('id', '=', id).execute(),

  list: async (db: Db, companyId: string, q: string | undefined, window: RowWindow) => {
    let query = db.selectFrom('customers').where('company_id', '=', companyId);
    if (q !== undefined) {
      const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where((eb) =>
        eb.or([
          // SQLite's LIKE ignores ASCII case; PostgreSQL's (server mode) does not, its ILIKE does.
          eb(sql`x_nome`, isPostgres(db) ? 'ilike' : 'like', sql`${like} escape '\\'`),
          eb('cpf', '=', q.replace(/\D/g, '')),
          eb('cnpj', '=', q.replace(/[.\-/\s]/g, '').toUpperCase()),
        ]),
      );
    }
    return pageOf(query, (q) => q.selectAll().orderBy('x_nome').orderBy('id'), window.limit, window.offset);
  },
};
