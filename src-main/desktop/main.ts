// Electron entry point: runs the headless service in-process on a free loopback port and shows the UI in
// one locked-down window. Nothing outside src-main/desktop/ imports electron.
import path from 'node:path';
import { app, BrowserWindow, shell } from 'electron';
import { startService, type RunningService } from '../service.ts';
import { configFromEnv } from '../config.ts';

let service: RunningService | undefined;
let window: BrowserWindow | undefined;

function createWindow(url: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    title: 'Balcão',
    webPreferences: {
      // CONVENTIONS.md §10: the renderer is a plain web page talking HTTP to /v1.
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
    },
  });
  // Links to other origins open in the system browser, never inside the app window.
  win.webContents.setWindowOpenHandler(({ url: target }) => {
    void shell.openExternal(target);
    return { action: 'deny' };
  });
  win.webContents.on('will-navigate', (event, target) => {
    if (!target.startsWith(url)) event.preventDefault();
  });
  void win.loadURL(url);
  return win;
}

async function start(): Promise<void> {
  const config = configFromEnv({
    BALCAO_PORT: '0',
    BALCAO_DATA_DIR: path.join(app.getPath('userData'), 'data'),
    ...process.env,
  });
  service = await startService(config);
  window = createWindow(service.url);
}

if (!app.requestSingleInstanceLock()) {
  // A second cashier window on the same database would race the first for note numbers.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (window === undefined) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.whenReady().then(start, (error: unknown) => {
    process.stderr.write(`Balcão could not start: ${String(error)}\n`);
    app.exit(1);
  });
  app.on('window-all-closed', () => app.quit());
  let stopping = false;
  app.on('before-quit', (event) => {
    if (service === undefined || stopping) return;
    stopping = true;
    event.preventDefault();
    void service.close().finally(() => app.exit(0));
  });
}
