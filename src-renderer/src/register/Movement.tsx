// Sangria (cash taken out) and suprimento (change put in): amount, Enter, reason, Enter. The service prints
// the ticket and opens the drawer.
import { useLayoutEffect, useRef, useState } from 'react';
import type { MovementView } from '../../../src-shared/contracts/api-client.ts';
import { useApp } from '../context.ts';
import { parseBrMoney } from '../format.ts';
import { errorMessage, fieldErrors } from '../messages.ts';
import { enterEscForm } from '../operators/keys.ts';
import { centsToDecimal } from './money.ts';
import { MoneyField } from './MoneyField.tsx';

export function MovementForm(props: {
  sessionId: string;
  tipo: 'sangria' | 'suprimento';
  onDone: (movement: MovementView) => void;
  onCancel: () => void;
}) {
  const { api } = useApp();
  const [valor, setValor] = useState('');
  const [motivo, setMotivo] = useState('');
  const [step, setStep] = useState<'valor' | 'motivo'>('valor');
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const valorRef = useRef<HTMLInputElement>(null);
  const motivoRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    if (!pending) (step === 'valor' ? valorRef : motivoRef).current?.focus();
  }, [step, pending]);
  const title = props.tipo === 'sangria' ? 'Sangria (retirada)' : 'Suprimento (reforço de troco)';

  const submit = async () => {
    const cents = parseBrMoney(valor);
    if (cents === null || cents <= 0n) {
      setError('Informe um valor maior que zero.');
      setStep('valor');
      return;
    }
    if (step === 'valor') {
      setError(null);
      setStep('motivo');
      return;
    }
    if (motivo.trim() === '') {
      setError('Informe o motivo.');
      return;
    }
    setPending(true);
    try {
      props.onDone(
        await api.registerSessions.movement(props.sessionId, {
          tipo: props.tipo,
          valor: centsToDecimal(cents),
          motivo: motivo.trim(),
        }),
      );
    } catch (e) {
      const fields = fieldErrors(e);
      setError([errorMessage(e), ...Object.values(fields)].join(' '));
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="register-screen" data-testid={`register-${props.tipo}`}>
      <form className="card register-card" {...enterEscForm(() => void submit(), props.onCancel)}>
        <h1>{title}</h1>
        <MoneyField
          label="Valor (R$)"
          inputRef={valorRef}
          value={valor}
          disabled={pending}
          onFocus={() => setStep('valor')}
          onChange={(text) => {
            setValor(text);
            setError(null);
          }}
          testId="movement-valor"
        />
        <label className="field">
          <span className="field-label">Motivo</span>
          <input
            ref={motivoRef}
            autoComplete="off"
            value={motivo}
            maxLength={200}
            disabled={pending || step === 'valor'}
            onChange={(e) => {
              setMotivo(e.target.value);
              setError(null);
            }}
            data-testid="movement-motivo"
          />
        </label>
        {error !== null ? (
          <p className="field-error" role="alert" data-testid="movement-error">
            {error}
          </p>
        ) : null}
        <p className="dialog-keys">
          <kbd>Enter</kbd> {step === 'valor' ? 'vai para o motivo' : 'registra e imprime'} · <kbd>Esc</kbd>{' '}
          volta
        </p>
      </form>
    </div>
  );
}
