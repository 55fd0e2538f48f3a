// Electron entry point: runs the service in-process (start.ts) and shows the UI in one locked-down window.
// Only the Electron wiring lives here; the rules it applies are plain modules tested without Electron.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  safeStorage,
  session,
  shell,
  type WebContents,
  type WebPreferences,
} from 'electron';
import { startDesktopService, type DesktopService } from './start.ts';
import { keychainProtects, type Keychain } from './master-key.ts';
import { isAppUrl, navigationDecision, permissionAllowed } from './navigation.ts';
import { withContentSecurityPolicy } from './csp.ts';
import { DESKTOP_INFO_CHANNEL, desktopInfoFor } from './bridge.ts';

/** preload.cts compiles to preload.cjs beside this file: a sandboxed preload must be CommonJS. */
const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'preload.cjs');

let desktop: DesktopService | undefined;
let mainWindow: BrowserWindow | undefined;

/** CONVENTIONS.md §10: the renderer is a plain web page talking HTTP to /v1, with no Node in it. */
const LOCKED_DOWN: WebPreferences = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  navigateOnDragDrop: false,
  // Chromium's PDF viewer shows the DANFE inside the app instead of saving it somewhere.
  plugins: true,
  spellcheck: false,
};

function osKeychain(): Keychain {
  return {
    isEncryptionAvailable: () =>
      safeStorage.isEncryptionAvailable() &&
      keychainProtects(
        process.platform,
        process.platform === 'linux' ? safeStorage.getSelectedStorageBackend() : null,
      ),
    encryptString: (plain) => safeStorage.encryptString(plain),
    decryptString: (encrypted) => safeStorage.decryptString(encrypted),
  };
}

/** Applied to every WebContents the app creates, the main window and any child window alike. */
function lockDown(contents: WebContents, origin: string): void {
  const guard = (event: { preventDefault(): void }, url: string) => {
    const decision = navigationDecision(url, origin);
    if (decision === 'app') return;
    event.preventDefault();
    if (decision === 'external') void shell.openExternal(url);
  };
  contents.on('will-navigate', (event) => guard(event, event.url));
  contents.on('will-redirect', (event) => guard(event, event.url));
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = navigationDecision(url, origin);
    // The service's own pages (a DANFE PDF, a receipt preview) open in a child window, locked down too.
    if (decision === 'app') {
      return {
        action: 'allow',
        overrideBrowserWindowOptions: { autoHideMenuBar: true, webPreferences: LOCKED_DOWN },
      };
    }
    if (decision === 'external') void shell.openExternal(url);
    return { action: 'deny' };
  });
}

function hardenSession(origin: string): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(permissionAllowed(permission, details.requestingUrl, origin)),
  );
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    permissionAllowed(permission, requestingOrigin, origin),
  );
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onHeadersReceived((details, callback) => {
    if (!isAppUrl(details.url, origin)) {
      callback({});
      return;
    }
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
}

function createWindow(d: DesktopService): BrowserWindow {
  const win = new BrowserWindow({
    width: 1366,
    height: 768,
    minWidth: 1024,
    minHeight: 640,
    title: 'Balcão',
    show: false,
    autoHideMenuBar: true,
    backgroundColor: '#ffffff',
    webPreferences: { ...LOCKED_DOWN, preload: PRELOAD },
  });
  win.once('ready-to-show', () => win.show());
  win.webContents.on('render-process-gone', (_event, details) => {
    d.logger.error('renderer gone', { reason: details.reason, exitCode: details.exitCode });
    // The sale in progress lives in the service; the page can simply come back.
    if (details.reason !== 'clean-exit' && !win.isDestroyed()) win.reload();
  });
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = undefined;
  });
  void win.loadURL(`${d.service.url}/`);
  return win;
}

async function start(): Promise<void> {
  const d = await startDesktopService({
    userDataDir: app.getPath('userData'),
    env: process.env,
    keychain: osKeychain(),
    ...(app.isPackaged ? {} : { echo: (line: string) => void process.stderr.write(line) }),
  });
  desktop = d;
  hardenSession(d.origin);
  app.on('web-contents-created', (_event, contents) => lockDown(contents, d.origin));
  ipcMain.on(DESKTOP_INFO_CHANNEL, (event) => {
    event.returnValue = desktopInfoFor(event.senderFrame?.url, d.origin, d.info);
  });
  process.on('unhandledRejection', (reason) =>
    d.logger.error('unhandled rejection', { reason: String(reason) }),
  );
  mainWindow = createWindow(d);
}

if (!app.requestSingleInstanceLock()) {
  // A second process on the same database would race the first for note numbers: hand over and leave.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow === undefined) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.show();
    mainWindow.focus();
  });
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`Balcão could not start: ${message}\n`);
      dialog.showErrorBox('Balcão não pôde iniciar', message);
      app.exit(1);
    });
  app.on('window-all-closed', () => app.quit());

  let stopping = false;
  app.on('before-quit', (event) => {
    if (desktop === undefined || stopping) return;
    stopping = true;
    // Let in-flight requests finish and the queue park its row before the process ends.
    event.preventDefault();
    desktop.close().then(
      () => app.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${String(error)}\n`);
        app.exit(1);
      },
    );
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
}
