// /v1 printers and print jobs against the running service (real SQLite, embedded sandbox authority) and a
// TCP printer on 127.0.0.1: profiles and their validation, company scoping, live status, test page, print,
// reprint and the refusals for notes that cannot be printed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestPage } from '../../src-main/outputs/escpos/receipt.ts';
import { companyBody, startHarness, type Harness } from '../api/harness.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { closedPort, FakePrinter, STATUS, waitFor } from './fake-printer.ts';
import {
  api,
  createPrinter,
  DEFAULT_KICK,
  documentRow,
  expectedReceipt,
  item,
  jobsOf,
  sale,
  sell,
} from './helpers.ts';
import type { PrintJobView, PrinterStatusView, PrinterView } from '../../src-shared/contracts/printers.ts';

let h: Harness;
const printer = new FakePrinter();
let port = 0;

beforeAll(async () => {
  h = await startHarness();
  port = await printer.listen();
});
afterAll(async () => {
  await h.stop();
  await printer.close();
});

const printers = () => `/v1/companies/${h.companyId}/printers`;
const job = async (id: string) => (await api(h, 'GET', `/v1/print-jobs/${id}`)).body as PrintJobView;
const doneJob = (id: string) =>
  waitFor(async () => {
    const view = await job(id);
    return view.status === 'done' ? view : undefined;
  }, `job ${id} printed`);

describe('printer profiles', () => {
  it('creates the three kinds with their defaults; the first printer becomes the default one', async () => {
    const rede = await api(h, 'POST', printers(), {
      json: { nome: 'Caixa 1', tipo: 'rede', conexao: { host: '127.0.0.1', permitirRedeLocal: true } },
    });
    expect(rede.status).toBe(201);
    expect(rede.body).toMatchObject({
      nome: 'Caixa 1',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: 9100, permitirRedeLocal: true },
      largura: 80,
      qr: 'nativo',
      codePage: 'pc850',
      impressaoAutomatica: false,
      padrao: true,
    });
    const usb = await api(h, 'POST', printers(), {
      json: {
        nome: 'Balcão USB',
        tipo: 'usb',
        conexao: { vendorId: '0416', productId: 0x5011 },
        largura: 58,
      },
    });
    expect(usb.status).toBe(201);
    expect(usb.body).toMatchObject({ conexao: { vendorId: '0x0416', productId: '0x5011' }, padrao: false });
    const serial = await api(h, 'POST', printers(), {
      json: { nome: 'Serial', tipo: 'serial', conexao: { caminho: 'COM3' }, qr: 'raster', codePage: 'pc860' },
    });
    expect(serial.body).toMatchObject({
      conexao: { caminho: 'COM3', baudRate: 9600 },
      qr: 'raster',
      padrao: false,
    });

    // A new default takes the mark from the old one: one default per company.
    const serialId = (serial.body as PrinterView).id;
    const changed = await api(h, 'PUT', `${printers()}/${serialId}`, { json: { padrao: true } });
    expect(changed.body).toMatchObject({ padrao: true });
    const list = (await api(h, 'GET', `${printers()}?pageSize=10`)).body as {
      items: PrinterView[];
      total: number;
    };
    expect(list.total).toBe(3);
    expect(list.items.filter((p) => p.padrao).map((p) => p.id)).toEqual([serialId]);

    // Changing the kind needs a connection of the new kind.
    const noConexao = await api(h, 'PUT', `${printers()}/${serialId}`, { json: { tipo: 'rede' } });
    expect(noConexao.status).toBe(400);
    expect(noConexao.body).toMatchObject({
      details: [{ field: 'conexao', error: "required for tipo 'rede'" }],
    });
    const toRede = await api(h, 'PUT', `${printers()}/${serialId}`, {
      json: { tipo: 'rede', conexao: { host: 'impressora.local', porta: 9101 } },
    });
    expect(toRede.body).toMatchObject({ tipo: 'rede', conexao: { host: 'impressora.local', porta: 9101 } });
    const sameKind = await api(h, 'PUT', `${printers()}/${serialId}`, {
      json: { conexao: { host: '10.0.0.9' } },
    });
    expect(sameKind.body).toMatchObject({ conexao: { host: '10.0.0.9', porta: 9100 } });

    for (const p of [rede, usb, serial]) {
      const id = (p.body as PrinterView).id;
      expect((await api(h, 'DELETE', `${printers()}/${id}`)).status).toBe(204);
      expect((await api(h, 'GET', `${printers()}/${id}`)).status).toBe(404);
    }
  });

  it('reports every faulty field at once', async () => {
    const res = await api(h, 'POST', printers(), {
      json: {
        nome: '',
        tipo: 'rede',
        conexao: { host: 'não é host', porta: 70000 },
        largura: 57,
        qr: 'colorido',
        codePage: 'utf8',
        impressaoAutomatica: 'sim',
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_error' });
    const fields = (res.body as { details: { field: string }[] }).details.map((d) => d.field).sort();
    expect(fields).toEqual([
      'codePage',
      'conexao.host',
      'conexao.porta',
      'impressaoAutomatica',
      'largura',
      'nome',
      'qr',
    ]);
    const usb = await api(h, 'POST', printers(), {
      json: { nome: 'x', tipo: 'usb', conexao: { vendorId: 'zz', productId: 70000, extra: 1 } },
    });
    expect((usb.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'conexao',
      'conexao.productId',
      'conexao.vendorId',
    ]);
    const serial = await api(h, 'POST', printers(), {
      json: { nome: 'x', tipo: 'serial', conexao: { caminho: '', baudRate: 12345 } },
    });
    expect((serial.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'conexao.baudRate',
      'conexao.caminho',
    ]);
  });

  it('403 for a company out of the key reach, 404 for a printer of another company', async () => {
    const other = await api(h, 'POST', '/v1/companies', {
      json: companyBody(`987654320001${cnpjCheckDigits('987654320001')}`),
    });
    expect(other.status).toBe(201);
    const otherId = (other.body as { id: string }).id;
    const foreign = await createPrinter(
      h,
      {
        nome: 'Loja 2',
        tipo: 'rede',
        conexao: { host: '127.0.0.1', porta: await closedPort(), permitirRedeLocal: true },
      },
      otherId,
    );
    const keyRes = await api(h, 'POST', '/v1/api-keys', {
      json: { name: 'caixa', scope: 'company', companyId: h.companyId, plan: 'terminal' },
    });
    const companyKey = (keyRes.body as { key: string }).key;
    const asCompany = { key: companyKey };
    for (const [method, path] of [
      ['GET', `/v1/companies/${otherId}/printers`],
      ['POST', `/v1/companies/${otherId}/printers`],
      ['GET', `/v1/companies/${otherId}/printers/${foreign.id}`],
      ['GET', `/v1/companies/${otherId}/printers/${foreign.id}/status`],
      ['POST', `/v1/companies/${otherId}/printers/${foreign.id}/test`],
      ['DELETE', `/v1/companies/${otherId}/printers/${foreign.id}`],
    ] as const) {
      const res = await api(h, method, path, { ...asCompany, json: method === 'POST' ? {} : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toMatchObject({ error: 'forbidden' });
    }
    // §7: a company that does not exist is 404.
    const missing = await api(
      h,
      'GET',
      `/v1/companies/00000000-0000-4000-8000-000000000000/printers`,
      asCompany,
    );
    expect(missing.status).toBe(404);
    // The printer id exists, but not in this company.
    expect((await api(h, 'GET', `${printers()}/${foreign.id}`, asCompany)).status).toBe(404);
    // A job of the other company (its test page) is out of reach too.
    const test = await api(h, 'POST', `/v1/companies/${otherId}/printers/${foreign.id}/test`);
    const jobId = (test.body as { jobId: string }).jobId;
    expect((await api(h, 'GET', `/v1/print-jobs/${jobId}`, asCompany)).status).toBe(403);
    expect((await api(h, 'POST', `/v1/print-jobs/${jobId}/cancel`, asCompany)).status).toBe(403);
    expect((await api(h, 'GET', `/v1/print-jobs/pjb_none`, asCompany)).status).toBe(404);
    // The organization key reaches it; the printer is off, so the page waits and can be cancelled.
    await waitFor(async () => ((await job(jobId)).lastError === 'offline' ? true : undefined), 'offline job');
    expect((await api(h, 'POST', `/v1/print-jobs/${jobId}/cancel`)).body).toMatchObject({
      status: 'cancelled',
    });
  });
});

describe('live status and test page', () => {
  it('status asks the printer (DLE EOT) and says unreachable printers are offline', async () => {
    const p = await createPrinter(h, {
      nome: 'Status',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
    });
    printer.status = STATUS.paperNearEnd;
    const res = await api(h, 'GET', `${printers()}/${p.id}/status`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      printerId: p.id,
      reachable: true,
      online: true,
      paperNearEnd: true,
      paperOut: false,
      coverOpen: false,
      statusReported: true,
      problem: null,
    });
    printer.status = STATUS.coverOpen;
    expect((await api(h, 'GET', `${printers()}/${p.id}/status`)).body).toMatchObject({
      coverOpen: true,
      problem: 'cover_open',
    });
    printer.status = STATUS.ready;
    const down = await createPrinter(h, {
      nome: 'Desligada',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: await closedPort(), permitirRedeLocal: true },
    });
    const status = (await api(h, 'GET', `${printers()}/${down.id}/status`)).body as PrinterStatusView;
    expect(status).toMatchObject({ reachable: false, online: false, problem: 'offline' });
    const usb = await createPrinter(h, { nome: 'USB', tipo: 'usb', conexao: { vendorId: 1, productId: 2 } });
    expect((await api(h, 'GET', `${printers()}/${usb.id}/status`)).body).toMatchObject({
      reachable: false,
      problem: 'device_not_found',
    });
    for (const id of [p.id, down.id, usb.id]) await api(h, 'DELETE', `${printers()}/${id}`);
  });

  it('the test page reaches the printer byte for byte', async () => {
    const p = await createPrinter(h, {
      nome: 'Teste 58',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
      largura: 58,
      qr: 'raster',
      codePage: 'pc860',
    });
    const before = printer.jobs.length;
    const res = await api(h, 'POST', `${printers()}/${p.id}/test`);
    expect(res.status).toBe(202);
    const { jobId } = res.body as { jobId: string };
    const done = await doneJob(jobId);
    expect(done).toMatchObject({ reason: 'test', documentId: null, attempts: 1, lastError: null });
    const [received] = (await printer.waitForJobs(before + 1)).slice(before);
    const expected = buildTestPage({
      largura: 58,
      profile: { qr: 'raster', codePage: 'pc860' },
      printerName: 'Teste 58',
      at: new Date(done.createdAt),
    });
    expect(received?.equals(Buffer.from(expected))).toBe(true);
    await api(h, 'DELETE', `${printers()}/${p.id}`);
  });
});

describe('printing notes', () => {
  it('print: the receipt of the sale reaches the printer exactly; reprint adds a recorded copy', async () => {
    const p = await createPrinter(h, {
      nome: 'Caixa',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
      padrao: true,
    });
    const sold = await sell(h);
    expect(sold.status).toBe('autorizada');
    // impressaoAutomatica is off: nothing is printed until asked.
    expect(await jobsOf(h, sold.id)).toEqual([]);
    const before = printer.jobs.length;
    const res = await api(h, 'POST', `/v1/nfce/${sold.id}/print`);
    expect(res.status).toBe(202);
    const { jobId } = res.body as { jobId: string };
    expect(await doneJob(jobId)).toMatchObject({ reason: 'print', printerId: p.id, documentId: sold.id });
    const [received] = (await printer.waitForJobs(before + 1)).slice(before);
    const doc = await documentRow(h, sold.id);
    // A cash sale's first receipt opens the drawer.
    expect(
      received?.equals(expectedReceipt(doc, 80, { qr: 'native', codePage: 'pc850' }, DEFAULT_KICK)),
    ).toBe(true);

    const again = await api(h, 'POST', `/v1/nfce/${sold.id}/reprint`, { json: { printerId: p.id } });
    expect(again.status).toBe(202);
    const copy = await doneJob((again.body as { jobId: string }).jobId);
    expect(copy.reason).toBe('reprint');
    const [second] = (await printer.waitForJobs(before + 2)).slice(before + 1);
    // The copy is the same paper without the kick: a reprint never opens the drawer.
    expect(second?.equals(expectedReceipt(doc, 80, { qr: 'native', codePage: 'pc850' }))).toBe(true);
    const third = await api(h, 'POST', `/v1/nfce/${sold.id}/reprint`);
    await doneJob((third.body as { jobId: string }).jobId);

    const listed = await api(h, 'GET', `/v1/print-jobs?companyId=${h.companyId}&documentId=${sold.id}`);
    const items = (listed.body as { items: PrintJobView[]; total: number }).items;
    expect(items.map((j) => j.reason).sort()).toEqual(['print', 'reprint', 'reprint']);
    expect(items.every((j) => j.status === 'done' && j.kind === 'receipt')).toBe(true);
    // The first receipt carries the 5 bytes of ESC p; the copies do not.
    expect(items.map((j) => [j.reason, j.size]).sort()).toEqual([
      ['print', received?.length],
      ['reprint', (received?.length ?? 0) - 5],
      ['reprint', (received?.length ?? 0) - 5],
    ]);
    const filtered = await api(h, 'GET', `/v1/print-jobs?companyId=${h.companyId}&status=pending`);
    expect((filtered.body as { items: PrintJobView[] }).items.some((j) => j.documentId === sold.id)).toBe(
      false,
    );
    const badQuery = await api(h, 'GET', `/v1/print-jobs?companyId=${h.companyId}&status=lost&pageSize=0`);
    expect((badQuery.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'pageSize',
      'status',
    ]);
    // A printed job is not printed again by retry: reprint is the recorded way.
    const retry = await api(h, 'POST', `/v1/print-jobs/${jobId}/retry`);
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ error: 'invalid_state' });
    await api(h, 'DELETE', `${printers()}/${p.id}`);
  });

  it('no printer configured: 409 sem_impressora saying so in words for the cashier; unknown printerId: 400', async () => {
    const sold = await sell(h);
    const res = await api(h, 'POST', `/v1/nfce/${sold.id}/print`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'sem_impressora', details: [{ field: 'printerId' }] });
    expect((res.body as { message: string }).message).toMatch(/^Nenhuma impressora configurada/);
    const unknown = await api(h, 'POST', `/v1/nfce/${sold.id}/reprint`, { json: { printerId: 'prn_nope' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ details: [{ field: 'printerId' }] });
    const strict = await api(h, 'POST', `/v1/nfce/${sold.id}/print`, { json: { impressora: 'x' } });
    expect(strict.status).toBe(400);
  });

  it('a rejected NFC-e (409 invalid_state) and an NF-e (404) are not printed', async () => {
    await createPrinter(h, {
      nome: 'Caixa',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
    });
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('the harness runs the embedded sandbox');
    sandbox.faults.reject(228);
    await api(h, 'POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: sale });
    const rejected = await h.service.db
      .selectFrom('documents')
      .select('id')
      .where('modelo', '=', 65)
      .where('status', '=', 'erro')
      .executeTakeFirstOrThrow();
    const res = await api(h, 'POST', `/v1/nfce/${rejected.id}/print`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      error: 'invalid_state',
      details: [{ field: 'status', error: "current state is 'erro'" }],
    });
    expect(await jobsOf(h, rejected.id)).toEqual([]);

    const nfe = await h.service.db
      .selectFrom('documents')
      .select('id')
      .where('modelo', '=', 55)
      .executeTakeFirst();
    const draftId =
      nfe?.id ??
      (
        (
          await api(h, 'POST', `/v1/nfe?companyId=${h.companyId}`, {
            json: {
              naturezaOperacao: 'Venda',
              customer: {
                cnpj: '11222333000181',
                nome: 'Mercado Central Ltda',
                ie: '110042490114',
                endereco: {
                  logradouro: 'Rua B',
                  numero: '2',
                  bairro: 'Centro',
                  codigoMunicipio: '3550308',
                  uf: 'SP',
                  cep: '01000000',
                },
              },
              itens: [item],
              pagamentos: [{ forma: '15', valor: '7.00' }],
            },
          })
        ).body as { id: string }
      ).id;
    expect((await api(h, 'POST', `/v1/nfce/${draftId}/print`)).status).toBe(404);
  });
});
