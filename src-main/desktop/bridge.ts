// What the preload script hands to the UI as `window.balcaoDesktop`, and the rule that only the local
// service's own pages receive it. preload.cts repeats the channel name: a sandboxed preload cannot import.
export const DESKTOP_INFO_CHANNEL = 'balcao:desktop-info';

/** The UI reads this (src-renderer/src/session.ts): the key it calls /v1 with and where /v1 is. */
export interface DesktopInfo {
  apiKey: string;
  baseUrl: string;
}

/** The answer to the preload's synchronous request: the info for the app's own frames, null for any other. */
export function desktopInfoFor(
  senderUrl: string | undefined,
  appOrigin: string,
  info: DesktopInfo,
): DesktopInfo | null {
  if (senderUrl === undefined) return null;
  try {
    const url = new URL(senderUrl);
    return url.protocol === 'http:' && url.origin === appOrigin ? { ...info } : null;
  } catch {
    return null;
  }
}
