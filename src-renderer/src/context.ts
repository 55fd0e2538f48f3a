// What every screen needs: the typed /v1 client bound to the chosen company, the company, terminal prefs.
import { createContext, useContext } from 'react';
import type { ApiClient } from '../../src-shared/contracts/api-client.ts';
import type { CompanyView } from '../../src-shared/contracts/companies.ts';
import type { TerminalPrefs } from './session.ts';

export interface AppState {
  api: ApiClient;
  company: CompanyView;
  companies: CompanyView[];
  selectCompany(id: string): void;
  refreshCompany(): Promise<void>;
  prefs: TerminalPrefs;
  setPrefs(prefs: TerminalPrefs): void;
  logout(): void;
}

export const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (state === null) throw new Error('useApp outside AppContext');
  return state;
}
