// Abandoned numbers: drafts (rascunho) and refused notes (erro) that nobody touched for a while still hold
// a number of the series. A number that is never issued must be voided (inutilização, MOC 7.0 §5.5) before
// the tax period closes, so the service lists them with an offer to void them, contiguous runs as one range.
import { DomainError } from '../errors.ts';
import type { Db } from '../db/client.ts';
import type { Ambiente } from '../db/schema.ts';
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
    const series = { companyId, modelo, serie: seq.serie, ambiente: company.ambiente, last };
    const voids = await liveVoids(db, series);
    const unheld = await numbersNoDocumentHolds(1, last, heldIn(db, series), voids);
    for (const [from, to] of unheld) {
      for (const [lo, hi] of withoutVoids(from, to, voids)) gaps.push(...chunked(modelo, seq.serie, lo, hi));
    }
  }
  return gaps;
}

interface SeriesUpTo {
  companyId: string;
  modelo: 55 | 65;
  serie: number;
  ambiente: Ambiente;
  /** The series' last number handed out. */
  last: number;
}

/** How many distinct numbers of lo..hi documents hold, and which. */
export interface HeldNumbers {
  count(lo: number, hi: number): Promise<number>;
  list(lo: number, hi: number): Promise<number[]>;
}

/** The series' documents in the unique index documents_number (its n_nf in number order). */
function heldIn(db: Db, series: SeriesUpTo): HeldNumbers {
  const { companyId, modelo, serie, ambiente } = series;
  const inRange = (lo: number, hi: number) =>
    db
      .selectFrom('documents')
      .where('company_id', '=', companyId)
      .where('modelo', '=', modelo)
      .where('serie', '=', serie)
      .where('ambiente', '=', ambiente)
      .where('n_nf', '>=', lo)
      .where('n_nf', '<=', hi);
  return {
    count: async (lo, hi) =>
      Number(
        (
          await inRange(lo, hi)
            .select((eb) => eb.fn.count<number>('n_nf').distinct().as('n'))
            .executeTakeFirst()
        )?.n ?? 0,
      ),
    list: async (lo, hi) =>
      (await inRange(lo, hi).select('n_nf').distinct().orderBy('n_nf').execute()).map((r) => r.n_nf),
  };
}

/** Below this many numbers a range's held numbers are read outright instead of counted in halves. */
const READ_OUTRIGHT = 512;

/**
 * The ranges of lo..hi no document holds, lowest first, adjacent ones joined. A range whose numbers documents all
 * hold is settled by one count from the index, so a series without holes costs one count (~10 ms at 80k notes)
 * where reading every number cost 130–450 ms on the thread that also sells; a range with a hole is halved until
 * it is small enough to read. Ranges inside one live void are skipped: the void explains them.
 */
export async function numbersNoDocumentHolds(
  lo: number,
  hi: number,
  held: HeldNumbers,
  voids: [number, number][],
): Promise<[number, number][]> {
  const out: [number, number][] = [];
  const push = (from: number, to: number) => {
    const open = out.at(-1);
    if (open !== undefined && open[1] === from - 1) open[1] = to;
    else out.push([from, to]);
  };
  const walk = async (from: number, to: number): Promise<void> => {
    if (voids.some(([vlo, vhi]) => vlo <= from && to <= vhi)) return;
    const size = to - from + 1;
    if (size > READ_OUTRIGHT) {
      const n = await held.count(from, to);
      if (n === size) return;
      if (n === 0) return push(from, to);
      const mid = Math.floor((from + to) / 2);
      await walk(from, mid);
      return walk(mid + 1, to);
    }
    let next = from;
    for (const n of await held.list(from, to)) {
      if (n > next) push(next, n - 1);
      next = n + 1;
    }
    if (next <= to) push(next, to);
  };
  if (lo <= hi) await walk(lo, hi);
  return out;
}

/** The ranges being voided or voided (a refused inutilização explains nothing), lowest first. */
async function liveVoids(db: Db, series: SeriesUpTo): Promise<[number, number][]> {
  const { companyId, modelo, serie, ambiente, last } = series;
  const rows = await sql<{ lo: number; hi: number }>`
    SELECT n_ini AS lo, n_fin AS hi FROM number_voids
     WHERE company_id = ${companyId} AND modelo = ${modelo} AND serie = ${serie}
       AND ambiente = ${ambiente} AND status IN ('processando', 'homologada') AND n_ini <= ${last}
     ORDER BY n_ini`.execute(db.withTables<{ number_voids: NumberVoidsTable }>());
  return rows.rows.map((r) => [r.lo, r.hi]);
}

/** The parts of from..to that no void of `voids` (sorted by their start) covers. */
export function withoutVoids(from: number, to: number, voids: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  let next = from;
  for (const [lo, hi] of voids) {
    if (hi < next) continue;
    if (lo > to) break;
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
    if (next > to) return out;
  }
  if (next <= to) out.push([next, to]);
  return out;
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
