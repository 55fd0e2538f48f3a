// The one lifecycle every document kind shares: drafts with their number reserved in the transaction that
// inserts them, changes, the send that moves a draft to `processando` and queues it in one transaction,
// deletion of what never reached the authority, and the row every kind stores. It imports no kind.
//
// How a kind uses it (documents/kind.ts): register the kind (documents/kinds/index.ts), then
//   createDraft(deps, kind, companyId, payload)        → the `rascunho` row, number and key reserved
//   updateDraft(deps, id, payload, kind)               → same number, re-prepared (rascunho | erro)
//   sendDocument(deps, id, waitMs | null, kind)        → processando/contingencia + queued autorizacao
//   deleteDocument(deps, id, kind)                     → rascunho, or erro never transmitted
//   issueDocument(deps, kind, companyId, payload, {})  → created and queued at once (batches, sales)
// The queue then settles the row through kind.protocol; events go through documents/events.ts (cancel,
// correction letter) and voids through the kind's VoidRule. Passing `kind` to the by-id functions makes a
// document of another kind answer 404, as if it did not exist under that kind's routes.
import { inCompanyTransaction, inTransaction, type Db } from '../db/client.ts';
import { sql } from 'kysely';
import { invalidState, notFound, validationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { AUTHORIZATION_MESSAGE, outboxRepository } from '../outbox/repository.ts';
import type { OutboxWorker } from '../outbox/worker.ts';
import { linkIdempotencyKey } from './idempotency-link.ts';
import { checkSendRegister, linkSaleRegister } from '../register/sale-context.ts';
import {
  NORMAL_EMISSION,
  type DocumentKind,
  type Emission,
  type KindDeps,
  type PreparedDocument,
} from './kind.ts';
import { kindOfModelo } from './registry.ts';
import { loadCompanyFiscal, type CompanyFiscal } from './context.ts';
import { documentsRepository, type DocumentRow } from './repository.ts';
import { assertAllowed } from './state-machine.ts';
import { listSummaryColumn } from './list-summary.ts';

export interface LifecycleDeps extends KindDeps {
  worker: OutboxWorker;
}

/** A draft older than this is re-signed with a fresh emission time when sent (NFC-e online accepts 5 min). */
const DRAFT_FRESH_MS = 4 * 60_000;

export function fieldOf(payload: unknown, key: string): unknown {
  return typeof payload === 'object' && payload !== null
    ? (payload as Record<string, unknown>)[key]
    : undefined;
}

/** The company's first series of this model in this environment, 1 when it has none yet. */
async function defaultSerie(db: Db, companyId: string, modelo: number, ambiente: 'homologacao' | 'producao') {
  const row = await db
    .selectFrom('number_sequences')
    .select('serie')
    .where('company_id', '=', companyId)
    .where('modelo', '=', modelo)
    .where('ambiente', '=', ambiente)
    .orderBy('serie')
    .executeTakeFirst();
  return row?.serie ?? 1;
}

/** The emission in force for a document of this kind built now. */
export async function emissionFor(
  deps: LifecycleDeps,
  kind: DocumentKind,
  companyId: string,
): Promise<Emission> {
  return (await kind.contingency?.emission(deps.db, companyId, deps.clock)) ?? NORMAL_EMISSION;
}

export function rowFrom(
  id: string,
  fiscal: CompanyFiscal,
  kind: DocumentKind,
  serie: number,
  numero: number,
  prepared: PreparedDocument,
  payload: unknown,
  status: DocumentRow['status'],
  now: string,
): DocumentRow {
  return {
    id,
    company_id: fiscal.company.id,
    modelo: kind.modelo,
    serie,
    n_nf: numero,
    ambiente: fiscal.company.ambiente,
    tp_emis: prepared.tpEmis,
    chave: prepared.chave,
    status,
    payload_json: JSON.stringify(payload),
    xml: prepared.xml,
    // What the list shows from the XML, written with it so that no list parses XML (issue 18).
    list_summary: listSummaryColumn(kind.modelo, prepared.xml),
    digest_value: prepared.digestValue,
    v_nf: prepared.total,
    dh_emi: prepared.dhEmi,
    qr_code: prepared.qrCode,
    url_chave: prepared.urlChave,
    c_stat: null,
    x_motivo: null,
    n_prot: null,
    authorized_at: null,
    prot_xml: null,
    proc_xml: null,
    replaced_by: null,
    replaces: null,
    created_at: now,
    updated_at: now,
  };
}

/** Loads the company in the payload's environment (§2.1 `ambiente` overrides the company's) and checks it. */
async function fiscalFor(
  deps: LifecycleDeps,
  kind: DocumentKind,
  companyId: string,
  payload: unknown,
): Promise<CompanyFiscal> {
  // A value that is neither is reported by the payload check with every other fault.
  const requested = fieldOf(payload, 'ambiente');
  const ambiente = requested === 'homologacao' || requested === 'producao' ? requested : undefined;
  const fiscal = await loadCompanyFiscal(deps.db, deps.secrets, companyId, deps.clock.now(), ambiente);
  if (fiscal.company.ambiente === 'producao' && fiscal.company.authority === 'sandbox') {
    // The rule of PUT /config: the sandbox's answers have no fiscal value, so nothing it "authorizes" may
    // look like a valid document (a producao DANFE/DACTE prints without the homologação notice).
    throw validationError([
      { field: 'ambiente', error: 'a company on the sandbox authority issues only in homologacao' },
    ]);
  }
  kind.beforeIssue?.(fiscal, payload);
  return fiscal;
}

/**
 * Loads the company, checks what issuing needs, then in ONE transaction reserves the next number, has the
 * kind build, sign and validate the document and inserts it; `after` adds what goes with it (the queue row).
 * A failure at any step leaves no number consumed and nothing half-written.
 */
export async function insertNumbered<T>(
  deps: LifecycleDeps,
  kind: DocumentKind,
  companyId: string,
  payload: unknown,
  emissionOverride: Emission | null,
  statusOf: (emission: Emission) => DocumentRow['status'],
  after: (trx: Db, row: DocumentRow) => Promise<T>,
): Promise<T> {
  const emission = emissionOverride ?? (await emissionFor(deps, kind, companyId));
  payload = (await kind.amendPayload?.(deps.db, companyId, payload)) ?? payload;
  const fiscal = await fiscalFor(deps, kind, companyId, payload);
  const serie =
    kind.serieOf(payload) ?? (await defaultSerie(deps.db, companyId, kind.modelo, fiscal.company.ambiente));
  // The company's own rows only (its series, documents, queue, keys, register, charges): in server mode other
  // companies' sales are not serialized behind it.
  return inCompanyTransaction(deps.db, companyId, async (trx) => {
    const now = deps.clock.now();
    const stamp = now.toISOString();
    const numero = await documentsRepository.reserveNumber(
      trx,
      companyId,
      kind.modelo,
      serie,
      fiscal.company.ambiente,
      stamp,
    );
    const prepared = await kind.prepare({ db: trx, fiscal, payload, serie, numero, now, emission });
    const row = rowFrom(newId(), fiscal, kind, serie, numero, prepared, payload, statusOf(emission), stamp);
    await documentsRepository.insert(trx, row);
    const result = await after(trx, row);
    // After `after`: a contingency re-issue has marked the attempt it replaces, whose charges it takes over.
    await kind.afterWrite?.(trx, row, payload);
    return result;
  });
}

/** The queue row that sends a document for authorization. */
export function queueAuthorization(
  trx: Db,
  kind: DocumentKind,
  row: DocumentRow,
  now: string,
): Promise<number> {
  return outboxRepository.enqueueMessage(trx, {
    documentId: row.id,
    companyId: row.company_id,
    kind: 'autorizacao',
    docKind: kind.id,
    // The worker sends the document's own signed XML: the row does not copy it (stored once, issue 18).
    message: AUTHORIZATION_MESSAGE,
    now,
  });
}

/**
 * Creates a draft (`rascunho`): the number is reserved and the document is built, validated and signed,
 * but nothing is queued; PUT may change it (same number) until it is sent.
 */
export async function createDraft(
  deps: LifecycleDeps,
  kind: DocumentKind,
  companyId: string,
  payload: unknown,
  emission: Emission | null = null,
): Promise<DocumentRow> {
  return insertNumbered(
    deps,
    kind,
    companyId,
    payload,
    emission,
    () => 'rascunho',
    async (trx, row) => {
      // An operator's draft names its operator (and register) from the moment it exists (issue 13).
      await linkSaleRegister(trx, row, companyId, true);
      return row;
    },
  );
}

export interface Issued {
  document: DocumentRow;
  outboxId: number;
}

/**
 * Creates a document and queues it at once (batches, the cashier's sale). `beforeQueue` runs in the same
 * transaction first (a contingency re-issue marks the attempt it replaces there).
 */
export async function issueDocument(
  deps: LifecycleDeps,
  kind: DocumentKind,
  companyId: string,
  payload: unknown,
  options: {
    emission?: Emission | null;
    beforeQueue?: (trx: Db, row: DocumentRow) => Promise<void>;
    /** The operator's register session is tied to a first attempt only (a re-issue inherits it). */
    firstAttempt?: boolean;
  } = {},
): Promise<Issued> {
  return insertNumbered(
    deps,
    kind,
    companyId,
    payload,
    options.emission ?? null,
    // tpEmis 9 (NFC-e offline) is issued locally and transmitted later: `contingencia` until then.
    (e) => (e.tpEmis === 9 ? 'contingencia' : 'processando'),
    async (trx, row) => {
      await options.beforeQueue?.(trx, row);
      // The request's Idempotency-Key names this document from the moment it exists (issue 12 item 1).
      await linkIdempotencyKey(trx, 'document', row.id);
      // The register session of an operator's sale, in the same transaction (issue 13).
      await linkSaleRegister(trx, row, companyId, options.firstAttempt ?? true);
      const outboxId = await queueAuthorization(trx, kind, row, row.created_at);
      return { document: row, outboxId };
    },
  );
}

/** Re-prepares a document under its own number (a change, a stale draft, another emission). */
export async function rebuild(
  deps: KindDeps,
  kind: DocumentKind,
  doc: DocumentRow,
  payload: unknown,
  trx: Db,
  status: DocumentRow['status'],
  emission: Emission | null = null,
): Promise<DocumentRow> {
  const fiscal = await loadCompanyFiscal(trx, deps.secrets, doc.company_id, deps.clock.now(), doc.ambiente);
  const chosen =
    emission ??
    (await kind.contingency?.rebuildEmission?.(trx, doc.company_id, deps.clock)) ??
    (await kind.contingency?.emission(trx, doc.company_id, deps.clock)) ??
    NORMAL_EMISSION;
  // The queue rows that sent the XML being replaced keep it (they reference the document's current one).
  await outboxRepository.keepSentMessages(trx, doc.id, doc.xml);
  const now = deps.clock.now();
  const prepared = await kind.prepare({
    db: trx,
    fiscal,
    payload,
    serie: doc.serie,
    numero: doc.n_nf,
    now,
    emission: chosen,
  });
  const row = rowFrom(
    doc.id,
    fiscal,
    kind,
    doc.serie,
    doc.n_nf,
    prepared,
    payload,
    status,
    now.toISOString(),
  );
  row.created_at = doc.created_at;
  // The same document under its own number: its links to the documents it replaces or that replaced it
  // (a substitution, a contingency re-issue) are not the kind's to rebuild.
  row.replaces = doc.replaces;
  row.replaced_by = doc.replaced_by;
  return row;
}

/**
 * Re-signs a never-received attempt with another emission under the same number (its key changes with
 * tpEmis) and points its queue row at the new message. `busy`: whether the queue is processing the row
 * now (the worker itself may call this inside its own processing, and then passes false).
 */
export async function resignSameNumber(
  deps: KindDeps,
  attempt: DocumentRow,
  outboxId: number,
  emission: Emission,
  status: DocumentRow['status'],
  busy: () => boolean = () => false,
): Promise<DocumentRow | null> {
  const payload: unknown = JSON.parse(attempt.payload_json);
  const kind = kindOfModelo(attempt.modelo);
  return inTransaction(deps.db, async (trx) => {
    const row = await outboxRepository.findById(trx, outboxId);
    // Re-checked inside the transaction: the worker may have picked the row up meanwhile.
    if (row === undefined || row.state !== 'pending' || busy()) return null;
    const updated = await rebuild(deps, kind, attempt, payload, trx, status, emission);
    await documentsRepository.update(trx, attempt.id, updated);
    await outboxRepository.update(trx, outboxId, {
      message: AUTHORIZATION_MESSAGE,
      next_try_at: updated.updated_at,
      updated_at: updated.updated_at,
    });
    return updated;
  });
}

/** The document `id`, of `kind` when given (another kind's document is not found). */
async function findOf(db: Db, id: string, kind?: DocumentKind): Promise<DocumentRow> {
  const doc = await documentsRepository.findById(db, id);
  if (doc === undefined || (kind !== undefined && doc.modelo !== kind.modelo)) throw notFound('Document');
  return doc;
}

/** PUT: only a draft or a rejected document changes; it keeps its number (§4.1). */
export async function updateDraft(
  deps: LifecycleDeps,
  id: string,
  body: unknown,
  expected?: DocumentKind,
): Promise<DocumentRow> {
  const found = await findOf(deps.db, id, expected);
  const payload = (await kindOfModelo(found.modelo).amendPayload?.(deps.db, found.company_id, body)) ?? body;
  return inTransaction(deps.db, async (trx) => {
    const doc = await findOf(trx, id, expected);
    assertAllowed(doc.status, 'update');
    const kind = kindOfModelo(doc.modelo);
    // §3: a PUT replaces the data and keeps the state (a rejected document stays `erro` until sent again);
    // the authority's last answer stays readable until then too.
    const row = await rebuild(deps, kind, doc, payload, trx, doc.status);
    row.c_stat = doc.c_stat;
    row.x_motivo = doc.x_motivo;
    await documentsRepository.update(trx, doc.id, row);
    await kind.afterWrite?.(trx, row, payload);
    return row;
  });
}

/**
 * Moves a draft or a rejected document to `processando` (or `contingencia`) and queues it, in one
 * transaction, so two concurrent sends cannot both pass (the second sees the new state). Returns the row id.
 */
export async function queueSend(deps: LifecycleDeps, id: string, expected?: DocumentKind): Promise<number> {
  return inTransaction(deps.db, async (trx) => {
    const doc = await findOf(trx, id, expected);
    assertAllowed(doc.status, 'send');
    const kind = kindOfModelo(doc.modelo);
    // A document of a register session closed since is re-tied to the open one or refused (issue 13).
    doc.register_session_id = await checkSendRegister(trx, doc);
    const stale =
      doc.status === 'erro' ||
      ((await kind.contingency?.resignOnSend?.(trx, doc)) ?? false) ||
      deps.clock.now().getTime() - new Date(doc.updated_at).getTime() > DRAFT_FRESH_MS;
    const row = stale
      ? await rebuild(deps, kind, doc, JSON.parse(doc.payload_json) as unknown, trx, 'processando')
      : doc;
    const status = row.tp_emis === 9 ? 'contingencia' : 'processando';
    const now = deps.clock.now().toISOString();
    await documentsRepository.update(trx, doc.id, {
      ...row,
      status,
      c_stat: null,
      x_motivo: null,
      updated_at: now,
    });
    await linkIdempotencyKey(trx, 'document', doc.id);
    return queueAuthorization(trx, kind, row, now);
  });
}

/** Waits at most `waitMs` for the queue to process a row (a failure to reach the authority leaves it queued). */
export async function awaitRow(deps: LifecycleDeps, outboxId: number, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    deps.worker.process(outboxId),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
  ]);
  clearTimeout(timer);
}

/**
 * Sends a draft or a rejected document: re-signed when stale or changed, queued in the transaction that moves
 * it to `processando`. With `waitMs` the answer waits (bounded) for the authority's decision.
 */
export async function sendDocument(
  deps: LifecycleDeps,
  id: string,
  waitMs: number | null,
  expected?: DocumentKind,
): Promise<DocumentRow> {
  const queued = await queueSend(deps, id, expected);
  if (waitMs !== null) await awaitRow(deps, queued, waitMs);
  return documentsRepository.getById(deps.db, id);
}

/**
 * Deletes a draft, or a rejected document that never reached the authority (no queue row of it was ever
 * sent or is still open). Its number stays reserved and unused: the daily check of abandoned numbers offers
 * it for inutilização like any other gap. Anything else is 409 invalid_state.
 */
export async function deleteDocument(
  deps: LifecycleDeps,
  id: string,
  expected?: DocumentKind,
): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    const doc = await findOf(trx, id, expected);
    const rows = await trx
      .selectFrom('outbox')
      .select(['state', 'attempts'])
      .where('document_id', '=', doc.id)
      .execute();
    const transmitted = rows.some((r) => r.attempts > 0 || r.state !== 'failed');
    if (doc.status !== 'rascunho' && !(doc.status === 'erro' && !transmitted)) {
      throw invalidState(doc.status, 'delete');
    }
    // What pointed at the draft goes with it: its queue rows (none sent), print jobs, PIX claims.
    await trx.deleteFrom('outbox').where('document_id', '=', doc.id).execute();
    await trx.deleteFrom('print_jobs').where('document_id', '=', doc.id).execute();
    await sql`UPDATE pix_charges SET document_id = NULL WHERE document_id = ${doc.id}`.execute(trx);
    await trx.deleteFrom('documents').where('id', '=', doc.id).execute();
  });
}
