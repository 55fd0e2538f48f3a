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
  consumeAuthorization,
  findUsableAuthorization,
  recordAction,
  resolveSession,
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
  /** The caller writes the audit row itself (recordApproved), once the note it names exists or succeeded. */
  deferAudit?: boolean;
}

export interface Approval {
  acao: OperatorAction;
  operator: OperatorRow;
  /** The supervisor who approved; null when the operator's role allowed it alone. */
  authorizedBy: OperatorRow | null;
  /** The authorization used, to link it to the note once the note exists. */
  authorizationId: string | null;
}

/** The tokens of X-Supervisor-Authorization: one, or several separated by commas (a sale with a price change and a discount). */
function supervisorTokens(req: Request): string[] {
  const header = req.get(SUPERVISOR_HEADER);
  if (header === undefined) return [];
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

function approvalNeeded(operator: OperatorRow, acao: OperatorAction, problem: string | null): ApiError {
  const limit = DISCOUNT_LIMIT_PERCENT[operator.papel];
  const why =
    acao === 'desconto' && limit !== null
      ? `O desconto passa do limite de ${limit} % do papel ${operator.papel}`
      : `O papel ${operator.papel} não pode fazer ${ACTION_LABELS[acao]} sozinho`;
  return new ApiError(
    403,
    'autorizacao_necessaria',
    `${why}: é preciso a autorização de um supervisor.`,
    [{ field: SUPERVISOR_HEADER, error: problem ?? `a supervisor's authorization for ${acao} is required` }],
    { acao },
  );
}

/**
 * Lets the actions through when the request's operator may do each alone, or when X-Supervisor-Authorization
 * carries an unused, unexpired authorization for each of the others; otherwise 403 `autorizacao_necessaria`
 * naming the first action still missing, and nothing is consumed. The authorizations used are consumed
 * together, once all were found. Audit rows are written unless `deferAudit` (see ApprovalContext). An empty
 * list without an operator token: requests of other POS software meet no operator rule.
 */
export async function requireApprovals(
  deps: { db: Db; clock: Clock },
  res: Response,
  req: Request,
  needs: ReadonlyArray<{ acao: OperatorAction; context?: ApprovalContext }>,
): Promise<Approval[]> {
  const current = operatorOf(res);
  if (current === null) return [];
  const { operator } = current;
  const tokens = supervisorTokens(req);
  const taken = new Set<string>();
  const found: Approval[] = [];
  for (const { acao, context = {} } of needs) {
    if (roleAllows(operator.papel, acao, context.discount)) {
      found.push({ acao, operator, authorizedBy: null, authorizationId: null });
      continue;
    }
    let problem: string | null = null;
    let match: Approval | null = null;
    for (const token of tokens) {
      const usable = await findUsableAuthorization(
        deps.db,
        deps.clock,
        operator.company_id,
        token,
        acao,
        (supervisor) => roleAllows(supervisor.papel, acao, context.discount),
      );
      if ('problem' in usable) {
        // The reason told is the one of a token meant for this action, when there is one.
        if (problem === null || usable.problem !== 'outra_acao') problem = PROBLEM_TEXT[usable.problem];
        continue;
      }
      if (taken.has(usable.authorizationId)) continue;
      taken.add(usable.authorizationId);
      match = { acao, operator, authorizedBy: usable.supervisor, authorizationId: usable.authorizationId };
      break;
    }
    if (match === null) throw approvalNeeded(operator, acao, problem);
    found.push(match);
  }
  for (const approval of found) {
    if (approval.authorizationId === null) continue;
    if (!(await consumeAuthorization(deps.db, deps.clock, approval.authorizationId)))
      throw approvalNeeded(operator, approval.acao, PROBLEM_TEXT.usada);
  }
  for (const [i, approval] of found.entries()) {
    const context = needs[i]?.context ?? {};
    if (context.deferAudit !== true && (approval.authorizedBy !== null || context.audit === true))
      await recordApproved(deps, approval, context);
  }
  return found;
}

/** One action: see requireApprovals. Null without an operator token. */
export async function requireApproval(
  deps: { db: Db; clock: Clock },
  res: Response,
  req: Request,
  acao: OperatorAction,
  context: ApprovalContext = {},
): Promise<Approval | null> {
  const [approval] = await requireApprovals(deps, res, req, [{ acao, context }]);
  return approval ?? null;
}

/** The audit row of an approved action (who did it, who approved it, on which note). */
export async function recordApproved(
  deps: { db: Db; clock: Clock },
  approval: Approval,
  context: Pick<ApprovalContext, 'documentId' | 'detalhe'>,
): Promise<void> {
  await recordAction(deps.db, deps.clock, {
    companyId: approval.operator.company_id,
    operatorId: approval.operator.id,
    acao: approval.acao,
    documentId: context.documentId ?? null,
    authorizedBy: approval.authorizedBy?.id ?? null,
    detalhe: context.detalhe,
  });
}
