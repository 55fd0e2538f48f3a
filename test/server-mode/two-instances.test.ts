// Server mode's reliability test (issue 18, item 3): two complete service instances (each its HTTP port, its
// queue, webhook and print workers) on ONE PostgreSQL database and one sandbox authority, as behind a load
// balancer. Cashiers sell on both at once, online and then in offline contingency, whose queue both drain.
// Afterwards: one serie's numbers without a gap or a repeat, every note authorized exactly once by the
// authority's own records, and every queue message, webhook delivery and print job done once.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnPostgres } from '../api/harness.ts';
import { FakePrinter } from '../printing/fake-printer.ts';
import {
  expectEachNoteOnce,
  expectGaplessSeries,
  startCluster,
  type Cluster,
  type Instance,
} from './instances.ts';

/** Sales per cashier; cashiers per instance. Online: 2 instances x 4 cashiers x 10 = 80 NFC-e. */
const ONLINE = { cashiers: 4, sales: 10 };
/** In offline contingency: 2 instances x 2 cashiers x 3 = 12 NFC-e. */
const OFFLINE = { cashiers: 2, sales: 3 };
/** Sales whose request the load balancer sends to both instances at once, with one Idempotency-Key. */
const DOUBLED = 4;
const SALES = 2 * ONLINE.cashiers * ONLINE.sales + 2 * OFFLINE.cashiers * OFFLINE.sales + DOUBLED;

function sale(n: number) {
  return {
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
    pagamentos: [{ metodo: 'dinheiro', valor: '100.00' }],
  };
}

/** A webhook receiver that counts the requests of each delivery id (X-SVC-Delivery). */
class Receiver {
  readonly seen = new Map<string, number>();
  private readonly server = http.createServer((req, res) => {
    const id = String(req.headers['x-svc-delivery'] ?? '');
    req.resume();
    req.on('end', () => {
      this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
      // A receiver that takes its time: deliveries stay in flight long enough for an instance that starts
      // meanwhile to find some in its recovery.
      setTimeout(() => res.writeHead(200).end('ok'), 25);
    });
  });
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let cluster: Cluster;
const receiver = new Receiver();
const printer = new FakePrinter();
let saleNumber = 0;

/** One cashier: `count` sales one after another on `instance`, each with its own Idempotency-Key. */
async function cashier(instance: Instance, companyId: string, count: number): Promise<string[]> {
  const statuses: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = ++saleNumber;
    const res = await instance.request('POST', `/v1/nfce/venda?companyId=${companyId}`, sale(n), {
      'Idempotency-Key': `two-instances-sale-${n}`,
    });
    if (res.status !== 201) throw new Error(`sale ${n} answered ${res.status}: ${res.text}`);
    statuses.push((res.body as { status: string }).status);
  }
  return statuses;
}

/**
 * One sale sent to both instances at once with the same Idempotency-Key: one runs it, the other waits for its
 * answer and replays it (or answers 409 if the wait runs out). Either way one note.
 */
async function doubled(companyId: string): Promise<{ ids: string[]; statuses: number[] }> {
  const n = ++saleNumber;
  const answers = await Promise.all(
    cluster.instances.map((instance) =>
      instance.request('POST', `/v1/nfce/venda?companyId=${companyId}`, sale(n), {
        'Idempotency-Key': `two-instances-sale-${n}`,
      }),
    ),
  );
  return {
    ids: answers.filter((a) => a.status === 201).map((a) => (a.body as { id: string }).id),
    statuses: answers.map((a) => a.status),
  };
}

/** Every cashier of every instance at once. */
async function rush(cashiers: number, sales: number): Promise<string[]> {
  const runs = cluster.instances.flatMap((instance) =>
    Array.from({ length: cashiers }, () => cashier(instance, cluster.companyId, sales)),
  );
  return (await Promise.all(runs)).flat();
}

/** What is still open anywhere: notes not settled, queue rows, webhook deliveries, print jobs. */
async function open(): Promise<Record<string, number>> {
  const db = cluster.instances[0]!.service.db;
  const count = async (q: { execute(): Promise<unknown[]> }) => (await q.execute()).length;
  return {
    notes: await count(
      db
        .selectFrom('documents')
        .select('id')
        .where('status', 'in', ['rascunho', 'processando', 'contingencia']),
    ),
    outbox: await count(db.selectFrom('outbox').select('id').where('state', '!=', 'done')),
    webhooks: await count(
      db.selectFrom('webhook_deliveries').select('id').where('status', '!=', 'delivered'),
    ),
    prints: await count(db.selectFrom('print_jobs').select('id').where('status', '!=', 'done')),
    // An attempt authorized after its sale was re-issued owes a cancellation by substitution.
    substitutions: await count(
      db
        .selectFrom('documents')
        .select('id')
        .where('status', '=', 'autorizada')
        .where('replaced_by', 'is not', null),
    ),
  };
}

/** What is open, row by row, with the instances' last log lines: the failure says where it got stuck. */
async function openDetail(left: Record<string, number>): Promise<string> {
  const db = cluster.instances[0]!.service.db;
  const notes = await db
    .selectFrom('documents')
    .select(['id', 'n_nf', 'status', 'tp_emis', 'c_stat', 'x_motivo', 'replaces', 'replaced_by'])
    .where('status', 'in', ['rascunho', 'processando', 'contingencia'])
    .execute();
  const outbox = await db
    .selectFrom('outbox')
    .select(['id', 'document_id', 'kind', 'state', 'attempts', 'next_try_at', 'last_c_stat', 'last_error'])
    .where('state', '!=', 'done')
    .execute();
  const logs = cluster.instances.flatMap((i) => i.logs.slice(-10));
  return JSON.stringify({ left, notes, outbox, logs }, null, 1);
}

/**
 * Waits until nothing is open, and stays so for a second: webhooks and prints are queued just after the
 * note's settlement, and a substitution just after its attempt's.
 */
async function drained(ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let quietSince: number | null = null;
  for (;;) {
    const left = await open();
    if (Object.values(left).some((n) => n > 0)) quietSince = null;
    else if (quietSince === null) quietSince = Date.now();
    else if (Date.now() - quietSince >= 1000) return;
    if (Date.now() > deadline) throw new Error(`still open after ${ms} ms: ${await openDetail(left)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeOnPostgres('two service instances selling into one PostgreSQL database', () => {
  beforeAll(async () => {
    await printer.listen();
    const hookUrl = await receiver.listen();
    cluster = await startCluster(2);
    const first = cluster.instances[0]!;
    const hook = await first.request('POST', `/v1/webhooks?companyId=${cluster.companyId}`, {
      url: hookUrl,
      eventos: ['*'],
      permitirRedeLocal: true,
    });
    if (hook.status !== 201) throw new Error(`webhook not created: ${hook.status} ${hook.text}`);
    const made = await first.request('POST', `/v1/companies/${cluster.companyId}/printers`, {
      nome: 'Caixa 1',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true },
      impressaoAutomatica: true,
    });
    if (made.status !== 201) throw new Error(`printer not created: ${made.status} ${made.text}`);
  });

  afterAll(async () => {
    await cluster?.stop();
    await receiver.close();
    await printer.close();
  });

  it(`sell ${SALES} NFC-e at once, online and in offline contingency; every number, note, message, webhook and print once`, async () => {
    // While the cashiers sell, a third instance starts, three times: its start-up recovery meets the others'
    // rows in flight and must leave them to their owners. (Without its workers: a graceful stop aborts a
    // webhook request still out, which is then sent again, at least once by design.)
    let rushing = true;
    const joined: Instance[] = [];
    const joining = (async () => {
      while (rushing && joined.length < 3) {
        const extra = await cluster.start({ startWorker: false });
        joined.push(extra);
        await new Promise((r) => setTimeout(r, 300));
        await extra.service.close();
      }
    })();
    const [online, twice] = await Promise.all([
      rush(ONLINE.cashiers, ONLINE.sales),
      Promise.all(Array.from({ length: DOUBLED }, () => doubled(cluster.companyId))),
    ]).finally(() => {
      rushing = false;
    });
    for (const { ids, statuses } of twice) {
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      expect(ids.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ids).size).toBe(1);
    }
    await joining;
    expect(joined.length).toBeGreaterThanOrEqual(1);
    expect(online).toHaveLength(2 * ONLINE.cashiers * ONLINE.sales);
    // Everything of the online sales settled before the authority goes away: nothing is in flight when it does.
    await drained(60_000);

    await cluster.sandbox.faults.setOnline(false);
    const offline = await rush(OFFLINE.cashiers, OFFLINE.sales);
    expect(offline).toHaveLength(2 * OFFLINE.cashiers * OFFLINE.sales);
    expect(offline.every((s) => s === 'contingencia')).toBe(true);
    await cluster.sandbox.faults.setOnline(true);
    // Both instances' queues transmit the contingency notes once the authority answers again.
    await drained(60_000);

    const db = cluster.instances[0]!.service.db;
    const notes = await db
      .selectFrom('documents')
      .select(['id', 'chave', 'serie', 'n_nf', 'status', 'tp_emis'])
      .where('company_id', '=', cluster.companyId)
      .where('modelo', '=', 65)
      .execute();

    // Numbering: per serie, 1..N, each number once.
    expectGaplessSeries(notes);
    expect(notes.length).toBeGreaterThanOrEqual(SALES);

    // One authorized note per sale. A doubtful attempt re-issued in contingency under the next number (a sale
    // that outlived its wait under load) ends cancelled by substitution or its number voided, never authorized.
    const authorized = notes.filter((n) => n.status === 'autorizada');
    expect(authorized).toHaveLength(SALES);
    expect(notes.filter((n) => !['autorizada', 'cancelada', 'inutilizada'].includes(n.status))).toEqual([]);
    expect(notes.filter((n) => n.tp_emis === 9).length).toBeGreaterThanOrEqual(
      2 * OFFLINE.cashiers * OFFLINE.sales,
    );

    // The authority's own records: one authorization per key, for exactly the notes authorized here; the queue:
    // every message done, one authorization message per note.
    const atAuthority = await expectEachNoteOnce(cluster, notes);
    const reached = notes.filter((n) => n.status !== 'inutilizada');
    // Each note was sent once: the authority answered as many authorization requests as it holds notes.
    const sends = (await cluster.sandbox.registry.exchanges()).filter(
      (e) => e.service === 'NFeAutorizacao4' && e.outcome === 'answered',
    );
    expect(sends).toHaveLength(atAuthority.length);

    // Webhooks: every delivery delivered in one attempt, each received exactly once.
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'event', 'status', 'attempts', 'dedupe_key'])
      .execute();
    // nfce.autorizada once per note the authority authorized (an attempt later cancelled had its own).
    const authorizedEvents = deliveries
      .filter((d) => d.event === 'nfce.autorizada')
      .map((d) => d.dedupe_key ?? '')
      .sort();
    expect(authorizedEvents).toEqual(reached.map((n) => `${n.id}:autorizada`).sort());
    expect(deliveries.filter((d) => d.status !== 'delivered' || d.attempts !== 1)).toEqual([]);
    expect([...receiver.seen.keys()].sort()).toEqual(deliveries.map((d) => d.id).sort());
    expect([...receiver.seen].filter(([, n]) => n !== 1)).toEqual([]);

    // Print jobs: at most one automatic receipt per note, one for every note the customer took home, each
    // printed once.
    const jobs = await db
      .selectFrom('print_jobs')
      .select(['bytes', 'status', 'attempts', 'document_id'])
      .execute();
    const receipts = new Set(jobs.map((j) => j.document_id));
    expect(receipts.size).toBe(jobs.length);
    expect(authorized.filter((n) => !receipts.has(n.id))).toEqual([]);
    expect(
      jobs.filter((j) => j.status !== 'done' || j.attempts !== 1).map((j) => [j.document_id, j.status]),
    ).toEqual([]);
    expect(printer.jobs).toHaveLength(jobs.length);
    const printed = printer.jobs.map((b) => b.toString('base64')).sort();
    expect(printed).toEqual(jobs.map((j) => Buffer.from(j.bytes).toString('base64')).sort());

    // No instance logged a failure on the way.
    for (const instance of [...cluster.instances, ...joined])
      expect(instance.logs.filter((l) => /"level":"error"/.test(l))).toEqual([]);
  }, 180_000);
});
