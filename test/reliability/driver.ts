// A cashier terminal for the reliability test: runs the real service on a data dir against an external
// sandbox authority and sells NFC-e until the data dir holds `target` sales; the test kills it at random.
import { createLogger } from '../../src-main/logger.ts';
import { startService } from '../../src-main/service.ts';
import { sellNfce } from '../../src-main/documents/issue.ts';

const [dataDir, sandboxUrl, caPem, targetText] = [
  process.env['DRIVER_DATA_DIR'],
  process.env['DRIVER_SANDBOX_URL'],
  process.env['DRIVER_SANDBOX_CA'],
  process.env['DRIVER_TARGET'],
];
if (dataDir === undefined || sandboxUrl === undefined || caPem === undefined || targetText === undefined) {
  throw new Error('DRIVER_DATA_DIR, DRIVER_SANDBOX_URL, DRIVER_SANDBOX_CA and DRIVER_TARGET are required');
}
const target = Number(targetText);
const drainOnly = process.env['DRIVER_DRAIN'] === '1';

const service = await startService(
  { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
  {
    logger: createLogger('silent'),
    sandbox: { url: sandboxUrl, caPem },
    outbox: { pollMs: 50, baseBackoffMs: 40, maxBackoffMs: 400, requestTimeoutMs: 400 },
  },
);
const companyId = service.bootstrap.sandbox?.companyId;
if (companyId === undefined) throw new Error('no sandbox company in the data dir');
const deps = {
  db: service.db,
  clock: { now: () => new Date() },
  secrets: service.secrets,
  worker: service.worker,
};

const sale = (n: number) => ({
  itens: [
    {
      codigo: `P${n % 7}`,
      descricao: `Produto ${n % 7}`,
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 1 + (n % 3),
      valor_unitario: `${2 + (n % 5)}.90`,
      cfop: '5102',
      tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
    },
  ],
  pagamentos: [{ forma: 'dinheiro', valor: '100.00' }],
});

async function salesSoFar(): Promise<number> {
  // A sale is one original attempt; contingency re-issues point back to it with `replaces`.
  const row = await service.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('replaces', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

process.stdout.write('ready\n');
if (drainOnly) {
  for (;;) {
    const open = await service.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('state', 'in', ['pending', 'unknown', 'in_flight'])
      .executeTakeFirstOrThrow();
    process.stdout.write(`open ${open.n}\n`);
    if (Number(open.n) === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
} else {
  let done = await salesSoFar();
  while (done < target) {
    const result = await sellNfce(deps, companyId, sale(done), 300);
    done += 1;
    process.stdout.write(`sale ${done} ${result.mode} ${result.document.status}\n`);
    // A cashier's pace: the queue transmits between sales, under the same faults.
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}
await service.close();
process.exit(0);
