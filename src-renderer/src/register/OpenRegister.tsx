// Opening the register: the cashier counts the float (fundo de troco) in the drawer and types it; the
// service prints the opening ticket and opens the drawer.
import { useLayoutEffect, useRef, useState } from 'react';
import type { SessionView } from '../../../src-shared/contracts/api-client.ts';
import { useApp } from '../context.ts';
import { parseBrMoney } from '../format.ts';
import { errorMessage } from '../messages.ts';
import { enterEscForm } from '../operators/keys.ts';
import { centsToDecimal } from './money.ts';
import { MoneyField } from './MoneyField.tsx';

export function OpenRegister(props: {
  caixa: string;
  operatorName: string;
  onOpened: (session: SessionView) => void;
  /** The service answered that it has no registers (an older service): sell without one. */
  onUnsupported: () => void;
  onSignOut: () => void;
}) {
  const { api } = useApp();
  const [valor, setValor] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const ref = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    if (!pending) ref.current?.focus();
  }, [pending]);

  const submit = async () => {
    const cents = parseBrMoney(valor === '' ? '0' : valor);
    if (cents === null || cents < 0n) {
      setError('Valor inválido.');
      return;
    }
    setPending(true);
    try {
      props.onOpened(
        await api.registerSessions.open({ fundo_troco: centsToDecimal(cents), caixa: props.caixa }),
      );
    } catch (e) {
      const status = (e as { status?: number }).status;
      if (status === 404) props.onUnsupported();
      else if ((e as { body?: { error?: string } }).body?.error === 'caixa_ja_aberto') {
        const open = await api.registerSessions.current(props.caixa).catch(() => null);
        if (open !== null) props.onOpened(open);
        else setError(errorMessage(e));
      } else setError(errorMessage(e));
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="register-screen" data-testid="register-open">
      <form className="card register-card" {...enterEscForm(() => void submit(), props.onSignOut)}>
        <h1>Abrir o caixa {props.caixa}</h1>
        <p>
          Operador: <strong>{props.operatorName}</strong>. Conte o dinheiro da gaveta e informe o fundo de
          troco.
        </p>
        <MoneyField
          label="Fundo de troco (R$)"
          inputRef={ref}
          value={valor}
          disabled={pending}
          placeholder="0,00"
          onChange={(text) => {
            setValor(text);
            setError(null);
          }}
          testId="register-float"
        />
        {error !== null ? (
          <p className="field-error" role="alert" data-testid="register-open-error">
            {error}
          </p>
        ) : null}
        <p className="dialog-keys">
          <kbd>Enter</kbd> abre o caixa · <kbd>Esc</kbd> sair (trocar de operador)
        </p>
      </form>
    </div>
  );
}
