// Closing with a blind count: the cashier types what is in the drawer per payment method without seeing what
// the system expects; only after the count is confirmed does the service answer the expected amounts, the
// differences and the shift report (which it prints).
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { SessionView, ShiftReport } from '../../../src-shared/contracts/api-client.ts';
import { useApp } from '../context.ts';
import { brl, parseBrMoney } from '../format.ts';
import { errorMessage } from '../messages.ts';
import { enterRuns } from '../operators/keys.ts';
import { centsToDecimal, COUNTED_METHODS } from './money.ts';
import { MoneyField } from './MoneyField.tsx';
import { ClosingTable, ShiftReportView } from './ShiftReport.tsx';

export function CloseRegister(props: {
  session: SessionView;
  /** Resolves once what the cashier reported (voids) has reached the service. */
  beforeClose?: () => Promise<unknown>;
  onClosed: (session: SessionView) => void;
  onCancel: () => void;
}) {
  const { api } = useApp();
  const [values, setValues] = useState<Record<string, string>>({});
  const [index, setIndex] = useState(0);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const refs = useRef<(HTMLInputElement | null)[]>([]);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    if (pending) return;
    if (confirming) confirmRef.current?.focus();
    else refs.current[index]?.focus();
  }, [index, confirming, pending]);

  const cents = (metodo: string): bigint | null =>
    parseBrMoney((values[metodo] ?? '') === '' ? '0' : (values[metodo] ?? ''));

  const next = () => {
    const m = COUNTED_METHODS[index];
    if (m === undefined) return;
    const c = cents(m.metodo);
    if (c === null || c < 0n) {
      setError(`Valor inválido em ${m.label}.`);
      return;
    }
    setError(null);
    if (index < COUNTED_METHODS.length - 1) setIndex(index + 1);
    else setConfirming(true);
  };

  const close = async () => {
    const contagem: Record<string, string> = {};
    for (const m of COUNTED_METHODS) contagem[m.metodo] = centsToDecimal(cents(m.metodo) ?? 0n);
    setPending(true);
    try {
      await props.beforeClose?.();
      props.onClosed(await api.registerSessions.close(props.session.id, contagem));
    } catch (e) {
      setError(errorMessage(e));
      setConfirming(false);
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="register-screen" data-testid="register-close">
      <form
        className="card register-card"
        onSubmit={(e) => {
          e.preventDefault();
          if (confirming) void close();
          else next();
        }}
        onKeyDown={(e) => {
          if (!confirming) enterRuns(next)(e);
          if (e.key !== 'Escape' || pending) return;
          e.preventDefault();
          if (confirming) setConfirming(false);
          else props.onCancel();
        }}
      >
        <h1>Fechar o caixa {props.session.caixa}</h1>
        <p className="muted">
          Conte a gaveta e os comprovantes e informe cada valor. Os valores esperados aparecem só depois da
          contagem confirmada.
        </p>
        {COUNTED_METHODS.map((m, i) => (
          <MoneyField
            key={m.metodo}
            label={`${m.label} (R$)`}
            big={false}
            inputRef={(el) => {
              refs.current[i] = el;
            }}
            placeholder="0,00"
            value={values[m.metodo] ?? ''}
            disabled={pending || confirming}
            onFocus={() => setIndex(i)}
            onChange={(text) => {
              setValues((v) => ({ ...v, [m.metodo]: text }));
              setError(null);
            }}
            testId={`count-${m.metodo}`}
          />
        ))}
        {confirming ? (
          <div data-testid="count-confirm">
            <p>
              Total contado:{' '}
              <strong>{brl(COUNTED_METHODS.reduce((sum, m) => sum + (cents(m.metodo) ?? 0n), 0n))}</strong>.
              Confirmar a contagem e fechar o caixa?
            </p>
            <button ref={confirmRef} type="submit" className="primary" disabled={pending}>
              Enter · Confirmar e fechar
            </button>
          </div>
        ) : null}
        {error !== null ? (
          <p className="field-error" role="alert" data-testid="close-error">
            {error}
          </p>
        ) : null}
        <p className="dialog-keys">
          <kbd>Enter</kbd> {confirming ? 'confirma' : 'próximo'} · <kbd>Esc</kbd>{' '}
          {confirming ? 'corrige' : 'volta'}
        </p>
      </form>
    </div>
  );
}

/** After closing: the differences, then the shift report the service printed. Enter finishes. */
export function ClosedRegister(props: { session: SessionView; onDone: () => void }) {
  const { api } = useApp();
  const [report, setReport] = useState<ShiftReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => ref.current?.focus(), []);
  useEffect(() => {
    api.registerSessions.report(props.session.id).then(setReport, (e: unknown) => setError(errorMessage(e)));
  }, [api, props.session.id]);
  return (
    <div className="register-screen" data-testid="register-closed">
      <div className="card register-card wide">
        <h1>Caixa {props.session.caixa} fechado</h1>
        {props.session.fechamento !== null ? <ClosingTable fechamento={props.session.fechamento} /> : null}
        {report !== null ? <ShiftReportView report={report} withClosing={false} /> : null}
        {error !== null ? <p className="field-error">{error}</p> : null}
        <p className="muted">O relatório do turno foi enviado para a impressora.</p>
        <button ref={ref} type="button" className="primary" onClick={props.onDone} data-testid="closed-done">
          Enter · Concluir
        </button>
      </div>
    </div>
  );
}
