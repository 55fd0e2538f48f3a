// NFS-e preparation for a reserved DPS number: the §2.8 body with the company's municipal data, its NFS-e
// settings, the catalogue service's tax classification (IBS/CBS, PIS/COFINS) and what the kind resolved
// before numbering (the ISS rate, the substitution), then the pure prepareDps (signed, checked against the
// national XSD 1.01); its faults become domain errors.
import { DomainError, validationError } from '../../../errors.ts';
import { formatDateTimeTz } from '../../../fiscal/datetime.ts';
import type { DpsContext, DpsIbsCbs, DpsTribFed } from '../../../fiscal/nfse/model.ts';
import { prepareDps } from '../../../fiscal/nfse/prepare.ts';
import { findMunicipioByName } from '../../../reference/ibge.ts';
import { servicesRepository, type ServiceRow } from '../../../catalog/services-repository.ts';
import type { Db } from '../../../db/client.ts';
import {
  DEFAULT_C_CLASS_TRIB,
  DEFAULT_IBSCBS_CST,
  DEFAULT_PIS_COFINS_CST,
  defaultIndOp,
} from '../../../../src-shared/nfse-ibscbs.ts';
import { formatCents } from '../../../../src-shared/money.ts';
import { nfseFieldFaults, nfsePayloadSchema } from '../../../../src-shared/contracts/nfse-payload.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import type { CompanyFiscal } from '../../context.ts';
import { VER_PROC, type PrepareInput, type PreparedDocument } from '../../kind.ts';
import { nfseSettingsOf, type NfseSettingsView } from './settings.ts';

/**
 * The one key of the stored payload that is the kind's own, never the integrator's: the strict §2.8 schema
 * refuses it on every request, so nothing from outside can set it. It keeps what a re-sign of the same DPS
 * (a stale draft, a change) must reproduce without asking the municipality again.
 */
export const KEPT_KEY = '_nfse';

export interface NfseSubstitution {
  /** The 50-digit key of the note this one replaces. */
  chSubstda: string;
  /** cMotivo of the layout's subst group (TSCodJustSubst). */
  cMotivo: string;
  xMotivo: string | null;
  /** Our id of the replaced note. */
  documentId: string;
}

export interface NfseKept {
  /** The ISS rate written in the DPS (pAliq, percent with 2 places), null: the municipality's applies. */
  pAliq: string | null;
  subst: NfseSubstitution | null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The integrator's body and the kind's kept data of a stored payload. */
export function splitPayload(payload: unknown): { body: unknown; kept: NfseKept } {
  if (!isObject(payload) || !(KEPT_KEY in payload))
    return { body: payload, kept: { pAliq: null, subst: null } };
  const { [KEPT_KEY]: raw, ...body } = payload;
  const kept = isObject(raw) ? raw : {};
  return {
    body,
    kept: {
      pAliq: typeof kept['pAliq'] === 'string' ? kept['pAliq'] : null,
      subst: isObject(kept['subst']) ? (kept['subst'] as unknown as NfseSubstitution) : null,
    },
  };
}

export function joinPayload(body: unknown, kept: NfseKept): unknown {
  return { ...(isObject(body) ? body : {}), [KEPT_KEY]: kept };
}

/** TSTelefone: 6 to 20 digits; anything else is left out rather than refused (it is optional). */
function phoneOf(fone: string | null): string | null {
  const digits = (fone ?? '').replace(/\D/g, '');
  return digits.length >= 6 && digits.length <= 20 ? digits : null;
}

/** The taxes of the DPS besides the ISS: the reform's IBSCBS group and, outside the Simples, tribFed. */
export interface DpsTaxes {
  IBSCBS: DpsIbsCbs;
  tribFed: DpsTribFed | null;
}

/**
 * Every DPS carries the IBSCBS group (the reform's layout in force from 2026): the catalogue service's
 * classification, else CST 000 / cClassTrib 000001 and the cIndOp of the service's nature
 * (src-shared/nfse-ibscbs.ts). indFinal 1 when the taker is a person (CPF): the service is for personal use
 * or consumption; a company taker is taken as acquiring for its activity. A provider outside the Simples
 * (opSimpNac 1) also writes tribFed with its PIS/COFINS CST; the rates of PIS/COFINS depend on the regime
 * (cumulative or not) the store does not record, so no PIS/COFINS values are written, only the situation.
 */
export function dpsTaxesOf(
  service: Pick<ServiceRow, 'ibscbs_cst' | 'c_class_trib' | 'c_ind_op' | 'pis_cofins_cst'> | undefined,
  input: { cTribNac: string; tomadorCpfCnpj: string; opSimpNac: 1 | 2 | 3 },
): DpsTaxes {
  const classified = service?.c_class_trib != null && service.ibscbs_cst != null;
  return {
    IBSCBS: {
      cIndOp: service?.c_ind_op ?? defaultIndOp(input.cTribNac),
      indFinal: input.tomadorCpfCnpj.length === 11 ? 1 : 0,
      CST: classified ? (service.ibscbs_cst ?? DEFAULT_IBSCBS_CST) : DEFAULT_IBSCBS_CST,
      cClassTrib: classified ? (service.c_class_trib ?? DEFAULT_C_CLASS_TRIB) : DEFAULT_C_CLASS_TRIB,
    },
    tribFed:
      input.opSimpNac === 1
        ? {
            piscofinsCST: service?.pis_cofins_cst ?? DEFAULT_PIS_COFINS_CST,
            vRetIRRF: 0n,
            vRetCSLL: 0n,
            vRetCP: 0n,
          }
        : null,
  };
}

/** The active catalogue service of the note's national code (the one whose ISS rate the note uses). */
export async function dpsTaxesFor(
  db: Db,
  companyId: string,
  input: { cTribNac: string; tomadorCpfCnpj: string; opSimpNac: 1 | 2 | 3 },
): Promise<DpsTaxes> {
  const service = await servicesRepository.findActiveByNationalCode(db, companyId, input.cTribNac);
  return dpsTaxesOf(service, input);
}

export function dpsContextOf(
  fiscal: CompanyFiscal,
  settings: NfseSettingsView,
  doc: { serie: number; numero: number; now: Date },
  kept: NfseKept,
  taxes: DpsTaxes | null = null,
): DpsContext {
  const { company } = fiscal;
  const timeZone = ufBySigla(company.uf)?.timeZone ?? 'America/Sao_Paulo';
  const dhEmi = formatDateTimeTz(doc.now, timeZone);
  const email = company.email !== null && company.email.length <= 80 ? company.email : null;
  return {
    tpAmb: fiscal.tpAmb,
    dhEmi,
    // The competence is the day the service is declared: the DPS's own date.
    dCompet: dhEmi.slice(0, 10),
    verAplic: VER_PROC,
    serie: String(doc.serie),
    nDPS: doc.numero,
    cLocEmi: company.c_mun,
    prest: {
      inscricao: { CNPJ: company.cnpj },
      IM: company.im,
      fone: phoneOf(company.fone),
      email,
      regTrib: {
        opSimpNac: settings.op_simp_nac,
        regApTribSN: settings.op_simp_nac === 3 ? settings.reg_ap_trib_sn : null,
        regEspTrib: settings.reg_esp_trib,
      },
    },
    pAliq: kept.pAliq,
    tribFed: taxes?.tribFed ?? null,
    // The store records no Simples percent of the company: indTotTrib 0 ("not informed") is written.
    pTotTribSN: null,
    IBSCBS: taxes?.IBSCBS ?? null,
    subst:
      kept.subst === null
        ? null
        : { chSubstda: kept.subst.chSubstda, cMotivo: kept.subst.cMotivo, xMotivo: kept.subst.xMotivo },
    municipioCode: (name, uf) => findMunicipioByName(name, uf).found?.cMun ?? null,
  };
}

const PAYLOAD_FIELDS = new Set(Object.keys(nfsePayloadSchema.shape));

export async function prepareNfseDocument(input: PrepareInput): Promise<PreparedDocument> {
  const { fiscal, serie, numero, now } = input;
  const { body, kept } = splitPayload(input.payload);
  const parsed = nfsePayloadSchema.safeParse(body);
  if (!parsed.success) throw validationError(nfseFieldFaults(parsed.error));
  const settings = await nfseSettingsOf(input.db, fiscal.company.id);
  const taxes = await dpsTaxesFor(input.db, fiscal.company.id, {
    cTribNac: parsed.data.codigo_tributacao_nacional,
    tomadorCpfCnpj: parsed.data.tomador.cpf_cnpj,
    opSimpNac: settings.op_simp_nac,
  });
  const ctx = dpsContextOf(fiscal, settings, { serie, numero, now }, kept, taxes);
  const result = prepareDps(body, ctx, fiscal.certificate);
  if (!result.ok) {
    const details = result.errors.map(({ field, error }) => ({ field, error }));
    // Faults named by the body's fields are the caller's; the others are the XSD's (layout paths).
    if (details.every((d) => PAYLOAD_FIELDS.has(d.field.split('.')[0] ?? ''))) throw validationError(details);
    throw new DomainError(
      'fiscal_rejection',
      'The DPS does not validate against the national schema.',
      details,
    );
  }
  const digest = /<DigestValue>([^<]+)<\/DigestValue>/.exec(result.xml)?.[1] ?? '';
  return {
    xml: result.xml,
    // The DPS Id until the national environment authorizes it and assigns the 50-digit key.
    chave: result.id,
    digestValue: digest,
    total: formatCents(result.model.valores.vServ),
    dhEmi: ctx.dhEmi,
    tpEmis: 1,
    qrCode: null,
    urlChave: null,
  };
}
