// Keystrokes typed while the cashier cannot take them (the page still loading, payment opening, a sale being
// issued) are held here and typed again, in order, once it can: a scanner types a whole code in a few ms.
// Installed when the bundle loads, before React renders anything, so not even the first key is lost.

/** Keys the cashier reads: one character, Enter, Backspace, Esc, ↑ ↓ and its function keys (F2–F12). */
const HELD_KEY = /^(?:.|Enter|Backspace|Escape|ArrowUp|ArrowDown|F[2-9]|F1[0-2])$/u;
/** A wedge that never stops typing must not grow the page without bound. */
const MAX_HELD = 512;

interface Owner {
  /** Puts the focus where typing goes now (the code or the amount field). */
  focus(): void;
}

const held: string[] = [];
const busy = new Set<string>();
let owner: Owner | null = null;
let replaying = false;
let drainScheduled = false;

function onCashierRoute(): boolean {
  const hash = window.location.hash.replace(/^#/, '');
  return hash === '' || hash === '/caixa' || hash.startsWith('/caixa?') || hash.startsWith('/caixa/');
}

function inDialog(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('[role=dialog]') !== null;
}

/** Nothing can receive the key: no field has the focus, or the one that had it was just disabled. */
function nobodyToType(): boolean {
  const active = document.activeElement;
  if (active === null || active === document.body || active === document.documentElement) return true;
  return (active instanceof HTMLInputElement || active instanceof HTMLButtonElement) && active.disabled;
}

function shouldHold(e: KeyboardEvent): boolean {
  if (replaying || e.isComposing || e.ctrlKey || e.metaKey || e.altKey) return false;
  if (!HELD_KEY.test(e.key) || !onCashierRoute()) return false;
  // Keys already queued keep their order: a later key waits behind them even when a field is ready.
  if (held.length > 0 && (owner !== null || nobodyToType())) return true;
  if (busy.size > 0) return owner !== null && !inDialog(e.target);
  return nobodyToType() && !inDialog(document.activeElement);
}

function onKeyDown(e: KeyboardEvent): void {
  if (!shouldHold(e)) return;
  e.preventDefault();
  e.stopImmediatePropagation();
  if (held.length < MAX_HELD) held.push(e.key);
  scheduleDrain();
}

/** Fires the key at the focused element as the browser would have: keydown, then its default action. */
function typeKey(key: string): void {
  const target = document.activeElement ?? document.body;
  const event = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, composed: true });
  replaying = true;
  try {
    if (!target.dispatchEvent(event)) return;
    if (!(target instanceof HTMLInputElement) || target.disabled) return;
    // execCommand types into the field like the keyboard does: it replaces the selection (the suggested
    // amount) and fires the input event React listens to.
    if ([...key].length === 1) document.execCommand('insertText', false, key);
    else if (key === 'Backspace') document.execCommand('delete');
    else if (key === 'Enter') target.form?.requestSubmit();
  } finally {
    replaying = false;
  }
}

function ready(): boolean {
  return owner !== null && busy.size === 0;
}

function scheduleDrain(): void {
  if (drainScheduled || !ready()) return;
  drainScheduled = true;
  // One key per task: React commits what the previous key changed (and its effects refocus) in between.
  setTimeout(() => {
    drainScheduled = false;
    if (!ready() || held.length === 0) return;
    if (nobodyToType()) owner?.focus();
    const key = held.shift();
    if (key !== undefined) typeKey(key);
    scheduleDrain();
  }, 0);
}

/** The cashier takes the held keys from here on; returns the release for its unmount. */
export function claimKeys(next: Owner): () => void {
  owner = next;
  scheduleDrain();
  return () => {
    if (owner === next) owner = null;
  };
}

/**
 * While any reason is set, keys are held, then typed in order when the last one is cleared. Set it in the
 * handler that starts the action (before the next key can arrive), clear it once the screen shows its result.
 */
export function setBusy(reason: string, on: boolean): void {
  if (on) busy.add(reason);
  else if (busy.delete(reason)) scheduleDrain();
}

if (typeof window !== 'undefined') window.addEventListener('keydown', onKeyDown, true);
