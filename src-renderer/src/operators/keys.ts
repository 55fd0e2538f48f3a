// Enter moves through the operator and register forms. A form with several text fields and no submit
// button is not submitted by Enter (HTML's implicit submission), so the forms listen for it themselves.
import type { KeyboardEvent } from 'react';

/** An onKeyDown for a form: Enter typed in one of its fields runs `next` (a button keeps its own Enter). */
export function enterRuns(next: () => void) {
  return (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== 'Enter' || !(e.target instanceof HTMLInputElement)) return;
    e.preventDefault();
    next();
  };
}
