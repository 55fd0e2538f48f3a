// Benchmark of XSD validation: cold compile of the NF-e PL_010 validator and warm validations per second of
// the NFC-e reference sample: validateXml as the product calls it (compiled check first), libxml2 alone and the
// compiled check alone, in the same run. Run: npx tsx bench/schema.bench.ts
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

const { validateCompiled } = await import('../src-main/fiscal/xsd-compiled/index.ts');
if (!validateCompiled(nfce, 'nfe').ok || validateCompiled(broken, 'nfe').ok)
  throw new Error('unexpected verdict');

type Engine = 'compiled-first' | 'libxml2' | 'compiled';
function rate(xml: string, seconds: number, engine: Engine = 'compiled-first'): number {
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    if (engine === 'compiled') validateCompiled(xml, 'nfe');
    else validateXml(xml, 'nfe', { engine });
    n++;
  }
  return n / ((performance.now() - start) / 1000);
}

rate(nfce, 0.5); // JIT warm-up
rate(nfce, 0.5, 'libxml2');
// The loops are synchronous: libxml2-wasm's WeakRefs keep each disposed wrapper alive until the job ends,
// so the JS heap grows during a loop and is given back afterwards (WASM memory itself stays flat).
const rssBefore = process.memoryUsage().rss;
// Interleaved rounds, best of each: the machine is shared and noisy. validateXml's default (compiled-first)
// answers a valid document without libxml2; an invalid one is checked by both, so libxml2 gives the message.
const best = { compiledFirst: 0, libxml2: 0, compiled: 0, invalid: 0, invalidLibxml2: 0 };
for (let r = 0; r < 3; r++) {
  best.compiledFirst = Math.max(best.compiledFirst, rate(nfce, 1));
  best.libxml2 = Math.max(best.libxml2, rate(nfce, 1, 'libxml2'));
  best.compiled = Math.max(best.compiled, rate(nfce, 1, 'compiled'));
  best.invalid = Math.max(best.invalid, rate(broken, 0.3));
  best.invalidLibxml2 = Math.max(best.invalidLibxml2, rate(broken, 0.3, 'libxml2'));
}
const validPerSecond = best.compiledFirst;
const invalidPerSecond = best.invalid;
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
  `NFC-e sample (${nfce.length} chars): ${validPerSecond.toFixed(0)} valid/s, ${invalidPerSecond.toFixed(0)} invalid/s ` +
    `(libxml2 alone: ${best.libxml2.toFixed(0)} valid/s, ${best.invalidLibxml2.toFixed(0)} invalid/s)`,
);
console.log(
  `compiled check alone ${best.compiled.toFixed(0)}/s (${(1e6 / best.compiled).toFixed(0)} µs) vs libxml2 ` +
    `${best.libxml2.toFixed(0)}/s (${(1e6 / best.libxml2).toFixed(0)} µs): ${(best.compiled / best.libxml2).toFixed(1)}x`,
);
console.log(
  `rss ${(rssBefore / 2 ** 20).toFixed(0)} MiB -> ${(rssAfter / 2 ** 20).toFixed(0)} MiB over the runs`,
);
console.log(`schema: ${validPerSecond.toFixed(0)} validations/s, compile ${ms(compileMs)} ms`);
