// Benchmark of XSD validation: cold compile of the NF-e PL_010 validator and warm validations per second of
// the NFC-e reference sample. Run: npx tsx bench/schema.bench.ts
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

// The repository lives at <x>/main and the shared reference material at <x>/shared.
const samplePath = fileURLToPath(
  new URL('../../shared/reference/samples/nfce/nfce_com_qrcode.xml', import.meta.url),
);
const nfce = fs.readFileSync(samplePath, 'utf8');
const broken = nfce.replace('<NCM>87083090</NCM>', '<NCM>1234567</NCM>');

// Imported dynamically so that instantiating the WebAssembly module is timed apart from compiling the XSD.
let t = performance.now();
await import('libxml2-wasm');
const wasmMs = performance.now() - t;
const { clearSchemaCache, preloadSchemas, SCHEMA_NAMES, validateXml } =
  await import('../src-main/fiscal/schema.ts');

t = performance.now();
preloadSchemas(['nfe'], { package: 'PL_010' });
const compileMs = performance.now() - t;

t = performance.now();
preloadSchemas(['nfe'], { package: 'PL_009' });
const compile009Ms = performance.now() - t;

t = performance.now();
preloadSchemas(SCHEMA_NAMES, { package: 'PL_010' });
preloadSchemas(SCHEMA_NAMES, { package: 'PL_009' });
const compileAllMs = performance.now() - t;

if (!validateXml(nfce, 'nfe').valid || validateXml(broken, 'nfe').valid)
  throw new Error('unexpected verdict');

function rate(xml: string, seconds: number): number {
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    validateXml(xml, 'nfe');
    n++;
  }
  return n / ((performance.now() - start) / 1000);
}

rate(nfce, 0.5); // JIT warm-up
// The loops are synchronous: libxml2-wasm's WeakRefs keep each disposed wrapper alive until the job ends,
// so the JS heap grows during a loop and is given back afterwards (WASM memory itself stays flat).
const rssBefore = process.memoryUsage().rss;
const validPerSecond = rate(nfce, 3);
const invalidPerSecond = rate(broken, 1);
const rssAfter = process.memoryUsage().rss;

// A compile from scratch again, now that the JIT is warm: the cost of clearSchemaCache() + first use.
clearSchemaCache();
t = performance.now();
preloadSchemas(['nfe'], { package: 'PL_010' });
const recompileMs = performance.now() - t;

const ms = (x: number): string => x.toFixed(1);
console.log(`import libxml2-wasm (WebAssembly instantiation, once per process): ${ms(wasmMs)} ms`);
console.log(
  `compile nfe PL_010 (cold): ${ms(compileMs)} ms; again after clearSchemaCache: ${ms(recompileMs)} ms`,
);
console.log(`compile nfe PL_009: ${ms(compile009Ms)} ms`);
console.log(`compile every other schema of both packages: ${ms(compileAllMs)} ms`);
console.log(
  `NFC-e sample (${nfce.length} chars): ${validPerSecond.toFixed(0)} valid/s, ${invalidPerSecond.toFixed(0)} invalid/s`,
);
console.log(
  `rss ${(rssBefore / 2 ** 20).toFixed(0)} MiB -> ${(rssAfter / 2 ** 20).toFixed(0)} MiB over the runs`,
);
console.log(`schema: ${validPerSecond.toFixed(0)} validations/s, compile ${ms(compileMs)} ms`);
