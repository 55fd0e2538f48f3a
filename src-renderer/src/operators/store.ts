// The operator signed in at this terminal: kept in localStorage (a reload keeps the cashier signed in) and
// read by the shell, which sends its token as X-Operator-Token on every request.
import { useSyncExternalStore } from 'react';
import type { OperatorSignIn } from '../../../src-shared/contracts/api-client.ts';

/** The sign-in answer plus the company it belongs to (a token is good for one company only). */
export interface SignedOperator extends OperatorSignIn {
  companyId: string;
}

const STORAGE = 'balcao.operator';
const listeners = new Set<() => void>();
let endedBecause: string | null = null;
let cached: { raw: string | null; value: SignedOperator | null } = { raw: null, value: null };

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function read(): SignedOperator | null {
  const raw = storage()?.getItem(STORAGE) ?? null;
  // The same object while the text is the same: useSyncExternalStore compares snapshots by identity.
  if (raw === cached.raw) return cached.value;
  let value: SignedOperator | null = null;
  try {
    value = raw === null ? null : (JSON.parse(raw) as SignedOperator);
  } catch {
    value = null;
  }
  cached = { raw, value };
  return value;
}

export function signedOperator(): SignedOperator | null {
  const op = read();
  if (op === null) return null;
  return Date.parse(op.expira_em) > Date.now() ? op : null;
}

export function setSignedOperator(op: SignedOperator | null): void {
  if (op !== null) endedBecause = null;
  if (op === null) storage()?.removeItem(STORAGE);
  else storage()?.setItem(STORAGE, JSON.stringify(op));
  listeners.forEach((l) => l());
}

/** The service no longer knows the operator's token (expired, signed out elsewhere, role changed). */
export function operatorSessionEnded(reason: string): void {
  endedBecause = reason;
  setSignedOperator(null);
}

/** Why the last session ended, for the sign-in screen; forgotten at the next sign-in. */
export function sessionEndReason(): string | null {
  return endedBecause;
}

function subscribe(onChange: () => void): () => void {
  listeners.add(onChange);
  return () => listeners.delete(onChange);
}

/** The operator signed in for `companyId`, or null. */
export function useSignedOperator(companyId: string | null): SignedOperator | null {
  const op = useSyncExternalStore(subscribe, signedOperator);
  return op !== null && op.companyId === companyId ? op : null;
}
