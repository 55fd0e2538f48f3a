// The cashier's first screen: the operator types the code, Enter, the PIN, Enter. Wrong PINs say how many
// tries are left; a locked operator is told until when.
import { useLayoutEffect, useRef, useState } from 'react';
import { ApiRequestError, type OperatorSignIn } from '../../../src-shared/contracts/api-client.ts';
import { useApp } from '../context.ts';
import { dateTimeBr } from '../format.ts';
import { detailPt, errorMessage } from '../messages.ts';
import { enterRuns } from './keys.ts';
import { sessionEndReason } from './store.ts';

/** The refusal in words for the person at the register. */
export function signInProblem(e: unknown): string {
  if (!(e instanceof ApiRequestError)) return errorMessage(e);
  const detail = e.details[0]?.error;
  switch (e.body.error) {
    case 'pin_invalido':
      return e.fieldError('codigo') !== undefined
        ? 'Código de operador não encontrado ou inativo.'
        : detail === undefined
          ? 'PIN incorreto.'
          : /^PIN incorreto/.test(detail)
            ? `${detail}.`
            : `PIN incorreto: ${detailPt(detail)}.`;
    case 'operador_bloqueado': {
      // The service names the instant (ISO); the person reads the local time.
      const until = /(\d{4}-\d\d-\d\dT[\d:.]+Z?)/.exec(e.body.message)?.[1];
      return until === undefined
        ? 'Operador bloqueado por PINs errados. Peça ao gerente um novo PIN.'
        : `Operador bloqueado por PINs errados até ${dateTimeBr(until)}. Peça ao gerente um novo PIN ou aguarde.`;
    }
    default:
      return errorMessage(e);
  }
}

export function SignIn(props: { caixa: string; onSignedIn: (answer: OperatorSignIn) => void }) {
  const { api, company } = useApp();
  const [codigo, setCodigo] = useState('');
  const [pin, setPin] = useState('');
  const [step, setStep] = useState<'codigo' | 'pin'>('codigo');
  const [error, setError] = useState<string | null>(sessionEndReason);
  const [pending, setPending] = useState(false);
  const codigoRef = useRef<HTMLInputElement>(null);
  const pinRef = useRef<HTMLInputElement>(null);
  useLayoutEffect(() => {
    if (!pending) (step === 'codigo' ? codigoRef : pinRef).current?.focus();
  }, [step, pending]);

  const submit = async () => {
    if (step === 'codigo') {
      if (/^\d{1,6}$/.test(codigo)) {
        setStep('pin');
        setError(null);
      } else setError('Digite o seu código de operador.');
      return;
    }
    if (pin === '') return;
    setPending(true);
    try {
      props.onSignedIn(await api.operators.signIn({ codigo, pin, caixa: props.caixa }));
    } catch (e) {
      setError(signInProblem(e));
      setPin('');
      if (e instanceof ApiRequestError && e.body.error !== 'pin_invalido') {
        setCodigo('');
        setStep('codigo');
      } else if (e instanceof ApiRequestError && e.fieldError('codigo') !== undefined) {
        setCodigo('');
        setStep('codigo');
      }
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="register-screen" data-testid="operator-sign-in">
      <form
        className="card register-card"
        onKeyDown={enterRuns(() => void submit())}
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <h1>Entrar no caixa {props.caixa}</h1>
        <p className="muted">{company.xFant ?? company.xNome}</p>
        <label className="field">
          <span className="field-label">Código do operador</span>
          <input
            ref={codigoRef}
            className="big-input"
            inputMode="numeric"
            autoComplete="off"
            value={codigo}
            disabled={pending}
            onFocus={() => setStep('codigo')}
            onChange={(e) => {
              setCodigo(e.target.value.replace(/\D/g, '').slice(0, 6));
              setError(null);
            }}
            data-testid="signin-codigo"
          />
        </label>
        <label className="field">
          <span className="field-label">Senha (PIN)</span>
          <input
            ref={pinRef}
            className="big-input"
            type="password"
            inputMode="numeric"
            autoComplete="off"
            value={pin}
            disabled={pending || step === 'codigo'}
            onChange={(e) => setPin(e.target.value.replace(/\D/g, '').slice(0, 8))}
            data-testid="signin-pin"
          />
        </label>
        {error !== null ? (
          <p className="field-error" role="alert" data-testid="signin-error">
            {error}
          </p>
        ) : null}
        <p className="dialog-keys">
          <kbd>Enter</kbd> {step === 'codigo' ? 'vai para a senha' : 'entra'}
        </p>
      </form>
    </div>
  );
}
