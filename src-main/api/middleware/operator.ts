// People at the register (issue 13): resolves `X-Operator-Token` to the signed-in operator, and checks that the
// operator's role allows an action or that a supervisor approved it (`X-Supervisor-Authorization`).
// Requests without the header are the other POS software's: no operator rule applies to them.
import type { NextFunction, Request, Response } from 'express';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/client.ts';
import { ApiError } from '../errors.ts';
import { authOf } from './auth.ts';
import { reachableBy } from '../routes/scoping.ts';
import {
  recordAction,
  resolveSession,
  useAuthorization,
  type AuthorizationProblem,
} from '../../operators/service.ts';
import type { OperatorRow } from '../../operators/repository.ts';
import {
  ACTION_LABELS,
  DISCOUNT_LIMIT_PERCENT,
  roleAllows,
  type OperatorAction,
} from '../../../src-shared/tables/operator-roles.ts';

export const OPERATOR_HEADER = 'X-Operator-Token';
export const SUPERVISOR_HEADER = 'X-Supervisor-Authorization';

export interface OperatorContext {
  operator: OperatorRow;
  caixa: string;
  sessionId: string;
  expiresAt: string;
}

const unauthenticated = (error: string) =>
  new ApiError(401, 'operador_nao_autenticado', 'O operador não está autenticado: entre de novo.', [
    { field: OPERATOR_HEADER, error },
  ]);

/** Mounted on /v1 after the API key check. */
export function resolveOperator(db: Db, clock: Clock) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const token = req.get(OPERATOR_HEADER);
    // Signing in is how a stale token gets replaced: a client that still sends the old one is not refused.
    if (token === undefined || (req.method === 'POST' && req.path === '/operators/sign-in')) {
      next();
      return;
    }
    const session = token === '' ? null : await resolveSession(db, clock, token);
    if (session === null) throw unauthenticated('token unknown, expired or signed out');
    // An operator belongs to one company: a key that cannot reach it cannot act as that operator.
    if (!(await reachableBy(db, authOf(res))(session.operator.company_id)))
      throw unauthenticated('the operator belongs to a company this API key cannot reach');
    res.locals['operator'] = {
      operator: session.operator,
      caixa: session.caixa,
      sessionId: session.sessionId,
      expiresAt: session.expiresAt,
    } satisfies OperatorContext;
    next();
  };
}

/** The signed-in operator of the request; null when it carries no X-Operator-Token. */
export function operatorOf(res: Response): OperatorContext | null {
  return (res.locals['operator'] as OperatorContext | undefined) ?? null;
}

const PROBLEM_TEXT: Record<AuthorizationProblem | 'limite_supervisor', string> = {
  desconhecida: 'authorization unknown',
  usada: 'authorization already used',
  expirada: 'authorization expired',
  outra_acao: 'authorization was given for another action',
  limite_supervisor: "the discount is above the approver's own limit",
};

export interface ApprovalContext {
  /** The note the action is on, when it exists already (cancel, reprint). */
  documentId?: string | null;
  /** For `desconto`: the discount and the items total, in cents. */
  discount?: { descontoCents: bigint; totalCents: bigint };
  /** What the audit row keeps about the action. */
  detalhe?: unknown;
  /** Write the audit row even when the role alone allows the action (a cancel or a reprint always is). */
  audit?: boolean;
  /** The caller writes the audit row itself, once the note it needs to name exists (a sale). */
  deferAudit?: boolean;
}

export interface Approval {
  operator: OperatorRow;
  /** The supervisor who approved; null when the operator's role allowed it alone. */
  authorizedBy: OperatorRow | null;
}

/**
 * Lets the action through when the request's operator may do `acao` alone, or when the request carries an
 * unused, unexpired supervisor authorization for it (consumed here); otherwise 403 `autorizacao_necessaria`.
 * Writes the audit row when a supervisor approved or `context.audit` asks. Null without an operator token.
 */
export async function requireApproval(
  deps: { db: Db; clock: Clock },
  res: Response,
  req: Request,
  acao: OperatorAction,
  context: ApprovalContext = {},
): Promise<Approval | null> {
  const current = operatorOf(res);
  if (current === null) return null;
  const { operator } = current;
  let authorizedBy: OperatorRow | null = null;
  if (!roleAllows(operator.papel, acao, context.discount)) {
    const token = req.get(SUPERVISOR_HEADER);
    let problem: string | null = null;
    if (token !== undefined && token !== '') {
      const used = await useAuthorization(
        deps.db,
        deps.clock,
        operator.company_id,
        token,
        acao,
        (supervisor) => roleAllows(supervisor.papel, acao, context.discount),
      );
      if ('supervisor' in used) authorizedBy = used.supervisor;
      else problem = PROBLEM_TEXT[used.problem];
    }
    if (authorizedBy === null) {
      const limit = DISCOUNT_LIMIT_PERCENT[operator.papel];
      const why =
        acao === 'desconto' && limit !== null
          ? `O desconto passa do limite de ${limit} % do papel ${operator.papel}`
          : `O papel ${operator.papel} não pode fazer ${ACTION_LABELS[acao]} sozinho`;
      throw new ApiError(
        403,
        'autorizacao_necessaria',
        `${why}: é preciso a autorização de um supervisor.`,
        [
          {
            field: SUPERVISOR_HEADER,
            error: problem ?? `a supervisor's authorization for ${acao} is required`,
          },
        ],
        { acao },
      );
    }
  }
  if (context.deferAudit !== true && (authorizedBy !== null || context.audit === true)) {
    await recordAction(deps.db, deps.clock, {
      companyId: operator.company_id,
      operatorId: operator.id,
      acao,
      documentId: context.documentId ?? null,
      authorizedBy: authorizedBy?.id ?? null,
      detalhe: context.detalhe,
    });
  }
  return { operator, authorizedBy };
}
