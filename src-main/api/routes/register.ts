// /v1/register-sessions (open, movements, voids, blind close, shift report) and /v1/reports/sales: the
// register a store runs on (issue 13 items 2 and 11). Opening, movements and closing are acts of a person:
// they need X-Operator-Token. Other POS software (no operator token) sells without any register rule.
import { Router, type Request, type Response } from 'express';
import type { ApiDeps } from '../context.ts';
import { ApiError, notFound, forbidden, validationError } from '../errors.ts';
import { parseOrThrow } from '../validation.ts';
import { dataList, pageLimitQuery, parseQuery } from '../pagination.ts';
import { authOf } from '../middleware/auth.ts';
import { OPERATOR_HEADER, operatorOf, type OperatorContext } from '../middleware/operator.ts';
import { companyOfRequest, reachableBy, requestedCompanyId } from './scoping.ts';
import { registerRepository, type SessionRow } from '../../register/repository.ts';
import {
  addMovement,
  addVoid,
  closeSession,
  movementRowView,
  openSession,
  openSessionForSale,
  printReport,
  reportOf,
  sessionView,
  sessionViews,
} from '../../register/service.ts';
import { shiftReportView, voidView } from '../../register/report.ts';
import { salesReport, salesReportCsv } from '../../register/sales-report.ts';
import {
  currentSessionQuerySchema,
  movementCreateSchema,
  salesReportQuerySchema,
  sessionCloseSchema,
  sessionListQuerySchema,
  sessionOpenSchema,
  voidCreateSchema,
} from '../../../src-shared/contracts/register.ts';
import type { Db } from '../../db/client.ts';
import { endOfLocalDay, startOfLocalDay, timeZoneOf } from '../../register/local-day.ts';
import { noPrinter } from '../../printing/service.ts';

function operatorRequired(res: Response, what: string): OperatorContext {
  const current = operatorOf(res);
  if (current === null) {
    throw validationError(
      [
        {
          field: OPERATOR_HEADER,
          error: `${what} is done by a signed-in operator: send the operator's token`,
        },
      ],
      `${OPERATOR_HEADER} is required: ${what} records who did it.`,
    );
  }
  return current;
}

/** The company: the one named or the key's own; with only an operator token, the operator's company. */
async function companyIdOf(db: Db, req: Request, res: Response): Promise<string> {
  const current = operatorOf(res);
  if (current !== null && requestedCompanyId(req) === undefined) return current.operator.company_id;
  return (await companyOfRequest(db, req, res)).id;
}

async function sessionOfRequest(db: Db, req: Request, res: Response): Promise<SessionRow> {
  const row = await registerRepository.findSession(db, String(req.params['id']));
  if (row === undefined) throw notFound('Register session');
  if (!(await reachableBy(db, authOf(res))(row.company_id))) throw forbidden();
  const current = operatorOf(res);
  if (current !== null && current.operator.company_id !== row.company_id)
    throw forbidden("The operator does not belong to this register session's company.");
  return row;
}

/**
 * For the sale routes: the open session of the operator's register, or 409 caixa_fechado; null for a request
 * without an operator token (other POS software keeps selling as before).
 */
export async function registerForSale(db: Db, res: Response, companyId: string): Promise<SessionRow | null> {
  const current = operatorOf(res);
  if (current === null) return null;
  return openSessionForSale(db, companyId, current.caixa);
}

export function registerRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();

  router.post('/register-sessions', async (req, res) => {
    const current = operatorRequired(res, 'opening a register');
    const body = parseOrThrow(sessionOpenSchema, req.body);
    const companyId = await companyIdOf(db, req, res);
    if (companyId !== current.operator.company_id)
      throw forbidden('The operator does not belong to this company.');
    const { session, jobId } = await openSession(deps, {
      companyId,
      caixa: body.caixa ?? current.caixa,
      fundo: body.fundo_troco,
      operator: current.operator,
    });
    res
      .status(201)
      .json({ ...(await sessionView(db, session)), impressao: jobId === null ? null : { job_id: jobId } });
  });

  router.get('/register-sessions', async (req, res) => {
    const companyId = await companyIdOf(db, req, res);
    const { status, caixa, de, ate, ...window } = pageLimitQuery(req, sessionListQuerySchema.shape);
    // `de`/`ate` are the store's days: bounds in the company's time zone.
    const timeZone = await timeZoneOf(db, companyId);
    const { rows, total } = await registerRepository.listSessions(
      db,
      companyId,
      {
        status,
        caixa,
        from: de === undefined ? undefined : startOfLocalDay(de, timeZone),
        before: ate === undefined ? undefined : endOfLocalDay(ate, timeZone),
      },
      window,
    );
    res.json(dataList(await sessionViews(db, rows), total, window));
  });

  router.get('/register-sessions/current', async (req, res) => {
    const { caixa } = parseQuery(req, currentSessionQuerySchema);
    const current = operatorOf(res);
    const register = caixa ?? current?.caixa ?? '1';
    const companyId = await companyIdOf(db, req, res);
    const open = await registerRepository.openSessionOf(db, companyId, register);
    if (open === undefined)
      throw new ApiError(404, 'not_found', `O caixa ${register} está fechado.`, [
        { field: 'caixa', error: `register ${register} has no open session` },
      ]);
    res.json(await sessionView(db, open));
  });

  router.get('/register-sessions/:id', async (req, res) => {
    res.json(await sessionView(db, await sessionOfRequest(db, req, res)));
  });

  router.post('/register-sessions/:id/movements', async (req, res) => {
    const current = operatorRequired(res, 'a sangria or suprimento');
    const session = await sessionOfRequest(db, req, res);
    const body = parseOrThrow(movementCreateSchema, req.body);
    const row = await addMovement(deps, session, body, current.operator);
    const { id, codigo, nome } = current.operator;
    res.status(201).json(movementRowView(row, { id, codigo, nome }));
  });

  router.post('/register-sessions/:id/voids', async (req, res) => {
    const current = operatorRequired(res, 'reporting a removed item or abandoned sale');
    const session = await sessionOfRequest(db, req, res);
    const body = parseOrThrow(voidCreateSchema, req.body);
    const row = await addVoid(deps, session, body, current.operator);
    const { id, codigo, nome } = current.operator;
    res.status(201).json(voidView({ ...row, operador: { id, codigo, nome } }));
  });

  router.post('/register-sessions/:id/close', async (req, res) => {
    const current = operatorRequired(res, 'closing a register');
    const session = await sessionOfRequest(db, req, res);
    const body = parseOrThrow(sessionCloseSchema, req.body);
    const contagem = Object.fromEntries(
      Object.entries(body.contagem).filter((e): e is [string, string] => e[1] !== undefined),
    );
    const closed = await closeSession(deps, session, contagem, current.operator);
    res.json({
      ...(await sessionView(db, closed.session)),
      relatorio: shiftReportView(closed.report),
      impressao: closed.jobId === null ? null : { job_id: closed.jobId },
    });
  });

  router.get('/register-sessions/:id/report', async (req, res) => {
    const session = await sessionOfRequest(db, req, res);
    res.json(shiftReportView(await reportOf(db, session)));
  });

  router.post('/register-sessions/:id/report/print', async (req, res) => {
    const session = await sessionOfRequest(db, req, res);
    const jobId = await printReport(deps, session);
    if (jobId === null) throw noPrinter();
    res.status(202).json({ jobId, status: 'pending' });
  });

  router.get('/reports/sales', async (req, res) => {
    const query = parseQuery(req, salesReportQuerySchema);
    const companyId = await companyIdOf(db, req, res);
    const report = await salesReport(db, companyId, query);
    const csv =
      query.formato === 'csv' ||
      (query.formato === undefined && (req.get('Accept') ?? '').includes('text/csv'));
    if (!csv) {
      res.json(report);
      return;
    }
    res
      .type('text/csv; charset=utf-8')
      .setHeader(
        'Content-Disposition',
        `attachment; filename="vendas-${query.agrupar}-${query.de}-${query.ate}.csv"`,
      )
      .send(salesReportCsv(report));
  });

  return router;
}
