// Preload of the desktop window. It runs sandboxed, where only `electron` can be required, so the channel
// name is repeated from bridge.ts (a test keeps them equal). Exposes `window.balcaoDesktop = { apiKey,
// baseUrl }` and nothing else: never ipcRenderer itself (CONVENTIONS.md §10).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload must be CommonJS
import electron = require('electron');

const DESKTOP_INFO_CHANNEL = 'balcao:desktop-info';

// Synchronous once, before the page's scripts run: the UI reads the key at start. The main process answers
// null to any frame that is not the local service's.
const info: unknown = electron.ipcRenderer.sendSync(DESKTOP_INFO_CHANNEL);
if (typeof info === 'object' && info !== null) {
  const { apiKey, baseUrl } = info as { apiKey?: unknown; baseUrl?: unknown };
  if (typeof apiKey === 'string' && typeof baseUrl === 'string') {
    electron.contextBridge.exposeInMainWorld('balcaoDesktop', Object.freeze({ apiKey, baseUrl }));
  }
}
