// What a kind of fiscal document (NF-e, NFC-e, CT-e, ...) plugs into the one generic lifecycle: how it is
// prepared, what the authority's answers mean for it, its events, voids and contingency. Generic code
// (lifecycle, queue, webhooks) reads kinds only through these types and the registry, never a kind module.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/client.ts';
import type { DocumentStatus } from '../db/schema.ts';
import type { DomainError } from '../errors.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { CompanyFiscal } from './context.ts';
import type { DocumentRow } from './repository.ts';

/** This application as the documents name it (verProc, verAplic of events). */
export const VER_PROC = 'Balcao 0.1.0';

export type KindId = 'nfe' | 'nfce' | 'cte' | 'nfse' | 'dce';
/**
 * 98 is internal: the national NFS-e has no model number, our tables still need one (docs/nfse.md); 99 is the
 * DC-e's own (Ajuste SINIEF 05/21).
 */
export type Modelo = 55 | 65 | 57 | 98 | 99;

/** Outbox operations: every message the queue carries is one of these (outbox.kind column). */
export type OutboxOperation = 'autorizacao' | 'evento' | 'inutilizacao';

/**
 * The authority's answers, classified by the kind: the queue knows no cStat. Each function is pure and
 * total (an unknown cStat gets the safe meaning: rejected / unknown / not done).
 */
export interface KindProtocol {
  /** cStat of a protocol (protNFe / protCTe): what it means for the document. */
  protocolOutcome(cStat: string): 'authorized' | 'denied' | 'duplicate' | 'rejected';
  /**
   * cStat of the whole message: `paused` = the service is not processing now (nothing was decided, try
   * again later); `processed` = the message was taken (its protocol says the rest); `rejected` = refused.
   */
  messageOutcome(cStat: string): 'paused' | 'rejected' | 'processed';
  /** cStat of a consultation that brought no settling protocol: `not_found` = never received, safe to send. */
  consultOutcome(cStat: string): 'not_found' | 'unknown';
  /** An event answer that means the event is on record (registered now, or already before). */
  eventDone(cStat: string): boolean;
  /** An inutilização answer that means the range is void; some codes settle a single-number range only. */
  voidDone(cStat: string, singleNumber: boolean): boolean;
  /** A status-service answer that means "in operation" (107). */
  inService(statusCStat: string): boolean;
  /** The distribution XML (nfeProc / cteProc) from the exact bytes of the signed document and its protocol. */
  proc(signedXml: string, protocolXml: string): string;
  /** The event's distribution XML (procEventoNFe / procEventoCTe) from the signed event and the answer. */
  eventProc?(signedEvent: string, answerXml: string): string;
  /** The authority's text of a cStat the queue kept without its xMotivo (event and void answers). */
  answerText?(cStat: string): string | null;
}

/** A protocolOutcome from the kind's own code sets (each authority has its table); anything else is rejected. */
export function protocolOutcomeOf(codes: {
  authorized: ReadonlySet<string>;
  denied: ReadonlySet<string>;
  duplicate: ReadonlySet<string>;
}): KindProtocol['protocolOutcome'] {
  return (cStat) => {
    if (codes.authorized.has(cStat)) return 'authorized';
    if (codes.denied.has(cStat)) return 'denied';
    if (codes.duplicate.has(cStat)) return 'duplicate';
    return 'rejected';
  };
}

/** How a document is emitted: the normal authority (tpEmis 1) or a contingency one, with its data. */
export interface Emission {
  tpEmis: number;
  contingency: { dhCont: Date; xJust: string } | null;
}

export const NORMAL_EMISSION: Emission = { tpEmis: 1, contingency: null };

/** What the lifecycle hands a kind to build one document for a number it reserved. */
export interface PrepareInput {
  /** The transaction that reserved the number (lookups read through it). */
  db: Db;
  fiscal: CompanyFiscal;
  payload: unknown;
  serie: number;
  /** The reserved number (nNF / nCT). */
  numero: number;
  now: Date;
  emission: Emission;
}

/** A built, signed, schema-valid document: what its documents row stores. */
export interface PreparedDocument {
  /** The signed document exactly as it will be transmitted and stored. */
  xml: string;
  chave: string;
  digestValue: string;
  /** The document's total as exact decimal text (vNF / vTPrest). */
  total: string;
  dhEmi: string;
  tpEmis: number;
  qrCode: string | null;
  urlChave: string | null;
}

/** prepare() either returns the document or throws a DomainError (validation_error / fiscal_rejection). */
export type PrepareOutcome = PreparedDocument;

/** What a kind's hooks may need beyond the database: the clock and the sealed secrets (certificates). */
export interface KindDeps {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
}

/** Input of an event builder: the document, its sequence number and the caller's fields. */
export interface EventBuildInput {
  fiscal: CompanyFiscal;
  doc: DocumentRow;
  nSeq: number;
  now: Date;
  /** The request's fields for this event (justificativa, correcao, correcoes, ...). */
  details: Readonly<Record<string, unknown>>;
}

export interface BuiltEvent {
  /** The signed event message (envEvento / eventoCTe) as the queue will send it. */
  xml: string;
  /** What document_events.payload keeps of the request (the texts as they went into the XML). */
  payload: Record<string, unknown>;
}

/** One event the kind allows on its documents: cancellation, correction letter, substitution, ... */
export interface EventRule {
  tpEvento: string;
  /** The generic action it serves: the lifecycle's cancel and correct find their rule by it. */
  action: 'cancel' | 'correct' | 'substitution';
  /** The state the document takes once the authority registers it (cancelada); absent: it keeps its state. */
  settles?: DocumentStatus;
  allowedFrom: readonly DocumentStatus[];
  /** Highest nSeqEvento (CC-e 20); cancellations take 1. */
  maxSeq: number;
  /** The refusal of sequence `nSeq` beyond maxSeq (NF-e 594), naming the caller's `field`. */
  beyondMax?(nSeq: number, field: string): DomainError;
  /** The legal deadline: a DomainError (fiscal_rejection with its cStat) when passed, else null. */
  deadline?(doc: DocumentRow, now: Date): DomainError | null;
  /** Builds and signs the event; throws DomainError naming the caller's fields. */
  build(input: EventBuildInput): BuiltEvent | Promise<BuiltEvent>;
}

/** Inutilização of a range of numbers, where the kind's authority offers it. */
export interface VoidRule {
  /** Largest range one request may void. */
  maxRange: number;
  /** Builds and signs the request; throws DomainError naming the caller's fields. */
  build(input: {
    fiscal: CompanyFiscal;
    serie: number;
    from: number;
    to: number;
    justificativa: string;
    now: Date;
  }): string | Promise<string>;
}

/** Contingency of a kind: NF-e SVC, NFC-e offline, CT-e SVC-RS/SVC-SP. */
export interface ContingencyRule {
  /** The emission in force for a new document of this company (reads the persisted contingency row). */
  emission(db: Db, companyId: string, clock: Clock): Promise<Emission>;
  /**
   * Certain failures (refused, paused) of a normal-emission authorization before `switchOver` is called;
   * absent: the kind never switches on its own.
   */
  switchAfterFailures?: number;
  /**
   * The emission a document re-signed under its own number takes (a change, a stale draft); defaults to
   * `emission`. NFC-e: a new sale starts online, but a draft re-signed while offline goes out as tpEmis 9.
   */
  rebuildEmission?(db: Db, companyId: string, clock: Clock): Promise<Emission>;
  /** Whether a draft must be re-signed at send because the mode it was signed for is no longer in force. */
  resignOnSend?(db: Db, doc: DocumentRow): Promise<boolean>;
  /** Moves the company to the contingency authority and re-signs `doc` under the same number. */
  switchOver?(deps: KindDeps, doc: DocumentRow, outboxId: number, reason: string): Promise<void>;
  /** The authority answered a message: a local contingency (NFC-e offline) ends. */
  authorityAnswered?(db: Db, doc: DocumentRow): Promise<void>;
  /** Companies whose documents of this kind go to a contingency authority now (probed for a return). */
  companiesInContingency?(db: Db): Promise<string[]>;
  /** The company's own authority is in service again: back to normal emission. */
  leaveContingency?(db: Db, companyId: string): Promise<void>;
}

export interface DocumentKind {
  id: KindId;
  modelo: Modelo;
  /** 'NF-e', 'NFC-e', 'CT-e' for messages. */
  label: string;
  /** Webhook event per state reached: { autorizada: 'cte.autorizada', erro: 'cte.rejeitada', ... }. */
  webhookEvents: Partial<Record<DocumentStatus, string>>;
  /**
   * The `data` of the kind's document webhooks when its API shows its documents its own way (the NFS-e's
   * view: `authorized`, the 50-digit key); absent: the generic document data. `baseUrl` is the service's
   * own address for the links ('' when unknown: the links are then paths).
   */
  webhookData?(db: Db, doc: DocumentRow, context: { baseUrl: string }): Promise<Record<string, unknown>>;
  /** Webhook event for each correction letter the authority registers (`nfe.cce`); absent: none is sent. */
  correctionWebhookEvent?: string;
  protocol: KindProtocol;
  /** Builds, signs and validates the document for a reserved number; throws DomainError on faults. */
  prepare(input: PrepareInput): Promise<PrepareOutcome>;
  /** The series the payload asks for, or null for the company's default series of this kind. */
  serieOf(payload: unknown): number | null;
  /**
   * Completes the request before it is prepared and stored, on every path that creates or changes a
   * document (NF-e: a devolução's items written without taxes get the referenced sale's values prorated).
   */
  amendPayload?(db: Db, companyId: string, payload: unknown): Promise<unknown>;
  /** Checks before a number is reserved (a company setting the kind needs); throws DomainError. */
  beforeIssue?(fiscal: CompanyFiscal, payload: unknown): void;
  /** In the transaction that wrote the row (insert or change): what goes with it (the sale's PIX charges). */
  afterWrite?(trx: Db, row: DocumentRow, payload: unknown): Promise<void>;
  /**
   * In the transaction that settles `doc` as authorized: what its authorization changes in other documents
   * (an NFS-e that substitutes another marks that one `substituida`). Returns the ids of the documents it
   * changed, which the queue announces like the settled one.
   */
  afterAuthorized?(trx: Db, doc: DocumentRow): Promise<string[]>;
  contingency?: ContingencyRule;
  events?: readonly EventRule[];
  voids?: VoidRule;
}

/** The kind's rule for an event type, or for a generic action. */
export function eventRuleOf(
  kind: DocumentKind,
  by: { tpEvento: string } | { action: EventRule['action'] },
): EventRule | undefined {
  return kind.events?.find((e) => ('tpEvento' in by ? e.tpEvento === by.tpEvento : e.action === by.action));
}
