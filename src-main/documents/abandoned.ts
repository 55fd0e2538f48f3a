// Abandoned numbers: drafts (rascunho) and refused notes (erro) that nobody touched for a while still hold
// a number of the series. A number that is never issued must be voided (inutilização, MOC 7.0 §5.5) before
// the tax period closes, so the service lists them with an offer to void them, contiguous runs as one range.
import { DomainError } from '../errors.ts';
import type { Db } from '../db/client.ts';
import type { IssueDeps } from './issue.ts';
import { sql } from 'kysely';
import {
  MAX_RANGE,
  refreshVoids,
  voidNumbers,
  voidView,
  type NumberVoidsTable,
  type VoidResult,
} from './inutilizar.ts';

/** Default justification (xJust, 15-255 characters) of an inutilização of abandoned drafts. */
export const ABANDONED_JUSTIFICATION = 'Numeracao reservada por rascunho abandonado e nunca transmitido';

export interface AbandonedNumber {
  documentId: string;
  modelo: 55 | 65;
  serie: number;
  numero: number;
  status: 'rascunho' | 'erro';
  ambiente: string;
  criada_em: string;
  atualizada_em: string;
}

export interface NumberRange {
  modelo: 55 | 65;
  serie: number;
  numeroInicial: number;
  numeroFinal: number;
}

/**
 * Drafts and refused notes of the company's current environment untouched since before `olderThan`, with
 * nothing queued for them, in number order. Cheap enough for a daily job.
 */
export async function abandonedNumbers(
  db: Db,
  companyId: string,
  olderThan: Date,
): Promise<AbandonedNumber[]> {
  const company = await db
    .selectFrom('companies')
    .select('ambiente')
    .where('id', '=', companyId)
    .executeTakeFirst();
  if (company === undefined) return [];
  const rows = await db
    .selectFrom('documents')
    .select(['id', 'modelo', 'serie', 'n_nf', 'status', 'ambiente', 'created_at', 'updated_at'])
    .where('company_id', '=', companyId)
    // NF-e and NFC-e numbers are voided with the authority; CT-e 4.00 authorities have no such service.
    .where('modelo', 'in', [55, 65])
    .where('ambiente', '=', company.ambiente)
    .where('status', 'in', ['rascunho', 'erro'])
    .where('updated_at', '<', olderThan.toISOString())
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('outbox')
            .select('outbox.id')
            .whereRef('outbox.document_id', '=', 'documents.id')
            .where('outbox.state', 'in', ['pending', 'in_flight', 'unknown']),
        ),
      ),
    )
    // Sorted here, not by SQL: an ORDER BY modelo, serie, n_nf makes SQLite walk the numbering index over
    // every document of the company (400 ms at 100k notes), where without it the (modelo, status) list
    // index reads only the drafts and refused notes, which stay few however large the store grows.
    .execute();
  rows.sort((a, b) => a.modelo - b.modelo || a.serie - b.serie || a.n_nf - b.n_nf);
  return rows.map((r) => ({
    documentId: r.id,
    modelo: r.modelo as 55 | 65,
    serie: r.serie,
    numero: r.n_nf,
    status: r.status as 'rascunho' | 'erro',
    ambiente: r.ambiente,
    criada_em: r.created_at,
    atualizada_em: r.updated_at,
  }));
}

/** Consecutive numbers of one model and series as ranges (one inutilização each). */
export function rangesOf(numbers: readonly AbandonedNumber[]): NumberRange[] {
  const ranges: NumberRange[] = [];
  const sorted = [...numbers].sort((a, b) => a.modelo - b.modelo || a.serie - b.serie || a.numero - b.numero);
  for (const n of sorted) {
    const last = ranges.at(-1);
    if (last !== undefined && last.modelo === n.modelo && last.serie === n.serie) {
      if (n.numero === last.numeroFinal) continue; // the same number twice (a re-signed attempt)
      if (n.numero === last.numeroFinal + 1) {
        last.numeroFinal = n.numero;
        continue;
      }
    }
    ranges.push({ modelo: n.modelo, serie: n.serie, numeroInicial: n.numero, numeroFinal: n.numero });
  }
  return ranges;
}

/**
 * Numbers the series has passed (below its next number) that no document holds and no inutilização being
 * sent or homologated covers: an inutilização refused after the sequence stepped over it, or a range voided
 * ahead of the sequence by an earlier version that moved the sequence past unvoided numbers. Every number of
 * a series is thereby explained: a document, a void, or listed here to be voided.
 */
export async function numbersWithoutDocument(db: Db, companyId: string): Promise<NumberRange[]> {
  const company = await db
    .selectFrom('companies')
    .select('ambiente')
    .where('id', '=', companyId)
    .executeTakeFirst();
  if (company === undefined) return [];
  const sequences = await db
    .selectFrom('number_sequences')
    .select(['modelo', 'serie', 'next_number'])
    .where('company_id', '=', companyId)
    .where('modelo', 'in', [55, 65])
    .where('ambiente', '=', company.ambiente)
    .orderBy('modelo')
    .orderBy('serie')
    .execute();
  const gaps: NumberRange[] = [];
  for (const seq of sequences) {
    const modelo = seq.modelo as 55 | 65;
    const last = seq.next_number - 1;
    if (last < 1) continue;
    // Covered intervals: each document's number and each live void's range, merged in number order.
    const covered = await sql<{ lo: number; hi: number }>`
      SELECT n_nf AS lo, n_nf AS hi FROM documents
       WHERE company_id = ${companyId} AND modelo = ${modelo} AND serie = ${seq.serie}
         AND ambiente = ${company.ambiente} AND n_nf <= ${last}
      UNION ALL
      SELECT n_ini AS lo, n_fin AS hi FROM number_voids
       WHERE company_id = ${companyId} AND modelo = ${modelo} AND serie = ${seq.serie}
         AND ambiente = ${company.ambiente} AND status IN ('processando', 'homologada') AND n_ini <= ${last}
      ORDER BY lo`.execute(db.withTables<{ number_voids: NumberVoidsTable }>());
    let next = 1;
    for (const { lo, hi } of covered.rows) {
      if (lo > next) gaps.push(...chunked(modelo, seq.serie, next, lo - 1));
      next = Math.max(next, hi + 1);
    }
    if (next <= last) gaps.push(...chunked(modelo, seq.serie, next, last));
  }
  return gaps;
}

/** One inutilização voids at most MAX_RANGE numbers. */
function chunked(modelo: 55 | 65, serie: number, from: number, to: number): NumberRange[] {
  const out: NumberRange[] = [];
  for (let start = from; start <= to; start += MAX_RANGE) {
    out.push({ modelo, serie, numeroInicial: start, numeroFinal: Math.min(to, start + MAX_RANGE - 1) });
  }
  return out;
}

/** Abandoned drafts and numbers without a document, as the ranges to void (adjacent ones joined). */
export function mergeRanges(...lists: NumberRange[][]): NumberRange[] {
  const sorted = lists
    .flat()
    .sort((a, b) => a.modelo - b.modelo || a.serie - b.serie || a.numeroInicial - b.numeroInicial);
  const out: NumberRange[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (
      last !== undefined &&
      last.modelo === r.modelo &&
      last.serie === r.serie &&
      r.numeroInicial <= last.numeroFinal + 1 &&
      Math.max(last.numeroFinal, r.numeroFinal) - last.numeroInicial < MAX_RANGE
    ) {
      last.numeroFinal = Math.max(last.numeroFinal, r.numeroFinal);
    } else out.push({ ...r });
  }
  return out;
}

export interface AbandonedVoidOutcome extends NumberRange {
  success: boolean;
  /** The inutilização, when it was queued. */
  inutilizacao: VoidResult | null;
  /** Why the range was not voided (a number got used meanwhile, the authority refused, …). */
  error: DomainError | null;
}

/**
 * Voids every abandoned number older than `olderThan`, and every number the series passed without a document:
 * one inutilização per run of consecutive numbers.
 * A range that fails does not stop the others; each outcome is reported.
 */
export async function voidAbandoned(
  deps: IssueDeps,
  companyId: string,
  olderThan: Date,
  justificativa: string = ABANDONED_JUSTIFICATION,
): Promise<AbandonedVoidOutcome[]> {
  await refreshVoids(deps.db, companyId);
  const outcomes: AbandonedVoidOutcome[] = [];
  const ranges = mergeRanges(
    rangesOf(await abandonedNumbers(deps.db, companyId, olderThan)),
    await numbersWithoutDocument(deps.db, companyId),
  );
  for (const range of ranges) {
    try {
      const row = await voidNumbers(deps, companyId, { ...range, justificativa });
      const view = await voidView(deps.db, row);
      outcomes.push({ ...range, success: view.success, inutilizacao: view, error: null });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      outcomes.push({ ...range, success: false, inutilizacao: null, error });
    }
  }
  return outcomes;
}
