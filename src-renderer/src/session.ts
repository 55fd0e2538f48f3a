// Where the UI finds its API key and the /v1 base: the Electron preload, then `?api_key=` in the address
// (removed from the address bar at once), then what was kept in localStorage; otherwise the key screen asks.
import { canonicalId } from '../../src-shared/ids.ts';

/** What the desktop preload exposes through contextBridge (src-main/desktop/preload). */
export interface BalcaoDesktopBridge {
  apiKey?: string;
  baseUrl?: string;
}

declare global {
  interface Window {
    balcaoDesktop?: BalcaoDesktopBridge;
  }
}

const KEY_STORAGE = 'balcao.apiKey';
const COMPANY_STORAGE = 'balcao.companyId';

/** `http://host:port`, `http://host:port/`, `http://host:port/v1` → `http://host:port/v1`. */
export function v1Base(url: string): string {
  return `${url.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;
}

export function resolveBaseUrl(): string {
  const bridged = window.balcaoDesktop?.baseUrl;
  if (typeof bridged === 'string' && bridged !== '') return v1Base(bridged);
  return v1Base(window.location.origin);
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The key to use at start, or null when the key screen must ask. Keeps a found key in localStorage. */
export function resolveApiKey(): string | null {
  const bridged = window.balcaoDesktop?.apiKey;
  if (typeof bridged === 'string' && bridged !== '') return bridged;
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('api_key');
  if (fromUrl !== null && fromUrl !== '') {
    url.searchParams.delete('api_key');
    // The key must not stay in the address bar, the history or a bookmark.
    window.history.replaceState(window.history.state, '', url.toString());
    storage()?.setItem(KEY_STORAGE, fromUrl);
    return fromUrl;
  }
  return storage()?.getItem(KEY_STORAGE) ?? null;
}

export function saveApiKey(key: string): void {
  storage()?.setItem(KEY_STORAGE, key);
}

export function forgetApiKey(): void {
  storage()?.removeItem(KEY_STORAGE);
  storage()?.removeItem(COMPANY_STORAGE);
}

/** The company chosen last; one kept by an earlier release (`cmp_<hex>`) is the same company's UUID now. */
export function savedCompanyId(): string | null {
  const saved = storage()?.getItem(COMPANY_STORAGE) ?? null;
  return saved === null ? null : canonicalId(saved);
}

export function saveCompanyId(id: string): void {
  storage()?.setItem(COMPANY_STORAGE, id);
}

/** Local preferences of this terminal (not company data). */
export interface TerminalPrefs {
  /** The cashier may change an item's price (F5). */
  allowPriceOverride: boolean;
  /** The printer used by this terminal (id of /v1/companies/:id/printers). */
  printerId: string | null;
  receiptWidth: 58 | 80;
  /** This terminal's register number: its operators sign in to it and it has its own session and count. */
  caixa: string;
}

const PREFS_STORAGE = 'balcao.terminal';
const DEFAULT_PREFS: TerminalPrefs = {
  allowPriceOverride: true,
  printerId: null,
  receiptWidth: 80,
  caixa: '1',
};

export function loadPrefs(): TerminalPrefs {
  const raw = storage()?.getItem(PREFS_STORAGE);
  if (raw === null || raw === undefined) return DEFAULT_PREFS;
  try {
    return { ...DEFAULT_PREFS, ...(JSON.parse(raw) as Partial<TerminalPrefs>) };
  } catch {
    return DEFAULT_PREFS;
  }
}

export function savePrefs(prefs: TerminalPrefs): void {
  storage()?.setItem(PREFS_STORAGE, JSON.stringify(prefs));
}
