// Printer profiles of a company (one default), their live status, and the print queue: receipts of issued
// NFC-e, explicit reprints and test pages become persisted jobs that the print worker sends.
import { isPrintable } from '../outputs/document.ts';
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { ApiError, conflict, forbidden, invalidState, notFound, validationError } from '../api/errors.ts';
import type { CompanyRow } from '../companies/repository.ts';
import type { DocumentRow } from '../documents/repository.ts';
import type {
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
import { nfceReceiptBytes, testPageBytes } from './receipt.ts';
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
  new ApiError(409, 'invalid_state', `Cannot ${action} a print job in state '${status}'.`, [
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
  bytes: Uint8Array;
  dedupeKey?: string;
}

/** Inserts a pending job and wakes the printer's queue; null when the dedupe key was already used. */
export async function queueJob({ db, clock }: PrintingDeps, job: NewJob): Promise<string | null> {
  const now = clock.now();
  const id = printingId();
  const inserted = await inTransaction(db, async (trx) => {
    const fresh = await printJobsRepository.insert(trx, {
      id,
      company_id: job.printer.company_id,
      printer_id: job.printer.id,
      printer_nome: job.printer.nome,
      document_id: job.documentId,
      reason: job.reason,
      bytes: job.bytes,
      status: 'pending',
      attempts: 0,
      last_error: null,
      next_try_at: now.toISOString(),
      expires_at: new Date(now.getTime() + JOB_LIFETIME_MS).toISOString(),
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
  if (printer === undefined) {
    throw conflict('No printer to print on: the company has no default printer.', [
      {
        field: 'printerId',
        error: 'name a printer, or mark one as the default (padrao: true) in /v1/companies/:id/printers',
      },
    ]);
  }
  return printer;
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
      .executeTakeFirst();
    if (waiting !== undefined) return { jobId: waiting.id, status: waiting.status };
  }
  const jobId = await queueJob(deps, {
    printer,
    documentId: doc.id,
    reason,
    bytes: nfceReceiptBytes(doc, printer),
  });
  if (jobId === null) throw new ApiError(500, 'internal_error', 'The print job was not queued.');
  return { jobId, status: 'pending' };
}

export async function queueTestPage(deps: PrintingDeps, printer: PrinterRow): Promise<QueuedPrint> {
  const jobId = await queueJob(deps, {
    printer,
    documentId: null,
    reason: 'test',
    bytes: testPageBytes(printer, deps.clock.now()),
  });
  if (jobId === null) throw new ApiError(500, 'internal_error', 'The print job was not queued.');
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
  const changes = {
    status: 'pending' as const,
    next_try_at: now.toISOString(),
    expires_at: new Date(now.getTime() + JOB_LIFETIME_MS).toISOString(),
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
