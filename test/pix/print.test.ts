// The PIX QR ticket (F8 on the waiting screen) on the fake TCP printer: the QR of the charge's pixCopiaECola
// as the printer's own QR command, with the amount; without a printer a 409 the cashier can read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../api/harness.ts';
import { FakePrinter, waitFor } from '../printing/fake-printer.ts';
import { api, createPrinter } from '../printing/helpers.ts';
import type { PixChargeView } from '../../src-shared/contracts/pix.ts';
import type { PrintJobView } from '../../src-shared/contracts/printers.ts';

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

describe('the PIX QR ticket', () => {
  it('is 409 sem_impressora without a printer, then prints the QR and the amount on the default one', async () => {
    const created = await api(h, 'POST', '/v1/pix/charges', { key: h.companyKey, json: { valor: '12.50' } });
    expect(created.status).toBe(201);
    const charge = created.body as PixChargeView;
    const none = await api(h, 'POST', `/v1/pix/charges/${charge.txid}/print`, { key: h.companyKey });
    expect(none.status).toBe(409);
    expect((none.body as { error: string }).error).toBe('sem_impressora');

    await createPrinter(h, {
      nome: 'Caixa',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true },
      padrao: true,
    });
    const queued = await api(h, 'POST', `/v1/pix/charges/${charge.txid}/print`, { key: h.companyKey });
    expect(queued.status).toBe(202);
    const jobId = (queued.body as { jobId: string }).jobId;
    await waitFor(async () => {
      const view = (await api(h, 'GET', `/v1/print-jobs/${jobId}`)).body as PrintJobView;
      return view.status === 'done' ? view : undefined;
    }, 'the QR ticket printed');
    const [bytes] = await printer.waitForJobs(1);
    const text = bytes?.toString('latin1') ?? '';
    // GS ( k store: the QR's data is the BR Code itself, byte for byte.
    expect(text).toContain(`\x1d(k${String.fromCharCode((charge.pixCopiaECola.length + 3) % 256)}`);
    expect(text).toContain(charge.pixCopiaECola);
    expect(text).toContain('R$ 12,50');
  });
});
