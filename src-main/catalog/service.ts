// Fiscal profiles (how an item is taxed) and products (what is sold), scoped to one company.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { RowWindow } from '../db/paginate.ts';
import { newId } from '../ids.ts';
import { DomainError, conflict, forbidden, notFound, validationError } from '../errors.ts';
import {
  fiscalTaxesSchema,
  type FiscalProfileCreate,
  type FiscalProfileView,
  type ProductCreate,
  type ProductView,
} from '../../src-shared/contracts/catalog.ts';
import { defaultFiscalProfile } from '../../src-shared/tables/default-fiscal-profiles.ts';
import { catalogRepository, type FiscalProfileRow, type ProductRow } from './repository.ts';

type Reachable = (companyId: string) => Promise<boolean>;

function profileView(row: FiscalProfileRow): FiscalProfileView {
  return {
    id: row.id,
    companyId: row.company_id,
    name: row.name,
    CFOP: row.cfop,
    taxes: fiscalTaxesSchema.parse(JSON.parse(row.taxes_json)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function productView(row: ProductRow): ProductView {
  return {
    id: row.id,
    companyId: row.company_id,
    cProd: row.c_prod,
    cEAN: row.c_ean,
    xProd: row.x_prod,
    NCM: row.ncm,
    CEST: row.cest,
    uCom: row.u_com,
    vUnCom: row.v_un_com,
    fiscalProfileId: row.fiscal_profile_id,
    ativo: row.active === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function owned<T extends { company_id: string }>(
  row: T | undefined,
  what: string,
  reachable: Reachable,
): Promise<T> {
  if (row === undefined) throw notFound(what);
  if (!(await reachable(row.company_id))) throw forbidden();
  return row;
}

export const getProfileRow = async (db: Db, id: string, reachable: Reachable) =>
  owned(await catalogRepository.findProfile(db, id), 'Fiscal profile', reachable);

export const getProductRow = async (db: Db, id: string, reachable: Reachable) =>
  owned(await catalogRepository.findProduct(db, id), 'Product', reachable);

export async function createProfile(db: Db, clock: Clock, companyId: string, input: FiscalProfileCreate) {
  const now = clock.now().toISOString();
  const row: FiscalProfileRow = {
    id: newId(),
    company_id: companyId,
    name: input.name,
    cfop: input.CFOP,
    taxes_json: JSON.stringify(input.taxes),
    created_at: now,
    updated_at: now,
  };
  await inTransaction(db, async (trx) => {
    if ((await catalogRepository.findProfileByName(trx, companyId, input.name)) !== undefined) {
      throw conflict('A fiscal profile with this name already exists.', [
        { field: 'name', error: 'already used' },
      ]);
    }
    await catalogRepository.insertProfile(trx, row);
  });
  return profileView(row);
}

export async function replaceProfile(
  db: Db,
  clock: Clock,
  existing: FiscalProfileRow,
  input: FiscalProfileCreate,
) {
  const changes = {
    name: input.name,
    cfop: input.CFOP,
    taxes_json: JSON.stringify(input.taxes),
    updated_at: clock.now().toISOString(),
  };
  await inTransaction(db, async (trx) => {
    const clash = await catalogRepository.findProfileByName(trx, existing.company_id, input.name);
    if (clash !== undefined && clash.id !== existing.id) {
      throw conflict('A fiscal profile with this name already exists.', [
        { field: 'name', error: 'already used' },
      ]);
    }
    await catalogRepository.updateProfile(trx, existing.id, changes);
  });
  return profileView({ ...existing, ...changes });
}

/**
 * Makes the default profile of a just-created company from its CRT and UF (the caller's transaction also
 * points the company at it). A new company has no profiles yet, so the name cannot clash.
 */
export async function insertDefaultProfile(
  db: Db,
  company: { id: string; crt: number; uf: string },
  now: string,
): Promise<FiscalProfileRow> {
  const profile = defaultFiscalProfile(company.crt, company.uf);
  const row: FiscalProfileRow = {
    id: newId(),
    company_id: company.id,
    name: profile.name,
    cfop: profile.CFOP,
    taxes_json: JSON.stringify(profile.taxes),
    created_at: now,
    updated_at: now,
  };
  await catalogRepository.insertProfile(db, row);
  return row;
}

/**
 * The profile that taxes a company's items which name none and carry no taxes (simple mode). Every company
 * has one from its creation and it cannot be deleted while it is the default, so its absence is a bug.
 */
export async function defaultFiscalProfileOf(db: Db, companyId: string): Promise<FiscalProfileView> {
  const row = await catalogRepository.defaultProfileOf(db, companyId);
  if (row === undefined) throw new Error(`company ${companyId} has no default fiscal profile`);
  return profileView(row);
}

export async function deleteProfile(db: Db, existing: FiscalProfileRow) {
  await inTransaction(db, async (trx) => {
    if (await catalogRepository.isDefaultProfile(trx, existing.id)) {
      throw conflict(
        "The fiscal profile is the company's default: choose another default (PUT /v1/companies/:id/config, defaultFiscalProfileId) before deleting it.",
        [{ field: 'id', error: "is the company's default fiscal profile" }],
      );
    }
    const users = await catalogRepository.productsUsingProfile(trx, existing.id);
    if (users > 0) {
      throw new DomainError('conflict', `The fiscal profile is used by ${users} product(s).`, [
        { field: 'id', error: 'in use by products' },
      ]);
    }
    await catalogRepository.deleteProfile(trx, existing.id);
  });
}

export async function listProfiles(db: Db, companyId: string, window: RowWindow) {
  const { rows, total } = await catalogRepository.listProfiles(db, companyId, window);
  return { items: rows.map(profileView), total };
}

async function assertProfileOfCompany(db: Db, companyId: string, profileId: string | undefined) {
  if (profileId === undefined) return;
  const profile = await catalogRepository.findProfile(db, profileId);
  if (profile === undefined || profile.company_id !== companyId) {
    throw validationError([{ field: 'fiscalProfileId', error: 'no such fiscal profile in this company' }]);
  }
}

function productFields(input: ProductCreate, now: string) {
  return {
    c_prod: input.cProd,
    c_ean: input.cEAN ?? null,
    x_prod: input.xProd,
    ncm: input.NCM,
    cest: input.CEST ?? null,
    u_com: input.uCom,
    v_un_com: input.vUnCom,
    fiscal_profile_id: input.fiscalProfileId ?? null,
    active: input.ativo ? 1 : 0,
    updated_at: now,
  };
}

export async function createProduct(db: Db, clock: Clock, companyId: string, input: ProductCreate) {
  const now = clock.now().toISOString();
  const row: ProductRow = {
    id: newId(),
    company_id: companyId,
    created_at: now,
    ...productFields(input, now),
  };
  await inTransaction(db, async (trx) => {
    await assertProfileOfCompany(trx, companyId, input.fiscalProfileId);
    if ((await catalogRepository.findProductByCode(trx, companyId, input.cProd)) !== undefined) {
      throw conflict('A product with this code already exists.', [{ field: 'cProd', error: 'already used' }]);
    }
    await catalogRepository.insertProduct(trx, row);
  });
  return productView(row);
}

export async function replaceProduct(db: Db, clock: Clock, existing: ProductRow, input: ProductCreate) {
  const changes = productFields(input, clock.now().toISOString());
  await inTransaction(db, async (trx) => {
    await assertProfileOfCompany(trx, existing.company_id, input.fiscalProfileId);
    const clash = await catalogRepository.findProductByCode(trx, existing.company_id, input.cProd);
    if (clash !== undefined && clash.id !== existing.id) {
      throw conflict('A product with this code already exists.', [{ field: 'cProd', error: 'already used' }]);
    }
    await catalogRepository.updateProduct(trx, existing.id, changes);
  });
  return productView({ ...existing, ...changes });
}

export async function deleteProduct(db: Db, existing: ProductRow) {
  await catalogRepository.deleteProduct(db, existing.id);
}

export async function listProducts(
  db: Db,
  companyId: string,
  filter: { q?: string | undefined; cEAN?: string | undefined },
  window: RowWindow,
) {
  const { rows, total } = await catalogRepository.listProducts(db, companyId, filter, window);
  return { items: rows.map(productView), total };
}

export { profileView, productView };
