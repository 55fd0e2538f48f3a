// The NFS-e's operations as the /v1/nfse routes call them: the §2.8 body checked, then what the national
// environment would refuse checked before a DPS number is reserved (E001 tax code, E004 convênio, E012 ISS
// rate: nothing created, no number consumed), then the generic lifecycle with the NFS-e kind; cancellation
// (e101101) and substitution (a new DPS whose subst group names the old note).
import { z } from 'zod';
import { companiesRepository } from '../../../companies/repository.ts';
import type { Ambiente } from '../../../db/schema.ts';
import { inTransaction } from '../../../db/client.ts';
import { servicesRepository } from '../../../catalog/services-repository.ts';
import { DomainError, fiscalRejection, invalidState, notFound, validationError } from '../../../errors.ts';
import { formatDateTimeTz } from '../../../fiscal/datetime.ts';
import { zodDetails } from '../../../validation.ts';
import { cents, formatCents } from '../../../../src-shared/money.ts';
import {
  nfsePayloadSchema,
  nfseSubstitutePayloadSchema,
  nfseTomadorSchema,
  type NfsePayload,
} from '../../../../src-shared/contracts/nfse-payload.ts';
import type { ErrorDetail } from '../../../../src-shared/contracts/errors.ts';
import { nfseCancelRequestSchema } from '../../../../src-shared/contracts/nfse-view.ts';
import { nationalServiceCodeFault } from '../../../../src-shared/nfse-service-code.ts';
import { NFSE_CODES } from '../../../../src-shared/tables/nfse-codes.ts';
import { ufBySigla } from '../../../../src-shared/uf.ts';
import { cancelAndAwait } from '../../cancel.ts';
import type { QueuedEvent } from '../../events.ts';
import {
  awaitRow,
  createDraft,
  deleteDocument,
  issueDocument,
  queueSend,
  updateDraft,
  type LifecycleDeps,
} from '../../lifecycle.ts';
import { documentsRepository, type DocumentRow } from '../../repository.ts';
import { linkReplaced, NFSE_MODELO, nfseKind } from './kind.ts';
import type { NfseMunicipalParams } from './municipal.ts';
import { joinPayload, splitPayload, type NfseKept, type NfseSubstitution } from './prepare.ts';

export type NfseDeps = LifecycleDeps & {
  /**
   * The national environment's municipal parameters for the company (its A1 opens the TLS session), in the
   * note's environment (`ambiente` absent: the company's, for a note not written yet).
   */
  municipal(companyId: string, ambiente?: Ambiente): Promise<NfseMunicipalParams>;
};

/** §7 E012: the ISS rate of the national NFS-e lies between 2 % and 5 % (LC 116/2003 art. 8-A, art. 8 II). */
const ISS_MIN = cents('2.00');
const ISS_MAX = cents('5.00');

const rejection = (code: { code: string; text: string }, message: string, details: ErrorDetail[]) =>
  fiscalRejection(message, details, { cStat: code.code, xMotivo: code.text });

/**
 * The §2.8 body, every faulty field at once (400). A malformed or unknown national tax code alone is the
 * national environment's E001 (422 fiscal_rejection), reported before anything else is done.
 */
function parseBody(body: unknown): NfsePayload {
  if (body === undefined) {
    throw validationError([
      { field: 'body', error: 'a JSON body with Content-Type application/json is required' },
    ]);
  }
  const parsed = nfsePayloadSchema.safeParse(body);
  const details = parsed.success ? [] : zodDetails(parsed.error);
  const code =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)['codigo_tributacao_nacional']
      : undefined;
  const structural =
    typeof code === 'string' && /^\d{6}$/.test(code.trim()) ? nationalServiceCodeFault(code.trim()) : null;
  if (structural !== null && !details.some((d) => d.field === 'codigo_tributacao_nacional')) {
    details.push({ field: 'codigo_tributacao_nacional', error: structural });
  }
  if (details.length > 0 && details.every((d) => d.field === 'codigo_tributacao_nacional')) {
    throw rejection(
      NFSE_CODES.codigoTributacao,
      `The national environment would reject this DPS (cStat ${NFSE_CODES.codigoTributacao.code}).`,
      details,
    );
  }
  if (details.length > 0 || !parsed.success) throw validationError(details);
  return parsed.data;
}

function competenciaOf(deps: LifecycleDeps, uf: string): string {
  const timeZone = ufBySigla(uf)?.timeZone ?? 'America/Sao_Paulo';
  return formatDateTimeTz(deps.clock.now(), timeZone).slice(0, 10);
}

/**
 * What the national environment would refuse on its municipal parameters, asked before numbering: the
 * provider's municipality (where the service is rendered, cLocPrestacao = cLocEmi) must have joined (E004),
 * and the ISS rate must be 2–5 % and the municipality's (E012). Returns the rate the DPS carries: the
 * catalogue service's for this national code, else the municipality's, else none (its own applies).
 */
async function resolveIss(
  deps: NfseDeps,
  companyId: string,
  payload: NfsePayload,
  ambiente: Ambiente | undefined,
): Promise<string | null> {
  const company = await companiesRepository.findById(deps.db, companyId);
  if (company === undefined) throw notFound('Company');
  const cMun = company.c_mun;
  const code = payload.codigo_tributacao_nacional;
  const params = await deps.municipal(companyId, ambiente);
  const convenio = await params.convenio(cMun).catch(() => ({ aderente: null, mensagem: null }));
  if (convenio.aderente === false) {
    throw rejection(
      NFSE_CODES.municipioNaoConveniado,
      `The municipality ${cMun} of the provider has not joined the national NFS-e (cStat ${NFSE_CODES.municipioNaoConveniado.code}).`,
      [{ field: 'prestador.municipio', error: convenio.mensagem ?? `municipality ${cMun} not joined` }],
    );
  }
  const lookup = await params
    .aliquota(cMun, code, competenciaOf(deps, company.uf))
    .catch((error: unknown) => ({ state: 'unknown' as const, reason: String(error) }));
  if (lookup.state === 'none') {
    // The national environment refuses a service the municipality registers no rate for (docs/nfse.md).
    throw rejection(
      NFSE_CODES.aliquotaIss,
      `The national environment would reject this DPS (cStat ${NFSE_CODES.aliquotaIss.code}).`,
      [
        {
          field: 'codigo_tributacao_nacional',
          error: lookup.mensagem ?? `the municipality ${cMun} registers no ISS rate for ${code}`,
        },
      ],
    );
  }
  const municipal = lookup.state === 'found' ? lookup.aliquota : null;
  const catalogue =
    (await servicesRepository.findActiveByNationalCode(deps.db, companyId, code))?.aliquota_iss ?? null;
  const rate = catalogue ?? municipal;
  if (rate === null) return null;
  const faults: ErrorDetail[] = [];
  const value = cents(rate);
  if (value < ISS_MIN || value > ISS_MAX) {
    faults.push({ field: 'aliquota_iss', error: `ISS rate ${rate} % is outside 2.00 % to 5.00 %` });
  }
  if (municipal !== null && value !== cents(municipal)) {
    faults.push({
      field: 'aliquota_iss',
      error: `ISS rate ${rate} % of the catalogue service differs from the ${municipal} % the municipality registers for ${code}`,
    });
  }
  if (faults.length > 0) {
    throw rejection(
      NFSE_CODES.aliquotaIss,
      `The national environment would reject this DPS (cStat ${NFSE_CODES.aliquotaIss.code}).`,
      faults,
    );
  }
  return formatCents(value);
}

/** Every local check of a body; the payload to store (the body plus what the kind keeps). */
async function checked(
  deps: NfseDeps,
  companyId: string,
  body: unknown,
  subst: NfseSubstitution | null,
  ambiente?: Ambiente,
): Promise<unknown> {
  const payload = parseBody(body);
  const kept: NfseKept = { pAliq: await resolveIss(deps, companyId, payload, ambiente), subst };
  return joinPayload(payload, kept);
}

async function findNfse(deps: LifecycleDeps, id: string): Promise<DocumentRow> {
  const doc = await documentsRepository.findById(deps.db, id);
  if (doc?.modelo !== NFSE_MODELO) throw notFound('NFS-e');
  return doc;
}

const current = (deps: LifecycleDeps, id: string) => documentsRepository.getById(deps.db, id);

/**
 * POST /v1/nfse: checked, numbered, signed and queued in one transaction, then a bounded wait for the
 * national environment's answer (`processando` when it does not come in time: the queue goes on).
 */
export async function issueNfse(
  deps: NfseDeps,
  companyId: string,
  body: unknown,
  waitMs: number,
): Promise<DocumentRow> {
  const payload = await checked(deps, companyId, body, null);
  const { document, outboxId } = await issueDocument(deps, nfseKind, companyId, payload);
  await awaitRow(deps, outboxId, waitMs);
  return current(deps, document.id);
}

export async function createNfseDraft(
  deps: NfseDeps,
  companyId: string,
  body: unknown,
): Promise<DocumentRow> {
  return createDraft(deps, nfseKind, companyId, await checked(deps, companyId, body, null));
}

/** PUT: a draft or a rejected note changes under its own DPS number; a substitute stays one. */
export async function updateNfse(deps: NfseDeps, id: string, body: unknown): Promise<DocumentRow> {
  const doc = await findNfse(deps, id);
  const { subst } = splitPayload(JSON.parse(doc.payload_json) as unknown).kept;
  return updateDraft(deps, id, await checked(deps, doc.company_id, body, subst, doc.ambiente), nfseKind);
}

/**
 * Sends a draft or a rejected note. Its municipal parameters are checked again first (they may have changed
 * since it was written): a rate that changed is written into the DPS under the same number before it goes.
 */
export async function sendNfse(deps: NfseDeps, id: string, waitMs: number | null): Promise<DocumentRow> {
  const doc = await findNfse(deps, id);
  if (doc.status === 'rascunho' || doc.status === 'erro') {
    const { body, kept } = splitPayload(JSON.parse(doc.payload_json) as unknown);
    const pAliq = await resolveIss(deps, doc.company_id, parseBody(body), doc.ambiente);
    if (pAliq !== kept.pAliq) await updateDraft(deps, id, joinPayload(body, { ...kept, pAliq }), nfseKind);
  }
  const outboxId = await queueSend(deps, id, nfseKind);
  // A stale draft is re-signed by the send, which writes the row afresh: the substitute's link comes back.
  await inTransaction(deps.db, async (trx) => {
    const row = await documentsRepository.findById(trx, id);
    if (row !== undefined) await linkReplaced(trx, row);
  });
  if (waitMs !== null) await awaitRow(deps, outboxId, waitMs);
  return current(deps, id);
}

export async function deleteNfse(deps: NfseDeps, id: string): Promise<void> {
  await deleteDocument(deps, id, nfseKind);
}

/** POST /v1/nfse/:id/cancel: the e101101 event queued, then a bounded wait for its registration. */
export async function cancelNfse(
  deps: NfseDeps,
  id: string,
  body: unknown,
  waitMs: number,
): Promise<QueuedEvent> {
  await findNfse(deps, id);
  const parsed = nfseCancelRequestSchema.safeParse(body ?? {});
  if (!parsed.success) throw validationError(zodDetails(parsed.error));
  return cancelAndAwait(deps, id, parsed.data, nfseKind, waitMs);
}

/** The §2.8 substitute body, and the create body's names for the same data (all optional). */
export const nfseSubstituteBodySchema = nfseSubstitutePayloadSchema.extend({
  codigo_tributacao_nacional: z.string().optional(),
  descricao_servico: z.string().optional(),
  valor_servico: z.number().optional(),
  iss_retido: z.boolean().optional(),
  tomador: nfseTomadorSchema.optional(),
});

/** TSCodJustSubst of the layout 1.01: 01-05 and 99 (others). */
const SUBST_MOTIVOS: ReadonlySet<string> = new Set(['01', '02', '03', '04', '05', '99']);
const DEFAULT_SUBST_MOTIVO = '99';
const DEFAULT_SUBST_TEXT = 'Substituicao da NFS-e pelo prestador';

/**
 * POST /v1/nfse/:id/substituir: a new DPS whose subst group names the authorized note, built from the body
 * and, for what it leaves out, from the replaced note; a draft, or queued at once with `sendImmediate`.
 * The old note becomes `substituida` when the new one is authorized (the kind's afterAuthorized).
 */
export async function substituteNfse(deps: NfseDeps, id: string, body: unknown): Promise<DocumentRow> {
  const doc = await findNfse(deps, id);
  const parsed = nfseSubstituteBodySchema.safeParse(body ?? {});
  const faults: ErrorDetail[] = parsed.success ? [] : zodDetails(parsed.error);
  const motivo =
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['cMotivo'] : undefined;
  if (
    typeof motivo === 'string' &&
    !SUBST_MOTIVOS.has(motivo) &&
    !faults.some((f) => f.field === 'cMotivo')
  ) {
    faults.push({ field: 'cMotivo', error: 'must be 01, 02, 03, 04, 05 or 99' });
  }
  if (!parsed.success) throw validationError(faults);
  const input = parsed.data;
  const pairs = [
    ['codigoServico', 'codigo_tributacao_nacional'],
    ['descricao', 'descricao_servico'],
    ['valorServico', 'valor_servico'],
  ] as const;
  for (const [camel, snake] of pairs) {
    if (input[camel] !== undefined && input[snake] !== undefined) {
      faults.push({ field: snake, error: `give either ${camel} or ${snake}, not both` });
    }
  }
  if (faults.length > 0) throw validationError(faults);
  if (doc.status !== 'autorizada') throw invalidState(doc.status, 'substitute');
  if (!/^\d{50}$/.test(doc.chave)) {
    throw new DomainError('invalid_state', 'The NFS-e has no 50-digit national key to substitute.', [
      { field: 'chave_acesso_50', error: 'missing' },
    ]);
  }
  const pending = await deps.db
    .selectFrom('documents')
    .select(['id', 'status'])
    .where('replaces', '=', doc.id)
    .where('status', 'in', ['rascunho', 'processando', 'autorizada'])
    .executeTakeFirst();
  if (pending !== undefined) {
    throw new DomainError('invalid_state', `The NFS-e is already being substituted by ${pending.id}.`, [
      { field: 'id', error: `substitute ${pending.id} is ${pending.status}` },
    ]);
  }
  const old = splitPayload(JSON.parse(doc.payload_json) as unknown).body as Record<string, unknown>;
  const next: Record<string, unknown> = {
    codigo_tributacao_nacional:
      input.codigoServico ?? input.codigo_tributacao_nacional ?? old['codigo_tributacao_nacional'],
    descricao_servico: input.descricao ?? input.descricao_servico ?? old['descricao_servico'],
    valor_servico: input.valorServico ?? input.valor_servico ?? old['valor_servico'],
    iss_retido: input.iss_retido ?? old['iss_retido'],
    tomador: input.tomador ?? old['tomador'],
  };
  const subst: NfseSubstitution = {
    chSubstda: doc.chave,
    cMotivo: input.cMotivo ?? DEFAULT_SUBST_MOTIVO,
    xMotivo: input.xMotivo ?? (input.cMotivo === undefined ? DEFAULT_SUBST_TEXT : null),
    documentId: doc.id,
  };
  // A new note: it is issued in the company's environment, so its parameters are asked there (no ambiente).
  const payload = await checked(deps, doc.company_id, next, subst);
  // Read back: the kind's afterWrite linked `replaces` in the same transaction.
  if (!input.sendImmediate)
    return current(deps, (await createDraft(deps, nfseKind, doc.company_id, payload)).id);
  const { document } = await issueDocument(deps, nfseKind, doc.company_id, payload);
  return current(deps, document.id);
}
