// Dynamic PIX at the counter, timed in Chromium against `npm start` with the embedded sandbox PSP: from the key
// press that chooses PIX to the "venda concluída" screen (QR shown, payment simulated through the sandbox
// API, the charge seen paid by the screen's polling, the NFC-e authorized), beside a cash sale of the same
// item in the same run as the baseline. p50/p99 in ms; BENCH_RUNS runs each (default 30).
import type { Page } from 'playwright-core';
import {
  ensureUiBuilt,
  launchBrowser,
  openUi,
  seedCatalog,
  startProduct,
  type RunningProduct,
} from '../test/ui/harness.ts';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 30);

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return `p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, min ${at(0).toFixed(0)}, max ${at(1).toFixed(0)}, n ${sorted.length}`;
}

async function ringUp(page: Page, ean: string): Promise<void> {
  await page.getByTestId('sale-done').waitFor({ state: 'detached' });
  await page.keyboard.type(ean);
  await page.keyboard.press('Enter');
  // A string: the service's type check has no DOM (see test/ui/in-page.ts).
  await page.waitForFunction(
    "document.querySelector('[data-testid=item-count]')?.textContent === '1'",
    undefined,
    {
      polling: 'raf',
    },
  );
  await page.keyboard.press('F10');
  await page.getByTestId('payment-panel').waitFor();
}

async function pixSale(page: Page, product: RunningProduct, ean: string) {
  await ringUp(page, ean);
  const start = performance.now();
  await page.keyboard.press('4');
  await page.keyboard.press('Enter');
  const screen = page.getByTestId('pix-charge');
  await page.getByTestId('pix-qr').waitFor();
  const qrShown = performance.now();
  const txid = await screen.getAttribute('data-txid');
  // The customer's bank pays: the sandbox API, as another device would.
  const paid = await product.api('POST', `/sandbox/pix/charges/${txid ?? ''}/pay`);
  if (paid.status !== 200) throw new Error(`pay: ${JSON.stringify(paid.body)}`);
  const paidAt = performance.now();
  await page.getByTestId('sale-done').waitFor();
  const done = performance.now();
  await page.keyboard.press('Escape');
  return { total: done - start, qr: qrShown - start, afterPayment: done - paidAt };
}

async function cashSale(page: Page, ean: string): Promise<number> {
  await ringUp(page, ean);
  const start = performance.now();
  await page.keyboard.press('1');
  await page.keyboard.press('Enter');
  await page.getByTestId('sale-done').waitFor();
  const done = performance.now() - start;
  await page.keyboard.press('Escape');
  return done;
}

await ensureUiBuilt();
const product = await startProduct();
const browser = await launchBrowser();
try {
  const catalog = await seedCatalog(product);
  const ean = catalog.products[0]?.cEAN ?? '';
  const page = await openUi(browser, product);
  await pixSale(page, product, ean); // warm-up: TLS sessions, token, schemas
  await cashSale(page, ean);
  const pix = { total: [] as number[], qr: [] as number[], afterPayment: [] as number[] };
  const cash: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const run = await pixSale(page, product, ean);
    pix.total.push(run.total);
    pix.qr.push(run.qr);
    pix.afterPayment.push(run.afterPayment);
    cash.push(await cashSale(page, ean));
  }
  console.log(
    `PIX key press → venda concluída (browser, sandbox PSP over HTTPS + mTLS): ${stats(pix.total)}`,
  );
  console.log(`  key press → QR on screen: ${stats(pix.qr)}`);
  console.log(
    `  payment at the PSP → venda concluída (polling 1 s, NFC-e authorized): ${stats(pix.afterPayment)}`,
  );
  console.log(`cash key press → venda concluída (same run, baseline): ${stats(cash)}`);
} finally {
  await browser.close();
  await product.stop();
}
