// The print queue end to end: sales through the real API with the embedded sandbox authority, automatic
// printing to a TCP printer on 127.0.0.1, paper out and offline printers kept for retry (time driven by
// the harness's manual clock), once-per-note automatic printing across contingency, and restart recovery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src-main/clock.ts';
import { createLogger } from '../../src-main/logger.ts';
import { autoPrintDocument } from '../../src-main/printing/auto-print.ts';
import { openHarnessStore, startHarness, tempDataDir, type Harness } from '../api/harness.ts';
import { closedPort, FakePrinter, STATUS, waitFor } from './fake-printer.ts';
import {
  api,
  createPrinter,
  DEFAULT_KICK,
  documentRow,
  expectedReceipt,
  jobsOf,
  sale,
  sell,
} from './helpers.ts';

const profile = { qr: 'native', codePage: 'pc850' } as const;

async function jobSettled(
  h: Harness,
  documentId: string,
  until: (job: { status: string; last_error: string | null }) => boolean,
) {
  return waitFor(async () => {
    const [job] = await jobsOf(h, documentId);
    return job !== undefined && until(job) ? job : undefined;
  }, `print job of ${documentId}`);
}

describe('retries', () => {
  let h: Harness;
  const printer = new FakePrinter();
  beforeAll(async () => {
    h = await startHarness();
    await printer.listen();
  });
  afterAll(async () => {
    await h.stop();
    await printer.close();
  });

  it('paper out: the job waits with lastError paper_out, nothing lost; paper back, the retry prints it', async () => {
    const p = await createPrinter(h, {
      nome: 'Caixa 1',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true },
      impressaoAutomatica: true,
    });
    printer.status = STATUS.paperOut;
    const sold = await sell(h);
    expect(sold.status).toBe('autorizada');
    const waiting = await jobSettled(h, sold.id, (j) => j.last_error === 'paper_out');
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1, reason: 'auto', printer_id: p.id });
    expect(printer.jobs).toHaveLength(0);
    const view = await api(h, 'GET', `/v1/print-jobs/${waiting.id}`);
    expect(view.body).toMatchObject({
      status: 'pending',
      lastError: 'paper_out',
      nextTryAt: expect.any(String),
    });

    // Not due yet: a round before the backoff has passed sends nothing.
    await h.service.printing.tick();
    expect((await jobsOf(h, sold.id))[0]?.attempts).toBe(1);

    printer.status = STATUS.ready;
    h.clock.advance(2_000);
    await h.service.printing.tick();
    const done = await jobSettled(h, sold.id, (j) => j.status === 'done');
    expect(done).toMatchObject({ attempts: 2, last_error: null });
    const [received] = await printer.waitForJobs(1);
    expect(received?.equals(expectedReceipt(await documentRow(h, sold.id), 80, profile, DEFAULT_KICK))).toBe(
      true,
    );
    // Queued once although both the sale and the queue worker announced the authorized note.
    expect(await jobsOf(h, sold.id)).toHaveLength(1);
    await api(h, 'DELETE', `/v1/companies/${h.companyId}/printers/${p.id}`);
  });

  it('printer offline (closed port): the sale answers 201 as usual, the job waits as offline, then prints', async () => {
    const port = await closedPort();
    const p = await createPrinter(h, {
      nome: 'Caixa 2',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
      impressaoAutomatica: true,
      padrao: true,
    });
    const res = await api(h, 'POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
      json: sale,
    });
    expect(res.status).toBe(201);
    const sold = res.body as { id: string; status: string };
    expect(sold.status).toBe('autorizada');
    const waiting = await jobSettled(h, sold.id, (j) => j.last_error === 'offline');
    expect(waiting.status).toBe('pending');

    const late = new FakePrinter();
    await late.listen(port);
    try {
      h.clock.advance(60_000);
      await h.service.printing.tick();
      await jobSettled(h, sold.id, (j) => j.status === 'done');
      const [received] = await late.waitForJobs(1);
      expect(
        received?.equals(expectedReceipt(await documentRow(h, sold.id), 80, profile, DEFAULT_KICK)),
      ).toBe(true);
    } finally {
      await late.close();
    }
    await api(h, 'DELETE', `/v1/companies/${h.companyId}/printers/${p.id}`);
  });

  it('a given-up job (aged out) is revived by retry and printed', async () => {
    const port = await closedPort();
    const p = await createPrinter(h, {
      nome: 'Caixa 3',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
      padrao: true,
    });
    const test = await api(h, 'POST', `/v1/companies/${h.companyId}/printers/${p.id}/test`);
    const { jobId } = test.body as { jobId: string };
    const job = async () => (await api(h, 'GET', `/v1/print-jobs/${jobId}`)).body as Record<string, unknown>;
    await waitFor(async () => ((await job())['lastError'] === 'offline' ? true : undefined), 'first attempt');
    h.clock.advance(25 * 3600_000);
    await h.service.printing.tick();
    expect(await job()).toMatchObject({ status: 'failed', lastError: 'offline', nextTryAt: null });

    const late = new FakePrinter();
    await late.listen(port);
    try {
      const retried = await api(h, 'POST', `/v1/print-jobs/${jobId}/retry`);
      expect(retried.status).toBe(202);
      await waitFor(
        async () => ((await job())['status'] === 'done' ? true : undefined),
        'retried job printed',
      );
      expect(await late.waitForJobs(1)).toHaveLength(1);
    } finally {
      await late.close();
    }
  });
});

describe('automatic printing once per note', () => {
  let h: Harness;
  const printer = new FakePrinter();
  beforeAll(async () => {
    h = await startHarness();
    await printer.listen();
  });
  afterAll(async () => {
    await h.stop();
    await printer.close();
  });

  it('offline sale printed in contingency is not printed again when authorized; reprint adds a copy', async () => {
    await createPrinter(h, {
      nome: 'Caixa',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true },
      impressaoAutomatica: true,
    });
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('the harness runs the embedded sandbox');
    await sandbox.faults.setOnline(false);
    let sold: { id: string; status: string };
    try {
      sold = await sell(h);
    } finally {
      await sandbox.faults.setOnline(true);
    }
    expect(sold.status).toBe('contingencia');
    await jobSettled(h, sold.id, (j) => j.status === 'done');
    const [contingencyReceipt] = await printer.waitForJobs(1);
    const inContingency = await documentRow(h, sold.id);
    expect(inContingency.proc_xml).toBeNull();
    expect(contingencyReceipt?.equals(expectedReceipt(inContingency, 80, profile, DEFAULT_KICK))).toBe(true);

    h.clock.advance(10 * 60_000);
    const authorized = await waitFor(async () => {
      await h.service.worker.tick();
      const doc = await documentRow(h, sold.id);
      return doc.status === 'autorizada' ? doc : undefined;
    }, 'authorization of the offline sale');
    // What the queue worker's callback does for the authorized note: nothing, it was printed already.
    expect(await autoPrintDocument({ db: h.service.db, clock: h.clock }, authorized)).toBeNull();
    await h.service.printing.tick();
    expect((await jobsOf(h, sold.id)).map((j) => j.reason)).toEqual(['auto']);
    expect(printer.jobs).toHaveLength(1);

    const reprint = await api(h, 'POST', `/v1/nfce/${sold.id}/reprint`);
    expect(reprint.status).toBe(202);
    await waitFor(async () => {
      const jobs = await jobsOf(h, sold.id);
      return jobs.length === 2 && jobs.every((j) => j.status === 'done') ? jobs : undefined;
    }, 'reprint');
    const [, copy] = await printer.waitForJobs(2);
    // The copy is the receipt of the note as it is now: authorized, with its protocol, and no drawer kick.
    expect(copy?.equals(expectedReceipt(authorized, 80, profile))).toBe(true);
    expect(copy?.equals(contingencyReceipt ?? Buffer.alloc(0))).toBe(false);
  });

  it('no automatic print without impressaoAutomatica, nor for notes issued before it was switched on', async () => {
    const list = await api(h, 'GET', `/v1/companies/${h.companyId}/printers`);
    const [p] = (list.body as { items: { id: string }[] }).items;
    await api(h, 'PUT', `/v1/companies/${h.companyId}/printers/${p?.id ?? ''}`, {
      json: { impressaoAutomatica: false },
    });
    const sold = await sell(h);
    const row = await documentRow(h, sold.id);
    expect(await autoPrintDocument({ db: h.service.db, clock: h.clock }, row)).toBeNull();
    h.clock.advance(1000);
    await api(h, 'PUT', `/v1/companies/${h.companyId}/printers/${p?.id ?? ''}`, {
      json: { impressaoAutomatica: true },
    });
    expect(await autoPrintDocument({ db: h.service.db, clock: h.clock }, row)).toBeNull();
    expect(await jobsOf(h, sold.id)).toEqual([]);
    // A note issued after it was switched on is printed.
    const next = await sell(h);
    await jobSettled(h, next.id, (j) => j.status === 'done');
  });

  it('a receipt that cannot be built is logged, never thrown at the sale', async () => {
    const sold = await sell(h);
    await jobSettled(h, sold.id, (j) => j.status === 'done');
    const row = await documentRow(h, sold.id);
    const lines: string[] = [];
    const logger = createLogger('error', (line) => lines.push(line));
    const broken = { ...row, id: 'doc_broken', xml: '<NFe/>', proc_xml: null };
    expect(await autoPrintDocument({ db: h.service.db, clock: h.clock, logger }, broken)).toBeNull();
    expect(lines.some((l) => l.includes('automatic print not queued') && l.includes('doc_broken'))).toBe(
      true,
    );
  });
});

describe('restart', () => {
  it('a job left printing by a crash goes back to the queue at start and is printed', async () => {
    const dataDir = tempDataDir();
    const clock = new ManualClock(new Date());
    const first = await startHarness({ dataDir, clock });
    const p = await createPrinter(first, {
      nome: 'Caixa',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: await closedPort(), permitirRedeLocal: true },
    });
    const test = await api(first, 'POST', `/v1/companies/${first.companyId}/printers/${p.id}/test`);
    const { jobId } = test.body as { jobId: string };
    await waitFor(async () => {
      const row = await first.service.db
        .selectFrom('print_jobs')
        .selectAll()
        .where('id', '=', jobId)
        .executeTakeFirst();
      return row?.last_error === 'offline' ? row : undefined;
    }, 'first attempt');
    await first.stop();

    // As a crash leaves it: marked printing, bytes half sent. The printer is on another port after the restart.
    const printer = new FakePrinter();
    await printer.listen();
    const opened = await openHarnessStore(dataDir);
    await opened.db.updateTable('print_jobs').set({ status: 'printing' }).where('id', '=', jobId).execute();
    await opened.db
      .updateTable('printers')
      .set({
        conexao_json: JSON.stringify({ host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true }),
      })
      .where('id', '=', p.id)
      .execute();
    const stored = await opened.db
      .selectFrom('print_jobs')
      .select('bytes')
      .where('id', '=', jobId)
      .executeTakeFirstOrThrow();
    await opened.close();

    const second = await startHarness({ dataDir, clock });
    try {
      expect(second.logs.some((l) => l.includes('print jobs interrupted by the last stop'))).toBe(true);
      const done = await waitFor(async () => {
        const row = await second.service.db
          .selectFrom('print_jobs')
          .selectAll()
          .where('id', '=', jobId)
          .executeTakeFirst();
        return row?.status === 'done' ? row : undefined;
      }, 'recovered job printed');
      expect(done.attempts).toBe(2);
      const [received] = await printer.waitForJobs(1);
      expect(received?.equals(Buffer.from(stored.bytes))).toBe(true);
    } finally {
      await second.stop();
      await printer.close();
    }
  });
});
