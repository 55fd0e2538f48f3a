// The supervisor's approval, asked on the spot: one prompt for every action beyond the operator's role
// (codigo, Enter, PIN, Enter; Esc cancels). It calls POST /v1/operators/authorize and hands the one-time
// token back; `useApproval` also answers a 403 autorizacao_necessaria by asking and retrying the call.
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { ApiRequestError, type ApiClient } from '../../../src-shared/contracts/api-client.ts';
import {
  ACTION_LABELS,
  OPERATOR_ACTIONS,
  type OperatorAction,
} from '../../../src-shared/tables/operator-roles.ts';
import { setApprovalPrompt } from '../cashier/approval.ts';
import { Modal } from '../components.tsx';
import { useApp } from '../context.ts';
import { errorMessage } from '../messages.ts';
import { enterRuns } from './keys.ts';
import { PinFields, usePinEntry } from './PinFields.tsx';

/** An approval given: the token for X-Supervisor-Authorization and who gave it. */
export interface Approval {
  token: string;
  supervisor: { codigo: string; nome: string };
}

export function actionLabel(acao: string): string {
  return (OPERATOR_ACTIONS as readonly string[]).includes(acao)
    ? ACTION_LABELS[acao as OperatorAction]
    : acao;
}

/**
 * Stops function keys typed in the prompt from reaching the screen behind it (the cashier listens to them
 * on the window); Escape stays with the Modal, which handles it in the capture phase.
 */
export function useFunctionKeyShield(container: { current: HTMLElement | null }): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!/^F\d+$/.test(e.key)) return;
      if (container.current === null || !container.current.contains(e.target as Node)) return;
      e.preventDefault();
      e.stopPropagation();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [container]);
}

export function SupervisorPrompt(props: {
  acao: string;
  /** Why it is asked, when the service said (its 403 message). */
  reason?: string;
  onApproved: (approval: Approval) => void;
  onCancel: () => void;
}) {
  const { api } = useApp();
  const entry = usePinEntry();
  const { codigo, pin, step, setError, setPending } = entry;
  const boxRef = useRef<HTMLDivElement>(null);
  useFunctionKeyShield(boxRef);

  const submit = async () => {
    if (step === 'codigo') {
      entry.acceptCodigo('Digite o código do supervisor.');
      return;
    }
    if (pin === '') return;
    setPending(true);
    try {
      const answer = await api.operators.authorize({ codigo, pin, acao: props.acao });
      props.onApproved({
        token: answer.autorizacao,
        supervisor: { codigo: answer.supervisor.codigo, nome: answer.supervisor.nome },
      });
    } catch (e) {
      entry.setPin('');
      const pinProblem = e instanceof ApiRequestError ? e.fieldError('pin') : undefined;
      setError(pinProblem === undefined ? errorMessage(e) : `${errorMessage(e)} (${pinProblem})`);
      if (e instanceof ApiRequestError && e.fieldError('codigo') !== undefined) entry.restart();
    } finally {
      setPending(false);
    }
  };

  return (
    <Modal title="Autorização do supervisor" onClose={props.onCancel}>
      <div ref={boxRef} data-testid="supervisor-prompt" data-acao={props.acao}>
        <p>
          Esta operação precisa de autorização: <strong>{actionLabel(props.acao)}</strong>.
          {props.reason !== undefined ? <span className="muted"> {props.reason}</span> : null}
        </p>
        <form
          onKeyDown={enterRuns(() => void submit())}
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <PinFields
            entry={entry}
            codigoLabel="Código do supervisor"
            testId="supervisor"
            codigoReopens={false}
          />
          <p className="dialog-keys">
            <kbd>Enter</kbd> confirma · <kbd>Esc</kbd> cancela
          </p>
        </form>
      </div>
    </Modal>
  );
}

interface ApprovalState {
  /** Shows the prompt; resolves with the approval, or null when it was cancelled. */
  ask(acao: string, reason?: string): Promise<Approval | null>;
}

const ApprovalContext = createContext<ApprovalState | null>(null);

/** Renders the one supervisor prompt of the app, above whatever screen asked for it. */
export function SupervisorProvider(props: { children: ReactNode }) {
  const [request, setRequest] = useState<{
    acao: string;
    reason?: string;
    resolve: (a: Approval | null) => void;
  } | null>(null);
  const ask = useCallback(
    (acao: string, reason?: string) =>
      new Promise<Approval | null>((resolve) =>
        setRequest({ acao, ...(reason === undefined ? {} : { reason }), resolve }),
      ),
    [],
  );
  const value = useMemo(() => ({ ask }), [ask]);
  // The cashier's own keys (cancel the last NFC-e, reprint) ask through this same prompt.
  useEffect(
    () => setApprovalPrompt((acao, reason) => ask(acao, reason).then((a) => a?.token ?? null)),
    [ask],
  );
  return (
    <ApprovalContext.Provider value={value}>
      {props.children}
      {request !== null ? (
        <SupervisorPrompt
          acao={request.acao}
          {...(request.reason === undefined ? {} : { reason: request.reason })}
          onApproved={(a) => {
            setRequest(null);
            request.resolve(a);
          }}
          onCancel={() => {
            setRequest(null);
            request.resolve(null);
          }}
        />
      ) : null}
    </ApprovalContext.Provider>
  );
}

/** The refusal that asks for a supervisor: 403 autorizacao_necessaria, naming the action in `acao`. */
export function approvalNeeded(error: unknown): { acao: string; message: string } | null {
  if (!(error instanceof ApiRequestError) || error.status !== 403) return null;
  if (error.body.error !== 'autorizacao_necessaria') return null;
  const acao = (error.body as { acao?: unknown }).acao;
  return { acao: typeof acao === 'string' ? acao : '', message: error.body.message };
}

export function useApproval() {
  const state = useContext(ApprovalContext);
  if (state === null) throw new Error('useApproval outside SupervisorProvider');
  const { ask } = state;
  /**
   * Runs `call` with the approvals already `given`; when the service answers that a supervisor must
   * approve, asks for one and runs it again with all of them (a few rounds: one sale may need two, say a
   * price and a discount). A cancelled prompt rethrows the refusal.
   */
  const withApproval = useCallback(
    async <T,>(
      api: ApiClient,
      call: (client: ApiClient) => Promise<T>,
      given: readonly string[] = [],
    ): Promise<T> => {
      // The service takes several approvals in one header, separated by commas.
      const tokens = [...given];
      for (let round = 0; ; round++) {
        try {
          return await call(tokens.length === 0 ? api : api.withSupervisor(tokens.join(',')));
        } catch (error) {
          const needed = approvalNeeded(error);
          if (needed === null || round >= 3) throw error;
          const approval = await ask(needed.acao, needed.message);
          if (approval === null) throw error;
          tokens.push(approval.token);
        }
      }
    },
    [ask],
  );
  return { ask, withApproval };
}
