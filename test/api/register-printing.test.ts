// The register's paper against the running service and a TCP printer on 127.0.0.1: the opening float and
// each sangria/suprimento print a ticket and open the drawer; the shift report prints at closing (no kick)
// and again on request; with no printer the operation still stands and `impressao` is null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEscpos, receiptText } from '../../src-main/outputs/escpos/decoder.ts';
import type { PrintJobView } from '../../src-shared/contracts/printers.ts';
import { FakePrinter, waitFor } from '../printing/fake-printer.ts';
import { api, createPrinter } from '../printing/helpers.ts';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
const printer = new FakePrinter();
let token: string;

beforeAll(async () => {
  h = await startHarness();
  await printer.listen();
  const res = await api(h, 'POST', '/v1/operators/sign-in', {
    json: { codigo: '2', pin: '3971', caixa: '3' },
  });
  token = (res.body as { token: string }).token;
});
afterAll(async () => {
  await h.stop();
  await printer.close();
});

const as = (json: unknown) => ({ headers: { 'X-Operator-Token': token }, json });

/** What the printer received for a job, once the queue says it is done. */
async function printedJob(jobId: string): Promise<ReturnType<typeof decodeEscpos>> {
  await waitFor(async () => {
    const view = (await api(h, 'GET', `/v1/print-jobs/${jobId}`)).body as PrintJobView;
    return view.status === 'done' ? view : undefined;
  }, `job ${jobId} printed`);
  const index = printedOrder.length;
  printedOrder.push(jobId);
  const jobs = await printer.waitForJobs(index + 1);
  return decodeEscpos(jobs[index] as Buffer);
}
const printedOrder: string[] = [];
const text = (decoded: ReturnType<typeof decodeEscpos>) => receiptText(decoded).replace(/\s+/g, ' ');

describe('register tickets', () => {
  it('without a printer the register opens and moves cash all the same', async () => {
    const opened = await api(h, 'POST', '/v1/register-sessions', as({ fundo_troco: '10.00', caixa: '9' }));
    expect(opened.status, opened.text).toBe(201);
    expect((opened.body as { impressao: unknown }).impressao).toBeNull();
    const id = (opened.body as { id: string }).id;
    const moved = await api(
      h,
      'POST',
      `/v1/register-sessions/${id}/movements`,
      as({ tipo: 'sangria', valor: 1, motivo: 'x' }),
    );
    expect(moved.status).toBe(201);
    expect((moved.body as { impressao: unknown }).impressao).toBeNull();
    const print = await api(h, 'POST', `/v1/register-sessions/${id}/report/print`);
    expect(print.status).toBe(409);
    expect((print.body as { error: string }).error).toBe('sem_impressora');
    await api(h, 'POST', `/v1/register-sessions/${id}/close`, as({ contagem: { dinheiro: 9 } }));
  });

  it('opening, sangria and suprimento print and kick the drawer; the closing report prints without a kick', async () => {
    await createPrinter(h, {
      nome: 'Caixa 3',
      tipo: 'rede',
      conexao: { host: '127.0.0.1', porta: printer.port, permitirRedeLocal: true },
      padrao: true,
    });
    const opened = await api(h, 'POST', '/v1/register-sessions', as({ fundo_troco: '150.00' }));
    expect(opened.status, opened.text).toBe(201);
    const session = opened.body as { id: string; impressao: { job_id: string } };
    const opening = await printedJob(session.impressao.job_id);
    expect(opening.lines.map((l) => l.text)).toContain('ABERTURA DE CAIXA');
    expect(text(opening)).toMatch(/Fundo de troco R\$ 150,00/);
    expect(text(opening)).toMatch(/Operador 2 Caixa Demo/);
    expect(opening.drawerKicks).toEqual([{ kind: 'drawer', pin: 2, t1: 50, t2: 250 }]);

    const sangria = await api(
      h,
      'POST',
      `/v1/register-sessions/${session.id}/movements`,
      as({ tipo: 'sangria', valor: '1234.56', motivo: 'Depósito no banco' }),
    );
    expect(sangria.status).toBe(201);
    const sangriaTicket = await printedJob(
      (sangria.body as { impressao: { job_id: string } }).impressao.job_id,
    );
    expect(sangriaTicket.lines.map((l) => l.text)).toContain('SANGRIA');
    expect(text(sangriaTicket)).toMatch(/Valor R\$ 1\.234,56/);
    expect(text(sangriaTicket)).toContain('Motivo: Depósito no banco');
    expect(sangriaTicket.drawerKicks).toHaveLength(1);
    // The movement keeps the job that printed it.
    const read = (await api(h, 'GET', `/v1/register-sessions/${session.id}`)).body as {
      movimentos: { impressao: { job_id: string } | null }[];
    };
    expect(read.movimentos[0]?.impressao).toEqual((sangria.body as { impressao: unknown }).impressao);

    const suprimento = await api(
      h,
      'POST',
      `/v1/register-sessions/${session.id}/movements`,
      as({ tipo: 'suprimento', valor: '20', motivo: 'Moedas' }),
    );
    const suprimentoTicket = await printedJob(
      (suprimento.body as { impressao: { job_id: string } }).impressao.job_id,
    );
    expect(suprimentoTicket.lines.map((l) => l.text)).toContain('SUPRIMENTO');
    expect(suprimentoTicket.drawerKicks).toHaveLength(1);

    // 150 + 20 − 1 234,56 = −1 064,56 expected in cash; counted 0.
    const closed = await api(h, 'POST', `/v1/register-sessions/${session.id}/close`, as({ contagem: {} }));
    expect(closed.status, closed.text).toBe(200);
    const closing = await printedJob((closed.body as { impressao: { job_id: string } }).impressao.job_id);
    expect(closing.lines.map((l) => l.text)).toContain('FECHAMENTO DE CAIXA');
    expect(text(closing)).toMatch(/Esperado -R\$ 1\.064,56/);
    expect(text(closing)).toMatch(/Diferença total R\$ 1\.064,56/);
    expect(closing.drawerKicks).toEqual([]);

    const again = await api(h, 'POST', `/v1/register-sessions/${session.id}/report/print`);
    expect(again.status).toBe(202);
    const copy = await printedJob((again.body as { jobId: string }).jobId);
    expect(text(copy)).toBe(text(closing));
  });
});
