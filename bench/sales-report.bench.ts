// The back office's sales report (GET /v1/reports/sales) over a period of real notes: 300 NFC-e of 1 to 8
// items sold through the running service and its sandbox authority, then the report computed in-process per
// grouping. `agrupar=dia` reads the same rows without opening any XML: it is the baseline the ratios use,
// since the machines here are noisy. `produto` reads each note's det items; the items alone are timed both
// ways on the same rows: the whole output model of each note (what `produto` did before) and the prod groups.
// Run: npm run bench:sales-report   (BENCH_NOTES sets the notes, BENCH_MS the time per contender)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src-main/logger.ts';
import { startService } from '../src-main/service.ts';
import { salesReport } from '../src-main/register/sales-report.ts';
import { outputDocumentOf } from '../src-main/outputs/document.ts';
import { itemsOfXml } from '../src-main/register/det.ts';

const NOTES = Number(process.env['BENCH_NOTES'] ?? 300);
const MIN_MS = Number(process.env['BENCH_MS'] ?? 2000);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-report-'));
const service = await startService(
  { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
  { logger: createLogger('silent') },
);
const sandbox = service.bootstrap.sandbox;
if (sandbox === null) throw new Error('the bench needs the sandbox bootstrap');
const { companyId } = sandbox;

const sale = (n: number) => ({
  itens: Array.from({ length: 1 + (n % 8) }, (_, i) => ({
    codigo: `P${(n + i) % 40}`,
    descricao: `Produto de teste número ${(n + i) % 40} & cia`,
    ncm: '22011000',
    quantidade: 1 + ((n + i) % 3),
    valorUnitario: 3.9,
  })),
  pagamentos: [{ forma: '01', valor: 100 }],
});

async function sell(n: number): Promise<void> {
  for (;;) {
    const res = await fetch(`${service.url}/v1/nfce/venda`, {
      method: 'POST',
      headers: { 'X-API-Key': sandbox?.apiKey ?? '', 'Content-Type': 'application/json' },
      body: JSON.stringify(sale(n)),
    });
    if (res.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    if (res.status !== 201) throw new Error(`sale ${n}: ${res.status} ${await res.text()}`);
    return;
  }
}

async function rate(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await run(); // warm-up: JIT, SQLite page cache
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < MIN_MS) {
    await run();
    n++;
  }
  return (performance.now() - start) / n;
}

try {
  const startSales = performance.now();
  for (let n = 0; n < NOTES; n++) await sell(n);
  console.log(`${NOTES} NFC-e sold in ${((performance.now() - startSales) / 1000).toFixed(1)} s`);

  const today = new Date();
  const from = new Date(today.getTime() - 2 * 86_400_000).toISOString().slice(0, 10);
  const to = new Date(today.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
  const report = (agrupar: 'dia' | 'metodo' | 'produto') => () =>
    salesReport(service.db, companyId, { de: from, ate: to, agrupar });
  const check = await report('produto')();
  if (check.vendas !== NOTES) throw new Error(`report counted ${check.vendas} of ${NOTES} notes`);

  // The items alone, read the two ways from the same rows: the whole output model (before) and the det
  // items (after); each must find every item.
  const notes = await service.db
    .selectFrom('documents')
    .select(['status', 'xml', 'proc_xml'])
    .where('company_id', '=', companyId)
    .execute();
  const wholeModel = async () => notes.reduce((sum, row) => sum + outputDocumentOf(row).items.length, 0);
  const detItems = async () => notes.reduce((sum, row) => sum + (itemsOfXml(row.xml)?.length ?? NaN), 0);
  if ((await wholeModel()) !== (await detItems())) throw new Error('the det items differ from the model');

  const baseline = await rate(report('dia'));
  const rows: [string, number][] = [
    ['dia (baseline: no XML read)', baseline],
    ['metodo (pag group)', await rate(report('metodo'))],
    ['produto (det items)', await rate(report('produto'))],
    ['items: whole output model (before)', await rate(wholeModel)],
    ['items: det prod groups (after)', await rate(detItems)],
  ];
  console.log(`\nsales report over ${NOTES} notes, ms per report (ratio to the baseline)`);
  for (const [label, ms] of rows) {
    console.log(`  ${label.padEnd(42)} ${ms.toFixed(1).padStart(8)} ms  x${(ms / baseline).toFixed(1)}`);
  }
} finally {
  await service.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
