// The cashiers of bench:http: NFC-e sales over POST /v1/nfce/venda, each with its own Idempotency-Key, run by
// `clients` concurrent loops. Shared by the bench's own process and bench/load-process.ts (BENCH_LOAD=process),
// which runs them in a process of their own so the clients' HTTP work leaves the service's thread alone.

export interface SaleClients {
  /** The service's /v1 base URL. */
  base: string;
  /** API keys the sales take in turn (a key's plan allows 50 requests a second, which one client nears). */
  keys: readonly string[];
  /** Distinct per bench run, so a retried sale replays its own answer and never one of an earlier run. */
  run: string;
}

/** Latencies (ms, in completion order) and the statuses of the sales that did not come back authorized. */
export interface SalesRun {
  latencies: number[];
  failures: string[];
  seconds: number;
}

/** The body of the `n`th bench sale: one of seven products, 1 to 3 units, paid in cash. */
export const saleBody = (n: number) =>
  JSON.stringify({
    itens: [
      {
        codigo: `P${n % 7}`,
        descricao: `Produto ${n % 7}`,
        ncm: '22011000',
        quantidade: 1 + (n % 3),
        valorUnitario: 3.9,
      },
    ],
    pagamentos: [{ forma: '01', valor: 20 }],
  });

/**
 * One sale; its status (HTTP status when it was refused) unless it came back authorized. The server closes
 * keep-alive sockets that stayed idle (after the store's fill, say): a request that meets a closed socket is
 * sent again with the same Idempotency-Key, so it can never sell twice.
 */
async function sell(target: SaleClients, n: number, retried = false): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(`${target.base}/nfce/venda`, {
      method: 'POST',
      headers: {
        'X-API-Key': target.keys[n % target.keys.length] ?? '',
        'Content-Type': 'application/json',
        'Idempotency-Key': `bench-${target.run}-${n}`,
      },
      body: saleBody(n),
    });
  } catch (error) {
    if (retried) throw error;
    return sell(target, n, true);
  }
  const doc = (await res.json()) as { status?: string };
  if (res.status === 201 && doc.status === 'autorizada') return null;
  return res.status === 201 ? (doc.status ?? '?') : String(res.status);
}

/** `clients` cashiers selling `total` notes between them back to back, numbered from `first`. */
export async function runSales(
  target: SaleClients,
  clients: number,
  total: number,
  first: number,
): Promise<SalesRun> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = first;
  const perClient = Math.ceil(total / clients);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = 0; i < perClient; i++) {
        const t = performance.now();
        const failure = await sell(target, next++);
        if (failure !== null) failures.push(failure);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, failures, seconds: (performance.now() - started) / 1000 };
}
