// What the cashier screen knows of the register around it: the signed-in operator and the open session
// (null when the company has no operators: the cashier then sells as before, with the API key alone).
import { createContext, useContext } from 'react';
import type { SessionView } from '../../../src-shared/contracts/api-client.ts';
import type { SignedOperator } from '../operators/store.ts';

export interface RegisterState {
  operator: SignedOperator;
  /** Null when the service has no register sessions. */
  session: SessionView | null;
  /** Reports a removed item or an abandoned sale for the shift report (POST …/voids); never throws. */
  reportVoid(tipo: 'item' | 'venda', descricao: string, valorCents: bigint): void;
  /** Reads the register's session again (it was closed elsewhere: the service answered caixa_fechado). */
  reload(): void;
}

export const RegisterContext = createContext<RegisterState | null>(null);

export function useRegister(): RegisterState | null {
  return useContext(RegisterContext);
}
