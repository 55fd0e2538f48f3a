// /v1/operators: the people at the register (issue 13 item 1) — managing them, signing in and out with code +
// PIN, a supervisor's approval of one action, and recording actions that only the cashier screen sees.
import { Router, type Request, type Response } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { operatorOf, OPERATOR_HEADER, requireApproval } from '../middleware/operator.ts';
import { parseOrThrow } from '../validation.ts';
import { ApiError } from '../errors.ts';
import { DomainError } from '../../errors.ts';
import { dataList, pageLimitQuery } from '../pagination.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';
import { companiesRepository } from '../../companies/repository.ts';
import {
  authorize,
  createOperator,
  deactivateOperator,
  listActions,
  listOperators,
  operatorInCompanies,
  operatorView,
  signIn,
  signOut,
  updateOperator,
} from '../../operators/service.ts';
import {
  authorizeSchema,
  operatorActionRequestSchema,
  operatorActionsQuerySchema,
  operatorCreateSchema,
  operatorListQuerySchema,
  operatorUpdateSchema,
  signInSchema,
  TRIVIAL_PIN_ERROR,
} from '../../../src-shared/contracts/operators.ts';
import type { z } from 'zod';

const signedOut = () =>
  new ApiError(
    400,
    'validation_error',
    `This route needs the ${OPERATOR_HEADER} header of a signed-in operator.`,
    [{ field: OPERATOR_HEADER, error: 'required' }],
  );

/** A well-formed but guessable PIN, when it is the only fault, is 422: the request was understood. */
function parseOperatorBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  try {
    return parseOrThrow(schema, body);
  } catch (error) {
    if (
      error instanceof DomainError &&
      error.details.length === 1 &&
      error.details[0]?.error === TRIVIAL_PIN_ERROR
    )
      throw new ApiError(422, 'validation_error', 'The PIN is too easy to guess.', error.details);
    throw error;
  }
}

export function operatorRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();

  /** The company a request acts on: the signed-in operator's, else the key's (or `companyId`). */
  const companyOf = async (req: Request, res: Response) => {
    const current = operatorOf(res);
    if (current === null) return companyOfRequest(db, req, res);
    const company = await companiesRepository.findById(db, current.operator.company_id);
    if (company === undefined) throw new ApiError(404, 'not_found', 'Company not found.');
    return company;
  };

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { ativo, ...window } = pageLimitQuery(req, operatorListQuerySchema.shape);
    const all = await listOperators(db, company.id, ativo === undefined ? undefined : ativo === 'true');
    res.json(dataList(all.slice(window.offset, window.offset + window.limit), all.length, window));
  });

  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = parseOperatorBody(operatorCreateSchema, req.body);
    res.status(201).json(await createOperator(db, clock, company.id, input));
  });

  router.post('/sign-in', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = parseOrThrow(signInSchema, req.body);
    res.json(await signIn(db, clock, company.id, input));
  });

  router.post('/sign-out', async (_req, res) => {
    const current = operatorOf(res);
    if (current === null) throw signedOut();
    await signOut(db, clock, current.sessionId);
    res.status(204).end();
  });

  router.get('/me', (_req, res) => {
    const current = operatorOf(res);
    if (current === null) throw signedOut();
    res.json({
      operador: operatorView(current.operator),
      caixa: current.caixa,
      expira_em: current.expiresAt,
    });
  });

  router.post('/authorize', async (req, res) => {
    const company = await companyOf(req, res);
    const input = parseOrThrow(authorizeSchema, req.body);
    res.json(await authorize(db, clock, company.id, input, operatorOf(res)?.operator ?? null));
  });

  // Actions only the cashier screen sees (an item removed after payment started): approved and audited here.
  router.post('/actions', async (req, res) => {
    if (operatorOf(res) === null) throw signedOut();
    const input = parseOrThrow(operatorActionRequestSchema, req.body);
    const approval = await requireApproval({ db, clock }, res, req, input.acao, {
      detalhe: input.detalhe ?? null,
      audit: true,
    });
    res.status(201).json({
      acao: input.acao,
      operador: approval === null ? null : operatorView(approval.operator),
      autorizado_por: approval?.authorizedBy == null ? null : operatorView(approval.authorizedBy),
    });
  });

  router.get('/actions', async (req, res) => {
    const company = await companyOf(req, res);
    const query = pageLimitQuery(req, operatorActionsQuerySchema.shape);
    const all = await listActions(db, company.id, {
      ...(query.document_id === undefined ? {} : { documentId: query.document_id }),
      ...(query.operator_id === undefined ? {} : { operatorId: query.operator_id }),
    });
    res.json(dataList(all.slice(query.offset, query.offset + query.limit), all.length, query));
  });

  router.get('/:id', async (req, res) => {
    res.json(operatorView(await operatorInCompanies(db, req.params.id, reachableBy(db, authOf(res)))));
  });

  router.put('/:id', async (req, res) => {
    const row = await operatorInCompanies(db, req.params.id, reachableBy(db, authOf(res)));
    const input = parseOperatorBody(operatorUpdateSchema, req.body);
    res.json(await updateOperator(db, clock, row, input));
  });

  router.delete('/:id', async (req, res) => {
    const row = await operatorInCompanies(db, req.params.id, reachableBy(db, authOf(res)));
    await deactivateOperator(db, clock, row);
    res.status(204).end();
  });

  return router;
}
