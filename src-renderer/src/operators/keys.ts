// Enter moves through the operator and register forms. A form with several text fields and no submit
// button is not submitted by Enter (HTML's implicit submission), so the forms listen for it themselves.
import type { FormEvent, KeyboardEvent } from 'react';

/** An onKeyDown for a form: Enter typed in one of its fields runs `next` (a button keeps its own Enter). */
export function enterRuns(next: () => void) {
  return (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== 'Enter' || !(e.target instanceof HTMLInputElement)) return;
    e.preventDefault();
    next();
  };
}

/** The handlers of a one-step register form: Enter (or its submit) runs `run`, Esc runs `back`. */
export function enterEscForm(run: () => void, back: () => void) {
  return {
    onSubmit: (e: FormEvent) => {
      e.preventDefault();
      run();
    },
    onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
      enterRuns(run)(e);
      if (e.key === 'Escape') {
        e.preventDefault();
        back();
      }
    },
  };
}
