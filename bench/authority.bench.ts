// Sale → authorization time against the sandbox authority over real HTTPS with mutual TLS, and the time to
// issue a sale offline (tpEmis 9) when the authority refuses connections. Medians and p99 in ms.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src-main/logger.ts';
import { startService } from '../src-main/service.ts';
import { sellNfce } from '../src-main/documents/issue.ts';

const SALES = Number(process.env['BENCH_SALES'] ?? 200);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-authority-'));
const service = await startService(
  { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
  { logger: createLogger('silent'), startWorker: false },
);
const sandbox = service.sandbox;
const companyId = service.bootstrap.sandbox?.companyId;
if (sandbox === null || companyId === undefined) throw new Error('the bench needs the embedded sandbox');
const deps = {
  db: service.db,
  clock: { now: () => new Date() },
  secrets: service.secrets,
  worker: service.worker,
};
const sale = {
  natureza_operacao: 'VENDA AO CONSUMIDOR',
  cpf_consumidor: '52998224725',
  itens: [1, 2, 3].map((i) => ({
    codigo: `P${i}`,
    descricao: `Produto ${i}`,
    ncm: '22011000',
    unidade: 'UN',
    quantidade: i,
    valor_unitario: '4.50',
    cfop: '5102',
    tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
  })),
  pagamentos: [{ forma: 'dinheiro', valor: '50.00' }],
};

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return `median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, n ${sorted.length}`;
}

async function measure(label: string, expectMode: 'online' | 'offline'): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < SALES; i++) {
    const start = performance.now();
    const result = await sellNfce(deps, companyId as string, sale, 3000);
    times.push(performance.now() - start);
    if (result.mode !== expectMode) throw new Error(`${label}: sale ${i} ended ${result.mode}`);
  }
  return stats(times);
}

for (let i = 0; i < 10; i++) await sellNfce(deps, companyId, sale, 3000); // warm-up: TLS session, schemas
const online = await measure('online', 'online');
console.log(`sale → authorized (sandbox, HTTPS + mTLS): ${online}`);
await sandbox.faults.setOnline(false);
await sellNfce(deps, companyId, sale, 3000); // the first offline sale waits for the refusal, then switches
const offline = await measure('offline', 'offline');
console.log(`sale issued offline (tpEmis 9): ${offline}`);
await sandbox.faults.setOnline(true);
await service.close();
console.log(`authority: online ${online}; offline ${offline}`);
