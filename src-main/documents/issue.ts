// Issuing NF-e/NFC-e: reserve the number, build and sign the note and queue it in ONE transaction; the
// cashier's synchronous NFC-e sale with its fall-back to offline contingency (tpEmis 9) when the authority
// does not answer in time, so a sale is never stopped by the network.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { newId } from '../ids.ts';
import { ApiError, validationError } from '../api/errors.ts';
import { cents } from '../../src-shared/money.ts';
import { randomCNF } from '../fiscal/access-key.ts';
import { normalizeFreeText } from '../fiscal/xml.ts';
import { IBS_CBS_2026_RATES, type NfeModel } from '../fiscal/nfe/model.ts';
import { prepareNfe, type PrepareContext, type PreparedNfe } from '../fiscal/nfe/prepare.ts';
import { outboxRepository } from '../outbox/repository.ts';
import type { OutboxWorker } from '../outbox/worker.ts';
import { assertAllowed } from './state-machine.ts';
import { documentsRepository, type DocumentRow } from './repository.ts';
import { loadCompanyFiscal, lookupsFor, type CompanyFiscal } from './context.ts';
import { activeNcmTable } from '../reference/ncm-store.ts';
import { activeIbpt } from '../ibpt/store.ts';
import { linkIdempotencyKey } from './idempotency-link.ts';
import { checkSendRegister, linkSaleRegister } from '../register/sale-context.ts';
import { claimPixCharges, pixChargesForSale } from '../pix/sale.ts';

export const VER_PROC = 'Balcao 0.1.0';

/** Justification written in offline NFC-e (xJust, 15–256 chars, MOC 7.0 B29). */
const OFFLINE_JUSTIFICATION = 'Sem comunicacao com a SEFAZ no momento da venda';

export interface IssueDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  worker: OutboxWorker;
}

interface Emission {
  tpEmis: NfeModel['tpEmis'];
  contingency: NfeModel['contingency'];
}

/**
 * The anonymous-sale ceiling of the NFC-e: above it the buyer must be identified (NT 2015.002 rule 780,
 * "generally 10000.00" in §7; the states that set it differently keep it at or above this amount).
 */
const NFCE_ANONYMOUS_CEILING_CENTS = cents('10000.00');

function prepareOrThrow(payload: unknown, ctx: PrepareContext): PreparedNfe {
  const result = prepareNfe(payload, ctx);
  if (result.ok) {
    const { model, vNF } = result.document;
    const identified = model.dest !== null && (model.dest.CPF !== undefined || model.dest.CNPJ !== undefined);
    if (model.modelo === 65 && !identified && cents(vNF) > NFCE_ANONYMOUS_CEILING_CENTS) {
      throw new ApiError(
        422,
        'fiscal_rejection',
        'An NFC-e above 10000.00 must identify the buyer (CPF or CNPJ).',
        [
          {
            field: 'customer',
            error: `the total ${vNF} is above the anonymous-sale ceiling: give the buyer's CPF`,
          },
        ],
        {
          cStat: '780',
          xMotivo: 'Rejeicao: Total da NFC-e superior ao valor limite estabelecido pela SEFAZ [Limite]',
        },
      );
    }
    return result.document;
  }
  if ((result.stage === 'payload' || result.stage === 'taxes') && result.rejection !== undefined) {
    // A well-formed note that breaks one of the authority's rules: refused before signing with its cStat.
    throw new ApiError(
      422,
      'fiscal_rejection',
      `The authority would reject this note (cStat ${result.rejection.cStat}).`,
      result.errors,
      { cStat: result.rejection.cStat, xMotivo: result.rejection.xMotivo },
    );
  }
  if (result.stage === 'payload') throw validationError(result.errors);
  // Tax or schema failures are fiscal-rule failures of a well-formed request (seed §7: 422).
  throw new ApiError(
    422,
    'fiscal_rejection',
    result.stage === 'schema'
      ? 'The note does not validate against the official schema.'
      : 'The taxes of the note cannot be computed.',
    result.errors,
  );
}

/** The company's IBPT table for the Lei 12.741 values, when it imported one. */
async function ibptOf(db: Db, companyId: string): Promise<Pick<PrepareContext, 'ibpt'>> {
  const ibpt = await activeIbpt(db, companyId);
  return ibpt === undefined ? {} : { ibpt };
}

async function contextFor(
  db: Db,
  fiscal: CompanyFiscal,
  payload: unknown,
  modelo: 55 | 65,
  serie: number,
  nNF: number,
  dhEmi: Date,
  emission: Emission,
): Promise<PrepareContext> {
  return {
    modelo,
    emit: fiscal.emit,
    tpAmb: fiscal.tpAmb,
    serie,
    nNF,
    cNF: randomCNF(nNF),
    dhEmi,
    tpEmis: emission.tpEmis,
    contingency: emission.contingency,
    verProc: VER_PROC,
    ibsCbsRates: { ...IBS_CBS_2026_RATES },
    infRespTec: fiscal.infRespTec,
    lookup: await lookupsFor(db, fiscal.company.id, payload),
    ncmTable: await activeNcmTable(db),
    ...(await ibptOf(db, fiscal.company.id)),
    pixCharges: await pixChargesForSale(db, fiscal.company.id, payload),
    certificate: fiscal.certificate,
    nfce: {
      qrVersion: fiscal.qrVersion,
      ...(fiscal.csc === null ? {} : { cscId: fiscal.csc.id, csc: fiscal.csc.token }),
    },
  };
}

function fieldOf(payload: unknown, key: string): unknown {
  return typeof payload === 'object' && payload !== null
    ? (payload as Record<string, unknown>)[key]
    : undefined;
}

function serieOf(payload: unknown, fallback: number): number {
  const serie = fieldOf(payload, 'serie');
  return typeof serie === 'number' && Number.isInteger(serie) ? serie : fallback;
}

async function defaultSerie(
  db: Db,
  companyId: string,
  modelo: 55 | 65,
  ambiente: 'homologacao' | 'producao',
) {
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

function rowFrom(
  id: string,
  fiscal: CompanyFiscal,
  modelo: 55 | 65,
  serie: number,
  nNF: number,
  prepared: PreparedNfe,
  payload: unknown,
  status: DocumentRow['status'],
  now: string,
): DocumentRow {
  return {
    id,
    company_id: fiscal.company.id,
    modelo,
    serie,
    n_nf: nNF,
    ambiente: fiscal.company.ambiente,
    tp_emis: prepared.model.tpEmis,
    chave: prepared.chave,
    status,
    payload_json: JSON.stringify(payload),
    xml: prepared.xml,
    digest_value: prepared.digestValue,
    v_nf: prepared.vNF,
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

export interface Issued {
  document: DocumentRow;
  outboxId: number;
}

/**
 * Loads the company, checks what issuing needs, then in ONE transaction reserves the next number, builds,
 * taxes, validates and signs the note and inserts it; `after` adds what goes with it (the queue row). A
 * failure at any step leaves no number consumed and nothing half-written.
 */
async function insertNumbered<T>(
  deps: IssueDeps,
  companyId: string,
  modelo: 55 | 65,
  payload: unknown,
  emissionOverride: Emission | null,
  statusOf: (emission: Emission) => DocumentRow['status'],
  after: (trx: Db, row: DocumentRow) => Promise<T>,
): Promise<T> {
  const emission =
    emissionOverride ?? (modelo === 55 ? await nfeEmission(deps.db, companyId) : NORMAL_EMISSION);
  // §2.1: `ambiente` overrides the company's environment for this note (numbering, tpAmb, the authority's
  // service); a value that is neither is reported by the payload check with every other fault.
  const requested = fieldOf(payload, 'ambiente');
  const ambiente = requested === 'homologacao' || requested === 'producao' ? requested : undefined;
  const fiscal = await loadCompanyFiscal(deps.db, deps.secrets, companyId, deps.clock.now(), ambiente);
  if (fiscal.company.ambiente === 'producao' && fiscal.company.authority === 'sandbox') {
    // The rule of PUT /config: the sandbox's answers have no fiscal value, so nothing it "authorizes" may
    // look like a valid note (a producao DANFE prints without the homologação notice).
    throw validationError([
      { field: 'ambiente', error: 'a company on the sandbox authority issues only in homologacao' },
    ]);
  }
  if (modelo === 65 && fiscal.qrVersion === 2 && fiscal.csc === null) {
    throw validationError([
      { field: 'csc_nfce', error: 'the company has no CSC: set it with PUT /v1/companies/:id/config' },
    ]);
  }
  const serie = serieOf(payload, await defaultSerie(deps.db, companyId, modelo, fiscal.company.ambiente));
  return inTransaction(deps.db, async (trx) => {
    const now = deps.clock.now();
    const stamp = now.toISOString();
    const nNF = await documentsRepository.reserveNumber(
      trx,
      companyId,
      modelo,
      serie,
      fiscal.company.ambiente,
      stamp,
    );
    const ctx = await contextFor(trx, fiscal, payload, modelo, serie, nNF, now, emission);
    const prepared = prepareOrThrow(payload, ctx);
    const row = rowFrom(newId(), fiscal, modelo, serie, nNF, prepared, payload, statusOf(emission), stamp);
    await documentsRepository.insert(trx, row);
    const result = await after(trx, row);
    // After `after`: a contingency re-issue has marked the attempt it replaces, whose charges it takes over.
    await claimPixCharges(trx, row.id, payload, stamp);
    return result;
  });
}

/**
 * Thrown inside a re-issue's transaction when the doubtful attempt got its answer meanwhile: the
 * transaction rolls back (no number is taken) and the sale ends with the attempt itself.
 */
class AttemptSettled extends Error {
  constructor(readonly attempt: DocumentRow) {
    super(`attempt ${attempt.id} settled as ${attempt.status} before its re-issue`);
  }
}

/** Issues and queues a note; with `replaces`, it is the contingency re-issue of that doubtful attempt. */
export async function issueDocument(
  deps: IssueDeps,
  companyId: string,
  modelo: 55 | 65,
  payload: unknown,
  emissionOverride: Emission | null = null,
  replaces: DocumentRow | null = null,
): Promise<Issued> {
  return insertNumbered(
    deps,
    companyId,
    modelo,
    payload,
    emissionOverride,
    (e) => (e.tpEmis === 9 ? 'contingencia' : 'processando'),
    async (trx, row) => {
      if (replaces !== null) {
        // The queue may have settled the attempt between the sale's last look and this transaction; the
        // two serialize, so either the queue sees replaced_by (and cancels the attempt by substitution) or
        // this sees the authorization and no second note is issued for the sale.
        const current = await documentsRepository.findById(trx, replaces.id);
        if (current !== undefined && (current.status === 'autorizada' || current.status === 'denegada'))
          throw new AttemptSettled(current);
        row.replaces = replaces.id;
        // The re-issue is the same sale: same register session and operator, also when it was a draft sent
        // (no sale context then).
        const inherited = {
          register_session_id: current?.register_session_id ?? null,
          operator_id: current?.operator_id ?? null,
        };
        Object.assign(row, inherited);
        await documentsRepository.update(trx, row.id, { replaces: replaces.id, ...inherited });
        await documentsRepository.update(trx, replaces.id, {
          replaced_by: row.id,
          updated_at: row.updated_at,
        });
      }
      // The request's Idempotency-Key names this note from the moment it exists (issue 12 item 1).
      await linkIdempotencyKey(trx, 'document', row.id);
      // The register session of an operator's sale, in the same transaction (issue 13).
      await linkSaleRegister(trx, row, companyId, replaces === null);
      const outboxId = await outboxRepository.enqueueMessage(trx, {
        documentId: row.id,
        companyId,
        kind: 'autorizacao',
        message: row.xml,
        now: row.created_at,
      });
      return { document: row, outboxId };
    },
  );
}

export async function offlineMode(db: Db, companyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('contingency_modes')
    .select('mode')
    .where('company_id', '=', companyId)
    .where('modelo', '=', 65)
    .executeTakeFirst();
  return row?.mode === 'offline';
}

export async function setNfceOffline(
  db: Db,
  clock: Clock,
  companyId: string,
  offline: boolean,
  reason: string,
): Promise<void> {
  if (!offline) {
    await db
      .deleteFrom('contingency_modes')
      .where('company_id', '=', companyId)
      .where('modelo', '=', 65)
      .execute();
    return;
  }
  await db
    .insertInto('contingency_modes')
    .values({ company_id: companyId, modelo: 65, mode: 'offline', since: clock.now().toISOString(), reason })
    .onConflict((oc) => oc.columns(['company_id', 'modelo']).doNothing())
    .execute();
}

const NORMAL_EMISSION: Emission = { tpEmis: 1, contingency: null };

/** tpEmis of each virtual contingency authority (MOC 7.0 B22: 6 SVC-AN, 7 SVC-RS). */
const SVC_TPEMIS = { 'SVC-AN': 6, 'SVC-RS': 7 } as const;

/** The NF-e emission in force: normal, or SVC while the company's contingency row says so. */
export async function nfeEmission(db: Db, companyId: string): Promise<Emission> {
  const row = await db
    .selectFrom('contingency_modes')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('modelo', '=', 55)
    .executeTakeFirst();
  if (row === undefined || (row.mode !== 'SVC-AN' && row.mode !== 'SVC-RS')) return NORMAL_EMISSION;
  return { tpEmis: SVC_TPEMIS[row.mode], contingency: { dhCont: new Date(row.since), xJust: row.reason } };
}

/**
 * Switches the company's NF-e to its UF's virtual contingency authority (a persisted row, so a restart
 * keeps it) and re-signs `attempt` for it under the same number: the attempt never reached the UF
 * (its send was refused or the service paused), and tpEmis 6/7 gives it a new key.
 */
export async function switchNfeToSvc(
  deps: IssueDeps,
  attempt: DocumentRow,
  outboxId: number,
  svc: 'SVC-AN' | 'SVC-RS',
  reason: string,
): Promise<DocumentRow | null> {
  // xJust is TString 15-256 (MOC 7.0 B29): the reason comes from error texts, so it is normalized here.
  const xJust = normalizeFreeText(reason, 256).padEnd(15, '.');
  await deps.db
    .insertInto('contingency_modes')
    .values({
      company_id: attempt.company_id,
      modelo: 55,
      mode: svc,
      since: deps.clock.now().toISOString(),
      reason: xJust,
    })
    .onConflict((oc) => oc.columns(['company_id', 'modelo']).doNothing())
    .execute();
  if (attempt.tp_emis !== 1) return null;
  return resignSameNumber(
    deps,
    attempt,
    outboxId,
    await nfeEmission(deps.db, attempt.company_id),
    'processando',
    true,
  );
}

function offlineEmission(clock: Clock): Emission {
  return { tpEmis: 9, contingency: { dhCont: clock.now(), xJust: OFFLINE_JUSTIFICATION } };
}

export interface SaleResult {
  document: DocumentRow;
  /** How the sale ended: authorized online, or issued in offline contingency (to be transmitted later). */
  mode: 'online' | 'offline';
}

/**
 * The cashier's sale: try the authority for at most `waitMs`; when it does not settle the note in time, the
 * sale is issued in offline contingency and the NFC-e mode switches to offline so the next sales do not wait.
 * An attempt that may have reached the authority keeps its number and is resolved later (consulted, then
 * cancelled by substitution if authorized or voided if never received); one that certainly did not is
 * re-signed as tpEmis 9 with the same number.
 */
export async function sellNfce(
  deps: IssueDeps,
  companyId: string,
  payload: unknown,
  waitMs: number,
): Promise<SaleResult> {
  if (await offlineMode(deps.db, companyId)) {
    const { document } = await issueDocument(deps, companyId, 65, payload, offlineEmission(deps.clock));
    return { document, mode: 'offline' };
  }
  const { document, outboxId } = await issueDocument(deps, companyId, 65, payload);
  return authorizedOrContingency(deps, document, outboxId, waitMs);
}

/**
 * The cashier's bounded wait: the queued NFC-e is sent now and the answer waits at most `waitMs`; past that
 * the company goes offline and the sale completes in contingency (tpEmis 9): re-signed under the same number
 * when the attempt certainly did not reach the authority, otherwise re-issued under the next number (the
 * doubtful attempt is settled later by cancellation by substitution or inutilização).
 */
async function authorizedOrContingency(
  deps: IssueDeps,
  document: DocumentRow,
  outboxId: number,
  waitMs: number,
): Promise<SaleResult> {
  const companyId = document.company_id;
  const payload: unknown = JSON.parse(document.payload_json);
  let timer: NodeJS.Timeout | undefined;
  const attempt = deps.worker.process(outboxId);
  await Promise.race([attempt, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);

  const after = await documentsRepository.findById(deps.db, document.id);
  if (after !== undefined && after.status !== 'processando') return { document: after, mode: 'online' };

  await setNfceOffline(deps.db, deps.clock, companyId, true, 'authority did not answer a sale in time');
  const row = await outboxRepository.findById(deps.db, outboxId);
  const certainlyNotReceived =
    row !== undefined && row.state === 'pending' && row.attempts <= 1 && !deps.worker.isBusy(outboxId);
  if (certainlyNotReceived) {
    const reissued = await resignSameNumber(
      deps,
      document,
      outboxId,
      offlineEmission(deps.clock),
      'contingencia',
    );
    if (reissued !== null) return { document: reissued, mode: 'offline' };
  }
  try {
    const { document: replacement } = await issueDocument(
      deps,
      companyId,
      65,
      payload,
      offlineEmission(deps.clock),
      document,
    );
    return { document: replacement, mode: 'offline' };
  } catch (error) {
    if (error instanceof AttemptSettled) return { document: error.attempt, mode: 'online' };
    throw error;
  }
}

/**
 * Re-signs a never-received attempt with another tpEmis under the same number (its key changes with tpEmis).
 * `busyOk`: the caller is the worker itself, inside its own processing of this row.
 */
async function resignSameNumber(
  deps: IssueDeps,
  attempt: DocumentRow,
  outboxId: number,
  emission: Emission,
  status: DocumentRow['status'],
  busyOk = false,
): Promise<DocumentRow | null> {
  const fiscal = await loadCompanyFiscal(
    deps.db,
    deps.secrets,
    attempt.company_id,
    deps.clock.now(),
    attempt.ambiente,
  );
  const payload: unknown = JSON.parse(attempt.payload_json);
  const modelo = attempt.modelo as 55 | 65;
  return inTransaction(deps.db, async (trx) => {
    const row = await outboxRepository.findById(trx, outboxId);
    // Re-checked inside the transaction: the worker may have picked the row up meanwhile.
    if (row === undefined || row.state !== 'pending' || (!busyOk && deps.worker.isBusy(outboxId)))
      return null;
    const now = deps.clock.now();
    const ctx = await contextFor(trx, fiscal, payload, modelo, attempt.serie, attempt.n_nf, now, emission);
    const prepared = prepareOrThrow(payload, ctx);
    const updated = rowFrom(
      attempt.id,
      fiscal,
      modelo,
      attempt.serie,
      attempt.n_nf,
      prepared,
      payload,
      status,
      now.toISOString(),
    );
    updated.created_at = attempt.created_at;
    await documentsRepository.update(trx, attempt.id, updated);
    await outboxRepository.update(trx, outboxId, {
      message: updated.xml,
      next_try_at: updated.updated_at,
      updated_at: updated.updated_at,
    });
    return updated;
  });
}

/** A draft older than this is re-signed with a fresh dhEmi when sent (NFC-e online accepts 5 minutes). */
const DRAFT_FRESH_MS = 4 * 60_000;

/**
 * Creates a draft (seed: `rascunho`): the number is reserved and the note is built, taxed, validated and
 * signed, but nothing is queued; PUT may change it (same number) until it is sent.
 */
export async function createDraft(
  deps: IssueDeps,
  companyId: string,
  modelo: 55 | 65,
  payload: unknown,
): Promise<DocumentRow> {
  return insertNumbered(
    deps,
    companyId,
    modelo,
    payload,
    null,
    () => 'rascunho',
    async (trx, row) => {
      // An operator's draft names its operator (and register) from the moment it exists (issue 13).
      await linkSaleRegister(trx, row, companyId, true);
      return row;
    },
  );
}

async function rebuild(
  deps: IssueDeps,
  doc: DocumentRow,
  payload: unknown,
  trx: Db,
  status: DocumentRow['status'],
) {
  const fiscal = await loadCompanyFiscal(trx, deps.secrets, doc.company_id, deps.clock.now(), doc.ambiente);
  const modelo = doc.modelo as 55 | 65;
  const emission =
    modelo === 55
      ? await nfeEmission(trx, doc.company_id)
      : (await offlineMode(trx, doc.company_id))
        ? offlineEmission(deps.clock)
        : NORMAL_EMISSION;
  const now = deps.clock.now();
  const ctx = await contextFor(trx, fiscal, payload, modelo, doc.serie, doc.n_nf, now, emission);
  const row = rowFrom(
    doc.id,
    fiscal,
    modelo,
    doc.serie,
    doc.n_nf,
    prepareOrThrow(payload, ctx),
    payload,
    status,
    now.toISOString(),
  );
  row.created_at = doc.created_at;
  return row;
}

/** PUT: only a draft or a rejected note changes; it keeps its number (seed §4.1). */
export async function updateDraft(deps: IssueDeps, id: string, payload: unknown): Promise<DocumentRow> {
  return inTransaction(deps.db, async (trx) => {
    const doc = await documentsRepository.findById(trx, id);
    if (doc === undefined) throw new ApiError(404, 'not_found', 'Document not found.');
    assertAllowed(doc.status, 'update');
    // §3: a PUT replaces the data and keeps the state (a rejected note stays `erro` until it is sent again);
    // the authority's last answer stays readable until then too.
    const row = await rebuild(deps, doc, payload, trx, doc.status);
    row.c_stat = doc.c_stat;
    row.x_motivo = doc.x_motivo;
    await documentsRepository.update(trx, doc.id, row);
    await claimPixCharges(trx, doc.id, payload, row.updated_at);
    return row;
  });
}

/** Moves a draft or a rejected note to `processando` (or `contingencia`) and queues it, in one transaction. */
async function queueSend(deps: IssueDeps, id: string): Promise<number> {
  return inTransaction(deps.db, async (trx) => {
    const doc = await documentsRepository.findById(trx, id);
    if (doc === undefined) throw new ApiError(404, 'not_found', 'Document not found.');
    assertAllowed(doc.status, 'send');
    // A note of a register session closed since is re-tied to the open one or refused (issue 13).
    doc.register_session_id = await checkSendRegister(trx, doc);
    // An NFC-e draft signed for the other emission mode (online vs offline contingency) is re-signed too.
    const modeChanged = doc.modelo === 65 && (await offlineMode(trx, doc.company_id)) !== (doc.tp_emis === 9);
    const stale =
      doc.status === 'erro' ||
      modeChanged ||
      deps.clock.now().getTime() - new Date(doc.updated_at).getTime() > DRAFT_FRESH_MS;
    const row = stale
      ? await rebuild(deps, doc, JSON.parse(doc.payload_json) as unknown, trx, 'processando')
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
    return outboxRepository.enqueueMessage(trx, {
      documentId: doc.id,
      companyId: doc.company_id,
      kind: 'autorizacao',
      message: row.xml,
      now: now,
    });
  });
}

/**
 * A sale whose request died with an earlier run (its Idempotency-Key names `id`): ends as the sale would have,
 * from where the note is now. The re-issue chain is followed to its last note; one still waiting for the
 * authority gets the sale's bounded wait, then offline contingency, exactly like a first call.
 */
export async function resumeSale(deps: IssueDeps, id: string, waitMs: number): Promise<SaleResult> {
  let document = await documentsRepository.findById(deps.db, id);
  for (let hops = 0; document?.replaced_by != null && hops < 10; hops++) {
    document = await documentsRepository.findById(deps.db, document.replaced_by);
  }
  if (document === undefined) throw new ApiError(404, 'not_found', 'Document not found.');
  if (document.status === 'processando') {
    const open = await outboxRepository.openForDocument(deps.db, document.id);
    const attempt = open.find((row) => row.kind === 'autorizacao');
    if (attempt !== undefined) return authorizedOrContingency(deps, document, attempt.id, waitMs);
  }
  return { document, mode: document.tp_emis === 9 ? 'offline' : 'online' };
}

/**
 * The cashier's send of an NFC-e draft: authorized, or issued in offline contingency, within `waitMs` (the
 * same bounded wait as the one-step sale).
 */
export async function sendNfceSale(deps: IssueDeps, id: string, waitMs: number): Promise<SaleResult> {
  const outboxId = await queueSend(deps, id);
  const queued = await documentsRepository.findById(deps.db, id);
  if (queued === undefined) throw new Error(`document ${id} vanished`);
  if (queued.modelo !== 65) throw new Error('sendNfceSale takes an NFC-e');
  if (queued.status === 'contingencia') return { document: queued, mode: 'offline' };
  return authorizedOrContingency(deps, queued, outboxId, waitMs);
}

/**
 * Sends a draft or a rejected note: re-signed when stale or changed, queued in the same transaction that
 * moves it to `processando`, so two concurrent sends cannot both pass (the second sees the new state).
 * With `waitMs` the answer waits (bounded) for the authority's decision.
 */
export async function sendDocument(deps: IssueDeps, id: string, waitMs: number | null): Promise<DocumentRow> {
  const queued = await queueSend(deps, id);
  if (waitMs !== null) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      deps.worker.process(queued),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
    ]);
    clearTimeout(timer);
  }
  const after = await documentsRepository.findById(deps.db, id);
  if (after === undefined) throw new Error(`document ${id} vanished`);
  return after;
}
