// Everything the pure fiscal path needs about a company, loaded from the database: emitter, decrypted A1,
// CSC, QR version, and the customers/products/profiles a payload refers to (fetched up front, so the pure
// normalizer can look them up synchronously).
import type { Db } from '../db/client.ts';
import type { Ambiente } from '../db/schema.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { readPkcs12, type A1Certificate } from '../fiscal/certificate.ts';
import type { EmitModel, RespTecModel } from '../fiscal/emitter.ts';
import { respTecForNotes } from '../companies/resp-tec.ts';
import { normalizeFreeText } from '../fiscal/xml.ts';
import type { PayloadLookup } from '../fiscal/lookup.ts';
import { companiesRepository, type CompanyRow } from '../companies/repository.ts';
import { customersRepository } from '../customers/repository.ts';
import { catalogRepository } from '../catalog/repository.ts';
import { customerView } from '../customers/service.ts';
import { productView, profileView } from '../catalog/service.ts';
import { DomainError } from '../errors.ts';
import type { UfSigla } from '../../src-shared/uf.ts';
import type { CustomerView } from '../../src-shared/contracts/customers.ts';
import type { FiscalProfileView, ProductView } from '../../src-shared/contracts/catalog.ts';

export interface CompanyFiscal {
  company: CompanyRow;
  emit: EmitModel;
  certificate: A1Certificate;
  csc: { id: string; token: string } | null;
  qrVersion: 2 | 3;
  tpAmb: 1 | 2;
  /** The technical responsible (infRespTec) the company configured, with its CSRT opened. */
  infRespTec: RespTecModel | null;
}

// Reading a PKCS#12 costs ~40 ms: keep the parsed certificate per company until its row changes.
const certificateCache = new Map<string, { certId: string; cert: A1Certificate }>();

export function emitFromCompany(c: CompanyRow): EmitModel {
  // The company's free text is cleaned like a note's (xml.ts): characters XML cannot carry fail the signature.
  const text = (value: string, max: number) => normalizeFreeText(value, max);
  return {
    CNPJ: c.cnpj,
    xNome: text(c.x_nome, 60),
    xFant: c.x_fant === null ? null : text(c.x_fant, 60) || null,
    IE: c.ie,
    IM: c.im,
    CRT: c.crt as EmitModel['CRT'],
    enderEmit: {
      xLgr: text(c.x_lgr, 60),
      nro: text(c.nro, 60),
      xCpl: c.x_cpl === null ? null : text(c.x_cpl, 60) || null,
      xBairro: text(c.x_bairro, 60),
      cMun: c.c_mun,
      xMun: text(c.x_mun, 60),
      UF: c.uf as UfSigla,
      CEP: c.cep,
      fone: c.fone,
    },
  };
}

export async function loadCompanyFiscal(
  db: Db,
  secrets: SecretBox,
  companyId: string,
  now: Date = new Date(),
  /** A note's own environment (§2.1 `ambiente` overrides the company default); the company's when omitted. */
  ambiente?: Ambiente,
): Promise<CompanyFiscal> {
  const stored = await companiesRepository.findById(db, companyId);
  if (stored === undefined) throw new Error(`company ${companyId} vanished`);
  const company = ambiente === undefined ? stored : { ...stored, ambiente };
  const certRow = await companiesRepository.activeCertificate(db, companyId);
  if (certRow === undefined) {
    throw new DomainError(
      'certificate_invalid',
      'The company has no A1 certificate: upload one before issuing.',
      [{ field: 'certificate', error: 'missing' }],
    );
  }
  // Checked before anything is signed or sent: SEFAZ would refuse it anyway (rejections 280-286).
  if (new Date(certRow.not_after).getTime() <= now.getTime()) {
    throw new DomainError(
      'certificate_invalid',
      `The A1 certificate expired on ${certRow.not_after}: upload a valid one.`,
      [{ field: 'certificate', error: 'expired' }],
    );
  }
  let cached = certificateCache.get(companyId);
  if (cached === undefined || cached.certId !== certRow.id) {
    cached = {
      certId: certRow.id,
      cert: readPkcs12(secrets.open(certRow.pfx_enc), secrets.openText(certRow.password_enc)),
    };
    certificateCache.set(companyId, cached);
  }
  return {
    company,
    emit: emitFromCompany(company),
    certificate: cached.cert,
    csc:
      company.csc_id === null || company.csc_token_enc === null
        ? null
        : { id: company.csc_id, token: secrets.openText(company.csc_token_enc) },
    qrVersion: company.nfce_qr_version === 3 ? 3 : 2,
    tpAmb: company.ambiente === 'producao' ? 1 : 2,
    infRespTec: await respTecForNotes(db, secrets, companyId),
  };
}

function idsIn(payload: unknown, keys: readonly string[]): Set<string> {
  const found = new Set<string>();
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [k, v] of Object.entries(node)) {
        if (keys.includes(k) && typeof v === 'string') found.add(v);
        else walk(v);
      }
    }
  };
  walk(payload);
  return found;
}

/**
 * Loads the rows a payload names, restricted to the company, for the synchronous lookups of normalizeNfe.
 * `company` is the company row the caller read for the same note (its default profile is not read again).
 */
export async function lookupsFor(
  db: Db,
  company: Pick<CompanyRow, 'id' | 'default_fiscal_profile_id'>,
  payload: unknown,
): Promise<PayloadLookup> {
  const companyId = company.id;
  const customers = new Map<string, CustomerView>();
  const products = new Map<string, ProductView>();
  const profiles = new Map<string, FiscalProfileView>();
  for (const id of idsIn(payload, ['customerId', 'customer_id'])) {
    const row = await customersRepository.findById(db, id);
    if (row?.company_id === companyId) customers.set(id, customerView(row));
  }
  const profileIds = idsIn(payload, ['fiscalProfileId', 'fiscal_profile_id']);
  for (const id of idsIn(payload, ['productId', 'product_id'])) {
    const row = await catalogRepository.findProduct(db, id);
    if (row?.company_id === companyId) {
      products.set(id, productView(row));
      if (row.fiscal_profile_id !== null) profileIds.add(row.fiscal_profile_id);
    }
  }
  for (const id of profileIds) {
    const row = await catalogRepository.findProfile(db, id);
    if (row?.company_id === companyId) profiles.set(id, profileView(row));
  }
  const defaultId = company.default_fiscal_profile_id;
  const defaultRow = defaultId === null ? undefined : await catalogRepository.findProfile(db, defaultId);
  const defaultProfile = defaultRow === undefined ? undefined : profileView(defaultRow);
  return {
    customer: (id) => customers.get(id),
    product: (id) => products.get(id),
    profile: (id) => profiles.get(id),
    defaultProfile: () => defaultProfile,
  };
}
