// The transmission queue worker: delivers outbox rows to the authority with exponential backoff and jitter,
// never resends a note whose earlier send may have arrived without first looking it up, and settles
// documents from the authority's protocols. Crash-safe: the row is marked in flight before each send.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { Ambiente } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { documentsRepository, type DocumentRow } from '../documents/repository.ts';
import { outboxRepository, type OutboxRow } from './repository.ts';
import { nfeProc } from '../fiscal/proc.ts';
import {
  AUTHORIZED_CSTAT,
  AuthorityUnavailable,
  DENIED_CSTAT,
  PAUSED_CSTAT,
  type AuthorityPort,
  type ProtocolResult,
} from './ports.ts';

/** Builds the signed follow-up messages a resolution may need (they need the company's certificate). */
export interface FollowUps {
  /** envEvento 110112 cancelling `attempt` because `replacement` was issued for the same sale. */
  substitution(attempt: DocumentRow, replacement: DocumentRow): Promise<string>;
  /** inutNFe voiding the number of `attempt`, which never reached the authority. */
  voidNumber(attempt: DocumentRow): Promise<string>;
}

export interface WorkerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The company's authority in `ambiente` (a note's own environment), or in the company's current one. */
  authorityFor(companyId: string, ambiente?: Ambiente): Promise<AuthorityPort>;
  followUps: FollowUps;
  /** Told when a document reaches a final or contingency state (webhooks, printing). */
  onDocumentChanged?(doc: DocumentRow): void;
  /**
   * An NF-e could not be delivered to its UF although it certainly did not arrive (refused, or the service
   * paused): the service switches the company to SVC and re-signs the note (tpEmis 6/7).
   */
  onUfUnavailable?(doc: DocumentRow, outboxId: number, reason: string): Promise<void>;
  random?: () => number;
}

export interface WorkerOptions {
  pollMs: number;
  batch: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
}

const DEFAULTS: WorkerOptions = { pollMs: 1000, batch: 20, baseBackoffMs: 2000, maxBackoffMs: 10 * 60_000 };

/** Failed deliveries of one NF-e to its UF before switching to SVC (NT 2013.007 leaves the moment to the emitter). */
const SVC_AFTER_ATTEMPTS = 2;
/** How often a company in SVC asks its UF's status service whether it is back. */
const SVC_PROBE_MS = 60_000;

/** Event answers that mean the event is on record: 135/136 registered, 573 already registered before. */
const EVENT_DONE: ReadonlySet<string> = new Set(['135', '136', '155', '573']);
/** Inutilização answers that mean the range is void: 102 now, 563/256 it already was. */
const VOID_DONE: ReadonlySet<string> = new Set(['102', '256', '563']);

export class OutboxWorker {
  private readonly options: WorkerOptions;
  private readonly busy = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private lastSvcProbe = 0;
  private ticking: Promise<void> | undefined;

  constructor(
    private readonly deps: WorkerDeps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /**
   * Rows left in flight by a crash become `unknown`: consulted, never resent blind. An attempt authorized
   * after its sale was re-issued gets the substitution it still owes: a stop between that authorization
   * and queuing the event would otherwise leave the sale with two valid notes.
   */
  async recover(): Promise<number> {
    const interrupted = await outboxRepository.recoverInterrupted(
      this.deps.db,
      this.deps.clock.now().toISOString(),
    );
    for (const attempt of await documentsRepository.authorizedReplacedWithoutEvent(this.deps.db)) {
      const replacement = await documentsRepository.findById(this.deps.db, attempt.replaced_by ?? '');
      if (replacement === undefined) continue;
      // A start must not fail on one note (an expired certificate, say): the next start tries again.
      await this.queueSubstitution(attempt, replacement).catch((error: unknown) =>
        this.deps.logger.error('substitution owed by a replaced attempt not queued', {
          documentId: attempt.id,
          error: String(error),
        }),
      );
    }
    return interrupted;
  }

  private async queueSubstitution(attempt: DocumentRow, replacement: DocumentRow): Promise<void> {
    const message = await this.deps.followUps.substitution(attempt, replacement);
    await outboxRepository.enqueueMessage(this.deps.db, {
      documentId: attempt.id,
      companyId: attempt.company_id,
      kind: 'evento',
      message: message,
      now: this.now(),
    });
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.ticking ??= this.tick()
        .then(() => undefined)
        .catch((error: unknown) => this.deps.logger.error('outbox tick failed', { error: String(error) }))
        .finally(() => {
          this.ticking = undefined;
        });
    }, this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    await Promise.allSettled([...this.busy.values()]);
  }

  /** Processes the rows that are due; returns how many were looked at. */
  async tick(): Promise<number> {
    await this.probeSvcReturn();
    const rows = await outboxRepository.due(
      this.deps.db,
      this.deps.clock.now().toISOString(),
      this.options.batch,
    );
    for (const row of rows) await this.process(row.id);
    return rows.length;
  }

  /** Processes one row now (the cashier's synchronous path uses this); concurrent calls share one run. */
  process(id: number): Promise<void> {
    const running = this.busy.get(id);
    if (running !== undefined) return running;
    const run = this.processRow(id).finally(() => this.busy.delete(id));
    this.busy.set(id, run);
    return run;
  }

  isBusy(id: number): boolean {
    return this.busy.has(id);
  }

  private backoff(attempts: number): string {
    const random = this.deps.random ?? Math.random;
    const exp = Math.min(this.options.maxBackoffMs, this.options.baseBackoffMs * 2 ** Math.min(attempts, 20));
    // Full jitter keeps terminals that lost the network together from retrying in lockstep.
    const delay = exp / 2 + random() * (exp / 2);
    return new Date(this.deps.clock.now().getTime() + delay).toISOString();
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private async processRow(id: number): Promise<void> {
    const row = await outboxRepository.findById(this.deps.db, id);
    if (row === undefined || (row.state !== 'pending' && row.state !== 'unknown')) return;
    // A note goes to the service of its own environment, which the request may have chosen (§2.1).
    const document =
      row.document_id === null
        ? undefined
        : await documentsRepository.findById(this.deps.db, row.document_id);
    const authority = await this.deps.authorityFor(row.company_id, document?.ambiente);
    try {
      if (row.kind === 'autorizacao') await this.processAuthorization(row, authority);
      else if (row.kind === 'evento') {
        if (!(await this.substituteReady(row))) return;
        await this.processSimple(row, () => authority.sendEvent(row.message));
      } else await this.processSimple(row, () => authority.sendInutilizacao(row.message));
    } catch (error) {
      if (error instanceof AuthorityUnavailable) {
        const unknown = row.state === 'unknown' || error.mayHaveBeenReceived;
        await outboxRepository.update(this.deps.db, row.id, {
          state: row.kind === 'autorizacao' && unknown ? 'unknown' : 'pending',
          next_try_at: this.backoff(row.attempts),
          last_error: error.message,
          updated_at: this.now(),
        });
        if (row.kind === 'autorizacao' && !unknown) await this.maybeSwitchToSvc(row.id, error.message);
        return;
      }
      this.deps.logger.error('outbox row failed unexpectedly', { id: row.id, error: String(error) });
      await outboxRepository.update(this.deps.db, row.id, {
        state: row.state === 'unknown' ? 'unknown' : 'pending',
        next_try_at: this.backoff(row.attempts),
        last_error: String(error),
        updated_at: this.now(),
      });
    }
  }

  private async processAuthorization(row: OutboxRow, authority: AuthorityPort): Promise<void> {
    const doc = await documentsRepository.findById(this.deps.db, row.document_id ?? '');
    if (doc === undefined) throw new Error(`outbox row ${row.id} has no document`);

    if (row.state === 'unknown') {
      const answer = await authority.consult(doc.chave);
      if (
        answer.protocol !== null &&
        (AUTHORIZED_CSTAT.has(answer.protocol.cStat) || DENIED_CSTAT.has(answer.protocol.cStat))
      ) {
        await this.settle(row, doc, answer.protocol);
        return;
      }
      // 101/151: cancelled at the authority — it was authorized first; its protocol settles it as well.
      if (answer.cStat !== '217') {
        await outboxRepository.update(this.deps.db, row.id, {
          next_try_at: this.backoff(row.attempts),
          last_c_stat: answer.cStat,
          last_error: answer.xMotivo,
          updated_at: this.now(),
        });
        return;
      }
      // 217: the authority never received it. Safe to send, unless the sale was re-issued meanwhile.
    }

    const current = await documentsRepository.findById(this.deps.db, doc.id);
    if (current?.replaced_by !== null && current?.replaced_by !== undefined) {
      await this.voidReplacedAttempt(row, current);
      return;
    }

    await outboxRepository.update(this.deps.db, row.id, {
      state: 'in_flight',
      attempts: row.attempts + 1,
      updated_at: this.now(),
    });
    const answer = await authority.authorize(doc.xml);
    const p = answer.protocol;
    if (!PAUSED_CSTAT.has(answer.cStat)) await this.authorityAnswered(doc);
    if (p !== null && (AUTHORIZED_CSTAT.has(p.cStat) || DENIED_CSTAT.has(p.cStat))) {
      await this.settle(row, doc, p);
    } else if (p !== null && (p.cStat === '204' || p.cStat === '539')) {
      // Duplicate: an earlier send got through. The consultation returns the original protocol.
      await outboxRepository.update(this.deps.db, row.id, {
        state: 'unknown',
        next_try_at: this.now(),
        last_c_stat: p.cStat,
        last_error: p.xMotivo,
        updated_at: this.now(),
      });
    } else if (p === null && PAUSED_CSTAT.has(answer.cStat)) {
      await outboxRepository.update(this.deps.db, row.id, {
        state: 'pending',
        next_try_at: this.backoff(row.attempts + 1),
        last_c_stat: answer.cStat,
        last_error: answer.xMotivo,
        updated_at: this.now(),
      });
      await this.maybeSwitchToSvc(row.id, `${answer.cStat} ${answer.xMotivo}`);
    } else {
      const cStat = p?.cStat ?? answer.cStat;
      const xMotivo = p?.xMotivo ?? answer.xMotivo;
      await inTransaction(this.deps.db, async (trx) => {
        await documentsRepository.update(trx, doc.id, {
          status: 'erro',
          c_stat: cStat,
          x_motivo: xMotivo,
          updated_at: this.now(),
        });
        await outboxRepository.update(trx, row.id, {
          state: 'failed',
          last_c_stat: cStat,
          last_error: xMotivo,
          updated_at: this.now(),
        });
      });
      this.changed(doc.id);
    }
  }

  /** An NF-e that keeps failing at its UF, certainly undelivered, moves the company to SVC. */
  private async maybeSwitchToSvc(outboxId: number, reason: string): Promise<void> {
    if (this.deps.onUfUnavailable === undefined) return;
    const row = await outboxRepository.findById(this.deps.db, outboxId);
    if (row === undefined || row.state !== 'pending' || row.attempts < SVC_AFTER_ATTEMPTS) return;
    const doc = await documentsRepository.findById(this.deps.db, row.document_id ?? '');
    if (doc === undefined || doc.modelo !== 55 || doc.tp_emis !== 1) return;
    await this.deps.onUfUnavailable(doc, outboxId, reason);
  }

  /** Leaves SVC when the UF's own status service answers 107 "Serviço em Operação" again. */
  private async probeSvcReturn(): Promise<void> {
    const nowMs = this.deps.clock.now().getTime();
    if (nowMs - this.lastSvcProbe < SVC_PROBE_MS) return;
    this.lastSvcProbe = nowMs;
    const modes = await this.deps.db
      .selectFrom('contingency_modes')
      .selectAll()
      .where('modelo', '=', 55)
      .where('mode', 'in', ['SVC-AN', 'SVC-RS'])
      .execute();
    for (const mode of modes) {
      try {
        const answer = await (await this.deps.authorityFor(mode.company_id)).status(55);
        if (answer.cStat === '107') {
          await this.deps.db
            .deleteFrom('contingency_modes')
            .where('company_id', '=', mode.company_id)
            .where('modelo', '=', 55)
            .execute();
          this.deps.logger.info('NF-e back from SVC to the UF authority', { companyId: mode.company_id });
        }
      } catch (error) {
        if (!(error instanceof AuthorityUnavailable)) throw error;
      }
    }
  }

  /**
   * A cancellation by substitution names the note that replaces the cancelled one (chNFeRef), and the
   * authority accepts it only once that note is authorized (rejection 580): until then the event waits.
   */
  private async substituteReady(row: OutboxRow): Promise<boolean> {
    const ref = /<chNFeRef>(\w{44})<\/chNFeRef>/.exec(row.message)?.[1];
    if (ref === undefined) return true;
    const replacement = await documentsRepository.findByChave(this.deps.db, ref);
    if (replacement?.status === 'autorizada') return true;
    await outboxRepository.update(this.deps.db, row.id, {
      next_try_at: this.backoff(Math.min(row.attempts, 3)),
      last_error: 'waiting for the substitute note to be authorized',
      updated_at: this.now(),
    });
    return false;
  }

  /** The authority is answering again: new NFC-e sales go back online (offline mode is a row, CONVENTIONS §5). */
  private async authorityAnswered(doc: DocumentRow): Promise<void> {
    if (doc.modelo !== 65) return;
    await this.deps.db
      .deleteFrom('contingency_modes')
      .where('company_id', '=', doc.company_id)
      .where('modelo', '=', 65)
      .where('mode', '=', 'offline')
      .execute();
  }

  private async settle(row: OutboxRow, doc: DocumentRow, protocol: ProtocolResult): Promise<void> {
    const authorized = AUTHORIZED_CSTAT.has(protocol.cStat);
    const now = this.now();
    const followUp = await inTransaction(this.deps.db, async (trx) => {
      const fresh = (await documentsRepository.findById(trx, doc.id)) ?? doc;
      await documentsRepository.update(trx, doc.id, {
        status: authorized ? 'autorizada' : 'denegada',
        c_stat: protocol.cStat,
        x_motivo: protocol.xMotivo,
        n_prot: protocol.nProt,
        authorized_at: protocol.dhRecbto,
        prot_xml: protocol.xml,
        // nfeProc (MOC 7.0 §5.4): the signed NFe and the protocol, both byte for byte; the assembler checks
        // that the protocol belongs to this note (key, digest, environment).
        proc_xml: nfeProc(fresh.xml, protocol.xml, { validate: false }).xml,
        updated_at: now,
      });
      await outboxRepository.update(trx, row.id, {
        state: 'done',
        last_c_stat: protocol.cStat,
        last_error: null,
        updated_at: now,
      });
      if (authorized && fresh.replaced_by !== null) {
        const replacement = await documentsRepository.findById(trx, fresh.replaced_by);
        return replacement === undefined
          ? null
          : { attempt: { ...fresh, status: 'autorizada' as const, n_prot: protocol.nProt }, replacement };
      }
      return null;
    });
    this.changed(doc.id);
    // The sale was re-issued in contingency while this attempt was in doubt: cancel it by substitution.
    if (followUp !== null) await this.queueSubstitution(followUp.attempt, followUp.replacement);
  }

  private async voidReplacedAttempt(row: OutboxRow, doc: DocumentRow): Promise<void> {
    const message = await this.deps.followUps.voidNumber(doc);
    const now = this.now();
    await inTransaction(this.deps.db, async (trx) => {
      await outboxRepository.update(trx, row.id, {
        state: 'done',
        last_c_stat: '217',
        last_error: 'never received; number voided',
        updated_at: now,
      });
      await outboxRepository.enqueueMessage(trx, {
        documentId: doc.id,
        companyId: doc.company_id,
        kind: 'inutilizacao',
        message: message,
        now: now,
      });
    });
  }

  /** Events and inutilizações are idempotent at the authority (573 / 563 for repeats): resending is safe. */
  private async processSimple(
    row: OutboxRow,
    send: () => Promise<{
      cStat: string;
      xMotivo: string;
      xml?: string;
      nProt?: string | null;
      result?: { cStat: string; xMotivo: string; xml: string; nProt: string | null } | null;
    }>,
  ): Promise<void> {
    await outboxRepository.update(this.deps.db, row.id, {
      state: 'in_flight',
      attempts: row.attempts + 1,
      updated_at: this.now(),
    });
    const answer = await send();
    const cStat = answer.result?.cStat ?? answer.cStat;
    const xMotivo = answer.result?.xMotivo ?? answer.xMotivo;
    // 256 "a number of the range is already voided" settles a single-number range only.
    const singleNumber = /<nNFIni>(\d+)<\/nNFIni><nNFFin>\1<\/nNFFin>/.test(row.message);
    const done =
      row.kind === 'evento'
        ? EVENT_DONE.has(cStat)
        : VOID_DONE.has(cStat) && (cStat !== '256' || singleNumber);
    const answerXml = answer.result?.xml ?? answer.xml ?? null;
    const answerNProt = answer.result?.nProt ?? answer.nProt ?? null;
    if (!done && PAUSED_CSTAT.has(answer.cStat)) {
      await outboxRepository.update(this.deps.db, row.id, {
        state: 'pending',
        next_try_at: this.backoff(row.attempts + 1),
        last_c_stat: answer.cStat,
        updated_at: this.now(),
      });
      return;
    }
    await inTransaction(this.deps.db, async (trx) => {
      await outboxRepository.update(trx, row.id, {
        state: done ? 'done' : 'failed',
        last_c_stat: cStat,
        last_error: done ? null : xMotivo,
        answer_xml: answerXml,
        answer_n_prot: answerNProt,
        updated_at: this.now(),
      });
      // Only cancellations (110111, 110112) and inutilizações change the note's state; a CC-e does not.
      const cancels = row.kind === 'evento' && /<tpEvento>11011[12]<\/tpEvento>/.test(row.message);
      if (done && row.document_id !== null && (cancels || row.kind === 'inutilizacao')) {
        await documentsRepository.update(trx, row.document_id, {
          status: cancels ? 'cancelada' : 'inutilizada',
          updated_at: this.now(),
        });
      }
    });
    if (row.document_id !== null) this.changed(row.document_id);
  }

  private changed(documentId: string): void {
    if (this.deps.onDocumentChanged === undefined) return;
    void documentsRepository.findById(this.deps.db, documentId).then((doc) => {
      if (doc !== undefined) this.deps.onDocumentChanged?.(doc);
    });
  }
}
