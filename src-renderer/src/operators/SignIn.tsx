// The cashier's first screen: the operator types the code, Enter, the PIN, Enter. Wrong PINs say how many
// tries are left; a locked operator is told until when.
import { ApiRequestError, type OperatorSignIn } from '../../../src-shared/contracts/api-client.ts';
import { useApp } from '../context.ts';
import { dateTimeBr } from '../format.ts';
import { detailPt, errorMessage } from '../messages.ts';
import { enterRuns } from './keys.ts';
import { PinFields, usePinEntry } from './PinFields.tsx';
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
  const entry = usePinEntry(sessionEndReason);
  const { codigo, pin, step, setError, setPending } = entry;

  const submit = async () => {
    if (step === 'codigo') {
      entry.acceptCodigo('Digite o seu código de operador.');
      return;
    }
    if (pin === '') return;
    setPending(true);
    try {
      props.onSignedIn(await api.operators.signIn({ codigo, pin, caixa: props.caixa }));
    } catch (e) {
      setError(signInProblem(e));
      entry.setPin('');
      // A lockout or an unknown code starts over from the code; a wrong PIN keeps it.
      const codeRefused =
        e instanceof ApiRequestError &&
        (e.body.error !== 'pin_invalido' || e.fieldError('codigo') !== undefined);
      if (codeRefused) entry.restart();
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
        <PinFields entry={entry} codigoLabel="Código do operador" testId="signin" codigoReopens />
        <p className="dialog-keys">
          <kbd>Enter</kbd> {step === 'codigo' ? 'vai para a senha' : 'entra'}
        </p>
      </form>
    </div>
  );
}
