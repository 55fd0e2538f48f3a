// bench:http's cashiers in a process of their own (BENCH_LOAD=process), as real cashiers are other programs: the
// clients' request building, fetch and JSON parsing then leave the service's thread alone. Its first stdin line is
// the target `{base, keys, run}`; each next line `{clients, total, first}` runs that many sales and is answered
// with one JSON line `{latencies, failures, seconds}`.
import readline from 'node:readline';
import { runSales, type SaleClients } from './sale-clients.ts';

let target: SaleClients | null = null;
for await (const line of readline.createInterface({ input: process.stdin })) {
  const message = JSON.parse(line) as SaleClients | { clients: number; total: number; first: number };
  if ('base' in message) {
    target = message;
    continue;
  }
  if (target === null) throw new Error('load process: the target comes first');
  const run = await runSales(target, message.clients, message.total, message.first);
  process.stdout.write(`${JSON.stringify(run)}\n`);
}
