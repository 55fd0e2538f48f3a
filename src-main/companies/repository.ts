// Persistence of companies, their numbering sequences and their A1 certificates.
import type { Db } from '../db/client.ts';
import { pageOf } from '../db/paginate.ts';
import type { Ambiente, CertificatesTable, CompaniesTable, NumberSequencesTable } from '../db/schema.ts';

export type CompanyRow = CompaniesTable;
export type CertificateRow = CertificatesTable;

export const companiesRepository = {
  insert: (db: Db, row: CompanyRow) => db.insertInto('companies').values(row).execute(),

  findById: (db: Db, id: string) =>
    db.selectFrom('companies').selectAll().where('id', '=', id).executeTakeFirst(),

  findByCnpj: (db: Db, cnpj: string) =>
    db.selectFrom('companies').selectAll().where('cnpj', '=', cnpj).executeTakeFirst(),

  /** Up to `limit` companies of the organization: enough to tell none, one or several. */
  firstOfOrganization: (db: Db, organizationId: string, limit: number) =>
    db
      .selectFrom('companies')
      .selectAll()
      .where('organization_id', '=', organizationId)
      // id after the time: companies created in the same millisecond come in one order on both stores.
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute(),

  listByOrganization: async (
    db: Db,
    organizationId: string,
    onlyId: string | null,
    page: number,
    pageSize: number,
  ) => {
    let query = db.selectFrom('companies').where('organization_id', '=', organizationId);
    if (onlyId !== null) query = query.where('id', '=', onlyId);
    return pageOf(
      query,
      (q) => q.selectAll().orderBy('created_at').orderBy('id'),
      pageSize,
      (page - 1) * pageSize,
    );
  },

  update: (db: Db, id: string, changes: Partial<Omit<CompanyRow, 'id'>>) =>
    db.updateTable('companies').set(changes).where('id', '=', id).execute(),

  insertSequences: (db: Db, rows: NumberSequencesTable[]) =>
    db
      .insertInto('number_sequences')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .execute(),

  listSequences: (db: Db, companyId: string, ambiente: Ambiente | null) => {
    let query = db.selectFrom('number_sequences').selectAll().where('company_id', '=', companyId);
    if (ambiente !== null) query = query.where('ambiente', '=', ambiente);
    return query.orderBy('ambiente').orderBy('modelo').orderBy('serie').execute();
  },

  activeCertificate: (db: Db, companyId: string) =>
    db
      .selectFrom('certificates')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('active', '=', 1)
      .executeTakeFirst(),

  replaceActiveCertificate: async (db: Db, row: CertificateRow) => {
    await db
      .updateTable('certificates')
      .set({ active: 0 })
      .where('company_id', '=', row.company_id)
      .execute();
    await db.insertInto('certificates').values(row).execute();
  },
};
