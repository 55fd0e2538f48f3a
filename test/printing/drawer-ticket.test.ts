// The cash drawer and generic tickets against the running service and a TCP printer on 127.0.0.1: the drawer
// profile, ESC p with the configured pin and pulse in a cash sale's receipt (not a card sale's, not with the
// drawer off), the drawer route, and queueTicketPrint's tickets read back by the ESC/POS decoder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEscpos, receiptText } from '../../src-main/outputs/escpos/decoder.ts';
import {
  DRAWER_JOB_LIFETIME_MS,
  queueTicketPrint,
  type TicketLine,
} from '../../src-main/printing/service.ts';
import { startHarness, type Harness } from '../api/harness.ts';
import type { PrintJobView, PrinterView } from '../../src-shared/contracts/printers.ts';
import { closedPort, FakePrinter, waitFor } from './fake-printer.ts';
import { api, createPrinter, item, sale } from './helpers.ts';

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

const printers = () => `/v1/companies/${h.companyId}/printers`;
const conexao = () => ({ host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true });
const doneJob = (id: string) =>
  waitFor(async () => {
    const view = (await api(h, 'GET', `/v1/print-jobs/${id}`)).body as PrintJobView;
    return view.status === 'done' ? view : undefined;
  }, `job ${id} printed`);

/** Queues with `queue`, waits for the job to print and returns what the printer received for it. */
async function printed(queue: () => Promise<{ jobId: string } | null>): Promise<Buffer> {
  const before = printer.jobs.length;
  const queued = await queue();
  if (queued === null) throw new Error('nothing was queued');
  await doneJob(queued.jobId);
  const jobs = await printer.waitForJobs(before + 1);
  expect(jobs).toHaveLength(before + 1);
  return jobs[before] as Buffer;
}

async function sellWith(pagamentos: unknown[]): Promise<string> {
  const res = await api(h, 'POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
    json: { itens: [item], pagamentos },
  });
  if (res.status !== 201) throw new Error(`sale failed: ${res.status} ${res.text}`);
  return (res.body as { id: string }).id;
}

async function printReceipt(documentId: string): Promise<Buffer> {
  return printed(
    async () => (await api(h, 'POST', `/v1/nfce/${documentId}/print`)).body as { jobId: string },
  );
}

describe('drawer profile', () => {
  it('defaults to an active drawer on pin 2 with 100 ms; create and PUT set each part; faults reported at once', async () => {
    const plain = await api(h, 'POST', printers(), {
      json: { nome: 'Sem gaveta informada', tipo: 'usb', conexao: { vendorId: 1, productId: 2 } },
    });
    expect((plain.body as PrinterView).gaveta).toEqual({ ativa: true, pino: 2, pulso_ms: 100 });

    const res = await api(h, 'POST', printers(), {
      json: { nome: 'Pino 5', tipo: 'usb', conexao: { vendorId: 1, productId: 3 }, gaveta: { pino: 5 } },
    });
    const created = res.body as PrinterView;
    expect(created.gaveta).toEqual({ ativa: true, pino: 5, pulso_ms: 100 });
    const put = await api(h, 'PUT', `${printers()}/${created.id}`, { json: { gaveta: { pulso_ms: 120 } } });
    expect(put.status).toBe(200);
    expect((put.body as PrinterView).gaveta).toEqual({ ativa: true, pino: 5, pulso_ms: 120 });
    const off = await api(h, 'PUT', `${printers()}/${created.id}`, { json: { gaveta: { ativa: false } } });
    expect((off.body as PrinterView).gaveta).toEqual({ ativa: false, pino: 5, pulso_ms: 120 });
    const read = await api(h, 'GET', `${printers()}/${created.id}`);
    expect((read.body as PrinterView).gaveta).toEqual({ ativa: false, pino: 5, pulso_ms: 120 });

    const bad = await api(h, 'PUT', `${printers()}/${created.id}`, {
      json: { gaveta: { ativa: 'sim', pino: 3, pulso_ms: 5, tempo: 1 } },
    });
    expect(bad.status).toBe(400);
    const fields = (bad.body as { details: { field: string }[] }).details.map((d) => d.field).sort();
    expect(fields).toEqual(['gaveta', 'gaveta.ativa', 'gaveta.pino', 'gaveta.pulso_ms']);

    for (const id of [created.id, (plain.body as PrinterView).id])
      expect((await api(h, 'DELETE', `${printers()}/${id}`)).status).toBe(204);
  });
});

describe('drawer kick in the receipt', () => {
  let printerId = '';
  beforeAll(async () => {
    printerId = (
      await createPrinter(h, {
        nome: 'Caixa',
        tipo: 'rede',
        conexao: conexao(),
        padrao: true,
        gaveta: { pino: 5, pulso_ms: 120 },
      })
    ).id;
  });
  afterAll(async () => {
    await api(h, 'DELETE', `${printers()}/${printerId}`);
  });

  it('a cash sale opens the drawer before the cut with the configured pin and pulse; its reprint does not', async () => {
    const id = await sellWith(sale.pagamentos);
    const decoded = decodeEscpos(await printReceipt(id));
    // Pin 5 is m = 1; 120 ms is t1 = 60 units of 2 ms; 500 ms off.
    expect(decoded.drawerKicks).toEqual([{ kind: 'drawer', pin: 5, t1: 60, t2: 250 }]);
    const kinds = decoded.items.map((i) => i.kind);
    expect(kinds.slice(-2)).toEqual(['drawer', 'cut']);
    expect(decoded.unknown).toEqual([]);

    const copy = await printed(
      async () => (await api(h, 'POST', `/v1/nfce/${id}/reprint`)).body as { jobId: string },
    );
    expect(decodeEscpos(copy).drawerKicks).toEqual([]);
  });

  it('cash beside a card opens it too; a card-only sale does not', async () => {
    const mixed = await sellWith([
      { metodo: 'cartao_debito', valor: '5.00' },
      { metodo: 'dinheiro', valor: '2.00' },
    ]);
    expect(decodeEscpos(await printReceipt(mixed)).drawerKicks).toHaveLength(1);
    const card = await sellWith([{ metodo: 'cartao_debito', valor: '7.00' }]);
    const bytes = await printReceipt(card);
    expect(decodeEscpos(bytes).drawerKicks).toEqual([]);
    expect(bytes.includes(Buffer.of(0x1b, 0x70))).toBe(false);
  });

  it('with the drawer switched off a cash sale prints without a kick', async () => {
    await api(h, 'PUT', `${printers()}/${printerId}`, { json: { gaveta: { ativa: false } } });
    try {
      const id = await sellWith(sale.pagamentos);
      const bytes = await printReceipt(id);
      expect(decodeEscpos(bytes).drawerKicks).toEqual([]);
      expect(bytes.includes(Buffer.of(0x1b, 0x70))).toBe(false);
    } finally {
      await api(h, 'PUT', `${printers()}/${printerId}`, { json: { gaveta: { ativa: true } } });
    }
  });

  it('automatic printing of a cash sale carries the kick as well', async () => {
    await api(h, 'PUT', `${printers()}/${printerId}`, { json: { impressaoAutomatica: true } });
    try {
      const before = printer.jobs.length;
      await sellWith(sale.pagamentos);
      const [auto] = (await printer.waitForJobs(before + 1)).slice(before);
      expect(decodeEscpos(auto ?? Buffer.alloc(0)).drawerKicks).toEqual([
        { kind: 'drawer', pin: 5, t1: 60, t2: 250 },
      ]);
    } finally {
      await api(h, 'PUT', `${printers()}/${printerId}`, { json: { impressaoAutomatica: false } });
    }
  });
});

describe('POST …/printers/:printerId/drawer', () => {
  it('202: the printer gets ESC @ and ESC p alone; 409 gaveta_desativada when off; 404 for another printer', async () => {
    const p = await createPrinter(h, {
      nome: 'Gaveta',
      tipo: 'rede',
      conexao: conexao(),
      gaveta: { pulso_ms: 200 },
    });
    const res = await api(h, 'POST', `${printers()}/${p.id}/drawer`);
    expect(res.status).toBe(202);
    const { jobId } = res.body as { jobId: string };
    expect(await doneJob(jobId)).toMatchObject({ kind: 'drawer', reason: 'print', documentId: null });
    const received = printer.jobs.at(-1);
    expect(received).toEqual(Buffer.of(0x1b, 0x40, 0x1b, 0x70, 0x00, 100, 250));

    await api(h, 'PUT', `${printers()}/${p.id}`, { json: { gaveta: { ativa: false } } });
    const off = await api(h, 'POST', `${printers()}/${p.id}/drawer`);
    expect(off.status).toBe(409);
    expect(off.body).toMatchObject({ error: 'gaveta_desativada', details: [{ field: 'gaveta.ativa' }] });
    expect((await api(h, 'POST', `${printers()}/nope/drawer`)).status).toBe(404);
    await api(h, 'DELETE', `${printers()}/${p.id}`);
  });

  it('with an operator token a caixa needs a supervisor (abrir_gaveta); a gerente opens it alone', async () => {
    const p = await createPrinter(h, { nome: 'Operadores', tipo: 'rede', conexao: conexao() });
    // The demo operators of the sandbox company: 1 Gerente Demo (PIN 4826), 2 Caixa Demo (PIN 3971).
    const token = async (codigo: string, pin: string) => {
      const res = await api(h, 'POST', '/v1/operators/sign-in', { json: { codigo, pin } });
      expect(res.status).toBe(200);
      return (res.body as { token: string }).token;
    };
    const caixa = await token('2', '3971');
    const url = `${printers()}/${p.id}/drawer`;
    const refused = await api(h, 'POST', url, { headers: { 'X-Operator-Token': caixa } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'autorizacao_necessaria', acao: 'abrir_gaveta' });
    const approval = await api(h, 'POST', '/v1/operators/authorize', {
      json: { codigo: '1', pin: '4826', acao: 'abrir_gaveta' },
      headers: { 'X-Operator-Token': caixa },
    });
    expect(approval.status).toBe(200);
    const { autorizacao } = approval.body as { autorizacao: string };
    const approved = await api(h, 'POST', url, {
      headers: { 'X-Operator-Token': caixa, 'X-Supervisor-Authorization': autorizacao },
    });
    expect(approved.status).toBe(202);
    await doneJob((approved.body as { jobId: string }).jobId);
    // Single use: the same authorization does not open it twice.
    const again = await api(h, 'POST', url, {
      headers: { 'X-Operator-Token': caixa, 'X-Supervisor-Authorization': autorizacao },
    });
    expect(again.status).toBe(403);
    const gerente = await api(h, 'POST', url, { headers: { 'X-Operator-Token': await token('1', '4826') } });
    expect(gerente.status).toBe(202);
    await doneJob((gerente.body as { jobId: string }).jobId);
    const audit = await h.service.db
      .selectFrom('operator_actions')
      .select(['acao', 'authorized_by'])
      .where('acao', '=', 'abrir_gaveta')
      .execute();
    expect(audit).toHaveLength(2);
    expect(audit.filter((a) => a.authorized_by !== null)).toHaveLength(1);
    await api(h, 'DELETE', `${printers()}/${p.id}`);
  });

  it('a kick that could not reach the printer within its minute is given up, not sent later', async () => {
    const port = await closedPort();
    const p = await createPrinter(h, {
      nome: 'Longe',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: port, permitirRedeLocal: true },
    });
    const res = await api(h, 'POST', `${printers()}/${p.id}/drawer`);
    const { jobId } = res.body as { jobId: string };
    const job = async () => (await api(h, 'GET', `/v1/print-jobs/${jobId}`)).body as PrintJobView;
    await waitFor(async () => ((await job()).lastError === 'offline' ? true : undefined), 'first attempt');
    const late = new FakePrinter();
    await late.listen(port);
    try {
      h.clock.advance(DRAWER_JOB_LIFETIME_MS);
      await h.service.printing.tick();
      expect(await job()).toMatchObject({ status: 'failed', lastError: 'offline', nextTryAt: null });
      expect(late.jobs).toEqual([]);
    } finally {
      await late.close();
    }
    await api(h, 'DELETE', `${printers()}/${p.id}`);
  });
});

describe('queueTicketPrint', () => {
  const pix = '00020101021226830014br.gov.bcb.pix2561pix.example.com/qr/v2/cobv/9d36b84f6304ABCD';
  const linhas: TicketLine[] = [
    { texto: 'Sangria', negrito: true, alinhar: 'centro' },
    { par: ['Valor R$', '150,00'] },
    { separador: true },
    { texto: 'Motivo: depósito no banco da esquina, envelope lacrado número 123' },
    { qrcode: pix },
  ];

  it('no printer named and none by default: null, nothing queued', async () => {
    const list = await api(h, 'GET', `${printers()}?pageSize=100`);
    expect((list.body as { items: PrinterView[] }).items.filter((p) => p.padrao)).toEqual([]);
    const deps = { db: h.service.db, clock: h.clock };
    expect(
      await queueTicketPrint(deps, {
        companyId: h.companyId,
        titulo: 'X',
        linhas,
        abrirGaveta: true,
        kind: 'ticket',
      }),
    ).toBeNull();
    await expect(
      queueTicketPrint(deps, {
        companyId: h.companyId,
        printerId: 'nope',
        titulo: 'X',
        linhas,
        abrirGaveta: false,
        kind: 'ticket',
      }),
    ).rejects.toMatchObject({ code: 'validation_error', details: [{ field: 'printerId' }] });
  });

  for (const largura of [80, 58] as const) {
    it(`${largura} mm: header, title, lines, QR and the time reach the printer; the kick only when asked`, async () => {
      const p = await createPrinter(h, {
        nome: `Tickets ${largura}`,
        tipo: 'rede',
        conexao: conexao(),
        largura,
        padrao: true,
      });
      const company = await h.service.db
        .selectFrom('companies')
        .selectAll()
        .where('id', '=', h.companyId)
        .executeTakeFirstOrThrow();
      const deps = { db: h.service.db, clock: h.clock };
      const columns = largura === 80 ? 48 : 32;
      const bytes = await printed(() =>
        queueTicketPrint(deps, {
          companyId: h.companyId,
          titulo: 'SANGRIA DE CAIXA',
          linhas,
          abrirGaveta: true,
          kind: 'ticket',
        }),
      );
      const decoded = decodeEscpos(bytes, { columns });
      expect(decoded.unknown).toEqual([]);
      expect(decoded.codePages).toEqual(['pc850']);
      expect(decoded.lines.every((l) => l.columns <= columns)).toBe(true);
      const text = decoded.lines.map((l) => l.text);
      expect(text[0]).toBe(company.x_fant ?? company.x_nome);
      expect(text).toContain('SANGRIA DE CAIXA');
      expect(decoded.lines.find((l) => l.text === 'Sangria')).toMatchObject({ bold: true, align: 'center' });
      // The value ends in the last column.
      expect(text).toContain(`Valor R$${'150,00'.padStart(columns - 'Valor R$'.length)}`);
      expect(text).toContain('-'.repeat(columns));
      expect(receiptText(decoded).replace(/\s+/g, ' ')).toContain(
        'Motivo: depósito no banco da esquina, envelope lacrado número 123',
      );
      expect(decoded.qrCodes.map((q) => q.data)).toEqual([pix]);
      expect(text).toContain('Não é documento fiscal');
      expect(decoded.drawerKicks).toEqual([{ kind: 'drawer', pin: 2, t1: 50, t2: 250 }]);
      expect(decoded.items.map((i) => i.kind).slice(-2)).toEqual(['drawer', 'cut']);

      const job = (await api(h, 'GET', `/v1/print-jobs?companyId=${h.companyId}&pageSize=1`)).body as {
        items: PrintJobView[];
      };
      expect(job.items[0]).toMatchObject({
        kind: 'ticket',
        reason: 'print',
        printerId: p.id,
        status: 'done',
      });

      const plain = await printed(() =>
        queueTicketPrint(deps, {
          companyId: h.companyId,
          printerId: p.id,
          titulo: 'SUPRIMENTO',
          linhas: [{ par: ['Valor R$', '50,00'] }],
          abrirGaveta: false,
          kind: 'ticket',
        }),
      );
      expect(decodeEscpos(plain, { columns }).drawerKicks).toEqual([]);
      await api(h, 'DELETE', `${printers()}/${p.id}`);
    });
  }

  it('a QR payload outside printable ASCII goes as an image even to a printer that draws QR codes', async () => {
    const p = await createPrinter(h, { nome: 'Raster', tipo: 'rede', conexao: conexao(), padrao: true });
    const deps = { db: h.service.db, clock: h.clock };
    const bytes = await printed(() =>
      queueTicketPrint(deps, {
        companyId: h.companyId,
        titulo: 'PIX',
        linhas: [{ qrcode: 'PAGAMENTO PADARIA SÃO JOÃO' }],
        abrirGaveta: false,
        kind: 'ticket',
      }),
    );
    const decoded = decodeEscpos(bytes);
    expect(decoded.qrCodes).toEqual([]);
    expect(decoded.rasters).toHaveLength(1);
    await api(h, 'DELETE', `${printers()}/${p.id}`);
  });
});
