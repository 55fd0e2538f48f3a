// The pure NFC-e path the fiscal bench measures (its sale, context, RSA key and rate loop), shared so other
// benches can print the same run's fiscal-path rate beside their own figures.
import { sign } from 'node:crypto';
import { prepareNfe } from '../src-main/fiscal/nfe/prepare.ts';
import { signingKeyFrom } from '../src-main/fiscal/sign.ts';
import { prepareContext, testCertificate } from '../test/fixtures/fiscal.ts';

export const ITEMS = Number(process.env['BENCH_ITEMS'] ?? 5);

export const payload = {
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

export const ctx = prepareContext(65);
const key = signingKeyFrom(testCertificate()).keyObject;
// A SignedInfo is about 500 bytes; bare RSA signs a buffer of that size.
const signedInfo = Buffer.alloc(520, 'a');

/** Calls of `work` per second over `ms` milliseconds. */
export function rate(work: () => void, ms: number): number {
  const end = performance.now() + ms;
  let n = 0;
  const start = performance.now();
  while (performance.now() < end) {
    work();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

/** One NFC-e through the whole pure path: normalize → taxes → XML → sign → QR → schema validation. */
export function fiscalPath(): void {
  const result = prepareNfe(payload, ctx);
  if (!result.ok) throw new Error('prepare failed');
}

/** Bare RSA-2048 signing of a SignedInfo-sized buffer with the same key. */
export function bareRsa(): void {
  sign('sha1', signedInfo, key);
}
