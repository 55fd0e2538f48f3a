// The operator code and PIN typed from the keyboard (code, Enter, PIN, Enter), shared by the cashier's
// sign-in and the supervisor's approval so both keep the same keys, limits and focus.
import { useLayoutEffect, useRef, useState } from 'react';

export type PinStep = 'codigo' | 'pin';

/** The state of one code + PIN entry; the field holding the step gets the focus as soon as it shows. */
/** `initialError` may be a function, read once at mount (like useState's initializer). */
export function usePinEntry(initialError: string | null | (() => string | null) = null) {
  const [codigo, setCodigo] = useState('');
  const [pin, setPin] = useState('');
  const [step, setStep] = useState<PinStep>('codigo');
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  const codigoRef = useRef<HTMLInputElement>(null);
  const pinRef = useRef<HTMLInputElement>(null);
  // Focus in the same commit that shows the field, so the next digit typed lands in it.
  useLayoutEffect(() => {
    if (!pending) (step === 'codigo' ? codigoRef : pinRef).current?.focus();
  }, [step, pending]);

  /** Enter on the code: on to the PIN when it is a code (1–6 digits), else `missing` is shown. */
  const acceptCodigo = (missing: string) => {
    if (/^\d{1,6}$/.test(codigo)) {
      setError(null);
      setStep('pin');
    } else setError(missing);
  };
  /** A refusal naming the code: type it again from the start. */
  const restart = () => {
    setCodigo('');
    setStep('codigo');
  };

  return {
    codigo,
    setCodigo,
    pin,
    setPin,
    step,
    setStep,
    error,
    setError,
    pending,
    setPending,
    codigoRef,
    pinRef,
    acceptCodigo,
    restart,
  };
}

export type PinEntry = ReturnType<typeof usePinEntry>;

export function PinFields(props: {
  entry: PinEntry;
  codigoLabel: string;
  /** The data-testid prefix: `<prefix>-codigo`, `<prefix>-pin`, `<prefix>-error`. */
  testId: string;
  /**
   * The sign-in lets the operator click back into the code while typing the PIN; the supervisor prompt
   * keeps the code fixed once accepted. Typing the code clears the message only where it can be re-typed.
   */
  codigoReopens: boolean;
}) {
  const { entry } = props;
  return (
    <>
      <label className="field">
        <span className="field-label">{props.codigoLabel}</span>
        <input
          ref={entry.codigoRef}
          className="big-input"
          inputMode="numeric"
          autoComplete="off"
          value={entry.codigo}
          disabled={entry.pending || (!props.codigoReopens && entry.step === 'pin')}
          {...(props.codigoReopens ? { onFocus: () => entry.setStep('codigo') } : {})}
          onChange={(e) => {
            entry.setCodigo(e.target.value.replace(/\D/g, '').slice(0, 6));
            if (props.codigoReopens) entry.setError(null);
          }}
          data-testid={`${props.testId}-codigo`}
        />
      </label>
      <label className="field">
        <span className="field-label">Senha (PIN)</span>
        <input
          ref={entry.pinRef}
          className="big-input"
          type="password"
          inputMode="numeric"
          autoComplete="off"
          value={entry.pin}
          disabled={entry.pending || entry.step === 'codigo'}
          onChange={(e) => entry.setPin(e.target.value.replace(/\D/g, '').slice(0, 8))}
          data-testid={`${props.testId}-pin`}
        />
      </label>
      {entry.error !== null ? (
        <p className="field-error" role="alert" data-testid={`${props.testId}-error`}>
          {entry.error}
        </p>
      ) : null}
    </>
  );
}
