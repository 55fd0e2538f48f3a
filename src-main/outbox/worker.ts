// The transmission queue worker: delivers outbox rows to the authority with exponential backoff and jitter,
// never resends a note whose earlier send may have arrived without first looking it up, and settles
// documents from the authority's protocols. Crash-safe: the row is marked in flight before each send.
// Kind-neutral: a row says its operation, document kind and event type; what an answer means is asked of
// the kind (documents/kind.ts KindProtocol), so the queue knows no cStat and reads no message.
import type { Clock } from '../clock.ts';
import { inCompanyTransaction, inTransaction, leaseRow, type Db } from '../db/client.ts';
import { ORPHAN_SWEEP_MS, OrphanSweep } from '../db/orphan-sweep.ts';
import type { Ambiente } from '../db/schema.ts';
import type { Logger } from '../logger.ts';
import { documentsRepository, type DocumentRow } from '../documents/repository.ts';
import { eventRuleOf, type DocumentKind, type KindId } from '../documents/kind.ts';
import { kindById, registeredKinds } from '../documents/registry.ts';
import { outboxRepository, type OutboxRow } from './repository.ts';
import { AuthorityUnavailable, type AuthorityPort, type ProtocolResult } from './ports.ts';

/** Builds the signed follow-up messages a resolution may need (they need the company's certificate). */
export interface FollowUps {
  /** The event cancelling `attempt` because `replacement` was issued for the same sale (NFC-e 110112). */
  substitution(
    attempt: DocumentRow,
    replacement: DocumentRow,
  ): Promise<{ message: string; tpEvento: string }>;
  /** The inutilização voiding the number of `attempt`, which never reached the authority. */
  voidNumber(attempt: DocumentRow): Promise<string>;
}

/** Where the worker finds kinds: the registry, or a test's own. */
export interface KindSource {
  byId(id: string): DocumentKind;
  all(): DocumentKind[];
}

const registryKinds: KindSource = { byId: kindById, all: registeredKinds };

export interface WorkerDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /**
   * The company's authority for a document kind in `ambiente` (a document's own environment), or in the
   * company's current one.
   */
  authorityFor(companyId: string, kind: KindId, ambiente?: Ambiente): Promise<AuthorityPort>;
  followUps: FollowUps;
  /** Told when a document reaches a final or contingency state (webhooks, printing). */
  onDocumentChanged?(doc: DocumentRow): void;
  /**
   * A document could not be delivered to its authority although it certainly did not arrive (refused, or
   * the service paused) as often as its kind's contingency rule allows: the service switches the company to
   * the contingency authority and re-signs the document (NF-e SVC, tpEmis 6/7).
   */
  onUfUnavailable?(doc: DocumentRow, outboxId: number, reason: string): Promise<void>;
  random?: () => number;
  /** Defaults to the registry (documents/kinds/index.ts registers them). */
  kinds?: KindSource;
}

export interface WorkerOptions {
  pollMs: number;
  batch: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** Server mode: how often the rows a dead instance left in flight are taken back (see OrphanSweep). */
  orphanSweepMs: number;
}

const DEFAULTS: WorkerOptions = {
  pollMs: 1000,
  batch: 20,
  baseBackoffMs: 2000,
  maxBackoffMs: 10 * 60_000,
  orphanSweepMs: ORPHAN_SWEEP_MS,
};

/** How often a company in contingency asks its own authority's status service whether it is back. */
const SVC_PROBE_MS = 60_000;

export class OutboxWorker {
  private readonly options: WorkerOptions;
  private readonly busy = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private readonly kinds: KindSource;
  private lastSvcProbe = 0;
  private ticking: Promise<void> | undefined;
  private readonly orphans: OrphanSweep;

  constructor(
    private readonly deps: WorkerDeps,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
    this.kinds = deps.kinds ?? registryKinds;
    this.orphans = new OrphanSweep(deps.db, this.options.orphanSweepMs);
  }

  private kindOf(row: Pick<OutboxRow, 'doc_kind'>): DocumentKind {
    return this.kinds.byId(row.doc_kind);
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
    const { message, tpEvento } = await this.deps.followUps.substitution(attempt, replacement);
    await inTransaction(this.deps.db, async (trx) => {
      // Once: in server mode another instance's start-up recovery may find the same attempt between its
      // settlement and this queuing (transactions are serial, so the check and the insert are one step).
      const queued = await trx
        .selectFrom('outbox')
        .select('id')
        .where('document_id', '=', attempt.id)
        .where('kind', '=', 'evento')
        .executeTakeFirst();
      if (queued !== undefined) return;
      await outboxRepository.enqueueMessage(trx, {
        documentId: attempt.id,
        companyId: attempt.company_id,
        kind: 'evento',
        docKind: this.docKindOf(attempt),
        eventType: tpEvento,
        waitsForDocumentId: replacement.id,
        message: message,
        now: this.now(),
      });
    });
  }

  private docKindOf(doc: DocumentRow): KindId {
    const kind = this.kinds.all().find((k) => k.modelo === doc.modelo);
    if (kind === undefined) throw new Error(`no document kind for modelo ${doc.modelo}`);
    return kind.id;
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
    // Server mode: sends of a dead instance, unknown until consulted (as at a start).
    const orphaned = await this.orphans.due(() =>
      outboxRepository.recoverInterrupted(this.deps.db, this.deps.clock.now().toISOString()),
    );
    if (orphaned > 0)
      this.deps.logger.warn('queue rows left in flight by a stopped instance will be consulted', {
        orphaned,
      });
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
    // Another instance sharing the store (server mode) working on the row: it is theirs until they finish.
    const release = await leaseRow(this.deps.db, 'outbox', id);
    if (release === null) return;
    try {
      await this.processLeasedRow(id);
    } finally {
      await release();
    }
  }

  private async processLeasedRow(id: number): Promise<void> {
    const row = await outboxRepository.findById(this.deps.db, id);
    if (row === undefined || (row.state !== 'pending' && row.state !== 'unknown')) return;
    // A note goes to the service of its own environment, which the request may have chosen (§2.1).
    const document =
      row.document_id === null
        ? undefined
        : await documentsRepository.findById(this.deps.db, row.document_id);
    try {
      // Inside the try: a row of a kind this build does not know waits (backoff) instead of stopping the tick.
      const kind = this.kindOf(row);
      const authority = await this.deps.authorityFor(row.company_id, kind.id, document?.ambiente);
      if (row.kind === 'autorizacao') await this.processAuthorization(row, kind, authority, document);
      else if (row.kind === 'evento') {
        if (!(await this.substituteReady(row))) return;
        await this.processSimple(row, kind, () => authority.sendEvent(row.message));
      } else {
        const send = authority.sendInutilizacao?.bind(authority);
        if (send === undefined) throw new Error(`the ${kind.label} authority voids no numbers`);
        await this.processSimple(row, kind, () => send(row.message));
      }
    } catch (error) {
      if (error instanceof AuthorityUnavailable) {
        const unknown = row.state === 'unknown' || error.mayHaveBeenReceived;
        await outboxRepository.update(this.deps.db, row.id, {
          state: row.kind === 'autorizacao' && unknown ? 'unknown' : 'pending',
          next_try_at: this.backoff(row.attempts),
          last_error: error.message,
          updated_at: this.now(),
        });
        if (row.kind === 'autorizacao' && !unknown)
          await this.maybeSwitchToSvc(this.kindOf(row), row.id, error.message);
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

  /** A protocol that settles the document: authorized or use denied. */
  private settles(kind: DocumentKind, protocol: ProtocolResult): boolean {
    const outcome = kind.protocol.protocolOutcome(protocol.cStat);
    return outcome === 'authorized' || outcome === 'denied';
  }

  /** `doc` as processLeasedRow read it: what can change it meanwhile (a re-issue) is read again before sending. */
  private async processAuthorization(
    row: OutboxRow,
    kind: DocumentKind,
    authority: AuthorityPort,
    doc: DocumentRow | undefined,
  ): Promise<void> {
    if (doc === undefined) throw new Error(`outbox row ${row.id} has no document`);

    let consulted: string | null = null;
    if (row.state === 'unknown') {
      const answer = await authority.consult(doc.chave);
      consulted = answer.cStat;
      // A document cancelled at the authority was authorized first: its protocol settles it as well.
      if (answer.protocol !== null && this.settles(kind, answer.protocol)) {
        await this.settle(row, kind, doc, answer.protocol);
        return;
      }
      if (kind.protocol.consultOutcome(answer.cStat) !== 'not_found') {
        await outboxRepository.update(this.deps.db, row.id, {
          next_try_at: this.backoff(row.attempts),
          last_c_stat: answer.cStat,
          last_error: answer.xMotivo,
          updated_at: this.now(),
        });
        return;
      }
      // Never received by the authority: safe to send, unless the sale was re-issued meanwhile.
    }

    const current = await documentsRepository.findById(this.deps.db, doc.id);
    if (current?.replaced_by !== null && current?.replaced_by !== undefined) {
      await this.voidReplacedAttempt(row, current, consulted);
      return;
    }

    await outboxRepository.update(this.deps.db, row.id, {
      state: 'in_flight',
      attempts: row.attempts + 1,
      updated_at: this.now(),
    });
    const answer = await authority.authorize(doc.xml);
    const p = answer.protocol;
    const paused = kind.protocol.messageOutcome(answer.cStat) === 'paused';
    if (!paused) await kind.contingency?.authorityAnswered?.(this.deps.db, doc);
    if (p !== null && this.settles(kind, p)) {
      await this.settle(row, kind, doc, p);
    } else if (p !== null && kind.protocol.protocolOutcome(p.cStat) === 'duplicate') {
      // Duplicate: an earlier send got through. The consultation returns the original protocol.
      await outboxRepository.update(this.deps.db, row.id, {
        state: 'unknown',
        next_try_at: this.now(),
        last_c_stat: p.cStat,
        last_error: p.xMotivo,
        updated_at: this.now(),
      });
    } else if (p === null && paused) {
      await outboxRepository.update(this.deps.db, row.id, {
        state: 'pending',
        next_try_at: this.backoff(row.attempts + 1),
        last_c_stat: answer.cStat,
        last_error: answer.xMotivo,
        updated_at: this.now(),
      });
      await this.maybeSwitchToSvc(kind, row.id, `${answer.cStat} ${answer.xMotivo}`);
    } else {
      const cStat = p?.cStat ?? answer.cStat;
      const xMotivo = p?.xMotivo ?? answer.xMotivo;
      await inCompanyTransaction(this.deps.db, doc.company_id, async (trx) => {
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

  /**
   * A document that keeps failing at its own authority, certainly undelivered, moves the company to the
   * kind's contingency authority (NT 2013.007 leaves the moment to the emitter; the kind says how many).
   */
  private async maybeSwitchToSvc(kind: DocumentKind, outboxId: number, reason: string): Promise<void> {
    const after = kind.contingency?.switchAfterFailures;
    if (this.deps.onUfUnavailable === undefined || after === undefined) return;
    const row = await outboxRepository.findById(this.deps.db, outboxId);
    if (row === undefined || row.state !== 'pending' || row.attempts < after) return;
    const doc = await documentsRepository.findById(this.deps.db, row.document_id ?? '');
    // tpEmis 1 is the normal emission of every kind: a document already in contingency does not switch.
    if (doc === undefined || doc.tp_emis !== 1) return;
    await this.deps.onUfUnavailable(doc, outboxId, reason);
  }

  /** Leaves a contingency authority when the company's own status service is in operation again. */
  private async probeSvcReturn(): Promise<void> {
    const nowMs = this.deps.clock.now().getTime();
    if (nowMs - this.lastSvcProbe < SVC_PROBE_MS) return;
    this.lastSvcProbe = nowMs;
    for (const kind of this.kinds.all()) {
      const rule = kind.contingency;
      if (rule?.companiesInContingency === undefined || rule.leaveContingency === undefined) continue;
      for (const companyId of await rule.companiesInContingency(this.deps.db)) {
        try {
          const answer = await (await this.deps.authorityFor(companyId, kind.id)).status();
          if (kind.protocol.inService(answer.cStat)) {
            await rule.leaveContingency(this.deps.db, companyId);
            this.deps.logger.info(`${kind.label} back from contingency to its own authority`, { companyId });
          }
        } catch (error) {
          if (!(error instanceof AuthorityUnavailable)) throw error;
        }
      }
    }
  }

  /**
   * A cancellation by substitution names the document that replaces the cancelled one, and the authority
   * accepts it only once that one is authorized (NF-e rejection 580): until then the event waits.
   */
  private async substituteReady(row: OutboxRow): Promise<boolean> {
    if (row.waits_for_document_id === null) return true;
    const replacement = await documentsRepository.findById(this.deps.db, row.waits_for_document_id);
    if (replacement?.status === 'autorizada') return true;
    await outboxRepository.update(this.deps.db, row.id, {
      next_try_at: this.backoff(Math.min(row.attempts, 3)),
      last_error: 'waiting for the substitute note to be authorized',
      updated_at: this.now(),
    });
    return false;
  }

  private async settle(
    row: OutboxRow,
    kind: DocumentKind,
    doc: DocumentRow,
    protocol: ProtocolResult,
  ): Promise<void> {
    const authorized = kind.protocol.protocolOutcome(protocol.cStat) === 'authorized';
    const now = this.now();
    // The document, its queue row and what its authorization changes (an NFS-e of its company it substitutes).
    const followUp = await inCompanyTransaction(this.deps.db, doc.company_id, async (trx) => {
      const fresh = (await documentsRepository.findById(trx, doc.id)) ?? doc;
      await documentsRepository.update(
        trx,
        doc.id,
        {
          status: authorized ? 'autorizada' : 'denegada',
          // The authority may assign the document's final key (the NFS-e's 50-digit key replaces the DPS Id).
          ...(protocol.chave !== '' && protocol.chave !== fresh.chave ? { chave: protocol.chave } : {}),
          c_stat: protocol.cStat,
          x_motivo: protocol.xMotivo,
          n_prot: protocol.nProt,
          authorized_at: protocol.dhRecbto,
          prot_xml: protocol.xml,
          // The signed document and its protocol, both byte for byte (nfeProc / cteProc).
          proc_xml: kind.protocol.proc(fresh.xml, protocol.xml),
          updated_at: now,
        },
        fresh,
      );
      await outboxRepository.update(trx, row.id, {
        state: 'done',
        last_c_stat: protocol.cStat,
        last_error: null,
        updated_at: now,
      });
      // What the authorization changed in other documents (a substituted NFS-e), in the same transaction.
      const touched =
        authorized && kind.afterAuthorized !== undefined
          ? await kind.afterAuthorized(trx, (await documentsRepository.findById(trx, doc.id)) ?? fresh)
          : [];
      if (authorized && fresh.replaced_by !== null) {
        const replacement = await documentsRepository.findById(trx, fresh.replaced_by);
        return {
          touched,
          substitution:
            replacement === undefined
              ? null
              : { attempt: { ...fresh, status: 'autorizada' as const, n_prot: protocol.nProt }, replacement },
        };
      }
      return { touched, substitution: null };
    });
    this.changed(doc.id);
    for (const id of followUp.touched) this.changed(id);
    // The sale was re-issued in contingency while this attempt was in doubt: cancel it by substitution.
    if (followUp.substitution !== null)
      await this.queueSubstitution(followUp.substitution.attempt, followUp.substitution.replacement);
  }

  /** `consulted`: the consultation's answer that showed the attempt never arrived, if it was consulted. */
  private async voidReplacedAttempt(
    row: OutboxRow,
    doc: DocumentRow,
    consulted: string | null,
  ): Promise<void> {
    const message = await this.deps.followUps.voidNumber(doc);
    const now = this.now();
    await inTransaction(this.deps.db, async (trx) => {
      await outboxRepository.update(trx, row.id, {
        state: 'done',
        last_c_stat: consulted ?? row.last_c_stat,
        last_error: 'never received; number voided',
        updated_at: now,
      });
      await outboxRepository.enqueueMessage(trx, {
        documentId: doc.id,
        companyId: doc.company_id,
        kind: 'inutilizacao',
        docKind: row.doc_kind,
        singleNumber: true,
        message: message,
        now: now,
      });
    });
  }

  /** Events and inutilizações are idempotent at the authority (repeats are answered as done): resending is safe. */
  private async processSimple(
    row: OutboxRow,
    kind: DocumentKind,
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
    const done =
      row.kind === 'evento'
        ? kind.protocol.eventDone(cStat)
        : kind.protocol.voidDone(cStat, row.single_number === 1);
    const answerXml = answer.result?.xml ?? answer.xml ?? null;
    const answerNProt = answer.result?.nProt ?? answer.nProt ?? null;
    if (!done && kind.protocol.messageOutcome(answer.cStat) === 'paused') {
      await outboxRepository.update(this.deps.db, row.id, {
        state: 'pending',
        next_try_at: this.backoff(row.attempts + 1),
        last_c_stat: answer.cStat,
        updated_at: this.now(),
      });
      return;
    }
    await inCompanyTransaction(this.deps.db, row.company_id, async (trx) => {
      await outboxRepository.update(trx, row.id, {
        state: done ? 'done' : 'failed',
        last_c_stat: cStat,
        last_error: done ? null : xMotivo,
        answer_xml: answerXml,
        answer_n_prot: answerNProt,
        updated_at: this.now(),
      });
      // The kind's event rule says whether its event changes the state (cancellations do, a CC-e does not).
      const settles =
        row.kind === 'evento'
          ? eventRuleOf(kind, { tpEvento: row.event_type ?? '' })?.settles
          : ('inutilizada' as const);
      if (done && row.document_id !== null && settles !== undefined) {
        await documentsRepository.update(trx, row.document_id, { status: settles, updated_at: this.now() });
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
