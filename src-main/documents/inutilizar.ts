// Inutilização de numeração (MOC 7.0 §5.5, NFeInutilizacao4): voids a range of numbers of one model and
// series that will never be issued. Numbers held by drafts that were never sent (rascunho) or that the
// authority refused (erro) may be voided: those drafts become `inutilizada`. A number the authority may have
// seen (processando, contingencia, autorizada, denegada, cancelada) is refused before anything is sent.
// The request goes through the transmission queue like every message; the caller waits a bounded time.
import type { VoidResult, VoidStatus } from '../../src-shared/contracts/documents.ts';
import type { Selectable } from 'kysely';
import { DomainError, conflict, validationError } from '../errors.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { Ambiente } from '../db/schema.ts';
import { outboxRepository } from '../outbox/repository.ts';
import type { ErrorDetail } from '../../src-shared/contracts/errors.ts';
import { loadCompanyFiscal } from './context.ts';
import { CSTAT_TEXT } from './events-service.ts';
import { kindOfModelo } from './registry.ts';
import type { VoidRule } from './kind.ts';
import type { IssueDeps } from './issue.ts';
import { newId } from '../ids.ts';
import { lockSeries } from './repository.ts';

export type { VoidResult, VoidStatus };

/** What the number_voids row stores; the view calls a homologated range `inutilizada` (seed §2.9). */
export type VoidRowStatus = 'processando' | 'homologada' | 'rejeitada';

/**
 * The number_voids table (migration 2026_11_22_0005; outbox_id nullable since 0023: a CT-e range is recorded
 * without a message to the authority); typed here with Kysely's withTables.
 */
export interface NumberVoidsTable {
  id: string;
  company_id: string;
  modelo: number;
  serie: number;
  ambiente: Ambiente;
  n_ini: number;
  n_fin: number;
  justificativa: string;
  status: VoidRowStatus;
  xml: string;
  outbox_id: number | null;
  sequence_before: number | null;
  sequence_after: number | null;
  c_stat: string | null;
  x_motivo: string | null;
  n_prot: string | null;
  created_at: string;
  updated_at: string;
}

export type NumberVoidRow = Selectable<NumberVoidsTable>;

const voidTables = (db: Db) => db.withTables<{ number_voids: NumberVoidsTable }>();

/** Largest range one request may void (a guard against typos such as 1..100000000, not a SEFAZ limit). */
export const MAX_RANGE = 10_000;
/** How long the synchronous answer waits for the authority; the queue keeps trying afterwards. */
export const VOID_WAIT_MS = 10_000;

/** States whose number never reached the authority as an accepted note: they may be voided. */
const VOIDABLE: ReadonlySet<string> = new Set(['rascunho', 'erro', 'inutilizada']);

export interface VoidRequest {
  modelo: 55 | 65;
  serie: number;
  numeroInicial: number;
  numeroFinal: number;
  justificativa: string;
}

/** The caller's own names of the range fields, so error details speak its spelling (A or B). */
export interface VoidFieldNames {
  modelo: string;
  serie: string;
  numeroInicial: string;
  numeroFinal: string;
  justificativa: string;
}

export const SPELLING_A: VoidFieldNames = {
  modelo: 'modelo',
  serie: 'serie',
  numeroInicial: 'numeroInicial',
  numeroFinal: 'numeroFinal',
  justificativa: 'justificativa',
};

/** The kind's inutilização rule; a kind whose authority voids no numbers refuses the request. */
function voidsOf(modelo: number, names: VoidFieldNames): VoidRule {
  const kind = kindOfModelo(modelo);
  if (kind.voids === undefined) {
    throw validationError([
      { field: names.modelo, error: `the ${kind.label} authority offers no inutilização of numbers` },
    ]);
  }
  return kind.voids;
}

async function draftsIn(
  db: Db,
  v: Pick<NumberVoidRow, 'company_id' | 'modelo' | 'serie' | 'ambiente' | 'n_ini' | 'n_fin'>,
) {
  return db
    .selectFrom('documents')
    .select(['id', 'n_nf', 'status'])
    .where('company_id', '=', v.company_id)
    .where('modelo', '=', v.modelo)
    .where('serie', '=', v.serie)
    .where('ambiente', '=', v.ambiente)
    .where('n_nf', '>=', v.n_ini)
    .where('n_nf', '<=', v.n_fin)
    .orderBy('n_nf')
    .execute();
}

/**
 * Settles a queued inutilização from its outbox row: homologated ranges turn their drafts into
 * `inutilizada`; a refused one gives back the numbers it had taken from the series (when nothing was
 * reserved after them).
 */
export async function settleVoid(db: Db, voidId: string): Promise<NumberVoidRow> {
  return inTransaction(db, async (trx) => {
    const vdb = voidTables(trx);
    const v = await vdb
      .selectFrom('number_voids')
      .selectAll()
      .where('id', '=', voidId)
      .executeTakeFirstOrThrow();
    if (v.status !== 'processando' || v.outbox_id === null) return v;
    const row = await outboxRepository.findById(trx, v.outbox_id);
    if (row === undefined || (row.state !== 'done' && row.state !== 'failed')) return v;
    const cStat = row.last_c_stat;
    // 256 says a number of the range was voided before: the worker counts it as settled, but for a range of
    // more than one number the rest is not voided by this request.
    const homologated = row.state === 'done' && !(cStat === '256' && v.n_fin > v.n_ini);
    const changes = {
      status: (homologated ? 'homologada' : 'rejeitada') as VoidRowStatus,
      c_stat: cStat,
      n_prot: homologated ? row.answer_n_prot : null,
      x_motivo: row.state === 'failed' ? row.last_error : cStat === null ? null : (CSTAT_TEXT[cStat] ?? null),
      updated_at: row.updated_at,
    };
    if (homologated) {
      const voided = (await draftsIn(trx, v)).filter((d) => d.status === 'rascunho' || d.status === 'erro');
      if (voided.length > 0) {
        await trx
          .updateTable('documents')
          .set({ status: 'inutilizada', updated_at: row.updated_at })
          .where(
            'id',
            'in',
            voided.map((d) => d.id),
          )
          .where('status', 'in', ['rascunho', 'erro'])
          .execute();
      }
    } else if (v.sequence_before !== null && v.sequence_after !== null) {
      await trx
        .updateTable('number_sequences')
        .set({ next_number: v.sequence_before, updated_at: row.updated_at })
        .where('company_id', '=', v.company_id)
        .where('modelo', '=', v.modelo)
        .where('serie', '=', v.serie)
        .where('ambiente', '=', v.ambiente)
        .where('next_number', '=', v.sequence_after)
        .execute();
    }
    await vdb.updateTable('number_voids').set(changes).where('id', '=', v.id).execute();
    return { ...v, ...changes };
  });
}

/** An inutilização by id, brought up to date with its queue row; undefined when there is none. */
export async function findVoid(db: Db, id: string): Promise<NumberVoidRow | undefined> {
  const row = await voidTables(db)
    .selectFrom('number_voids')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined || row.status !== 'processando' ? row : settleVoid(db, id);
}

/** Settles every inutilização of the company that the queue finished since it was last looked at. */
export async function refreshVoids(db: Db, companyId: string): Promise<void> {
  const open = await voidTables(db)
    .selectFrom('number_voids')
    .select('id')
    .where('company_id', '=', companyId)
    .where('status', '=', 'processando')
    .execute();
  for (const { id } of open) await settleVoid(db, id);
}

/** Why the queue could not deliver the inutilização yet (its last error), or null when none is recorded. */
export async function voidQueueError(db: Db, v: NumberVoidRow): Promise<string | null> {
  if (v.outbox_id === null) return null;
  return (await outboxRepository.findById(db, v.outbox_id))?.last_error ?? null;
}

export async function voidView(db: Db, v: NumberVoidRow): Promise<VoidResult> {
  const documentos =
    v.status === 'homologada'
      ? (await draftsIn(db, v)).filter((d) => d.status === 'inutilizada').map((d) => d.id)
      : [];
  return {
    status: v.status === 'homologada' ? 'inutilizada' : v.status,
    cStat: v.c_stat,
    xMotivo: v.x_motivo,
    protocolo: v.n_prot,
    id: v.id,
    success: v.status === 'homologada',
    modelo: v.modelo,
    serie: v.serie,
    numeroInicial: v.n_ini,
    numeroFinal: v.n_fin,
    documentos,
    criada_em: v.created_at,
  };
}

/**
 * Checks, signs, queues and (for at most `waitMs`) sends an inutilização of [numeroInicial, numeroFinal].
 * A range holding the series' next number moves it past the range at once (given back if the authority
 * refuses it); a range ahead of the next number leaves it, and reserveNumber steps over the range while it
 * is on its way or homologated, so no number between is skipped unvoided.
 * @throws 400 for fields the layout refuses, 409 `conflict` naming the range field when a number of the
 *   range is or may be in use, or another inutilização of an overlapping range is on its way.
 */
export async function voidNumbers(
  deps: IssueDeps,
  companyId: string,
  request: VoidRequest,
  names: VoidFieldNames = SPELLING_A,
  waitMs = VOID_WAIT_MS,
): Promise<NumberVoidRow> {
  if (request.numeroFinal < request.numeroInicial) {
    throw validationError([
      {
        field: names.numeroFinal,
        error: `must not be below ${names.numeroInicial} (${request.numeroInicial})`,
      },
    ]);
  }
  const maxRange = voidsOf(request.modelo, names).maxRange;
  if (request.numeroFinal - request.numeroInicial + 1 > maxRange) {
    throw validationError([
      { field: names.numeroFinal, error: `a request voids at most ${maxRange} numbers` },
    ]);
  }
  await refreshVoids(deps.db, companyId);
  const now = deps.clock.now();
  const fiscal = await loadCompanyFiscal(deps.db, deps.secrets, companyId, now);
  let signed: string;
  try {
    signed = await voidsOf(request.modelo, names).build({
      fiscal,
      serie: request.serie,
      from: request.numeroInicial,
      to: request.numeroFinal,
      justificativa: request.justificativa,
      now,
    });
  } catch (error) {
    // The rule names the range's generic fields; the caller reads its own spelling (A or B).
    if (!(error instanceof DomainError) || error.code !== 'validation_error') throw error;
    throw validationError(
      error.details.map((d) => {
        const ours = d.field in names ? names[d.field as keyof VoidFieldNames] : d.field;
        return { field: ours, error: d.error };
      }),
    );
  }
  const ambiente = fiscal.company.ambiente;

  const queued = await inTransaction(deps.db, async (trx) => {
    // First: the series' next number is read and moved below, and the range checked against its notes.
    await lockSeries(trx, { companyId, modelo: request.modelo, serie: request.serie, ambiente });
    const vdb = voidTables(trx);
    const range = {
      company_id: companyId,
      modelo: request.modelo,
      serie: request.serie,
      ambiente,
      n_ini: request.numeroInicial,
      n_fin: request.numeroFinal,
    };
    const used = (await draftsIn(trx, range)).filter((d) => !VOIDABLE.has(d.status));
    if (used.length > 0) {
      const details: ErrorDetail[] = used.map((d) => ({
        // The first number in use makes the start field wrong; any later one, the end of the range.
        field: d.n_nf === request.numeroInicial ? names.numeroInicial : names.numeroFinal,
        error: `number ${d.n_nf} belongs to document ${d.id} in state '${d.status}', which cannot be voided`,
      }));
      throw conflict('The range holds numbers already used by notes sent to the authority.', details);
    }
    const overlapping = await vdb
      .selectFrom('number_voids')
      .select(['id', 'n_ini', 'n_fin'])
      .where('company_id', '=', companyId)
      .where('modelo', '=', request.modelo)
      .where('serie', '=', request.serie)
      .where('ambiente', '=', ambiente)
      .where('status', '=', 'processando')
      .where('n_ini', '<=', request.numeroFinal)
      .where('n_fin', '>=', request.numeroInicial)
      .executeTakeFirst();
    if (overlapping !== undefined) {
      throw conflict('An inutilização of an overlapping range is still being sent.', [
        {
          field: names.numeroInicial,
          error: `range ${overlapping.n_ini}-${overlapping.n_fin} (${overlapping.id}) is on its way`,
        },
      ]);
    }

    const stamp = now.toISOString();
    // Numbers from the series' next one up are taken now, so they are never handed to a new note.
    const sequence = await trx
      .selectFrom('number_sequences')
      .select('next_number')
      .where('company_id', '=', companyId)
      .where('modelo', '=', request.modelo)
      .where('serie', '=', request.serie)
      .where('ambiente', '=', ambiente)
      .executeTakeFirst();
    let sequenceBefore: number | null = null;
    let sequenceAfter: number | null = null;
    // Only a range that starts at or below the next number moves the sequence (nothing is skipped that is not
    // voided). A range ahead of it leaves the sequence alone: the numbers before it are still issued, and
    // reserveNumber steps over the voided ones when it reaches them.
    if (sequence === undefined && request.numeroInicial > 1) {
      // The series has not issued anything yet; it starts at 1 when its first note is created.
    } else if (sequence === undefined) {
      sequenceBefore = 1;
      sequenceAfter = request.numeroFinal + 1;
      await trx
        .insertInto('number_sequences')
        .values({
          company_id: companyId,
          modelo: request.modelo,
          serie: request.serie,
          ambiente,
          next_number: sequenceAfter,
          created_at: stamp,
          updated_at: stamp,
        })
        .execute();
    } else if (sequence.next_number >= request.numeroInicial && sequence.next_number <= request.numeroFinal) {
      sequenceBefore = sequence.next_number;
      sequenceAfter = request.numeroFinal + 1;
      await trx
        .updateTable('number_sequences')
        .set({ next_number: sequenceAfter, updated_at: stamp })
        .where('company_id', '=', companyId)
        .where('modelo', '=', request.modelo)
        .where('serie', '=', request.serie)
        .where('ambiente', '=', ambiente)
        .execute();
    }

    const outboxId = await outboxRepository.enqueueMessage(trx, {
      documentId: null,
      companyId: companyId,
      kind: 'inutilizacao',
      docKind: kindOfModelo(request.modelo).id,
      singleNumber: request.numeroInicial === request.numeroFinal,
      message: signed,
      now: stamp,
    });
    const row: NumberVoidRow & { outbox_id: number } = {
      id: newId(),
      ...range,
      justificativa: request.justificativa,
      status: 'processando',
      xml: signed,
      outbox_id: outboxId,
      sequence_before: sequenceBefore,
      sequence_after: sequenceAfter,
      c_stat: null,
      x_motivo: null,
      n_prot: null,
      created_at: stamp,
      updated_at: stamp,
    };
    await vdb.insertInto('number_voids').values(row).execute();
    return row;
  });

  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    // A failure to reach the authority leaves the row queued; the answer then reports `processando`.
    deps.worker.process(queued.outbox_id).catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
  ]);
  clearTimeout(timer);
  return settleVoid(deps.db, queued.id);
}
