// Printer profiles of a company (one default), their live status, and the print queue: receipts of issued
// NFC-e, explicit reprints, test pages, generic tickets and drawer kicks become persisted jobs that the print
// worker sends.
import { isPrintable } from '../outputs/document.ts';
import type { Clock } from '../clock.ts';
import { inCompanyTransaction, inTransaction, type Db } from '../db/client.ts';
import { sql } from 'kysely';
import type { Logger } from '../logger.ts';
import { DomainError, conflict, forbidden, invalidState, notFound, validationError } from '../errors.ts';
import { companiesRepository, type CompanyRow } from '../companies/repository.ts';
import type { DocumentRow } from '../documents/repository.ts';
import type {
  PrintJobKind,
  PrintJobReason,
  PrintJobStatus,
  PrintJobView,
  PrinterConnection,
  PrinterCreate,
  PrinterStatusView,
  PrinterUpdate,
  PrinterView,
  QueuedPrint,
} from '../../src-shared/contracts/printers.ts';
import {
  printJobsRepository,
  printersRepository,
  printingId,
  type PrintJobRow,
  type PrintJobSummary,
  type PrinterRow,
} from './repository.ts';
import { drawerOf, escposProfile, largura, nfceReceiptBytes, testPageBytes } from './receipt.ts';
import {
  buildDrawerKick,
  buildTicket,
  type TicketHeader,
  type TicketLine,
} from '../outputs/escpos/ticket.ts';
import { problemOf } from './status.ts';
import { transportFactory, type TransportFactory } from './transports/index.ts';
import { usbTarget } from './transports/usb.ts';

export interface PrintingDeps {
  db: Db;
  clock: Clock;
  logger?: Logger;
  transports?: TransportFactory;
}

/** A job still failing this long after it was queued stops being retried (status failed; retry revives it). */
export const JOB_LIFETIME_MS = 24 * 3600_000;

const jobInState = (status: PrintJobStatus, action: string) =>
  new DomainError('invalid_state', `Cannot ${action} a print job in state '${status}'.`, [
    { field: 'status', error: `current state is '${status}'` },
  ]);

// --- queue notifications ------------------------------------------------------------------------------

const listeners = new Set<() => void>();

/** The running worker listens so a new job prints at once instead of at the next poll. */
export function onPrintQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notifyQueued(): void {
  // After the current turn, so a caller's transaction has committed the row before the worker looks.
  setImmediate(() => {
    for (const listener of listeners) listener();
  });
}

// --- views --------------------------------------------------------------------------------------------

export function connectionOf(row: PrinterRow): PrinterConnection {
  const connection = { tipo: row.tipo, conexao: JSON.parse(row.conexao_json) } as PrinterConnection;
  // Rows saved before the flag existed allow no local address: the flag is only ever set explicitly.
  if (connection.tipo === 'rede')
    connection.conexao.permitirRedeLocal = connection.conexao.permitirRedeLocal === true;
  return connection;
}

const hex = (n: number) => `0x${n.toString(16).padStart(4, '0')}`;

export function printerView(row: PrinterRow): PrinterView {
  const connection = connectionOf(row);
  return {
    id: row.id,
    companyId: row.company_id,
    nome: row.nome,
    tipo: row.tipo,
    conexao:
      connection.tipo === 'usb'
        ? { vendorId: hex(connection.conexao.vendorId), productId: hex(connection.conexao.productId) }
        : connection.conexao,
    largura: row.largura === 58 ? 58 : 80,
    qr: row.qr,
    codePage: row.code_page as PrinterView['codePage'],
    impressaoAutomatica: row.impressao_automatica === 1,
    padrao: row.padrao === 1,
    gaveta: {
      ativa: row.gaveta_ativa === 1,
      pino: row.gaveta_pino === 5 ? 5 : 2,
      pulso_ms: row.gaveta_pulso_ms,
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function printJobView(row: PrintJobSummary | PrintJobRow): PrintJobView {
  return {
    id: row.id,
    companyId: row.company_id,
    printerId: row.printer_id,
    printerNome: row.printer_nome,
    documentId: row.document_id,
    reason: row.reason,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    nextTryAt: row.status === 'pending' ? row.next_try_at : null,
    expiresAt: row.expires_at,
    size: 'size' in row ? row.size : row.bytes.byteLength,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    printedAt: row.printed_at,
  };
}

export function describeTarget(connection: PrinterConnection): string {
  switch (connection.tipo) {
    case 'rede':
      return `${connection.conexao.host}:${connection.conexao.porta}`;
    case 'usb':
      return usbTarget(connection.conexao.vendorId, connection.conexao.productId);
    case 'serial':
      return connection.conexao.caminho;
  }
}

// --- printers -----------------------------------------------------------------------------------------

export async function createPrinter(
  { db, clock }: PrintingDeps,
  company: CompanyRow,
  input: PrinterCreate,
): Promise<PrinterView> {
  const now = clock.now().toISOString();
  return inTransaction(db, async (trx) => {
    // The first printer of a company is its default unless the caller says otherwise.
    const padrao = input.padrao ?? (await printersRepository.countOf(trx, company.id)) === 0;
    if (padrao) await printersRepository.clearDefault(trx, company.id, now);
    const row: PrinterRow = {
      id: printingId(),
      company_id: company.id,
      nome: input.nome,
      tipo: input.tipo,
      conexao_json: JSON.stringify(input.conexao),
      largura: input.largura,
      qr: input.qr,
      code_page: input.codePage,
      impressao_automatica: input.impressaoAutomatica ? 1 : 0,
      auto_since: input.impressaoAutomatica ? now : null,
      padrao: padrao ? 1 : 0,
      gaveta_ativa: input.gaveta.ativa ? 1 : 0,
      gaveta_pino: input.gaveta.pino,
      gaveta_pulso_ms: input.gaveta.pulso_ms,
      created_at: now,
      updated_at: now,
    };
    await printersRepository.insert(trx, row);
    return printerView(row);
  });
}

/** 403 when the key cannot reach the company (checked by the caller); 404 when the printer is not its. */
export async function printerOfCompany(db: Db, companyId: string, printerId: string): Promise<PrinterRow> {
  const row = await printersRepository.findById(db, printerId);
  if (row === undefined || row.company_id !== companyId) throw notFound('Printer');
  return row;
}

export async function listPrinters(db: Db, companyId: string, page: number, pageSize: number) {
  const { rows, total } = await printersRepository.list(db, companyId, page, pageSize);
  return { items: rows.map(printerView), total };
}

export async function updatePrinter(
  { db, clock }: PrintingDeps,
  row: PrinterRow,
  input: PrinterUpdate,
): Promise<PrinterView> {
  const now = clock.now().toISOString();
  const changes: Partial<PrinterRow> = { updated_at: now };
  if (input.nome !== undefined) changes.nome = input.nome;
  if (input.connection !== undefined) {
    changes.tipo = input.connection.tipo;
    changes.conexao_json = JSON.stringify(input.connection.conexao);
  }
  if (input.largura !== undefined) changes.largura = input.largura;
  if (input.qr !== undefined) changes.qr = input.qr;
  if (input.codePage !== undefined) changes.code_page = input.codePage;
  if (input.impressaoAutomatica !== undefined) {
    changes.impressao_automatica = input.impressaoAutomatica ? 1 : 0;
    if (input.impressaoAutomatica && row.impressao_automatica === 0) changes.auto_since = now;
  }
  if (input.padrao !== undefined) changes.padrao = input.padrao ? 1 : 0;
  if (input.gaveta?.ativa !== undefined) changes.gaveta_ativa = input.gaveta.ativa ? 1 : 0;
  if (input.gaveta?.pino !== undefined) changes.gaveta_pino = input.gaveta.pino;
  if (input.gaveta?.pulso_ms !== undefined) changes.gaveta_pulso_ms = input.gaveta.pulso_ms;
  return inTransaction(db, async (trx) => {
    if (input.padrao === true && row.padrao === 0)
      await printersRepository.clearDefault(trx, row.company_id, now);
    await printersRepository.update(trx, row.id, changes);
    return printerView({ ...row, ...changes });
  });
}

/** Unfinished jobs of the printer are cancelled; printed ones keep their history (printer_id set null). */
export async function deletePrinter({ db, clock }: PrintingDeps, row: PrinterRow): Promise<void> {
  const now = clock.now().toISOString();
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('print_jobs')
      .set({ status: 'cancelled', last_error: 'printer_deleted', next_try_at: null, updated_at: now })
      .where('printer_id', '=', row.id)
      .where('status', '=', 'pending')
      .execute();
    await printersRepository.delete(trx, row.id);
  });
}

export async function printerStatus(
  { clock, transports = transportFactory() }: PrintingDeps,
  row: PrinterRow,
): Promise<PrinterStatusView> {
  const status = await transports(connectionOf(row)).status();
  return {
    printerId: row.id,
    reachable: status.reachable,
    online: status.online,
    coverOpen: status.coverOpen,
    paperNearEnd: status.paperNearEnd,
    paperOut: status.paperOut,
    error: status.error,
    statusReported: status.statusReported,
    problem: problemOf(status),
    detail: status.detail,
    checkedAt: clock.now().toISOString(),
  };
}

// --- jobs ---------------------------------------------------------------------------------------------

export interface NewJob {
  printer: PrinterRow;
  documentId: string | null;
  reason: PrintJobReason;
  /** Default 'receipt' with a document, else 'test'. */
  kind?: PrintJobKind;
  bytes: Uint8Array;
  dedupeKey?: string;
  /** How long the job may keep failing before it is given up (default JOB_LIFETIME_MS). */
  lifetimeMs?: number;
}

/** Inserts a pending job and wakes the printer's queue; null when the dedupe key was already used. */
export async function queueJob({ db, clock }: PrintingDeps, job: NewJob): Promise<string | null> {
  const now = clock.now();
  const id = printingId();
  // The job and its printer are the printer's company's: a sale's receipt waits only for that company's lock.
  const inserted = await inCompanyTransaction(db, job.printer.company_id, async (trx) => {
    const fresh = await printJobsRepository.insert(trx, {
      id,
      company_id: job.printer.company_id,
      printer_id: job.printer.id,
      printer_nome: job.printer.nome,
      document_id: job.documentId,
      reason: job.reason,
      kind: job.kind ?? (job.documentId === null ? 'test' : 'receipt'),
      bytes: job.bytes,
      status: 'pending',
      attempts: 0,
      last_error: null,
      next_try_at: now.toISOString(),
      expires_at: new Date(now.getTime() + (job.lifetimeMs ?? JOB_LIFETIME_MS)).toISOString(),
      dedupe_key: job.dedupeKey ?? null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      printed_at: null,
    });
    if (fresh) await printJobsRepository.wakePrinter(trx, job.printer.id, now.toISOString());
    return fresh;
  });
  if (inserted) notifyQueued();
  return inserted ? id : null;
}

async function printerForDocument(
  db: Db,
  doc: DocumentRow,
  printerId: string | undefined,
): Promise<PrinterRow> {
  if (printerId !== undefined) {
    const printer = await printersRepository.findById(db, printerId);
    if (printer === undefined || printer.company_id !== doc.company_id) {
      throw validationError([{ field: 'printerId', error: "no printer with this id in the note's company" }]);
    }
    return printer;
  }
  const printer = await printersRepository.defaultOf(db, doc.company_id);
  if (printer === undefined) throw noPrinter();
  return printer;
}

/**
 * 409 sem_impressora: the cashier shows `message` as is, so it speaks to the person at the counter (the
 * generic 'conflict' text, "Conflito com um registro existente", told them nothing).
 */
export function noPrinter(): DomainError {
  return new DomainError(
    'sem_impressora',
    'Nenhuma impressora configurada: cadastre uma impressora e marque-a como padrão em Configurações › Impressoras.',
    [
      {
        field: 'printerId',
        error: 'no default printer: name a printer, or mark one as the default (padrao: true)',
      },
    ],
  );
}

/**
 * Queues the receipt of an issued NFC-e. `print` returns the job already waiting for the same note and
 * printer (a double click prints once); `reprint` always queues another copy and is recorded as such.
 */
export async function queueDocumentPrint(
  deps: PrintingDeps,
  doc: DocumentRow,
  printerId: string | undefined,
  reason: 'print' | 'reprint',
): Promise<QueuedPrint> {
  if (!isPrintable(doc)) throw invalidState(doc.status, reason);
  const printer = await printerForDocument(deps.db, doc, printerId);
  if (reason === 'print') {
    const waiting = await deps.db
      .selectFrom('print_jobs')
      .select(['id', 'status'])
      .where('document_id', '=', doc.id)
      .where('printer_id', '=', printer.id)
      .where('reason', 'in', ['auto', 'print'])
      .where('status', 'in', ['pending', 'printing'])
      .orderBy('created_at')
      .orderBy(sql`rowid`)
      .executeTakeFirst();
    if (waiting !== undefined) return { jobId: waiting.id, status: waiting.status };
  }
  // The drawer opens once per sale, with its first receipt: a copy (reprint, or printing it again) is
  // paper only, so a reprint cannot be used to open the drawer.
  const openDrawer =
    reason === 'print' && (await printJobsRepository.liveOfDocument(deps.db, doc.id)).length === 0;
  const jobId = await queueJob(deps, {
    printer,
    documentId: doc.id,
    reason,
    bytes: nfceReceiptBytes(doc, printer, { openDrawer }),
  });
  if (jobId === null) throw new DomainError('internal_error', 'The print job was not queued.');
  return { jobId, status: 'pending' };
}

export async function queueTestPage(deps: PrintingDeps, printer: PrinterRow): Promise<QueuedPrint> {
  const jobId = await queueJob(deps, {
    printer,
    documentId: null,
    reason: 'test',
    bytes: testPageBytes(printer, deps.clock.now()),
  });
  if (jobId === null) throw new DomainError('internal_error', 'The print job was not queued.');
  return { jobId, status: 'pending' };
}

// --- generic tickets and the drawer ----------------------------------------------------------------

export type { TicketLine } from '../outputs/escpos/ticket.ts';

export interface TicketRequest {
  companyId: string;
  /** Without it, the company's default printer. */
  printerId?: string | undefined;
  titulo: string;
  linhas: readonly TicketLine[];
  /** Kick the drawer before the cut (sangria, suprimento, opening float), when the printer's drawer is active. */
  abrirGaveta: boolean;
  kind: 'ticket';
}

/**
 * A drawer kick that cannot print at once is given up after this: a drawer opening minutes later, when the
 * printer comes back, would open it with nobody watching.
 */
export const DRAWER_JOB_LIFETIME_MS = 60_000;

function ticketHeader(company: CompanyRow): TicketHeader {
  return {
    nome: company.x_fant !== null && company.x_fant.trim() !== '' ? company.x_fant : company.x_nome,
    cnpj: company.cnpj,
    ie: company.ie,
    endereco: {
      xLgr: company.x_lgr,
      nro: company.nro,
      xCpl: company.x_cpl,
      xBairro: company.x_bairro,
      cMun: company.c_mun,
      xMun: company.x_mun,
      UF: company.uf,
      CEP: company.cep,
      cPais: null,
      xPais: null,
      fone: null,
    },
  };
}

async function printerForCompany(
  db: Db,
  companyId: string,
  printerId: string | undefined,
): Promise<PrinterRow | undefined> {
  if (printerId === undefined) return printersRepository.defaultOf(db, companyId);
  const printer = await printersRepository.findById(db, printerId);
  if (printer === undefined || printer.company_id !== companyId) {
    throw validationError([{ field: 'printerId', error: 'no printer with this id in the company' }]);
  }
  return printer;
}

/**
 * Queues a non-fiscal ticket (sangria, suprimento, shift report, PIX QR) on the named printer or the company's
 * default one, with the company header, in the printer's width and code page. Persisted like receipts (retry,
 * cancel, status through /v1/print-jobs). Null when no printer was named and the company has no default one:
 * the caller's operation stands without its paper.
 */
export async function queueTicketPrint(
  deps: PrintingDeps,
  request: TicketRequest,
): Promise<QueuedPrint | null> {
  const printer = await printerForCompany(deps.db, request.companyId, request.printerId);
  if (printer === undefined) return null;
  const company = await companiesRepository.findById(deps.db, request.companyId);
  if (company === undefined) throw notFound('Company');
  const drawer = request.abrirGaveta ? drawerOf(printer) : undefined;
  const bytes = buildTicket({
    largura: largura(printer),
    profile: escposProfile(printer),
    header: ticketHeader(company),
    titulo: request.titulo,
    linhas: request.linhas,
    at: deps.clock.now(),
    ...(drawer === undefined ? {} : { drawer }),
  });
  const jobId = await queueJob(deps, {
    printer,
    documentId: null,
    reason: 'print',
    kind: request.kind,
    bytes,
  });
  if (jobId === null) throw new DomainError('internal_error', 'The print job was not queued.');
  return { jobId, status: 'pending' };
}

/** Opens the printer's drawer now (no paper). 409 when the printer has no active drawer. */
export async function queueDrawerKick(deps: PrintingDeps, printer: PrinterRow): Promise<QueuedPrint> {
  const drawer = drawerOf(printer);
  if (drawer === undefined) {
    throw new DomainError('gaveta_desativada', 'A gaveta desta impressora está desativada.', [
      {
        field: 'gaveta.ativa',
        error: 'the drawer of this printer is switched off; set gaveta.ativa to true',
      },
    ]);
  }
  const jobId = await queueJob(deps, {
    printer,
    documentId: null,
    reason: 'print',
    kind: 'drawer',
    bytes: buildDrawerKick(drawer),
    lifetimeMs: DRAWER_JOB_LIFETIME_MS,
  });
  if (jobId === null) throw new DomainError('internal_error', 'The print job was not queued.');
  return { jobId, status: 'pending' };
}

/** 404 when no such job exists; 403 when it belongs to a company the key cannot reach. */
export async function jobInCompanies(
  db: Db,
  id: string,
  reachable: (companyId: string) => Promise<boolean>,
): Promise<PrintJobRow> {
  const row = await printJobsRepository.findById(db, id);
  if (row === undefined) throw notFound('Print job');
  if (!(await reachable(row.company_id))) throw forbidden();
  return row;
}

export async function listJobs(
  db: Db,
  companyId: string,
  filters: { status?: PrintJobStatus | undefined; documentId?: string | undefined },
  page: number,
  pageSize: number,
) {
  const { rows, total } = await printJobsRepository.list(db, companyId, filters, page, pageSize);
  return { items: rows.map(printJobView), total };
}

/**
 * Tries a waiting or given-up job again now, with a fresh lifetime. A printed job is not printed again by
 * retry (reprint queues a recorded copy); a job being printed is left alone.
 */
export async function retryJob({ db, clock }: PrintingDeps, row: PrintJobRow): Promise<PrintJobView> {
  if (row.status === 'done' || row.status === 'printing') throw jobInState(row.status, 'retry');
  if (row.printer_id === null) {
    throw conflict('The printer of this job was deleted; print the note again on another printer.');
  }
  const now = clock.now();
  const lifetime = row.kind === 'drawer' ? DRAWER_JOB_LIFETIME_MS : JOB_LIFETIME_MS;
  const changes = {
    status: 'pending' as const,
    next_try_at: now.toISOString(),
    expires_at: new Date(now.getTime() + lifetime).toISOString(),
    updated_at: now.toISOString(),
  };
  await inTransaction(db, async (trx) => {
    await printJobsRepository.update(trx, row.id, changes);
    await printJobsRepository.wakePrinter(trx, row.printer_id as string, now.toISOString());
  });
  notifyQueued();
  return printJobView({ ...row, ...changes });
}

export async function cancelJob({ db, clock }: PrintingDeps, row: PrintJobRow): Promise<PrintJobView> {
  if (row.status !== 'pending' && row.status !== 'failed') throw jobInState(row.status, 'cancel');
  const changes = { status: 'cancelled' as const, next_try_at: null, updated_at: clock.now().toISOString() };
  await printJobsRepository.update(db, row.id, changes);
  return printJobView({ ...row, ...changes });
}
