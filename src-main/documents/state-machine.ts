// The document state machine (seed §3) in one place: every action names the states it may start from;
// anything else is 409 invalid_state naming the current state.
import { invalidState } from '../errors.ts';
import type { DocumentStatus } from '../db/schema.ts';

export type DocumentAction = 'update' | 'send' | 'cancel' | 'correct' | 'devolve';

/**
 * rascunho → (send) processando → autorizada | erro | denegada; erro → (update) rascunho or (send) again;
 * contingencia (NFC-e offline) → autorizada once transmitted; autorizada → (cancel) cancelada.
 */
export const ALLOWED_FROM: Readonly<Record<DocumentAction, readonly DocumentStatus[]>> = {
  update: ['rascunho', 'erro'],
  send: ['rascunho', 'erro'],
  cancel: ['autorizada'],
  correct: ['autorizada'],
  devolve: ['autorizada'],
};

const ACTION_WORDS: Readonly<Record<DocumentAction, string>> = {
  update: 'change',
  send: 'send',
  cancel: 'cancel',
  correct: 'issue a correction letter for',
  devolve: 'return (devolução)',
};

export function assertAllowed(status: DocumentStatus, action: DocumentAction): void {
  if (!ALLOWED_FROM[action].includes(status)) throw invalidState(status, ACTION_WORDS[action]);
}

/** The seed lists `rejeitada` as a filter alias of `erro`. */
export function statusFilter(value: string): DocumentStatus[] {
  return value === 'rejeitada' ? ['erro'] : [value as DocumentStatus];
}
