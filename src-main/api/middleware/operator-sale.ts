// A signed-in operator's sale (issue 13 item 1): before it, the approvals its price changes and discount need
// (403 `autorizacao_necessaria` otherwise); after it, their audit rows naming the note.
import type { Request, Response } from 'express';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/client.ts';
import { ApiError } from '../errors.ts';
import { formatCents } from '../../../src-shared/money.ts';
import type { OperatorAction } from '../../../src-shared/tables/operator-roles.ts';
import { analyzeSale } from '../../operators/permissions.ts';
import { linkAuthorizationsToDocument } from '../../operators/service.ts';
import {
  operatorOf,
  recordApproved,
  requireApprovals,
  type Approval,
  type ApprovalContext,
} from './operator.ts';

export interface SaleApprovals {
  operatorId: string;
  approvals: Approval[];
  contexts: ApprovalContext[];
}

/**
 * Before a sale with X-Operator-Token: 403 `autorizacao_necessaria` unless the operator's role, or the
 * supervisor's authorizations sent, cover every price change and the discount. Null without the header.
 */
export async function approveSale(
  deps: { db: Db; clock: Clock },
  req: Request,
  res: Response,
  companyId: string,
): Promise<SaleApprovals | null> {
  const current = operatorOf(res);
  if (current === null) return null;
  if (current.operator.company_id !== companyId) {
    throw new ApiError(403, 'forbidden', 'The signed-in operator belongs to another company.', [
      { field: 'X-Operator-Token', error: 'the operator is not of the company the sale is for' },
    ]);
  }
  const sale = await analyzeSale(deps.db, companyId, req.body);
  const needs: { acao: OperatorAction; context: ApprovalContext }[] = [];
  if (sale.overrides.length > 0)
    needs.push({ acao: 'preco', context: { deferAudit: true, detalhe: { itens: sale.overrides } } });
  if (sale.descontoCents > 0n)
    needs.push({
      acao: 'desconto',
      context: {
        deferAudit: true,
        discount: { descontoCents: sale.descontoCents, totalCents: sale.totalCents },
        detalhe: { desconto: formatCents(sale.descontoCents), total_itens: formatCents(sale.totalCents) },
      },
    });
  const approvals = await requireApprovals(deps, res, req, needs);
  return { operatorId: current.operator.id, approvals, contexts: needs.map((n) => n.context) };
}

/**
 * After the sale: the audit gets its price changes and discount, and the authorizations used are linked to
 * the note (which names its operator from the transaction that created it: register/sale-context.ts).
 */
export async function recordSale(
  deps: { db: Db; clock: Clock },
  approved: SaleApprovals | null,
  document: { id: string },
): Promise<void> {
  if (approved === null) return;
  const documentId = document.id;
  for (const [i, approval] of approved.approvals.entries()) {
    await recordApproved(deps, approval, { documentId, detalhe: approved.contexts[i]?.detalhe });
  }
  await linkAuthorizationsToDocument(
    deps.db,
    approved.approvals.flatMap((a) => (a.authorizationId === null ? [] : [a.authorizationId])),
    documentId,
  );
}
