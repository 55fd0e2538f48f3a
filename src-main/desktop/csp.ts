// Content-Security-Policy the desktop shell adds to every response of the local service: the UI is a
// Vite build of same-origin modules, so nothing inline or remote needs to run.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  // React sets style properties, and some components inject <style>: inline styles cannot run code.
  "style-src 'self' 'unsafe-inline'",
  // QR codes and DANFE previews arrive as data: or blob: URLs built by the page.
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Response headers with our policy, replacing any the service sent (header names are case-insensitive and
 * Electron hands them over as they came).
 */
export function withContentSecurityPolicy(
  headers: Record<string, string[] | string> | undefined,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === 'content-security-policy') continue;
    out[name] = Array.isArray(value) ? value : [value];
  }
  out['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return out;
}
