// The shell: finds the API key and the company, then shows the screen of the current route above the
// always-visible status bar.
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { createApiClient, ApiRequestError } from '../../src-shared/contracts/api-client.ts';
import type { CompanyView } from '../../src-shared/contracts/companies.ts';
import { Banner } from './components.tsx';
import { AppContext, type AppState } from './context.ts';
import { errorMessage } from './messages.ts';
import { setSignedOperator, useSignedOperator } from './operators/store.ts';
import { SupervisorProvider } from './operators/SupervisorPrompt.tsx';
import { useRoute } from './router.ts';
import {
  forgetApiKey,
  loadPrefs,
  resolveApiKey,
  resolveBaseUrl,
  saveApiKey,
  saveCompanyId,
  savedCompanyId,
  savePrefs,
  type TerminalPrefs,
} from './session.ts';
import { StatusBar } from './StatusBar.tsx';
import { TopBar } from './TopBar.tsx';
import { Screen } from './screens.tsx';
import { SetupNotice } from './settings/SetupGuide.tsx';

export function App() {
  const [apiKey, setApiKey] = useState<string | null>(() => resolveApiKey());
  const [keyError, setKeyError] = useState<string | null>(null);
  const [companies, setCompanies] = useState<CompanyView[] | null>(null);
  const [companyId, setCompanyId] = useState<string | null>(() => savedCompanyId());
  const [prefs, setPrefsState] = useState<TerminalPrefs>(() => loadPrefs());
  const baseUrl = useMemo(resolveBaseUrl, []);

  const loadCompanies = useCallback(
    async (key: string) => {
      const client = createApiClient({ baseUrl, apiKey: key });
      try {
        const list = await client.companies.list({ pageSize: 100 });
        if (list.items.length === 0) throw new Error('Esta chave não alcança nenhuma empresa.');
        setCompanies(list.items);
        setKeyError(null);
      } catch (e) {
        if (e instanceof ApiRequestError && e.status === 401) {
          forgetApiKey();
          setApiKey(null);
        }
        setKeyError(errorMessage(e));
      }
    },
    [baseUrl],
  );

  useEffect(() => {
    if (apiKey !== null) void loadCompanies(apiKey);
  }, [apiKey, loadCompanies]);

  const company = companies?.find((c) => c.id === companyId) ?? companies?.[0] ?? null;
  // The operator signed in at the cashier: every request then carries X-Operator-Token.
  const operatorToken = useSignedOperator(company?.id ?? null)?.token ?? null;

  const state = useMemo<AppState | null>(() => {
    if (apiKey === null || company === null || companies === null) return null;
    return {
      api: createApiClient({ baseUrl, apiKey, companyId: company.id, operatorToken }),
      company,
      companies,
      selectCompany: (id) => {
        saveCompanyId(id);
        setCompanyId(id);
      },
      refreshCompany: () => loadCompanies(apiKey),
      prefs,
      setPrefs: (p) => {
        savePrefs(p);
        setPrefsState(p);
      },
      logout: () => {
        setSignedOperator(null);
        forgetApiKey();
        setCompanies(null);
        setApiKey(null);
      },
    };
  }, [apiKey, company, companies, baseUrl, prefs, loadCompanies, operatorToken]);

  if (apiKey === null || (companies === null && keyError !== null)) {
    return (
      <KeyScreen
        error={keyError}
        onKey={(key) => {
          saveApiKey(key);
          setKeyError(null);
          setApiKey(key);
          void loadCompanies(key);
        }}
      />
    );
  }
  if (state === null) return <p className="loading">Carregando…</p>;
  return (
    <AppContext.Provider value={state}>
      <SupervisorProvider>
        <Layout />
      </SupervisorProvider>
    </AppContext.Provider>
  );
}

function Layout() {
  const route = useRoute();
  const section = `/${route.parts[0] ?? 'caixa'}`;
  return (
    <div className="app">
      <TopBar />
      <main className="content">
        {section === '/caixa' ? null : <SetupNotice />}
        <Screen route={route} />
      </main>
      <StatusBar />
    </div>
  );
}

function KeyScreen(props: { error: string | null; onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (key.trim() !== '') props.onKey(key.trim());
  };
  return (
    <div className="key-screen">
      <form className="card key-card" onSubmit={submit}>
        <h1>Balcão</h1>
        <p>
          Informe a chave de API deste terminal. O serviço mostra a chave ao iniciar pela primeira vez; quem
          instalou o Balcão a tem guardada.
        </p>
        {props.error !== null ? <Banner kind="error">{props.error}</Banner> : null}
        <label className="field">
          <span className="field-label">Chave de API</span>
          <input
            autoFocus
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="blc_…"
            aria-label="Chave de API"
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <button type="submit" className="primary">
          Entrar
        </button>
      </form>
    </div>
  );
}
