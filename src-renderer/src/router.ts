// Hash routes (#/caixa, #/documentos/55/doc_…): the service serves static files only, so the address
// after `#` is the app's own and a reload lands on the same screen.
import { useSyncExternalStore } from 'react';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

function current(): string {
  const h = window.location.hash.replace(/^#/, '');
  return h === '' ? '/caixa' : h;
}

/** The path after `#`, split at `?`: `{ path: '/documentos', query }`. */
export function useRoute(): { path: string; parts: string[]; query: URLSearchParams } {
  const hash = useSyncExternalStore(subscribe, current);
  const [path = '/caixa', search = ''] = hash.split('?');
  return { path, parts: path.split('/').filter((p) => p !== ''), query: new URLSearchParams(search) };
}

export function navigate(path: string): void {
  window.location.hash = path;
}

export function href(path: string): string {
  return `#${path}`;
}
