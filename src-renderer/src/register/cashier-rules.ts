// The operator's rules inside the cashier screen, asked on the spot: a price change, a discount above the
// role's limit or an item removed after payment started ask for a supervisor's PIN before they are applied;
// the approvals given ride with the sale (X-Supervisor-Authorization), removed items and abandoned sales are
// reported for the shift report. Without a signed-in operator every rule lets the cashier through as before.
import { useCallback, useRef } from 'react';
import {
  ApiRequestError,
  type ApiClient,
  type DocumentView,
  type SalePayload,
} from '../../../src-shared/contracts/api-client.ts';
import { roleAllows, type OperatorAction } from '../../../src-shared/tables/operator-roles.ts';
import { operatorSessionEnded } from '../operators/store.ts';
import { useApproval } from '../operators/SupervisorPrompt.tsx';
import { useRegister } from './context.ts';

/** Runs `then` with a rule's answer: in the same call when it is `true`, later when someone is asked. */
export function whenAllowed(answer: true | Promise<boolean>, then: (ok: boolean) => void): void {
  if (answer === true) then(true);
  else void answer.then(then);
}

export function useCashierRules() {
  const register = useRegister();
  const { ask, withApproval } = useApproval();
  // Approvals given for the sale on screen, sent with it; a new sale starts with none.
  const approvals = useRef<string[]>([]);
  const papel = register?.operator.operador.papel ?? null;

  /** The role allows the action (true), a supervisor approved it now (the token), or nobody did (null). */
  const approve = useCallback(
    async (
      acao: OperatorAction,
      discount?: { descontoCents: bigint; totalCents: bigint },
    ): Promise<string | true | null> => {
      if (papel === null || roleAllows(papel, acao, discount)) return true;
      const approval = await ask(acao);
      return approval === null ? null : approval.token;
    },
    [papel, ask],
  );

  /** Keeps an approval for the sale; true when the action may go ahead. */
  const keep = (answer: string | true | null): boolean => {
    if (typeof answer === 'string') approvals.current.push(answer);
    return answer !== null;
  };

  /**
   * A price different from the catalogue's (F8). `true` at once when nobody must be asked, so the cashier
   * applies it in the same keystroke; otherwise the supervisor's answer.
   */
  const approvePrice = useCallback(
    (): true | Promise<boolean> =>
      papel === null || roleAllows(papel, 'preco') ? true : approve('preco').then(keep),
    [papel, approve],
  );

  /** The sale's discount (F4), against the role's limit over the items total; `true` at once when allowed. */
  const approveDiscount = useCallback(
    (descontoCents: bigint, totalCents: bigint): true | Promise<boolean> => {
      const discount = { descontoCents, totalCents };
      if (descontoCents === 0n || papel === null || roleAllows(papel, 'desconto', discount)) return true;
      return approve('desconto', discount).then(keep);
    },
    [papel, approve],
  );

  /**
   * An item removed (F9). After payment started it needs `remover_item`, recorded at once through
   * POST /v1/operators/actions with the approval; every removal is reported as a void of the shift.
   */
  const approveRemoval = useCallback(
    (
      api: ApiClient,
      item: { descricao: string; codigo: string; quantidade: string; valorCents: bigint },
      paymentStarted: boolean,
    ): true | Promise<boolean> => {
      if (register === null) return true;
      const report = () =>
        register.reportVoid('item', `${item.codigo} ${item.descricao} × ${item.quantidade}`, item.valorCents);
      if (!paymentStarted) {
        report();
        return true;
      }
      return (async () => {
        const answer = await approve('remover_item');
        if (answer === null) return false;
        const detalhe = { descricao: item.descricao, codigo: item.codigo, quantidade: item.quantidade };
        const client = answer === true ? api : api.withSupervisor(answer);
        try {
          await client.operators.action({ acao: 'remover_item', detalhe });
        } catch {
          // The audit is the service's; a failed record must not keep a wrong item on the sale.
        }
        report();
        return true;
      })();
    },
    [register, approve],
  );

  /** The sale cancelled with Esc: reported as an abandoned sale. */
  const reportCancelledSale = useCallback(
    (itemCount: number, totalCents: bigint) => {
      approvals.current = [];
      if (itemCount > 0)
        register?.reportVoid(
          'venda',
          `Venda abandonada com ${itemCount} ${itemCount === 1 ? 'item' : 'itens'}`,
          totalCents,
        );
    },
    [register],
  );

  /**
   * Issues the sale with the approvals given; a 403 still asking for one prompts and retries under the same
   * Idempotency-Key (the service does not keep a refusal that ran nothing, so the approved retry is issued and
   * a retry after a lost answer still finds that one sale).
   */
  const sell = useCallback(
    async (api: ApiClient, body: SalePayload, attempt: { key: string }): Promise<DocumentView> => {
      try {
        const doc = await withApproval(
          api,
          (client) => client.nfce.sell(body, attempt.key),
          approvals.current,
        );
        approvals.current = [];
        return doc;
      } catch (error) {
        // Closed from another terminal or the back office: back to the opening screen.
        if (error instanceof ApiRequestError && error.body.error === 'caixa_fechado') register?.reload();
        // The operator's session ended meanwhile: nobody may sell until someone signs in again.
        if (error instanceof ApiRequestError && error.body.error === 'operador_nao_autenticado')
          operatorSessionEnded(
            'A sessão do operador terminou (expirou, foi encerrada ou o papel mudou): entre de novo. A venda em curso não foi emitida e volta à tela quando alguém entrar.',
          );
        throw error;
      }
    },
    [withApproval, register],
  );

  const newSale = useCallback(() => {
    approvals.current = [];
  }, []);

  return { approvePrice, approveDiscount, approveRemoval, reportCancelledSale, sell, newSale };
}
