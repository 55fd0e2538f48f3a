// Manifestação do destinatário (NT 2012.002) on a received note: ciência 210210, confirmação 210200,
// desconhecimento 210220, operação não realizada 210240 (with its justification). The event is authored by
// the company (the recipient's CNPJ), addressed to the Ambiente Nacional (cOrgao 91), signed with the
// company's certificate and queued in the outbox like every message to the authority (kind 'evento').
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { DomainError, invalidState, validationError } from '../errors.ts';
import { buildEvent, EventError, signEvent } from '../fiscal/events.ts';
import { loadCompanyFiscal } from '../documents/context.ts';
import { outboxRepository } from '../outbox/repository.ts';
import { ufBySigla } from '../../src-shared/uf.ts';
import { receivedDb, type ManifestTipo, type ReceivedNotesTable } from './tables.ts';
import type { OutboxWorker } from '../outbox/worker.ts';
import { CSTAT_TEXT } from '../documents/events-service.ts';
import { MANIFEST_STATUS_OF, type ManifestationResult } from '../../src-shared/contracts/documents.ts';

export const TP_EVENTO_OF: Readonly<Record<ManifestTipo, '210200' | '210210' | '210220' | '210240'>> = {
  ciencia: '210210',
  confirmacao: '210200',
  desconhecimento: '210220',
  nao_realizada: '210240',
};

/** After one of these the recipient can no longer give "ciência" (rejection 655). */
const FINAL: ReadonlySet<ManifestTipo> = new Set(['confirmacao', 'desconhecimento', 'nao_realizada']);
/** Event answers that mean the manifestation is on record (the queue's own list). */
const REGISTERED = new Set(['135', '136', '155', '573']);

export interface ManifestDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
}

/**
 * Brings queued manifestations up to date with their outbox rows (the queue settles them; it knows nothing
 * about received notes): done → registrada, failed → rejeitada with the authority's cStat.
 */
export async function refreshManifestations(
  db: Db,
  companyId: string,
  now: Date = new Date(),
): Promise<void> {
  const rdb = receivedDb(db);
  const pending = await rdb
    .selectFrom('received_manifestations as m')
    .innerJoin('outbox as o', 'o.id', 'm.outbox_id')
    .select(['m.id', 'm.received_note_id', 'o.state', 'o.last_c_stat', 'o.last_error'])
    .where('m.company_id', '=', companyId)
    .where('m.state', '=', 'pendente')
    .where('o.state', 'in', ['done', 'failed'])
    .execute();
  for (const row of pending) {
    const state =
      row.state === 'done' && (row.last_c_stat === null || REGISTERED.has(row.last_c_stat))
        ? 'registrada'
        : 'rejeitada';
    const stamp = now.toISOString();
    await inTransaction(db, async (trx) => {
      const t = receivedDb(trx);
      await t
        .updateTable('received_manifestations')
        .set({ state, c_stat: row.last_c_stat, x_motivo: row.last_error, updated_at: stamp })
        .where('id', '=', row.id)
        .execute();
      const latest = await t
        .selectFrom('received_manifestations')
        .select('id')
        .where('received_note_id', '=', row.received_note_id)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      if (latest?.id === row.id) {
        await t
          .updateTable('received_notes')
          .set({ manifestacao_status: state })
          .where('id', '=', row.received_note_id)
          .execute();
      }
    });
  }
}

/** The note's manifestations, each with the event protocol the authority answered (kept on its queue row). */
export async function manifestationsOf(db: Db, noteId: string) {
  return receivedDb(db)
    .selectFrom('received_manifestations as m')
    .innerJoin('outbox as o', 'o.id', 'm.outbox_id')
    .selectAll('m')
    .select(['o.answer_n_prot as n_prot'])
    .where('m.received_note_id', '=', noteId)
    .orderBy('m.id')
    .execute();
}

/** Queues the manifestation; the note comes back with `manifestacao_status` 'pendente'. */
export async function manifestReceived(
  deps: ManifestDeps,
  note: ReceivedNotesTable,
  tipo: ManifestTipo,
  justificativa: string | undefined,
): Promise<ReceivedNotesTable> {
  await refreshManifestations(deps.db, note.company_id, deps.clock.now());
  const history = await manifestationsOf(deps.db, note.id);
  if (history.some((m) => m.state === 'pendente')) {
    throw invalidState('pendente', 'manifest again while a manifestation is being sent for');
  }
  const registered = history.filter((m) => m.state === 'registrada').map((m) => m.tipo);
  if (registered.includes(tipo)) throw invalidState(tipo, `register "${tipo}" twice for`);
  if (tipo === 'ciencia' && registered.some((t) => FINAL.has(t))) {
    throw invalidState(
      registered.find((t) => FINAL.has(t)) ?? 'confirmacao',
      'give "ciencia" after a conclusive manifestation (rejection 655) for',
    );
  }

  const now = deps.clock.now();
  const fiscal = await loadCompanyFiscal(deps.db, deps.secrets, note.company_id, now);
  const tpEvento = TP_EVENTO_OF[tipo];
  let built;
  try {
    const common = {
      tpAmb: fiscal.tpAmb,
      // The author of a manifestation is the recipient: the company itself.
      CNPJ: fiscal.emit.CNPJ,
      chNFe: note.chave,
      nSeqEvento: 1,
      dhEvento: now,
      timeZone: ufBySigla(fiscal.emit.enderEmit.UF)?.timeZone ?? 'America/Sao_Paulo',
      idLote: now.getTime() % 1_000_000_000_000_000,
    };
    built =
      tpEvento === '210240'
        ? buildEvent({ ...common, tpEvento, xJust: justificativa ?? '' })
        : buildEvent({ ...common, tpEvento });
  } catch (error) {
    if (!(error instanceof EventError)) throw error;
    const justification = error.details.filter((d) => d.field === 'xJust');
    if (justification.length > 0) {
      throw validationError(justification.map((d) => ({ field: 'justificativa', error: d.error })));
    }
    throw new DomainError('fiscal_rejection', 'The manifestation event cannot be built.', error.details);
  }
  const signed = signEvent(built.xml, fiscal.certificate);
  if (signed.errors.length > 0) {
    throw new DomainError(
      'fiscal_rejection',
      'The manifestation event does not validate against the schema.',
      signed.errors.map((e) => ({ field: e.field ?? 'xml', error: e.message })),
    );
  }

  return inTransaction(deps.db, async (trx) => {
    const stamp = now.toISOString();
    const outboxId = await outboxRepository.enqueueMessage(trx, {
      documentId: null,
      companyId: note.company_id,
      kind: 'evento',
      // Manifestations are NF-e events at the Ambiente Nacional, about a note addressed to the company.
      docKind: 'nfe',
      eventType: tpEvento,
      message: signed.xml,
      now: stamp,
    });
    const t = receivedDb(trx);
    await t
      .insertInto('received_manifestations')
      .values({
        company_id: note.company_id,
        received_note_id: note.id,
        tipo,
        tp_evento: tpEvento,
        justificativa: tpEvento === '210240' ? (justificativa ?? null) : null,
        outbox_id: outboxId,
        state: 'pendente',
        c_stat: null,
        x_motivo: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();
    await t
      .updateTable('received_notes')
      .set({ manifestacao: tipo, manifestacao_status: 'pendente', updated_at: stamp })
      .where('id', '=', note.id)
      .execute();
    return { ...note, manifestacao: tipo, manifestacao_status: 'pendente' as const, updated_at: stamp };
  });
}

/** How long the manifest answer waits for the authority; the queue keeps trying afterwards. */
export const MANIFEST_WAIT_MS = 10_000;

type ManifestationRow = Awaited<ReturnType<typeof manifestationsOf>>[number];

/**
 * Sends the note's latest manifestation now and waits at most `waitMs` for the authority, like the
 * synchronous send: a reachable authority gives the event's protocol in the answer; otherwise the queue
 * goes on and the manifestation stays `pendente`.
 */
export async function awaitManifestation(
  deps: ManifestDeps & { worker: OutboxWorker },
  note: ReceivedNotesTable,
  waitMs = MANIFEST_WAIT_MS,
): Promise<ManifestationRow> {
  const latest = (await manifestationsOf(deps.db, note.id)).at(-1);
  if (latest === undefined) throw new Error(`received note ${note.id} has no manifestation`);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    // A failure to reach the authority leaves the row queued; the answer then reports `pendente`.
    deps.worker.process(latest.outbox_id).catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs))),
  ]);
  clearTimeout(timer);
  await refreshManifestations(deps.db, note.company_id, deps.clock.now());
  const settled = (await manifestationsOf(deps.db, note.id)).find((m) => m.id === latest.id);
  return settled ?? latest;
}

/** The manifestation result of seed §2.9 for one manifestation of `note`. */
export function manifestationResult(note: ReceivedNotesTable, m: ManifestationRow): ManifestationResult {
  const registered = m.state === 'registrada';
  return {
    id: note.id,
    manifest_status: MANIFEST_STATUS_OF[m.tipo],
    protocolo: registered ? m.n_prot : null,
    cStat: m.c_stat,
    xMotivo: m.x_motivo ?? (m.c_stat === null ? null : (CSTAT_TEXT[m.c_stat] ?? null)),
    tipo: m.tipo,
    tpEvento: TP_EVENTO_OF[m.tipo],
    status: m.state,
    chave_acesso: note.chave,
    criada_em: m.created_at,
  };
}
