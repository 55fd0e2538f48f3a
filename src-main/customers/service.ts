// Customers: create, replace, read and search, within one company.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { RowWindow } from '../db/paginate.ts';
import { newId } from '../ids.ts';
import { conflict, forbidden, notFound } from '../errors.ts';
import { findMunicipio } from '../reference/ibge.ts';
import type { CustomerCreate, CustomerView } from '../../src-shared/contracts/customers.ts';
import type { CompanyRow } from '../companies/repository.ts';
import { customersRepository, type CustomerRow } from './repository.ts';

function toView(row: CustomerRow): CustomerView {
  const hasAddress = row.x_lgr !== null || row.c_mun !== null;
  return {
    id: row.id,
    companyId: row.company_id,
    cpf: row.cpf,
    cnpj: row.cnpj,
    idEstrangeiro: row.id_estrangeiro,
    xNome: row.x_nome,
    ie: row.ie,
    indIEDest: row.ind_ie_dest,
    email: row.email,
    fone: row.fone,
    endereco: hasAddress
      ? {
          xLgr: row.x_lgr,
          nro: row.nro,
          xCpl: row.x_cpl,
          xBairro: row.x_bairro,
          cMun: row.c_mun,
          xMun: row.x_mun,
          uf: row.uf,
          cep: row.cep,
        }
      : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** indIEDest when the caller leaves it out: a person or a foreigner is never an ICMS contributor. */
function deriveIndIEDest(input: CustomerCreate): number {
  if (input.indIEDest !== undefined) return input.indIEDest;
  if (input.cnpj !== undefined && input.ie !== undefined) return input.ie === 'ISENTO' ? 2 : 1;
  return 9;
}

function fields(input: CustomerCreate, now: string): Omit<CustomerRow, 'id' | 'company_id' | 'created_at'> {
  const e = input.endereco;
  return {
    cpf: input.cpf ?? null,
    cnpj: input.cnpj ?? null,
    id_estrangeiro: input.idEstrangeiro ?? null,
    x_nome: input.xNome,
    ie: input.ie ?? null,
    ind_ie_dest: deriveIndIEDest(input),
    email: input.email ?? null,
    fone: input.fone ?? null,
    x_lgr: e?.xLgr ?? null,
    nro: e?.nro ?? null,
    x_cpl: e?.xCpl ?? null,
    x_bairro: e?.xBairro ?? null,
    c_mun: e?.cMun ?? null,
    x_mun: e === undefined ? null : (e.xMun ?? findMunicipio(e.cMun)?.xMun ?? null),
    uf: e?.uf ?? null,
    cep: e?.cep ?? null,
    updated_at: now,
  };
}

async function assertUniqueTaxId(db: Db, companyId: string, input: CustomerCreate, exceptId: string | null) {
  const field = input.cpf !== undefined ? 'cpf' : input.cnpj !== undefined ? 'cnpj' : null;
  if (field === null) return;
  const existing = await customersRepository.findByTaxId(
    db,
    companyId,
    field,
    (input.cpf ?? input.cnpj) as string,
  );
  if (existing !== undefined && existing.id !== exceptId) {
    throw conflict(`A customer with this ${field.toUpperCase()} already exists.`, [
      { field, error: `already registered as customer ${existing.id}` },
    ]);
  }
}

export async function createCustomer(db: Db, clock: Clock, company: CompanyRow, input: CustomerCreate) {
  const now = clock.now().toISOString();
  const row: CustomerRow = {
    id: newId(),
    company_id: company.id,
    created_at: now,
    ...fields(input, now),
  };
  await inTransaction(db, async (trx) => {
    await assertUniqueTaxId(trx, company.id, input, null);
    await customersRepository.insert(trx, row);
  });
  return toView(row);
}

/** 404 when no such customer exists; 403 when it belongs to a company the key cannot reach. */
export async function customerInCompanies(
  db: Db,
  id: string,
  reachable: (companyId: string) => Promise<boolean>,
) {
  const row = await customersRepository.findById(db, id);
  if (row === undefined) throw notFound('Customer');
  if (!(await reachable(row.company_id))) throw forbidden();
  return row;
}

export async function replaceCustomer(db: Db, clock: Clock, existing: CustomerRow, input: CustomerCreate) {
  const now = clock.now().toISOString();
  const changes = fields(input, now);
  await inTransaction(db, async (trx) => {
    await assertUniqueTaxId(trx, existing.company_id, input, existing.id);
    await customersRepository.replace(trx, existing.id, changes);
  });
  return toView({ ...existing, ...changes });
}

export const customerView = toView;

export async function listCustomers(db: Db, companyId: string, q: string | undefined, window: RowWindow) {
  const { rows, total } = await customersRepository.list(db, companyId, q, window);
  return { items: rows.map(toView), total };
}
