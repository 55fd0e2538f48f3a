// Benchmark of the whole pure NFC-e path (normalize → taxes → XML → sign → QR → schema validation) on one
// core, beside bare RSA-2048 signing with the same key in the same run. Last line:
// `fiscal: <n> docs/s, bare RSA <m>/s, ratio <r>`.
import { sign } from 'node:crypto';
import { prepareNfe } from '../src-main/fiscal/nfe/prepare.ts';
import { signingKeyFrom, signXmlDetailed } from '../src-main/fiscal/sign.ts';
import { normalizeNfe } from '../src-main/fiscal/nfe/normalize.ts';
import { computeTaxes } from '../src-main/fiscal/taxes/compute.ts';
import { buildNfe } from '../src-main/fiscal/nfe/build.ts';
import { validateXml } from '../src-main/fiscal/schema.ts';
import { prepareContext, testCertificate } from '../test/fixtures/fiscal.ts';

const ITEMS = Number(process.env['BENCH_ITEMS'] ?? 5);
const ROUNDS = 5;
const ROUND_MS = 1500;

const payload = {
  natureza_operacao: 'VENDA AO CONSUMIDOR',
  cpf_consumidor: '529.982.247-25',
  itens: Array.from({ length: ITEMS }, (_, i) => ({
    codigo: `P${i}`,
    descricao: `Produto de teste número ${i}`,
    ncm: '22030000',
    unidade: 'UN',
    quantidade: String(1 + (i % 3)),
    valor_unitario: `${4 + i}.99`,
    fiscal_profile_id: 'fpr_sn',
  })),
  pagamentos: [{ metodo: 'dinheiro', valor: '500.00' }],
};

const ctx = prepareContext(65);
const key = signingKeyFrom(testCertificate()).keyObject;
// A SignedInfo is about 500 bytes; bare RSA signs a buffer of that size.
const signedInfo = Buffer.alloc(520, 'a');

function rate(work: () => void): number {
  const end = performance.now() + ROUND_MS;
  let n = 0;
  const start = performance.now();
  while (performance.now() < end) {
    work();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

const first = prepareNfe(payload, ctx);
if (!first.ok) throw new Error(`bench payload does not prepare: ${JSON.stringify(first.errors)}`);
console.log(`NFC-e with ${ITEMS} items: ${first.document.xml.length} bytes`);

let best = { fiscal: 0, rsa: 0 };
// Interleaved rounds, best of each: the machine is shared and noisy.
for (let r = 0; r < ROUNDS; r++) {
  const fiscal = rate(() => {
    const result = prepareNfe(payload, ctx);
    if (!result.ok) throw new Error('prepare failed');
  });
  const rsa = rate(() => sign('sha1', signedInfo, key));
  best = { fiscal: Math.max(best.fiscal, fiscal), rsa: Math.max(best.rsa, rsa) };
  console.log(`round ${r + 1}: fiscal ${fiscal.toFixed(0)}/s, bare RSA ${rsa.toFixed(0)}/s`);
}
// Where the time goes, measured on the same document: the XSD check and the RSA signature are fixed costs.
const doc = first.document.xml;
const unsigned = doc.replace(/<infNFeSupl>.*<\/NFe>$/, '</NFe>');
const stages = {
  'normalize + taxes + XML': rate(() => {
    const n = normalizeNfe(payload, ctx);
    if (!n.ok) throw new Error('normalize failed');
    const t = computeTaxes(n.model);
    if (!t.ok) throw new Error('taxes failed');
    buildNfe(n.model, t.note);
  }),
  'sign (digest + RSA)': rate(() => signXmlDetailed(unsigned, { tag: 'infNFe', cert: ctx.certificate })),
  'XSD validation': rate(() => validateXml(doc, 'nfe')),
};
for (const [stage, perSecond] of Object.entries(stages)) {
  console.log(`  ${stage}: ${perSecond.toFixed(0)}/s (${(1e6 / perSecond).toFixed(0)} µs each)`);
}
console.log(
  `fiscal: ${best.fiscal.toFixed(0)} docs/s, bare RSA ${best.rsa.toFixed(0)}/s, ratio ${(best.fiscal / best.rsa).toFixed(2)}`,
);
