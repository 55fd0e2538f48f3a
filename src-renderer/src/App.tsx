// The shell: finds the API key and the company, then shows the screen of the current route above the
// always-visible status bar.
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { createApiClient, ApiRequestError } from '../../src-shared/contracts/api-client.ts';
import type { CompanyView } from '../../src-shared/contracts/companies.ts';
import { Banner } from './components.tsx';
import { AppContext, useApp, type AppState } from './context.ts';
import { errorMessage } from './messages.ts';
import { setSignedOperator, useSignedOperator } from './operators/store.ts';
import { SupervisorProvider } from './operators/SupervisorPrompt.tsx';
import { href, useRoute } from './router.ts';
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
import { taxIdBr } from './format.ts';
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

const NAV: readonly [string, string][] = [
  ['/caixa', 'Caixa'],
  ['/documentos', 'Documentos'],
  ['/nfe/nova', 'Nova NF-e'],
  ['/lotes', 'Lotes'],
  ['/recebidas', 'Recebidas'],
  ['/produtos', 'Produtos'],
  ['/operadores', 'Operadores'],
  ['/caixas', 'Caixas'],
  ['/relatorios', 'Relatórios'],
  ['/configuracoes', 'Configurações'],
  ['/ajuda', 'Ajuda'],
];

function Layout() {
  const { company, companies, selectCompany, logout } = useApp();
  const route = useRoute();
  const section = `/${route.parts[0] ?? 'caixa'}`;
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Balcão</span>
        <nav className="nav">
          {NAV.map(([path, label]) => (
            <a
              key={path}
              href={href(path)}
              className={
                (path === '/nfe/nova' ? route.path === path : section === path && route.path !== '/nfe/nova')
                  ? 'active'
                  : ''
              }
              tabIndex={-1}
            >
              {label}
            </a>
          ))}
        </nav>
        <span className="company">
          {companies.length > 1 ? (
            <select
              aria-label="Empresa"
              value={company.id}
              onChange={(e) => selectCompany(e.target.value)}
              tabIndex={-1}
            >
              {companies.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.xFant ?? c.xNome} — {taxIdBr(c.cnpj)}
                </option>
              ))}
            </select>
          ) : (
            <span title={company.xNome}>
              {company.xFant ?? company.xNome} · {taxIdBr(company.cnpj)}
            </span>
          )}
          <button type="button" className="ghost small" onClick={logout} tabIndex={-1}>
            Sair
          </button>
        </span>
      </header>
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
