// Persistence of the services catalogue (migration 0025): what the NFS-e form picks and where the NFS-e kind
// reads the ISS rate a shop set for a national tax code.
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import { pageOf, type RowWindow } from '../db/paginate.ts';
import type { ServicesTable } from '../db/schema.ts';
import { containsPattern, foldColumn } from './search-fold.ts';

export type ServiceRow = ServicesTable;

/** The classification columns of migration 0026 default to null (the NFS-e's defaults) when not given. */
type ClassificationColumns = 'ibscbs_cst' | 'c_class_trib' | 'c_ind_op' | 'pis_cofins_cst';
export type ServiceInsert = Omit<ServiceRow, ClassificationColumns> &
  Partial<Pick<ServiceRow, ClassificationColumns>>;

export interface ServiceListFilter {
  q?: string | undefined;
  ativo?: boolean | undefined;
  codigoTributacaoNacional?: string | undefined;
}

export const servicesRepository = {
  insert: (db: Db, row: ServiceInsert) => db.insertInto('services').values(row).execute(),
  find: (db: Db, id: string) => db.selectFrom('services').selectAll().where('id', '=', id).executeTakeFirst(),
  findByCode: (db: Db, companyId: string, codigo: string) =>
    db
      .selectFrom('services')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('codigo', '=', codigo)
      .executeTakeFirst(),
  /**
   * The active service of a company with this national tax code, for the NFS-e's ISS rate. The service layer
   * keeps one rate per code among active services, so which of several rows answers does not change the
   * rate; a row that sets one is still preferred, then the lowest code, so the answer is stable.
   */
  findActiveByNationalCode: (db: Db, companyId: string, code: string) =>
    db
      .selectFrom('services')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('codigo_tributacao_nacional', '=', code)
      .where('active', '=', 1)
      .orderBy(sql`aliquota_iss is null`)
      .orderBy('codigo')
      .orderBy('id')
      .executeTakeFirst(),
  /** Active services with this national code other than `exceptId` that set a rate (the one-rate rule). */
  activeRatesOfNationalCode: (db: Db, companyId: string, code: string, exceptId: string | null) => {
    let query = db
      .selectFrom('services')
      .select(['id', 'codigo', 'aliquota_iss'])
      .where('company_id', '=', companyId)
      .where('codigo_tributacao_nacional', '=', code)
      .where('active', '=', 1)
      .where('aliquota_iss', 'is not', null);
    if (exceptId !== null) query = query.where('id', '!=', exceptId);
    return query.orderBy('codigo').execute();
  },
  update: (db: Db, id: string, changes: Partial<ServiceRow>) =>
    db.updateTable('services').set(changes).where('id', '=', id).execute(),
  list: async (db: Db, companyId: string, filter: ServiceListFilter, window: RowWindow) => {
    let query = db.selectFrom('services').where('company_id', '=', companyId);
    if (filter.ativo !== undefined) query = query.where('active', '=', filter.ativo ? 1 : 0);
    if (filter.codigoTributacaoNacional !== undefined)
      query = query.where('codigo_tributacao_nacional', '=', filter.codigoTributacaoNacional);
    if (filter.q !== undefined) {
      const q = filter.q;
      const like = containsPattern(q);
      query = query.where((eb) =>
        eb.or([
          sql<boolean>`${foldColumn('descricao')} like ${like} escape '\\'`,
          eb('codigo', '=', q),
          eb('codigo_tributacao_nacional', '=', q),
        ]),
      );
    }
    return pageOf(
      query,
      (q) => q.selectAll().orderBy('descricao').orderBy('id'),
      window.limit,
      window.offset,
    );
  },
};
