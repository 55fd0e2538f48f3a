// What the reliability drivers (NFC-e and CT-e terminals) share: the real service started from the DRIVER_*
// environment on its data dir against the external sandbox authority, the cashier's sale, and the run itself
// (a "ready" line, then either the driver's work or, with DRIVER_DRAIN=1, waiting for the queue to empty).
import { createLogger } from '../../src-main/logger.ts';
import { startService, type RunningService } from '../../src-main/service.ts';

export interface Terminal {
  service: RunningService;
  companyId: string;
  deps: {
    db: RunningService['db'];
    clock: { now: () => Date };
    secrets: RunningService['secrets'];
    worker: RunningService['worker'];
  };
  /** DRIVER_TARGET: how many documents the data dir must hold when the driver is done. */
  target: number;
}

/** Runs `work` on a terminal (or only drains its queue) and exits the process when done. */
export async function runTerminal(work: (terminal: Terminal) => Promise<void>): Promise<never> {
  const [dataDir, sandboxUrl, caPem, targetText] = [
    process.env['DRIVER_DATA_DIR'],
    process.env['DRIVER_SANDBOX_URL'],
    process.env['DRIVER_SANDBOX_CA'],
    process.env['DRIVER_TARGET'],
  ];
  if (dataDir === undefined || sandboxUrl === undefined || caPem === undefined || targetText === undefined) {
    throw new Error('DRIVER_DATA_DIR, DRIVER_SANDBOX_URL, DRIVER_SANDBOX_CA and DRIVER_TARGET are required');
  }
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

  process.stdout.write('ready\n');
  if (process.env['DRIVER_DRAIN'] === '1') await drain(service);
  else await work({ service, companyId, deps, target: Number(targetText) });
  await service.close();
  process.exit(0);
}

async function drain(service: RunningService): Promise<void> {
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
}

/** The `n`th cash sale of one item (of `quantidade` units), CSOSN 102. */
export function sale(n: number, quantidade: number) {
  return {
    itens: [
      {
        codigo: `P${n % 7}`,
        descricao: `Produto ${n % 7}`,
        ncm: '22011000',
        unidade: 'UN',
        quantidade,
        valor_unitario: `${2 + (n % 5)}.90`,
        cfop: '5102',
        tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
      },
    ],
    pagamentos: [{ forma: 'dinheiro', valor: '100.00' }],
  };
}
