// Persistence of fiscal profiles and products.
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import { pageOf, type RowWindow } from '../db/paginate.ts';
import type { FiscalProfilesTable, ProductsTable } from '../db/schema.ts';
import { containsPattern, foldColumn } from './search-fold.ts';

export type FiscalProfileRow = FiscalProfilesTable;
export type ProductRow = ProductsTable;

export const catalogRepository = {
  insertProfile: (db: Db, row: FiscalProfileRow) => db.insertInto('fiscal_profiles').values(row).execute(),
  findProfile: (db: Db, id: string) =>
    db.selectFrom('fiscal_profiles').selectAll().where('id', '=', id).executeTakeFirst(),
  findProfileByName: (db: Db, companyId: string, name: string) =>
    db
      .selectFrom('fiscal_profiles')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('name', '=', name)
      .executeTakeFirst(),
  updateProfile: (db: Db, id: string, changes: Partial<FiscalProfileRow>) =>
    db.updateTable('fiscal_profiles').set(changes).where('id', '=', id).execute(),
  deleteProfile: (db: Db, id: string) => db.deleteFrom('fiscal_profiles').where('id', '=', id).execute(),
  defaultProfileOf: (db: Db, companyId: string) =>
    db
      .selectFrom('companies')
      .innerJoin('fiscal_profiles', 'fiscal_profiles.id', 'companies.default_fiscal_profile_id')
      .selectAll('fiscal_profiles')
      .where('companies.id', '=', companyId)
      .executeTakeFirst(),
  isDefaultProfile: async (db: Db, profileId: string) =>
    (await db
      .selectFrom('companies')
      .select('id')
      .where('default_fiscal_profile_id', '=', profileId)
      .executeTakeFirst()) !== undefined,
  productsUsingProfile: async (db: Db, profileId: string) =>
    Number(
      (
        await db
          .selectFrom('products')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('fiscal_profile_id', '=', profileId)
          .executeTakeFirstOrThrow()
      ).n,
    ),
  listProfiles: async (db: Db, companyId: string, window: RowWindow) => {
    const query = db.selectFrom('fiscal_profiles').where('company_id', '=', companyId);
    return pageOf(query, (q) => q.selectAll().orderBy('name').orderBy('id'), window.limit, window.offset);
  },

  insertProduct: (db: Db, row: ProductRow) => db.insertInto('products').values(row).execute(),
  findProduct: (db: Db, id: string) =>
    db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst(),
  findProductByCode: (db: Db, companyId: string, cProd: string) =>
    db
      .selectFrom('products')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('c_prod', '=', cProd)
      .executeTakeFirst(),
  updateProduct: (db: Db, id: string, changes: Partial<ProductRow>) =>
    db.updateTable('products').set(changes).where('id', '=', id).execute(),
  deleteProduct: (db: Db, id: string) => db.deleteFrom('products').where('id', '=', id).execute(),
  listProducts: async (
    db: Db,
    companyId: string,
    filter: { q?: string | undefined; cEAN?: string | undefined },
    window: RowWindow,
  ) => {
    let query = db.selectFrom('products').where('company_id', '=', companyId);
    if (filter.cEAN !== undefined) query = query.where('c_ean', '=', filter.cEAN);
    if (filter.q !== undefined) {
      const like = containsPattern(filter.q);
      query = query.where((eb) =>
        eb.or([
          sql<boolean>`${foldColumn('x_prod')} like ${like} escape '\\'`,
          eb('c_prod', '=', filter.q as string),
          eb('c_ean', '=', filter.q as string),
        ]),
      );
    }
    return pageOf(query, (q) => q.selectAll().orderBy('x_prod').orderBy('id'), window.limit, window.offset);
  },
};
