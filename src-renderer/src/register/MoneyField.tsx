// One amount typed in reais at the register (float, sangria/suprimento, the closing count): the same
// keyboard, input mode and message clearing wherever the cashier types money.
import type { Ref } from 'react';

export function MoneyField(props: {
  label: string;
  value: string;
  onChange: (text: string) => void;
  inputRef: Ref<HTMLInputElement>;
  disabled: boolean;
  testId: string;
  placeholder?: string;
  onFocus?: () => void;
  /** The single amount of a screen is shown large; the closing count lists several in the normal size. */
  big?: boolean;
}) {
  return (
    <label className="field">
      <span className="field-label">{props.label}</span>
      <input
        ref={props.inputRef}
        {...(props.big === false ? {} : { className: 'big-input' })}
        inputMode="decimal"
        autoComplete="off"
        value={props.value}
        disabled={props.disabled}
        {...(props.placeholder === undefined ? {} : { placeholder: props.placeholder })}
        {...(props.onFocus === undefined ? {} : { onFocus: props.onFocus })}
        onChange={(e) => props.onChange(e.target.value)}
        data-testid={props.testId}
      />
    </label>
  );
}
