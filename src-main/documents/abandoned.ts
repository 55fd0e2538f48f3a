// Abandoned numbers: drafts (rascunho) and refused notes (erro) that nobody touched for a while still hold
// a number of the series. A number that is never issued must be voided (inutilização, MOC 7.0 §5.5) before
// the tax period closes, so the service lists them with an offer to void them, contiguous runs as one range.
import { ApiError } from '../api/errors.ts';
import type { Db } from '../db/client.ts';
import type { ErrorBody } from '../../src-shared/contracts/errors.ts';
import type { IssueDeps } from './issue.ts';
import { refreshVoids, voidNumbers, voidView, type VoidResult } from './inutilizar.ts';

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
    .orderBy('modelo')
    .orderBy('serie')
    .orderBy('n_nf')
    .execute();
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

export interface AbandonedVoidOutcome extends NumberRange {
  success: boolean;
  /** The inutilização, when it was queued. */
  inutilizacao: VoidResult | null;
  /** Why the range was not voided (a number got used meanwhile, the authority refused, …). */
  error: (ErrorBody & { status: number }) | null;
}

/**
 * Voids every abandoned number older than `olderThan`: one inutilização per run of consecutive numbers.
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
  for (const range of rangesOf(await abandonedNumbers(deps.db, companyId, olderThan))) {
    try {
      const row = await voidNumbers(deps, companyId, { ...range, justificativa });
      const view = await voidView(deps.db, row);
      outcomes.push({ ...range, success: view.success, inutilizacao: view, error: null });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      outcomes.push({
        ...range,
        success: false,
        inutilizacao: null,
        error: { status: error.status, ...error.toBody() },
      });
    }
  }
  return outcomes;
}
