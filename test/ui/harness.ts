// Browser tests start the product as a user does: the UI built, `npx tsx src-main/index.ts` on a fresh
// data dir (BALCAO_PORT=0), the key read from sandbox.json, then Debian's chromium driven by playwright-core.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { INSTALL_KEY_COUNTER, KEYS_SEEN } from './in-page.ts';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const screenshotsDir = path.join(projectRoot, 'docs', 'screenshots');

const CHROMIUM = '/usr/bin/chromium';

/**
 * Builds src-renderer/dist when its sources are newer (the same step `npm start` runs first). Test files run
 * in parallel workers: a lock directory makes one build while the others wait for it.
 */
export async function ensureUiBuilt(): Promise<void> {
  const lock = path.join(projectRoot, 'src-renderer', '.build-lock');
  for (let waited = 0; ; waited += 200) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // A lock older than two minutes was left by a killed run.
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) fs.rmSync(lock, { recursive: true, force: true });
      if (waited > 180_000) throw new Error('timed out waiting for another UI build');
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    const result = spawnSync(
      process.execPath,
      [path.join(projectRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'src-renderer/build-if-stale.ts'],
      { cwd: projectRoot, encoding: 'utf8' },
    );
    if (result.status !== 0 || !fs.existsSync(path.join(projectRoot, 'src-renderer', 'dist', 'index.html')))
      throw new Error(`UI build failed: ${result.stdout}${result.stderr}`);
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

export interface RunningProduct {
  url: string;
  apiBase: string;
  /** The demo company's key, the one a person types into the UI. */
  apiKey: string;
  /** The organization's key, for tests that set up another company. */
  organizationApiKey: string;
  companyId: string;
  dataDir: string;
  output: () => string;
  /** Calls the API with the company key, or with `key`. */
  api<T = unknown>(
    method: string,
    route: string,
    body?: unknown,
    key?: string,
  ): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** `npx tsx src-main/index.ts` on a fresh temp data dir; resolves once sandbox.json and /healthz answer. */
export async function startProduct(): Promise<RunningProduct> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-ui-'));
  const child: ChildProcess = spawn('npx', ['tsx', 'src-main/index.ts'], {
    cwd: projectRoot,
    env: { ...process.env, BALCAO_DATA_DIR: dataDir, BALCAO_PORT: '0', BALCAO_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so stop() ends npx, tsx and the service together by this one id.
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const sandboxFile = path.join(dataDir, 'sandbox.json');
  const started = Date.now();
  let info: { baseUrl: string; apiKey: string; companyId: string; organizationApiKey: string } | undefined;
  while (info === undefined) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${out}`);
    if (Date.now() - started > 90_000) throw new Error(`the service did not start in 90 s:\n${out}`);
    if (fs.existsSync(sandboxFile) && /listening on/.test(out)) {
      info = JSON.parse(fs.readFileSync(sandboxFile, 'utf8')) as typeof info;
    } else await new Promise((r) => setTimeout(r, 150));
  }
  const apiBase = info.baseUrl;
  const url = apiBase.replace(/\/v1$/, '');
  const health = await fetch(`${url}/healthz`);
  if (!health.ok) throw new Error(`healthz answered ${health.status}`);
  const { apiKey, companyId, organizationApiKey } = info;
  return {
    url,
    apiBase,
    apiKey,
    organizationApiKey,
    companyId,
    dataDir,
    output: () => out,
    async api<T>(method: string, route: string, body?: unknown, key: string = apiKey) {
      const res = await fetch(`${apiBase}${route}`, {
        method,
        headers: {
          'X-API-Key': key,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as T };
    },
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
        const timer = setTimeout(() => {
          if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        }, 15_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function waitForChromium(): Promise<void> {
  for (let waited = 0; !fs.existsSync(CHROMIUM); waited += 2000) {
    if (waited > 600_000) throw new Error(`${CHROMIUM} did not appear`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

export async function launchBrowser(): Promise<Browser> {
  await waitForChromium();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * BALCAO_UI_CPU_THROTTLE=4 slows the page's CPU four times (Chromium's DevTools emulation), as a loaded
 * machine does: the way to run the browser tests when hunting races between keystrokes and rendering.
 */
export function cpuThrottleRate(): number {
  const text = process.env['BALCAO_UI_CPU_THROTTLE'];
  if (text === undefined || text === '') return 1;
  const rate = Number(text);
  if (!Number.isFinite(rate) || rate < 1)
    throw new Error(`BALCAO_UI_CPU_THROTTLE must be a number >= 1: ${text}`);
  return rate;
}

/** Applies BALCAO_UI_CPU_THROTTLE to a page before it loads anything. */
export async function throttleCpu(page: Page): Promise<void> {
  const rate = cpuThrottleRate();
  if (rate === 1) return;
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate });
}

/** A page on the UI, signed in through `?api_key=` (the address a POS link or the desktop app gives). */
export async function openUi(browser: Browser, product: RunningProduct, hash = '/caixa'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1366, height: 800 }, locale: 'pt-BR' });
  page.on('pageerror', (e) => {
    throw e;
  });
  await throttleCpu(page);
  await page.goto(`${product.url}/?api_key=${encodeURIComponent(product.apiKey)}#${hash}`);
  await page.getByTestId('status-bar').waitFor();
  if (hash === '/caixa' || hash.startsWith('/caixa?') || hash.startsWith('/caixa/')) await readyToSell(page);
  return page;
}

/** The demo company's operators (seeded with the demo data): a caixa and a gerente. */
export const DEMO_CAIXA = { codigo: '2', pin: '3971' } as const;
export const DEMO_GERENTE = { codigo: '1', pin: '4826' } as const;

/** Which of the cashier's gates shows: the operator sign-in, the open-register screen, or the sale itself. */
export async function cashierGate(page: Page): Promise<'sign-in' | 'open-register' | 'sale'> {
  const signIn = page.getByTestId('operator-sign-in');
  const open = page.getByTestId('register-open');
  const code = page.getByTestId('code-input');
  await signIn.or(open).or(code).first().waitFor();
  if (await signIn.isVisible()) return 'sign-in';
  if (await open.isVisible()) return 'open-register';
  return 'sale';
}

/**
 * Leaves the cashier ready to sell: signs the demo caixa in when the sign-in shows, and opens the register
 * with a float of 100,00 when asked. A service without operators shows the sale at once.
 */
export async function readyToSell(page: Page): Promise<void> {
  let gate = await cashierGate(page);
  if (gate === 'sign-in') {
    await signIn(page, DEMO_CAIXA.codigo, DEMO_CAIXA.pin);
    gate = await cashierGate(page);
  }
  if (gate === 'open-register') await openRegister(page, '100,00');
  await page.getByTestId('code-input').waitFor();
}

/** Types codigo, Enter, PIN, Enter on the sign-in screen, as a cashier does; waits for the screen to go. */
export async function signIn(page: Page, codigo: string, pin: string): Promise<void> {
  const screen = page.getByTestId('operator-sign-in');
  await screen.waitFor();
  await page.getByTestId('signin-codigo').focus();
  await page.keyboard.type(codigo);
  await page.keyboard.press('Enter');
  await page.keyboard.type(pin);
  await page.keyboard.press('Enter');
  const error = page.getByTestId('signin-error');
  // Whichever comes first: the screen goes (signed in) or it says why not.
  // The loser's waitFor times out later: its rejection is caught so it is not an unhandled one.
  const quiet = () => undefined;
  await Promise.race([screen.waitFor({ state: 'hidden' }).catch(quiet), error.waitFor().catch(quiet)]);
  if (await screen.isVisible()) throw new Error(`sign-in refused: ${await error.textContent()}`);
}

/** Types the counted float (pt-BR text, "100,00") on the open-register screen and confirms with Enter. */
export async function openRegister(page: Page, valor: string): Promise<void> {
  const screen = page.getByTestId('register-open');
  await screen.waitFor();
  await page.getByTestId('register-float').focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(valor);
  await page.keyboard.press('Enter');
  await screen.waitFor({ state: 'hidden' });
}

export interface Catalog {
  profileId: string;
  products: { id: string; cProd: string; cEAN: string; xProd: string; vUnCom: string }[];
  customerId: string;
}

/** The shop's catalogue, as the back office registers it: a Simples Nacional profile, products, a customer. */
export async function seedCatalog(product: RunningProduct): Promise<Catalog> {
  const profile = await product.api<{ id: string }>(
    'POST',
    `/fiscal-profiles?companyId=${product.companyId}`,
    {
      name: 'Revenda Simples Nacional',
      CFOP: '5102',
      taxes: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' }, pTotTrib: '12.5' },
    },
  );
  if (profile.status !== 201) throw new Error(`profile: ${JSON.stringify(profile.body)}`);
  const rows = [
    ['1', '7891000100103', 'CAFE TORRADO 500 G', '18.90'],
    ['2', '7891000053508', 'LEITE INTEGRAL 1 L', '5.49'],
    ['3', '7894900011517', 'REFRIGERANTE COLA 2 L', '9.99'],
    ['4', '7896004000015', 'ARROZ TIPO 1 5 KG', '27.80'],
    ['5', '7891910000197', 'ACUCAR REFINADO 1 KG', '4.79'],
    ['6', '7896005800027', 'FEIJAO CARIOCA 1 KG', '8.35'],
  ] as const;
  const products = [];
  for (const [cProd, cEAN, xProd, vUnCom] of rows) {
    const p = await product.api<{ id: string }>('POST', `/products?companyId=${product.companyId}`, {
      cProd,
      cEAN,
      xProd,
      NCM: '09012100',
      uCom: 'UN',
      vUnCom,
      fiscalProfileId: profile.body.id,
    });
    if (p.status !== 201) throw new Error(`product ${cProd}: ${JSON.stringify(p.body)}`);
    products.push({ id: p.body.id, cProd, cEAN, xProd, vUnCom });
  }
  const customer = await product.api<{ id: string }>('POST', `/customers?companyId=${product.companyId}`, {
    cnpj: '11222333000181',
    xNome: 'MERCADO EXEMPLO LTDA',
    ie: '111111110110',
    indIEDest: 1,
    endereco: {
      xLgr: 'Rua das Flores',
      nro: '100',
      xBairro: 'Centro',
      cMun: '3550308',
      uf: 'SP',
      cep: '01001000',
    },
  });
  if (customer.status !== 201) throw new Error(`customer: ${JSON.stringify(customer.body)}`);
  return { profileId: profile.body.id, products, customerId: customer.body.id };
}

/** Decodes the barcodes zbarimg finds in a PNG (the receipt's QR code). */
export function decodeBarcodes(png: Buffer): string[] {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-zbar-')), 'shot.png');
  fs.writeFileSync(file, png);
  try {
    const result = spawnSync('zbarimg', ['-q', '--raw', file], { encoding: 'utf8' });
    return result.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/** Counts every key the page receives (keydown, auto-repeat excluded), so a test can check its own count. */
export async function installKeyCounter(page: Page): Promise<void> {
  await page.evaluate(INSTALL_KEY_COUNTER);
}

export async function keysSeen(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(KEYS_SEEN);
}

/**
 * Takes the screenshot every run (it also proves the page renders), but rewrites the committed copy in
 * docs/screenshots only with BALCAO_UPDATE_SCREENSHOTS=1, so that running the tests leaves the tree clean.
 */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  const dir =
    process.env['BALCAO_UPDATE_SCREENSHOTS'] === '1'
      ? screenshotsDir
      : fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-screenshot-'));
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name) });
  if (dir !== screenshotsDir) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * expect.poll with room for a loaded machine (BALCAO_UI_CPU_THROTTLE=4 is how these tests are checked): most
 * polls wait for an answer of the service, which the default 5 s does not always see under load.
 */
export function poll<T>(read: () => T | Promise<T>, options: { timeout?: number } = {}) {
  return expect.poll(read, { timeout: 30_000, ...options });
}

/** A document's page (`testId`) once its status settles on `status`: the page polls while it is on its way. */
export async function detailStatus(page: Page, testId: string, status: string): Promise<void> {
  await poll(() => page.getByTestId(testId).getAttribute('data-status'), { timeout: 60_000 }).toBe(status);
}

/** How many documents the company's §4.6 list at `route` ('/dce', '/nfse') holds: its meta.total. */
export async function listTotal(product: RunningProduct, route: string): Promise<number> {
  const list = await product.api<{ meta: { total: number } }>(
    'GET',
    `${route}?companyId=${product.companyId}&limit=1`,
  );
  return list.body.meta.total;
}

/** The error shown beside the field labelled exactly `label`. */
export const fieldErrorOf = (page: Page, label: string) =>
  page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.field-error');

/** The product of one browser test file, started by `useRunningProduct`. */
export interface UiRun {
  readonly product: RunningProduct;
  /** The seeded catalogue (only with `catalog: true`). */
  readonly catalog: Catalog;
  readonly browser: Browser;
  /** A page at 1024×768 (the smallest screen a store uses) on `hash`, past the status bar. */
  newPage(hash?: string): Promise<Page>;
}

/**
 * Registers the file's beforeAll/afterAll: the UI built, the product started (with the catalogue seeded when
 * asked, then the file's own `setup`), a browser launched; closed and stopped after. The fields are read
 * inside the tests, once beforeAll has run.
 */
export function useRunningProduct(
  options: { catalog?: boolean; setup?: (run: UiRun) => Promise<void> } = {},
): UiRun {
  let product: RunningProduct | undefined;
  let catalog: Catalog | undefined;
  let browser: Browser | undefined;
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started (read it inside a test)`);
    return value;
  };
  const run: UiRun = {
    get product() {
      return started(product, 'product');
    },
    get catalog() {
      return started(catalog, 'catalog');
    },
    get browser() {
      return started(browser, 'browser');
    },
    async newPage(hash = '/caixa') {
      const page = await run.browser.newPage({ viewport: { width: 1024, height: 768 }, locale: 'pt-BR' });
      page.on('pageerror', (e) => {
        throw e;
      });
      await throttleCpu(page);
      await page.goto(`${run.product.url}/?api_key=${encodeURIComponent(run.product.apiKey)}#${hash}`);
      await page.getByTestId('status-bar').waitFor();
      return page;
    },
  };
  beforeAll(async () => {
    await ensureUiBuilt();
    product = await startProduct();
    if (options.catalog === true) catalog = await seedCatalog(product);
    await options.setup?.(run);
    browser = await launchBrowser();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await product?.stop();
  });
  return run;
}
