// What the desktop window may load: the local service's pages stay in the app, web links go to the
// system browser, everything else (file:, javascript:, data:, other schemes) is refused.
export type NavigationDecision = 'app' | 'external' | 'deny';

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** `http://127.0.0.1:PORT` of the running service, the only origin trusted with the bridge. */
export function originOf(serviceUrl: string): string {
  const parsed = parse(serviceUrl);
  if (parsed === null || parsed.protocol !== 'http:') throw new Error(`not an http URL: ${serviceUrl}`);
  return parsed.origin;
}

/** Same scheme, host and port; `blob:` URLs count as the origin that created them (a PDF fetched with the key). */
export function isAppUrl(url: string, appOrigin: string): boolean {
  const parsed = parse(url);
  if (parsed === null) return false;
  if (parsed.protocol === 'blob:') return parse(parsed.pathname)?.origin === appOrigin;
  return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === appOrigin;
}

export function navigationDecision(url: string, appOrigin: string): NavigationDecision {
  if (isAppUrl(url, appOrigin)) return 'app';
  const parsed = parse(url);
  if (parsed !== null && (parsed.protocol === 'https:' || parsed.protocol === 'http:')) return 'external';
  return 'deny';
}

/**
 * Web permissions the UI may get, only for its own origin: writing the clipboard (copy a key or a chave de
 * acesso) and fullscreen for a till screen. Camera, microphone, geolocation, notifications, serial/USB/HID
 * are refused: printers and scanners are driven by the service, not by the page.
 */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write', 'fullscreen']);

export function permissionAllowed(permission: string, requestingUrl: string, appOrigin: string): boolean {
  return ALLOWED_PERMISSIONS.has(permission) && isAppUrl(requestingUrl, appOrigin);
}
