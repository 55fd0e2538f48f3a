// An operator's NFC-e draft belongs to the register session open when it was made (issue 13 follow-up):
// sending it after that session was closed would put a sale after its shift report was fixed. It is refused
// (409 caixa_fechado, nothing sent, number kept) unless an operator of the same caixa sends it while that
// caixa has a session open again; then it joins that session and the closed report stays as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { asOperator, contractCaller, signInToken } from './operator-helpers.ts';

let h: Harness;

const call = contractCaller(() => h);

interface ErrorBody {
  error: string;
  details: { field: string; error: string }[];
}

const taxes = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const sale = (valor: string) => ({
  itens: [
    {
      codigo: 'DRF1',
      descricao: 'Produto do rascunho',
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 1,
      valor_unitario: valor,
      cfop: '5102',
      tributacao: taxes,
    },
  ],
  pagamentos: [{ metodo: 'dinheiro', valor }],
});

const signIn = (codigo: string, pin: string, caixa: string) => signInToken(call, codigo, pin, caixa);
const as = asOperator;

async function open(token: string, caixa: string): Promise<string> {
  const res = await call('POST', '/v1/register-sessions', as(token, { fundo_troco: '10.00', caixa }));
  expect(res.status, res.text).toBe(201);
  return (res.body as { id: string }).id;
}
async function close(token: string, id: string): Promise<void> {
  const res = await call(
    'POST',
    `/v1/register-sessions/${id}/close`,
    as(token, { contagem: { dinheiro: 10 } }),
  );
  expect(res.status, res.text).toBe(200);
}
async function draft(token: string, valor: string): Promise<string> {
  const res = await call('POST', '/v1/nfce', as(token, sale(valor)));
  expect(res.status, res.text).toBe(201);
  return (res.body as { id: string }).id;
}
async function stateOf(id: string) {
  const row = await h.service.db
    .selectFrom('documents')
    .select(['status', 'n_nf', 'register_session_id'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const queued = await h.service.db.selectFrom('outbox').select('id').where('document_id', '=', id).execute();
  return { ...row, queued: queued.length };
}

let caixa21: string;
let gerente22: string;

beforeAll(async () => {
  h = await startHarness();
  caixa21 = await signIn('2', '3971', '21');
  gerente22 = await signIn('1', '4826', '22');
});
afterAll(() => h.stop());

describe('drafts of a closed register', () => {
  it('is refused before anything is sent, then joins the caixa’s next session when its operator sends it', async () => {
    const first = await open(caixa21, '21');
    const id = await draft(caixa21, '9.00');
    const created = await stateOf(id);
    expect(created).toMatchObject({ status: 'rascunho', register_session_id: first, queued: 0 });
    await close(caixa21, first);
    const report = await call('GET', `/v1/register-sessions/${first}/report`);
    expect(report.status).toBe(200);

    // Other software, the operator of the closed caixa with no session open, and an operator of another
    // caixa (open): all refused, the draft untouched.
    const refusals = [
      await call('POST', `/v1/nfce/${id}/send`, {}),
      await call('POST', `/v1/nfce/${id}/send?sync=true`, as(caixa21)),
    ];
    const other = await open(gerente22, '22');
    refusals.push(await call('POST', `/v1/nfce/${id}/send?sync=true`, as(gerente22)));
    for (const refused of refusals) {
      expect(refused.status, refused.text).toBe(409);
      const body = refused.body as ErrorBody;
      expect(body.error).toBe('caixa_fechado');
      expect(body.details.map((d) => d.field)).toEqual(['caixa']);
      expect(body.details[0]?.error).toContain('register 21');
    }
    expect(await stateOf(id)).toEqual(created);

    // The caixa opens again: its operator's send issues the sale in the new session.
    const second = await open(caixa21, '21');
    const sent = await call('POST', `/v1/nfce/${id}/send?sync=true`, as(caixa21));
    expect(sent.status, sent.text).toBe(200);
    expect((sent.body as { status: string }).status).toBe('autorizada');
    expect(await stateOf(id)).toMatchObject({
      status: 'autorizada',
      n_nf: created.n_nf,
      register_session_id: second,
      queued: 1,
    });
    // The closed shift's report is as it was fixed; the new one counts the sale.
    expect((await call('GET', `/v1/register-sessions/${first}/report`)).body).toEqual(report.body);
    const now = await call('GET', `/v1/register-sessions/${second}/report`);
    expect((now.body as { vendas: { quantidade: number; total: number } }).vendas).toEqual({
      quantidade: 1,
      total: 9,
    });
    await close(caixa21, second);
    await close(gerente22, other);
  });

  it('a draft of an open session is sent as before, by anyone; one without a session too', async () => {
    const session = await open(caixa21, '21');
    const ours = await draft(caixa21, '3.00');
    const sent = await call('POST', `/v1/nfce/${ours}/send?sync=true`, {});
    expect(sent.status, sent.text).toBe(200);
    expect(await stateOf(ours)).toMatchObject({ status: 'autorizada', register_session_id: session });

    const foreign = await call('POST', '/v1/nfce', { json: sale('4.00') });
    expect(foreign.status).toBe(201);
    const foreignId = (foreign.body as { id: string }).id;
    const closed = await call(
      'POST',
      `/v1/register-sessions/${session}/close`,
      as(caixa21, { contagem: {} }),
    );
    expect(closed.status).toBe(200);
    const sentForeign = await call('POST', `/v1/nfce/${foreignId}/send?sync=true`, {});
    expect(sentForeign.status, sentForeign.text).toBe(200);
    expect(await stateOf(foreignId)).toMatchObject({ status: 'autorizada', register_session_id: null });
  });
  it('a sent draft re-issued in contingency keeps its session and operator in the new note', async () => {
    const session = await open(caixa21, '21');
    const id = await draft(caixa21, '6.00');
    // The authority answers after the send's bounded wait (3 s): the sale is re-issued in contingency
    // (tpEmis 9) under the next number, the doubtful attempt settled later by the queue.
    const fault = await call('POST', '/v1/sandbox/faults', {
      json: { slow: { ms: 4000, services: ['NFeAutorizacao4'], times: 1 } },
    });
    expect(fault.status, fault.text).toBe(200);
    try {
      const sent = await call('POST', `/v1/nfce/${id}/send?sync=true`, as(caixa21));
      expect(sent.status, sent.text).toBe(200);
      const answer = sent.body as { id: string; tipo_emissao: number };
      expect(answer.tipo_emissao).toBe(9);
      expect(answer.id).not.toBe(id);
      const notes = await h.service.db
        .selectFrom('documents')
        .select(['id', 'replaces', 'register_session_id', 'operator_id'])
        .where('id', 'in', [id, answer.id])
        .execute();
      const attempt = notes.find((n) => n.id === id);
      expect(notes.find((n) => n.id === answer.id)).toEqual({
        id: answer.id,
        replaces: id,
        register_session_id: session,
        operator_id: attempt?.operator_id,
      });
      expect(attempt?.register_session_id).toBe(session);
      expect(attempt?.operator_id).not.toBeNull();
    } finally {
      await call('POST', '/v1/sandbox/faults', { json: { clear: true } });
    }
  });
});
