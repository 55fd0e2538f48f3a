// Persistence of API keys (hashed) and organizations.
import type { Db } from '../db/client.ts';
import { pageOf } from '../db/paginate.ts';
import type { ApiKeysTable, OrganizationsTable } from '../db/schema.ts';

export type ApiKeyRow = ApiKeysTable;

export const apiKeysRepository = {
  insertOrganization: (db: Db, row: OrganizationsTable) =>
    db.insertInto('organizations').values(row).execute(),

  findOrganization: (db: Db, id: string) =>
    db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst(),

  listOrganizations: (db: Db) =>
    db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('id').execute(),

  insert: (db: Db, row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute(),

  findByLookup: (db: Db, lookup: string) =>
    db.selectFrom('api_keys').selectAll().where('lookup', '=', lookup).executeTakeFirst(),

  findById: (db: Db, id: string) =>
    db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst(),

  listByOrganization: async (
    db: Db,
    organizationId: string,
    companyId: string | null,
    page: number,
    pageSize: number,
  ) => {
    let query = db.selectFrom('api_keys').where('organization_id', '=', organizationId);
    if (companyId !== null) query = query.where('company_id', '=', companyId);
    return pageOf(
      query,
      (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id'),
      pageSize,
      (page - 1) * pageSize,
    );
  },

  update: (db: Db, id: string, changes: Partial<Omit<ApiKeyRow, 'id'>>) =>
    db.updateTable('api_keys').set(changes).where('id', '=', id).execute(),
};
