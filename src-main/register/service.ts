// Register sessions: opening with the counted float, sangria and suprimento, voids, the blind closing with
// its shift report, and the rule that an operator's sale needs an open register. Every write is one SQLite
// transaction, so a crash keeps the session and each movement or loses the whole of one; tickets are queued
// after the commit and never undo the operation they document.
import type { Clock } from '../clock.ts';
import { inTransaction, type Db } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import { newId } from '../ids.ts';
import { DomainError } from '../errors.ts';
import { cents, formatCents as formatText } from '../../src-shared/money.ts';
import { queueTicketPrint } from '../printing/service.ts';
import type { MovementCreate, SessionView, VoidCreate } from '../../src-shared/contracts/register.ts';
import { registerRepository, type MovementRow, type SessionRow, type VoidRow } from './repository.ts';
import {
  computeShiftReport,
  loadReport,
  moneyNumber,
  movementView,
  storeReport,
  type ReportDocument,
  type ReportMovement,
  type ReportOperator,
  type ReportVoid,
  type ShiftReport,
} from './report.ts';
import { movementTicket, openingTicket, shiftReportTicket, type Ticket } from './ticket.ts';
import { timeZoneOf } from './local-day.ts';
import { registerClosed } from './sale-context.ts';
import { paymentsOfXml } from './pag.ts';

export interface RegisterDeps {
  db: Db;
  clock: Clock;
  logger?: Logger | undefined;
}

/** The signed-in person acting (operators table row fields the register needs). */
export interface Actor {
  id: string;
  codigo: string;
  nome: string;
  company_id: string;
}

const ref = (a: Actor): ReportOperator => ({ id: a.id, codigo: a.codigo, nome: a.nome });

const sessionClosed = (row: SessionRow) =>
  new DomainError('caixa_fechado', `A sessão do caixa ${row.caixa} já foi fechada.`, [
    { field: 'status', error: "the session is 'fechada'" },
  ]);

/** Queues a ticket; a printer problem is logged and never fails the operation it documents. */
async function printTicket(
  deps: RegisterDeps,
  companyId: string,
  ticket: Ticket,
  abrirGaveta: boolean,
): Promise<string | null> {
  try {
    const queued = await queueTicketPrint(deps, {
      companyId,
      titulo: ticket.titulo,
      linhas: ticket.linhas,
      abrirGaveta,
      kind: 'ticket',
    });
    return queued?.jobId ?? null;
  } catch (error) {
    deps.logger?.error('register ticket not queued', {
      companyId,
      titulo: ticket.titulo,
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}

export async function openSession(
  deps: RegisterDeps,
  input: { companyId: string; caixa: string; fundo: string; operator: Actor },
): Promise<{ session: SessionRow; jobId: string | null }> {
  const now = deps.clock.now().toISOString();
  const row: SessionRow = {
    id: newId(),
    company_id: input.companyId,
    caixa: input.caixa,
    status: 'aberta',
    opened_by: input.operator.id,
    opened_at: now,
    fundo_troco: input.fundo,
    closed_by: null,
    closed_at: null,
    contagem: null,
    esperado: null,
    report: null,
  };
  await inTransaction(deps.db, async (trx) => {
    // The partial unique index is the real guard (two registers opening at once); this gives the answer a name.
    const open = await registerRepository.openSessionOf(trx, input.companyId, input.caixa);
    if (open !== undefined) throw alreadyOpen(open);
    try {
      await registerRepository.insertSession(trx, row);
    } catch (error) {
      if (error instanceof Error && /UNIQUE constraint failed/.test(error.message))
        throw alreadyOpen({ ...row, id: '' });
      throw error;
    }
  });
  const jobId = await printTicket(
    deps,
    input.companyId,
    openingTicket({
      caixa: row.caixa,
      operador: ref(input.operator),
      at: now,
      fundo: cents(input.fundo),
      timeZone: await timeZoneOf(deps.db, input.companyId),
    }),
    true,
  );
  return { session: row, jobId };
}

function alreadyOpen(open: SessionRow): DomainError {
  return new DomainError('caixa_ja_aberto', `O caixa ${open.caixa} já está aberto.`, [
    {
      field: 'caixa',
      error: `register ${open.caixa} already has an open session${open.id === '' ? '' : ` (${open.id})`}`,
    },
  ]);
}

export async function addMovement(
  deps: RegisterDeps,
  session: SessionRow,
  input: MovementCreate,
  operator: Actor,
  authorizedBy: Actor | null = null,
): Promise<MovementRow> {
  const row: MovementRow = {
    id: newId(),
    session_id: session.id,
    tipo: input.tipo,
    valor: input.valor,
    motivo: input.motivo,
    operator_id: operator.id,
    authorized_by: authorizedBy?.id ?? null,
    print_job_id: null,
    created_at: deps.clock.now().toISOString(),
  };
  await inTransaction(deps.db, async (trx) => {
    const current = await registerRepository.findSession(trx, session.id);
    if (current?.status !== 'aberta') throw sessionClosed(session);
    await registerRepository.insertMovement(trx, row);
  });
  const jobId = await printTicket(
    deps,
    session.company_id,
    movementTicket({
      caixa: session.caixa,
      movement: { ...row, valor: cents(row.valor), operador: ref(operator) },
      autorizadoPor: authorizedBy === null ? null : ref(authorizedBy),
      timeZone: await timeZoneOf(deps.db, session.company_id),
    }),
    true,
  );
  if (jobId !== null) {
    await registerRepository.setMovementPrintJob(deps.db, row.id, jobId);
    row.print_job_id = jobId;
  }
  return row;
}

export async function addVoid(
  deps: RegisterDeps,
  session: SessionRow,
  input: VoidCreate,
  operator: Actor,
  authorizedBy: Actor | null = null,
): Promise<VoidRow> {
  const row: VoidRow = {
    id: newId(),
    session_id: session.id,
    tipo: input.tipo,
    descricao: input.descricao,
    valor: input.valor,
    operator_id: operator.id,
    authorized_by: authorizedBy?.id ?? null,
    created_at: deps.clock.now().toISOString(),
  };
  await inTransaction(deps.db, async (trx) => {
    const current = await registerRepository.findSession(trx, session.id);
    if (current?.status !== 'aberta') throw sessionClosed(session);
    await registerRepository.insertVoid(trx, row);
  });
  return row;
}

/** What the report reads of the session's rows; `contagem` null computes the open (blind) reading. */
async function reportInput(
  db: Db,
  session: SessionRow,
  contagem: Record<string, bigint> | null,
  closer: string | null,
  closedAt: string | null,
) {
  const [documents, movements, voids] = await Promise.all([
    registerRepository.documentsOf(db, session.id),
    registerRepository.movementsOf(db, [session.id]),
    registerRepository.voidsOf(db, session.id),
  ]);
  const operators = await registerRepository.operatorRefs(db, [
    session.opened_by,
    closer,
    ...movements.map((m) => m.operator_id),
    ...voids.map((v) => v.operator_id),
  ]);
  const op = (id: string | null) => (id === null ? null : (operators.get(id) ?? null));
  const docs: ReportDocument[] = documents.map((d) => {
    const pag = paymentsOfXml(d.xml);
    return {
      id: d.id,
      numero: d.n_nf,
      serie: d.serie,
      status: d.status,
      replaced_by: d.replaced_by,
      v_nf: d.v_nf,
      pag,
    };
  });
  const moves: ReportMovement[] = movements.map((m) => ({
    id: m.id,
    tipo: m.tipo,
    valor: m.valor,
    motivo: m.motivo,
    operador: op(m.operator_id),
    created_at: m.created_at,
    job_id: m.print_job_id,
  }));
  const voidLines: ReportVoid[] = voids.map((v) => ({
    id: v.id,
    tipo: v.tipo,
    descricao: v.descricao,
    valor: v.valor,
    operador: op(v.operator_id),
    created_at: v.created_at,
  }));
  return computeShiftReport({
    session: {
      id: session.id,
      caixa: session.caixa,
      status: contagem === null ? session.status : 'fechada',
      opened_at: session.opened_at,
      opened_by: op(session.opened_by),
      closed_at: closedAt,
      closed_by: op(closer),
      fundo_troco: session.fundo_troco,
    },
    documents: docs,
    movements: moves,
    voids: voidLines,
    contagem,
  });
}

/**
 * The blind closing: the count is compared with what was expected, and the report is fixed with the session
 * in one transaction (a sale or movement racing the close either lands before it and is counted, or is
 * refused as on a closed register).
 */
export async function closeSession(
  deps: RegisterDeps,
  session: SessionRow,
  contagem: Record<string, string>,
  operator: Actor,
): Promise<{ session: SessionRow; report: ShiftReport; jobId: string | null }> {
  const counted = Object.fromEntries(Object.entries(contagem).map(([k, v]) => [k, cents(v)]));
  const closedAt = deps.clock.now().toISOString();
  const { closed, report } = await inTransaction(deps.db, async (trx) => {
    const current = await registerRepository.findSession(trx, session.id);
    if (current?.status !== 'aberta') throw sessionClosed(session);
    const report = await reportInput(trx, current, counted, operator.id, closedAt);
    const values = {
      closed_by: operator.id,
      closed_at: closedAt,
      contagem: JSON.stringify(
        Object.fromEntries(Object.entries(report.contado ?? {}).map(([k, v]) => [k, formatText(v)])),
      ),
      esperado: JSON.stringify(
        Object.fromEntries(Object.entries(report.esperado).map(([k, v]) => [k, formatText(v)])),
      ),
      report: storeReport(report),
    };
    if (!(await registerRepository.closeSession(trx, current.id, values))) throw sessionClosed(session);
    return { closed: { ...current, ...values, status: 'fechada' as const }, report };
  });
  const timeZone = await timeZoneOf(deps.db, session.company_id);
  const jobId = await printTicket(deps, session.company_id, shiftReportTicket(report, timeZone), false);
  return { session: closed, report, jobId };
}

/** The fixed report of a closed session, or the live (blind) reading of an open one. */
export async function reportOf(db: Db, session: SessionRow): Promise<ShiftReport> {
  if (session.report !== null) return loadReport(session.report);
  return reportInput(db, session, null, null, null);
}

export async function printReport(deps: RegisterDeps, session: SessionRow): Promise<string | null> {
  const ticket = shiftReportTicket(
    await reportOf(deps.db, session),
    await timeZoneOf(deps.db, session.company_id),
  );
  return printTicket(deps, session.company_id, ticket, false);
}

/** A sale made by a signed-in operator needs the open session of the operator's register. */
export async function openSessionForSale(db: Db, companyId: string, caixa: string): Promise<SessionRow> {
  const open = await registerRepository.openSessionOf(db, companyId, caixa);
  if (open === undefined) throw registerClosed(caixa);
  return open;
}

// --- views ----------------------------------------------------------------------------------------------

export async function sessionViews(db: Db, rows: SessionRow[]): Promise<SessionView[]> {
  const ids = rows.map((r) => r.id);
  const [movements, sales] = await Promise.all([
    registerRepository.movementsOf(db, ids),
    registerRepository.saleCounts(db, ids),
  ]);
  const operators = await registerRepository.operatorRefs(db, [
    ...rows.flatMap((r) => [r.opened_by, r.closed_by]),
    ...movements.map((m) => m.operator_id),
  ]);
  const op = (id: string | null) => (id === null ? null : (operators.get(id) ?? null));
  return rows.map((row) => {
    const closing = row.report === null ? null : loadReport(row.report);
    const asNumbers = (record: Record<string, bigint> | null) =>
      Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k, moneyNumber(v)]));
    return {
      id: row.id,
      caixa: row.caixa,
      status: row.status,
      aberta_em: row.opened_at,
      aberta_por: op(row.opened_by),
      fundo_troco: moneyNumber(cents(row.fundo_troco)),
      fechada_em: row.closed_at,
      fechada_por: op(row.closed_by),
      movimentos: movements
        .filter((m) => m.session_id === row.id)
        .map((m) =>
          movementView({
            id: m.id,
            tipo: m.tipo,
            valor: m.valor,
            motivo: m.motivo,
            operador: op(m.operator_id),
            created_at: m.created_at,
            job_id: m.print_job_id,
          }),
        ),
      vendas: { quantidade: closing?.vendas.quantidade ?? sales.get(row.id) ?? 0 },
      // Never while open: the cashier counts before seeing what is expected.
      fechamento:
        closing === null
          ? null
          : {
              contado: asNumbers(closing.contado),
              esperado: asNumbers(closing.esperado),
              diferenca: asNumbers(closing.diferenca),
              diferenca_total: moneyNumber(closing.diferencaTotal ?? 0n),
            },
    };
  });
}

export async function sessionView(db: Db, row: SessionRow): Promise<SessionView> {
  const [view] = await sessionViews(db, [row]);
  if (view === undefined) throw new Error('unreachable: one row in, one view out');
  return view;
}

export function movementRowView(row: MovementRow, operador: ReportOperator | null) {
  return movementView({
    id: row.id,
    tipo: row.tipo,
    valor: row.valor,
    motivo: row.motivo,
    operador,
    created_at: row.created_at,
    job_id: row.print_job_id,
  });
}
