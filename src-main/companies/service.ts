// Companies (the NF-e emitter): creation with default series, reading, config, numbering view, certificates.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { Ambiente, AuthorityTarget } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { DomainError, conflict, forbidden, notFound, validationError } from '../errors.ts';
import type { AuthContext } from '../api-keys/service.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { findMunicipio } from '../reference/ibge.ts';
import { CertificateError, certificateStatus, readPkcs12 } from '../fiscal/certificate.ts';
import type {
  CertificateStatusView,
  CompanyConfig,
  CompanyCreate,
  CompanyUpdate,
  CompanyView,
  NfeSequenceView,
} from '../../src-shared/contracts/companies.ts';
import { companyIeProblem, SEQUENCE_MODELOS } from '../../src-shared/contracts/companies.ts';
import type { UfSigla } from '../../src-shared/uf.ts';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { catalogRepository } from '../catalog/repository.ts';
import { insertDefaultProfile } from '../catalog/service.ts';
import { companiesRepository, type CertificateRow, type CompanyRow } from './repository.ts';
import { respTecRepository, respTecView } from './resp-tec.ts';
import type { RespTecView } from '../../src-shared/contracts/resp-tec.ts';

export function toCompanyView(row: CompanyRow, respTec: RespTecView | null): CompanyView {
  return {
    id: row.id,
    organizationId: row.organization_id,
    cnpj: row.cnpj,
    ie: row.ie,
    im: row.im,
    xNome: row.x_nome,
    xFant: row.x_fant,
    crt: row.crt,
    endereco: {
      xLgr: row.x_lgr,
      nro: row.nro,
      xCpl: row.x_cpl,
      xBairro: row.x_bairro,
      cMun: row.c_mun,
      xMun: row.x_mun,
      uf: row.uf,
      cep: row.cep,
      fone: row.fone,
    },
    email: row.email,
    ambiente: row.ambiente,
    authority: row.authority,
    csc: row.csc_id === null ? null : { id: row.csc_id, configured: true },
    nfceQrVersion: row.nfce_qr_version === 3 ? 3 : 2,
    defaultFiscalProfileId: row.default_fiscal_profile_id,
    responsavelTecnico: respTec,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** IBGE existence check, reported with the schema's own errors so the caller sees every fault at once. */
export function municipioDetails(raw: unknown, path: string[]): ErrorDetail[] {
  let node: unknown = raw;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return [];
    node = (node as Record<string, unknown>)[key];
  }
  if (typeof node !== 'string' || !/^\d{7}$/.test(node)) return [];
  return findMunicipio(node) === undefined
    ? [{ field: path.join('.'), error: 'unknown IBGE municipality code' }]
    : [];
}

/**
 * Resolves which company a request acts on: a company key acts on its own company; an organization key
 * must name one (query `companyId` or header `X-Company-Id`) inside its organization.
 */
export async function companyForRequest(
  db: Db,
  auth: AuthContext,
  requested: string | undefined,
): Promise<CompanyRow> {
  if (auth.scope === 'company') {
    if (requested !== undefined && requested !== auth.companyId) throw forbidden();
    return companyForAuth(db, auth, auth.companyId as string);
  }
  if (requested === undefined) {
    // An organization key that reaches exactly one company acts on it, as a company key would.
    const companies = await companiesRepository.firstOfOrganization(db, auth.organizationId, 2);
    if (companies.length === 1 && companies[0] !== undefined) return companies[0];
    throw validationError([
      {
        field: 'companyId',
        error:
          companies.length === 0
            ? 'the organization has no company yet: create one with POST /v1/companies'
            : 'this organization key reaches several companies: say which one (companyId)',
      },
    ]);
  }
  return companyForAuth(db, auth, requested);
}

/**
 * 404 for a company that exists nowhere and 403 for one outside the key's reach (seed §7: 404 "company not
 * found", 403 "credential lacks permission for the company resource"). Ids are random UUIDs, so telling
 * the two apart gives away nothing guessable.
 */
export async function companyForAuth(db: Db, auth: AuthContext, companyId: string): Promise<CompanyRow> {
  const company = await companiesRepository.findById(db, companyId);
  if (company === undefined) throw notFound('Company');
  if (auth.scope === 'company' && auth.companyId !== company.id) throw forbidden();
  if (company.organization_id !== auth.organizationId) throw forbidden();
  return company;
}

export interface CreateCompanyDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
}

export async function createCompany(
  { db, clock, secrets }: CreateCompanyDeps,
  organizationId: string,
  input: CompanyCreate,
): Promise<CompanyView> {
  const municipio = findMunicipio(input.endereco.cMun);
  if (municipio === undefined) {
    throw validationError([{ field: 'endereco.cMun', error: 'unknown IBGE municipality code' }]);
  }
  const now = clock.now().toISOString();
  const authority: AuthorityTarget =
    input.authority ?? (input.ambiente === 'homologacao' ? 'sandbox' : 'sefaz');
  if (authority === 'sandbox' && input.ambiente === 'producao') {
    throw validationError([
      { field: 'authority', error: 'the sandbox authority serves only ambiente homologacao' },
    ]);
  }
  const row: CompanyRow = {
    id: newId(),
    organization_id: organizationId,
    cnpj: input.cnpj,
    ie: input.ie,
    im: input.im ?? null,
    x_nome: input.xNome,
    x_fant: input.xFant ?? null,
    crt: input.crt,
    x_lgr: input.endereco.xLgr,
    nro: input.endereco.nro,
    x_cpl: input.endereco.xCpl ?? null,
    x_bairro: input.endereco.xBairro,
    c_mun: input.endereco.cMun,
    x_mun: input.endereco.xMun ?? municipio.xMun,
    uf: input.endereco.uf,
    cep: input.endereco.cep,
    fone: input.endereco.fone ?? null,
    email: input.email ?? null,
    ambiente: input.ambiente,
    authority,
    csc_id: input.csc?.id ?? null,
    csc_token_enc: input.csc === undefined ? null : secrets.seal(input.csc.token),
    nfce_qr_version: input.nfceQrVersion,
    // Set below, once the profile (which references the company) exists.
    default_fiscal_profile_id: null,
    created_at: now,
    updated_at: now,
  };
  const series: Partial<Record<55 | 65 | 57, number>> = {
    55: input.series?.nfe ?? 1,
    65: input.series?.nfce ?? 1,
    57: input.series?.cte,
  };
  await inTransaction(db, async (trx) => {
    if ((await companiesRepository.findByCnpj(trx, row.cnpj)) !== undefined) {
      throw conflict('A company with this CNPJ already exists.', [
        { field: 'cnpj', error: 'already registered' },
      ]);
    }
    await companiesRepository.insert(trx, row);
    const ambientes: Ambiente[] = ['homologacao', 'producao'];
    await companiesRepository.insertSequences(
      trx,
      ambientes.flatMap((ambiente) =>
        ([55, 65, 57] as const).flatMap((modelo) => {
          const serie = series[modelo];
          return serie === undefined
            ? []
            : [
                {
                  company_id: row.id,
                  modelo,
                  serie,
                  ambiente,
                  next_number: 1,
                  created_at: now,
                  updated_at: now,
                },
              ];
        }),
      ),
    );
    const profile = await insertDefaultProfile(trx, row, now);
    row.default_fiscal_profile_id = profile.id;
    await companiesRepository.update(trx, row.id, { default_fiscal_profile_id: profile.id });
  });
  return toCompanyView(row, null);
}

/** The registration data of PUT /v1/companies/:id; the municipality is checked against the IBGE table. */
export async function updateCompany(
  { db, clock }: Pick<CreateCompanyDeps, 'db' | 'clock'>,
  company: CompanyRow,
  input: CompanyUpdate,
): Promise<CompanyView> {
  const changes: Partial<CompanyRow> = { updated_at: clock.now().toISOString() };
  if (input.ie !== undefined || input.endereco !== undefined) {
    // The IE is checked by the algorithm of the company's UF: a new IE, or a move to another state, is
    // checked against the other half as it will be stored.
    const uf = (input.endereco?.uf ?? company.uf) as UfSigla;
    const problem = companyIeProblem(uf, input.ie ?? company.ie);
    if (problem !== null)
      throw validationError([
        {
          field: 'ie',
          error: input.ie === undefined ? `the stored IE does not fit UF ${uf}: ${problem}` : problem,
        },
      ]);
  }
  if (input.ie !== undefined) changes.ie = input.ie;
  if (input.im !== undefined) changes.im = input.im;
  if (input.xNome !== undefined) changes.x_nome = input.xNome;
  if (input.xFant !== undefined) changes.x_fant = input.xFant;
  if (input.email !== undefined) changes.email = input.email;
  if (input.endereco !== undefined) {
    const e = input.endereco;
    const municipio = findMunicipio(e.cMun);
    if (municipio === undefined)
      throw validationError([{ field: 'endereco.cMun', error: 'unknown IBGE municipality code' }]);
    Object.assign(changes, {
      x_lgr: e.xLgr,
      nro: e.nro,
      x_cpl: e.xCpl ?? null,
      x_bairro: e.xBairro,
      c_mun: e.cMun,
      x_mun: e.xMun ?? municipio.xMun,
      uf: e.uf,
      cep: e.cep,
      fone: e.fone ?? null,
    } satisfies Partial<CompanyRow>);
  }
  await companiesRepository.update(db, company.id, changes);
  return toCompanyView({ ...company, ...changes }, respTecView(await respTecRepository.find(db, company.id)));
}

export async function updateCompanyConfig(
  { db, clock, secrets }: CreateCompanyDeps,
  company: CompanyRow,
  config: CompanyConfig,
): Promise<{ success: true; message: string }> {
  const changes: Partial<CompanyRow> = { updated_at: clock.now().toISOString() };
  const said: string[] = [];
  const problems: ErrorDetail[] = [];
  if (config.ambiente !== undefined) {
    if (config.ambiente === 'producao' && company.authority === 'sandbox') {
      problems.push({ field: 'ambiente', error: 'a company on the sandbox authority stays in homologacao' });
    }
    changes.ambiente = config.ambiente;
    said.push(`ambiente ${config.ambiente}`);
  }
  if (config.csc_nfce !== undefined && config.id_csc !== undefined) {
    changes.csc_id = config.id_csc;
    changes.csc_token_enc = secrets.seal(config.csc_nfce);
    said.push(`CSC id ${config.id_csc}`);
  }
  if (config.versao_qrcode !== undefined) {
    changes.nfce_qr_version = config.versao_qrcode;
    said.push(`QR code v${config.versao_qrcode}`);
  }
  if (config.defaultFiscalProfileId !== undefined) {
    const profile = await catalogRepository.findProfile(db, config.defaultFiscalProfileId);
    // Another company's profile answers like a missing one: its id says nothing about that company.
    if (profile === undefined || profile.company_id !== company.id) {
      problems.push({ field: 'defaultFiscalProfileId', error: 'no such fiscal profile in this company' });
    } else {
      changes.default_fiscal_profile_id = profile.id;
      said.push(`default fiscal profile '${profile.name}'`);
    }
  }
  if (problems.length > 0) throw validationError(problems);
  await companiesRepository.update(db, company.id, changes);
  if (config.responsavel_tecnico !== undefined) {
    const r = config.responsavel_tecnico;
    await respTecRepository.save(db, secrets, company.id, r, changes.updated_at as string);
    said.push(
      r === null
        ? 'technical responsible removed'
        : `technical responsible CNPJ ${r.cnpj}${r.csrt === null ? '' : ` with CSRT id ${r.csrt.idCSRT}`}`,
    );
  }
  return { success: true, message: `Configuration updated: ${said.join(', ')}.` };
}

export async function listSequences(
  db: Db,
  companyId: string,
  environment: Ambiente | 'all',
): Promise<NfeSequenceView[]> {
  const rows = await companiesRepository.listSequences(
    db,
    companyId,
    environment === 'all' ? null : environment,
  );
  return rows.map((r) => ({
    // 98 is the NFS-e's DPS series (internal: the NFS-e has no official model number); 99 the DC-e's.
    modelo: SEQUENCE_MODELOS.find((m) => m === String(r.modelo)) ?? '55',
    serie: r.serie,
    last_numero: r.next_number - 1,
    proximo_numero: r.next_number,
    environment: r.ambiente,
  }));
}

function certificateView(row: CertificateRow, now: Date): CertificateStatusView {
  const notAfter = new Date(row.not_after);
  return {
    id: row.id,
    subject: row.subject,
    issuer: row.issuer,
    serialNumber: row.serial_number,
    cnpj: row.cnpj,
    notBefore: row.not_before,
    notAfter: row.not_after,
    daysToExpiry: Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000),
    expired: notAfter.getTime() <= now.getTime(),
    uploadedAt: row.created_at,
  };
}

const certificateInvalid = (message: string, details: ErrorDetail[]) =>
  new DomainError('certificate_invalid', message, details);

/**
 * Reads the PKCS#12 (legacy RC2/3DES files included), refuses it when it cannot sign for this company
 * today, and stores file and password encrypted as the company's one active certificate.
 */
export async function uploadCertificate(
  { db, clock, secrets }: CreateCompanyDeps,
  company: CompanyRow,
  pfx: Uint8Array,
  password: string,
): Promise<CertificateStatusView> {
  let cert;
  try {
    cert = readPkcs12(pfx, password);
  } catch (error) {
    if (error instanceof CertificateError) {
      if (error.code === 'wrong_password') {
        throw certificateInvalid('The certificate password is wrong.', [
          { field: 'password', error: 'wrong password' },
        ]);
      }
      throw certificateInvalid('The file is not a usable A1 certificate (PKCS#12 with private key).', [
        { field: 'certificate', error: error.message },
      ]);
    }
    throw error;
  }
  const now = clock.now();
  const status = certificateStatus(cert, now);
  const problems: ErrorDetail[] = [];
  if (status.cnpj === null) {
    problems.push({ field: 'certificate', error: 'the certificate carries no CNPJ (is it an e-CNPJ A1?)' });
  } else if (status.cnpj.slice(0, 8) !== company.cnpj.slice(0, 8)) {
    // ICP-Brasil allows the head office certificate to sign for its branches: the CNPJ root (8 chars) must match.
    problems.push({
      field: 'certificate',
      error: `certificate CNPJ ${status.cnpj} does not belong to company CNPJ ${company.cnpj}`,
    });
  }
  if (status.expired)
    problems.push({ field: 'certificate', error: `certificate expired on ${status.notAfter}` });
  if (status.notYetValid)
    problems.push({ field: 'certificate', error: `certificate valid only from ${status.notBefore}` });
  if (problems.length > 0)
    throw certificateInvalid('The certificate cannot sign for this company.', problems);

  const row: CertificateRow = {
    id: newId(),
    company_id: company.id,
    pfx_enc: secrets.seal(pfx),
    password_enc: secrets.seal(password),
    subject: status.subject,
    issuer: status.issuer,
    serial_number: status.serialNumber,
    cnpj: status.cnpj as string,
    not_before: status.notBefore,
    not_after: status.notAfter,
    active: 1,
    created_at: now.toISOString(),
  };
  await inTransaction(db, (trx) => companiesRepository.replaceActiveCertificate(trx, row));
  return certificateView(row, now);
}

export async function getCertificateStatus(
  db: Db,
  clock: Clock,
  companyId: string,
): Promise<CertificateStatusView | null> {
  const row = await companiesRepository.activeCertificate(db, companyId);
  return row === undefined ? null : certificateView(row, clock.now());
}
