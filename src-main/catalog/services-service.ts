// The services catalogue of one company: create, replace, deactivate, list. One ISS rate per national tax
// code among active services, since the municipality taxes the code, not the shop's wording of it.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { RowWindow } from '../db/paginate.ts';
import { newId } from '../ids.ts';
import { conflict, forbidden, notFound, validationError } from '../errors.ts';
import { ibsCbsClass, ibsCbsCst, ibsCbsTableVersion } from '../fiscal/taxes/ibscbs-table.ts';
import type { ServiceCreate, ServiceView } from '../../src-shared/contracts/services.ts';
import { servicesRepository, type ServiceListFilter, type ServiceRow } from './services-repository.ts';

type Reachable = (companyId: string) => Promise<boolean>;

export function serviceView(row: ServiceRow): ServiceView {
  return {
    id: row.id,
    companyId: row.company_id,
    codigo: row.codigo,
    descricao: row.descricao,
    codigoTributacaoNacional: row.codigo_tributacao_nacional,
    aliquotaIss: row.aliquota_iss,
    valor: row.valor,
    cstIbsCbs: row.ibscbs_cst,
    cClassTrib: row.c_class_trib,
    cIndOp: row.c_ind_op,
    cstPisCofins: row.pis_cofins_cst,
    ativo: row.active === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** 404 when the service exists nowhere, 403 when the key cannot reach its company. */
export async function getServiceRow(db: Db, id: string, reachable: Reachable): Promise<ServiceRow> {
  const row = await servicesRepository.find(db, id);
  if (row === undefined) throw notFound('Service');
  if (!(await reachable(row.company_id))) throw forbidden();
  return row;
}

function serviceFields(input: ServiceCreate, now: string) {
  return {
    codigo: input.codigo,
    descricao: input.descricao,
    codigo_tributacao_nacional: input.codigoTributacaoNacional,
    aliquota_iss: input.aliquotaIss ?? null,
    valor: input.valor ?? null,
    // cClassTrib alone names its CST (the schema checked that a CST given agrees with it).
    ibscbs_cst: input.cstIbsCbs ?? (input.cClassTrib == null ? null : input.cClassTrib.slice(0, 3)),
    c_class_trib: input.cClassTrib ?? null,
    c_ind_op: input.cIndOp ?? null,
    pis_cofins_cst: input.cstPisCofins ?? null,
    active: input.ativo ? 1 : 0,
    updated_at: now,
  };
}

/**
 * The NFS-e reads one rate per national code from the catalogue (findActiveByNationalCode): two active
 * services of the same code with different rates would make the note's rate depend on which row answers.
 */
async function assertOneRatePerCode(
  db: Db,
  companyId: string,
  fields: ReturnType<typeof serviceFields>,
  selfId: string | null,
) {
  if (fields.active !== 1 || fields.aliquota_iss === null) return;
  const others = await servicesRepository.activeRatesOfNationalCode(
    db,
    companyId,
    fields.codigo_tributacao_nacional,
    selfId,
  );
  const clash = others.find((o) => o.aliquota_iss !== fields.aliquota_iss);
  if (clash !== undefined) {
    throw conflict(
      `The active service ${clash.codigo} has the same national tax code with the ISS rate ${clash.aliquota_iss ?? ''}: one code, one rate.`,
      [
        {
          field: 'aliquotaIss',
          error: `differs from ${clash.aliquota_iss ?? ''} of service ${clash.codigo}`,
        },
      ],
    );
  }
}

/** The classification must be one of the shipped IBS/CBS table (the NF-e's), so the DPS carries a real one. */
function assertKnownClass(fields: ReturnType<typeof serviceFields>) {
  if (fields.c_class_trib === null || fields.ibscbs_cst === null) return;
  const details: Array<{ field: string; error: string }> = [];
  if (ibsCbsCst(fields.ibscbs_cst) === undefined)
    details.push({ field: 'cstIbsCbs', error: `not in the IBS/CBS table ${ibsCbsTableVersion()}` });
  const cls = ibsCbsClass(fields.c_class_trib);
  if (cls === undefined)
    details.push({ field: 'cClassTrib', error: `not in the IBS/CBS table ${ibsCbsTableVersion()}` });
  else if (cls.CST !== fields.ibscbs_cst)
    details.push({ field: 'cClassTrib', error: `belongs to CST ${cls.CST}` });
  if (details.length > 0) throw validationError(details);
}

async function assertCodeFree(db: Db, companyId: string, codigo: string, selfId: string | null) {
  const clash = await servicesRepository.findByCode(db, companyId, codigo);
  if (clash !== undefined && clash.id !== selfId) {
    throw conflict('A service with this code already exists.', [{ field: 'codigo', error: 'already used' }]);
  }
}

export async function createService(db: Db, clock: Clock, companyId: string, input: ServiceCreate) {
  const now = clock.now().toISOString();
  const row: ServiceRow = {
    id: newId(),
    company_id: companyId,
    created_at: now,
    ...serviceFields(input, now),
  };
  assertKnownClass(row);
  await inTransaction(db, async (trx) => {
    await assertCodeFree(trx, companyId, row.codigo, null);
    await assertOneRatePerCode(trx, companyId, row, null);
    await servicesRepository.insert(trx, row);
  });
  return serviceView(row);
}

export async function replaceService(db: Db, clock: Clock, existing: ServiceRow, input: ServiceCreate) {
  const changes = serviceFields(input, clock.now().toISOString());
  assertKnownClass(changes);
  await inTransaction(db, async (trx) => {
    await assertCodeFree(trx, existing.company_id, changes.codigo, existing.id);
    await assertOneRatePerCode(trx, existing.company_id, changes, existing.id);
    await servicesRepository.update(trx, existing.id, changes);
  });
  return serviceView({ ...existing, ...changes });
}

/**
 * Notes copy the code, text and value they were issued with, so nothing refers to the row; it is kept
 * inactive rather than deleted so the shop's code stays taken and the service can be switched on again.
 */
export async function deactivateService(db: Db, clock: Clock, existing: ServiceRow) {
  if (existing.active === 0) return serviceView(existing);
  const changes = { active: 0, updated_at: clock.now().toISOString() };
  await servicesRepository.update(db, existing.id, changes);
  return serviceView({ ...existing, ...changes });
}

export async function listServices(db: Db, companyId: string, filter: ServiceListFilter, window: RowWindow) {
  const { rows, total } = await servicesRepository.list(db, companyId, filter, window);
  return { items: rows.map(serviceView), total };
}
