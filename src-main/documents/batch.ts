// NF-e batches (POST /v1/nfe/batch): up to 50 notes validated together — every faulty field of every note
// is reported at once (`notas[3].itens[0].ncm`) and nothing is created unless all of them pass — then
// issued and queued in ONE transaction; the batch only records which documents it created, its progress is
// read from the documents themselves.
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { DocumentStatus } from '../db/schema.ts';
import { DomainError, validationError } from '../errors.ts';
import { issueDocument, type IssueDeps } from './issue.ts';
import type { DocumentRow } from './repository.ts';
import type { BatchProgress } from '../../src-shared/contracts/documents.ts';
import { newId } from '../ids.ts';
import { linkIdempotencyKey } from './idempotency-link.ts';

export type { BatchProgress };

export const MAX_BATCH_NOTES = 50;

export interface BatchesTable {
  id: string;
  company_id: string;
  total: number;
  created_at: string;
}

export interface BatchItemsTable {
  batch_id: string;
  position: number;
  document_id: string;
}

type BatchTables = { batches: BatchesTable; batch_items: BatchItemsTable };
const batchDb = (db: Db) => db.withTables<BatchTables>();

/** The spellings accepted for the list of notes; errors name the one the caller used. */
const LIST_FIELDS = ['notas', 'nfes'] as const;
type ListField = (typeof LIST_FIELDS)[number];

export function parseBatchBody(body: unknown): { field: ListField; notas: unknown[] } {
  if (body === undefined) {
    throw validationError([
      { field: 'body', error: 'a JSON body with Content-Type application/json is required' },
    ]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError([{ field: 'body', error: 'must be an object { notas: [...] }' }]);
  }
  const record = body as Record<string, unknown>;
  const problems: ErrorDetail[] = [];
  for (const key of Object.keys(record)) {
    if (!(LIST_FIELDS as readonly string[]).includes(key)) {
      problems.push({ field: key, error: 'unknown field' });
    }
  }
  const given = LIST_FIELDS.filter((k) => record[k] !== undefined);
  if (given.length !== 1) {
    problems.push({ field: 'notas', error: 'give the list of notes in `notas` (or `nfes`), once' });
    throw validationError(problems);
  }
  const field = given[0] as ListField;
  const list = record[field];
  if (!Array.isArray(list)) problems.push({ field, error: 'must be an array of notes' });
  else if (list.length === 0) problems.push({ field, error: 'must have at least 1 note' });
  else if (list.length > MAX_BATCH_NOTES)
    problems.push({ field, error: `must have at most ${MAX_BATCH_NOTES} notes, has ${list.length}` });
  if (problems.length > 0) throw validationError(problems);
  return { field, notas: list as unknown[] };
}

function prefixed(prefix: string, details: readonly ErrorDetail[]): ErrorDetail[] {
  return details.map((d) => ({
    field:
      d.field === 'body' ? prefix : d.field.startsWith('[') ? `${prefix}${d.field}` : `${prefix}.${d.field}`,
    error: d.error,
  }));
}

const newBatchId = newId;

export interface CreatedBatch {
  batchId: string;
  total: number;
  documents: DocumentRow[];
}

/**
 * Validates, issues and queues every note of the batch in one transaction: a note that fails rolls back the
 * whole batch (numbers included), after every note has been checked so that all faults are reported.
 * Payload faults answer 400 `validation_error`; when there are none, tax or schema faults answer 422.
 */
export async function createBatch(deps: IssueDeps, companyId: string, body: unknown): Promise<CreatedBatch> {
  const { field, notas } = parseBatchBody(body);
  return inTransaction(deps.db, async (trx) => {
    const txDeps: IssueDeps = { ...deps, db: trx };
    const payloadFaults: ErrorDetail[] = [];
    const fiscalFaults: ErrorDetail[] = [];
    const documents: DocumentRow[] = [];
    for (const [i, payload] of notas.entries()) {
      try {
        documents.push((await issueDocument(txDeps, companyId, 55, payload)).document);
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        const details = error.details.length > 0 ? error.details : [{ field: 'body', error: error.message }];
        if (error.code === 'validation_error') payloadFaults.push(...prefixed(`${field}[${i}]`, details));
        else if (error.code === 'fiscal_rejection') fiscalFaults.push(...prefixed(`${field}[${i}]`, details));
        // Company-level faults (no certificate, queue not running) concern every note: answer them as is.
        else throw error;
      }
    }
    if (payloadFaults.length > 0) throw validationError(payloadFaults);
    if (fiscalFaults.length > 0) {
      throw new DomainError(
        'fiscal_rejection',
        'Some notes of the batch break a fiscal rule or the official schema; nothing was created.',
        fiscalFaults,
      );
    }
    const batchId = newBatchId();
    const db = batchDb(trx);
    await db
      .insertInto('batches')
      .values({
        id: batchId,
        company_id: companyId,
        total: documents.length,
        created_at: deps.clock.now().toISOString(),
      })
      .execute();
    await db
      .insertInto('batch_items')
      .values(documents.map((d, position) => ({ batch_id: batchId, position, document_id: d.id })))
      .execute();
    // The request's Idempotency-Key names the batch in the transaction that creates it (issue 12 item 1).
    await linkIdempotencyKey(trx, 'batch', batchId);
    return { batchId, total: documents.length, documents };
  });
}

export function findBatch(db: Db, batchId: string): Promise<BatchesTable | undefined> {
  return batchDb(db).selectFrom('batches').selectAll().where('id', '=', batchId).executeTakeFirst();
}

const AUTHORIZED: ReadonlySet<DocumentStatus> = new Set(['autorizada', 'cancelada', 'substituida']);
const REFUSED: ReadonlySet<DocumentStatus> = new Set(['erro', 'denegada', 'inutilizada']);

/**
 * Progress read from the documents: authorized (cancelled or replaced ones were authorized first), refused
 * (rejected `erro`, denied, voided) and still in the queue; `concluido` once nothing is in the queue.
 */
export async function batchProgress(db: Db, batch: BatchesTable): Promise<BatchProgress> {
  const rows = await batchDb(db)
    .selectFrom('batch_items')
    .innerJoin('documents', 'documents.id', 'batch_items.document_id')
    .select([
      'documents.id',
      'documents.n_nf',
      'documents.status',
      'documents.chave',
      'documents.c_stat',
      'documents.x_motivo',
    ])
    .where('batch_items.batch_id', '=', batch.id)
    .orderBy('batch_items.position')
    .execute();
  const autorizadas = rows.filter((r) => AUTHORIZED.has(r.status)).length;
  const rejeitadas = rows.filter((r) => REFUSED.has(r.status)).length;
  const processando = rows.length - autorizadas - rejeitadas;
  return {
    batchId: batch.id,
    total: batch.total,
    autorizadas,
    rejeitadas,
    processando,
    status: processando === 0 ? 'concluido' : 'processando',
    notas: rows.map((r) => ({
      id: r.id,
      numero: r.n_nf,
      status: r.status,
      chave_acesso: r.chave,
      cStat: r.c_stat,
      xMotivo: r.x_motivo,
    })),
  };
}
