// Output throughput on one core: DANFE (A4, 10 and 120 items), DACTE (A4, 10 and 150 NF-e carried), DACE (A4 and
// 100 × 150 mm label, 3 and 80 items; also as the median of 50 single renders), DANFCe (80 mm), ESC/POS receipts
// and their PNG preview, each beside a baseline measured in the same run, since the machines here are noisy:
// the PDFs against pdfkit writing one empty A4 page, the receipt against parsing the note alone.
// Run: npm run bench:outputs   (BENCH_MS sets the time per contender)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';
import { signedNote } from '../test/fixtures/outputs/notes.ts';
import { parseOutputDocument } from '../src-main/outputs/model.ts';
import { renderDanfe } from '../src-main/outputs/pdf/danfe.ts';
import { renderDanfce } from '../src-main/outputs/pdf/danfce.ts';
import { buildNfceReceipt, renderReceiptPng } from '../src-main/outputs/escpos/index.ts';
import { renderDacte } from '../src-main/outputs/pdf/dacte.ts';
import { signedCte, supplierNfeKey } from '../test/fixtures/cte-sample.ts';
import { daceModelOf } from '../src-main/outputs/dce-model.ts';
import { renderDaceA4, renderDaceLabel } from '../src-main/outputs/pdf/dace.ts';
import { dceProcXml, fixture, manyItems } from '../test/fixtures/outputs/dce.ts';

const MIN_MS = Number(process.env.BENCH_MS ?? 2000);
const here = path.dirname(fileURLToPath(import.meta.url));

const tributacao = {
  ICMS: { orig: 0, CSOSN: '102' },
  PIS: { CST: '49' },
  COFINS: { CST: '49' },
};
const customer = {
  cnpj: '11222333000181',
  nome: 'Mercado Central Ltda',
  ie: '110042490114',
  endereco: {
    logradouro: 'Rua B',
    numero: '2',
    bairro: 'Centro',
    codigoMunicipio: '3550308',
    uf: 'SP',
    cep: '01000000',
  },
};

function nfeWith(items: number): string {
  const itens = Array.from({ length: items }, (_, i) => ({
    codigo: `P${String(i + 1).padStart(4, '0')}`,
    descricao: `Parafuso sextavado de aço inoxidável ${i + 1}`,
    ncm: '73181500',
    unidade: 'CX',
    quantidade: 2,
    valor_unitario: '2.50',
    cfop: '5102',
    tributacao,
  }));
  return signedNote(55, {
    naturezaOperacao: 'Venda de mercadoria',
    customer,
    itens,
    pagamentos: [{ forma: '15', valor: (items * 5).toFixed(2) }],
  });
}

/** The signed sample CT-e of the tests (homologação) carrying `docs` NF-e, built by the pure core as the service does. */
function cteWith(docs: number): string {
  const keys = Array.from({ length: docs }, (_, i) => supplierNfeKey(1000 + i));
  return signedCte({ docsOriginarios: keys }).xml;
}

async function rate(label: string, run: () => unknown): Promise<number> {
  for (let i = 0; i < 3; i++) await run(); // warm-up: fonts, JIT
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < MIN_MS) {
    await run();
    n++;
  }
  const perSecond = (n * 1000) / (performance.now() - start);
  console.log(`${label.padEnd(44)} ${perSecond.toFixed(1).padStart(9)} /s`);
  return perSecond;
}

/** Median time of `n` single runs after a warm-up: the figure a caller waiting for one PDF sees. */
async function median(label: string, run: () => unknown, n = 50): Promise<number> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const mid =
    times.length % 2 === 1
      ? (times[(n - 1) / 2] as number)
      : ((times[n / 2 - 1] as number) + (times[n / 2] as number)) / 2;
  console.log(`${label.padEnd(44)} ${mid.toFixed(1).padStart(9)} ms (median of ${n})`);
  return mid;
}

function emptyPdf(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', margin: 0 });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.text('Balcao');
    doc.end();
  });
}

const nfe10 = parseOutputDocument(nfeWith(10));
const nfe120 = parseOutputDocument(nfeWith(120));
const nfceXml = fs.readFileSync(path.join(here, '../test/fixtures/escpos/nfce-autorizada.xml'), 'utf8');
const nfce = parseOutputDocument(nfceXml);
const receipt = buildNfceReceipt(nfce, { largura: 80, cut: true });
const cte10 = cteWith(10);
const cte150 = cteWith(150);
const dce3 = dceProcXml(fixture());
const dce80 = dceProcXml(fixture({ items: manyItems(80) }));

console.log(`outputs bench, ${MIN_MS} ms per contender, one core`);
const blank = await rate('baseline: pdfkit, one empty A4 page', emptyPdf);
const danfe10 = await rate('DANFE A4, 10 items', () => renderDanfe(nfe10));
const danfe120 = await rate('DANFE A4, 120 items (multi-page)', () => renderDanfe(nfe120));
const dacte10 = await rate('DACTE A4, 10 NF-e carried (parse + render)', () =>
  renderDacte({ cteXml: cte10, cancelled: false }),
);
const dacte150 = await rate('DACTE A4, 150 NF-e carried (multi-page)', () =>
  renderDacte({ cteXml: cte150, cancelled: false }),
);
const daceA4 = await rate('DACE A4, 3 items (parse + render)', () => renderDaceA4(daceModelOf(dce3)));
await rate('DACE A4, 80 items (2 pages)', () => renderDaceA4(daceModelOf(dce80)));
const daceLabel = await rate('DACE label 100 x 150 mm, 3 items', () => renderDaceLabel(daceModelOf(dce3)));
await median('DACE A4, 3 items', () => renderDaceA4(daceModelOf(dce3)));
await median('DACE A4, 80 items', () => renderDaceA4(daceModelOf(dce80)));
await median('DACE label, 3 items', () => renderDaceLabel(daceModelOf(dce3)));
await median('DACE label, 80 items ("e mais N itens")', () => renderDaceLabel(daceModelOf(dce80)));
const danfce = await rate('DANFCe 80 mm', () => renderDanfce(nfce, { width: 80 }));
const parse = await rate('baseline: parse the NFC-e (nfeProc)', () => parseOutputDocument(nfceXml));
const escpos = await rate('ESC/POS 80 mm (parse + build)', () =>
  buildNfceReceipt(parseOutputDocument(nfceXml), { largura: 80, cut: true }),
);
// The split of a receipt: the build from a parsed note, beside parse + build above.
const build = await rate('ESC/POS 80 mm, build alone (note parsed)', () =>
  buildNfceReceipt(nfce, { largura: 80, cut: true }),
);
const raster = await rate('ESC/POS 80 mm, raster QR (parse + build)', () =>
  buildNfceReceipt(parseOutputDocument(nfceXml), {
    largura: 80,
    cut: true,
    profile: { qr: 'raster', codePage: 'pc850' },
  }),
);
const preview = await rate('receipt preview PNG 80 mm', () => renderReceiptPng(receipt, { largura: 80 }));

console.log('\nratios (same run):');
console.log(`  DANFE 10 items / empty pdfkit page      ${(danfe10 / blank).toFixed(3)}`);
console.log(`  DANFE 120 items / empty pdfkit page     ${(danfe120 / blank).toFixed(3)}`);
console.log(`  DACTE 10 NF-e / empty pdfkit page      ${(dacte10 / blank).toFixed(3)}`);
console.log(`  DACTE 10 NF-e / DANFE 10 items          ${(dacte10 / danfe10).toFixed(3)}`);
console.log(`  DACTE 150 NF-e / DANFE 120 items        ${(dacte150 / danfe120).toFixed(3)}`);
console.log(`  DACE A4 3 items / DACTE 10 NF-e         ${(daceA4 / dacte10).toFixed(3)}`);
console.log(`  DACE label / DACE A4                    ${(daceLabel / daceA4).toFixed(3)}`);
console.log(`  DANFCe 80 mm / empty pdfkit page        ${(danfce / blank).toFixed(3)}`);
console.log(`  ESC/POS / parsing alone                 ${(escpos / parse).toFixed(3)}`);
console.log(`  ESC/POS build alone / parse + build     ${(build / escpos).toFixed(3)}`);
console.log(`  ESC/POS raster / parsing alone          ${(raster / parse).toFixed(3)}`);
console.log(`  preview PNG / ESC/POS                   ${(preview / escpos).toFixed(3)}`);
