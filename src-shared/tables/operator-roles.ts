// Who may do what at the register without a supervisor (issue 13 item 1): one table for the service, which
// enforces it, and the cashier UI, which asks for the supervisor's PIN before sending what would be refused.

export const OPERATOR_ROLES = ['caixa', 'supervisor', 'gerente'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const OPERATOR_ACTIONS = [
  'desconto',
  'preco',
  'remover_item',
  'cancelar_venda',
  'reimprimir',
  'abrir_gaveta',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

export const ACTION_LABELS: Record<OperatorAction, string> = {
  desconto: 'desconto acima do limite',
  preco: 'alteração de preço',
  remover_item: 'remoção de item após o pagamento iniciado',
  cancelar_venda: 'cancelamento de venda',
  reimprimir: 'reimpressão de cupom',
  abrir_gaveta: 'abertura da gaveta sem venda',
};

export const ROLE_LABELS: Record<OperatorRole, string> = {
  caixa: 'Caixa',
  supervisor: 'Supervisor',
  gerente: 'Gerente',
};

/**
 * The largest discount a role gives alone, in percent of the sale's items total (null: no limit). Whole
 * percents, so the check stays in integer cents: discount × 100 ≤ limit × items total.
 */
export const DISCOUNT_LIMIT_PERCENT: Record<OperatorRole, number | null> = {
  caixa: 5,
  supervisor: 20,
  gerente: null,
};

/** Actions a role does without anyone's approval; a discount within the role's limit needs none either. */
const ALLOWED: Record<OperatorRole, ReadonlySet<OperatorAction>> = {
  caixa: new Set<OperatorAction>(),
  supervisor: new Set<OperatorAction>([
    'preco',
    'remover_item',
    'cancelar_venda',
    'reimprimir',
    'abrir_gaveta',
  ]),
  gerente: new Set<OperatorAction>(OPERATOR_ACTIONS),
};

/**
 * Whether `role` may do `acao` on its own. For `desconto`, pass the discount and the items total in cents:
 * without them it answers whether the role may give any discount at all (what an authorizer needs: a
 * supervisor approves discounts up to its own limit, see `canAuthorize`).
 */
export function roleAllows(
  role: OperatorRole,
  acao: OperatorAction,
  discount?: { descontoCents: bigint; totalCents: bigint },
): boolean {
  if (acao !== 'desconto') return ALLOWED[role].has(acao);
  const limit = DISCOUNT_LIMIT_PERCENT[role];
  if (limit === null) return true;
  if (discount === undefined) return false;
  return discount.descontoCents * 100n <= BigInt(limit) * discount.totalCents;
}

/**
 * Whether `role` may approve `acao` for someone else. A caixa approves nothing; supervisor and gerente approve
 * every action. A discount approved is still held to the approver's own limit when it is used.
 */
export function canAuthorize(role: OperatorRole, acao: OperatorAction): boolean {
  return role !== 'caixa' && OPERATOR_ACTIONS.includes(acao);
}
