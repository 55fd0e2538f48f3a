// Operator rules on sales, cancels and reprints (issue 13 item 1): a caixa's price change, a discount above the
// role's limit, a cancel and a reprint need a supervisor's single-use approval; the note names its operator and
// the audit keeps who did what and who approved it. Requests without X-Operator-Token behave as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;
let productId: string;
let caixa: string;
let supervisor: string;
let supervisorId: string;

interface Doc {
  id: string;
  numero: number;
  status: string;
  operador: { id: string; codigo: string; nome: string } | null;
}
interface ErrorBody {
  error: string;
  acao?: string;
  details: { field: string; error: string }[];
}
interface AuditRow {
  acao: string;
  document_id: string | null;
  operador: { codigo: string };
  autorizado_por: { codigo: string } | null;
  detalhe: unknown;
}

const item = (extra: Record<string, unknown> = {}) => ({ productId, quantidade: '2', ...extra });
/** Two units of the 10.00 product: the items' total is 20.00. */
const sale = (extra: Record<string, unknown> = {}, itemExtra: Record<string, unknown> = {}) => ({
  itens: [item(itemExtra)],
  pagamentos: [{ forma: '01', valor: '100.00' }],
  ...extra,
});

async function signIn(codigo: string, pin: string): Promise<string> {
  const res = await h.request('POST', '/v1/operators/sign-in', { json: { codigo, pin } });
  expect(res.status).toBe(200);
  return (res.body as { token: string }).token;
}

async function authorize(codigo: string, pin: string, acao: string): Promise<string> {
  const res = await h.request('POST', '/v1/operators/authorize', { json: { codigo, pin, acao } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { autorizacao: string }).autorizacao;
}

const sell = (token: string | null, body: unknown, approval?: string) =>
  h.request('POST', '/v1/nfce/venda', {
    json: body,
    headers: {
      ...(token === null ? {} : { 'X-Operator-Token': token }),
      ...(approval === undefined ? {} : { 'X-Supervisor-Authorization': approval }),
    },
  });

async function documentsCount(): Promise<number> {
  const row = await h.service.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function audit(documentId: string): Promise<AuditRow[]> {
  const res = await h.request('GET', `/v1/operators/actions?document_id=${documentId}`);
  expect(res.status).toBe(200);
  return (res.body as { data: AuditRow[] }).data;
}

/** The open register session a signed-in operator's sale needs (issue 13 item 2). */
async function openRegister(token: string): Promise<void> {
  const res = await h.request('POST', '/v1/register-sessions', {
    json: { fundo_troco: '50.00' },
    headers: { 'X-Operator-Token': token },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

beforeAll(async () => {
  h = await startHarness();
  const product = await h.request('POST', '/v1/products', {
    json: { cProd: 'ARZ5', xProd: 'ARROZ 5 KG', NCM: '10063021', uCom: 'UN', vUnCom: '10.00' },
  });
  expect(product.status).toBe(201);
  productId = (product.body as { id: string }).id;
  const sup = await h.request('POST', '/v1/operators', {
    json: { nome: 'Sara Supervisora', papel: 'supervisor', pin: '7302', codigo: '7' },
  });
  expect(sup.status).toBe(201);
  supervisorId = (sup.body as { id: string }).id;
  caixa = await signIn('2', '3971');
  supervisor = await signIn('7', '7302');
  await openRegister(caixa);
});
afterAll(() => h.stop());

describe('operator rules on sales', () => {
  it('leaves requests without X-Operator-Token as they were: any price, any discount, no operator', async () => {
    const res = await sell(null, sale({ valorDesconto: '15.00' }, { valorUnitario: '9.00' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((res.body as Doc).operador).toBeNull();
    expect(await audit((res.body as Doc).id)).toEqual([]);
  });

  it("records the operator on a caixa's sale within its limits, in the answer, the note and the audit", async () => {
    // 1.00 of 20.00 is 5 %: the caixa's own limit.
    const res = await sell(caixa, sale({ valorDesconto: '1.00' }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const doc = res.body as Doc;
    expect(doc.operador).toMatchObject({ codigo: '2', nome: 'Caixa Demo' });
    const row = await h.service.db
      .selectFrom('documents')
      .select('operator_id')
      .where('id', '=', doc.id)
      .executeTakeFirstOrThrow();
    expect(row.operator_id).toBe(doc.operador?.id);
    const read = await h.request('GET', `/v1/nfce/${doc.id}`);
    expect((read.body as Doc).operador).toEqual(doc.operador);
    const list = await h.request('GET', '/v1/nfce?limit=50');
    const listed = (list.body as { items: Doc[] }).items.find((d) => d.id === doc.id);
    expect(listed?.operador).toEqual(doc.operador);
    expect(await audit(doc.id)).toEqual([
      expect.objectContaining({
        acao: 'desconto',
        operador: expect.objectContaining({ codigo: '2' }),
        autorizado_por: null,
        detalhe: { desconto: '1.00', total_itens: '20.00' },
      }),
    ]);
  });

  it("refuses a caixa's price change without approval, issuing nothing, and takes it with a supervisor's", async () => {
    const before = await documentsCount();
    const refused = await sell(caixa, sale({}, { valorUnitario: '8.50' }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      error: 'autorizacao_necessaria',
      acao: 'preco',
      details: [{ field: 'X-Supervisor-Authorization' }],
    });
    expect(await documentsCount()).toBe(before);

    // The same price written as a number is no change.
    expect((await sell(caixa, sale({}, { valorUnitario: 10 }))).status).toBe(201);

    const approval = await authorize('7', '7302', 'preco');
    const res = await sell(caixa, sale({}, { valorUnitario: '8.50' }), approval);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const doc = res.body as Doc;
    expect(doc.operador?.codigo).toBe('2');
    expect(await audit(doc.id)).toEqual([
      expect.objectContaining({
        acao: 'preco',
        autorizado_por: expect.objectContaining({ codigo: '7' }),
        detalhe: { itens: [{ item: 1, codigo: 'ARZ5', catalogo: '10.00', vendido: '8.50' }] },
      }),
    ]);
    const link = await h.service.db
      .selectFrom('operator_authorizations')
      .select(['document_id', 'used_at', 'supervisor_id'])
      .where('document_id', '=', doc.id)
      .executeTakeFirstOrThrow();
    expect(link.supervisor_id).toBe(supervisorId);
    expect(link.used_at).not.toBeNull();

    // Single use: the same approval does not pass a second sale.
    const again = await sell(caixa, sale({}, { valorUnitario: '8.50' }), approval);
    expect(again.status).toBe(403);
    expect((again.body as ErrorBody).details[0]?.error).toBe('authorization already used');
  });

  it('a sale refused for want of an approval goes through on a retry with the same Idempotency-Key', async () => {
    const key = `approval-retry-${Date.now()}`;
    const body = sale({}, { valorUnitario: '8.25' });
    const withKey = (approval?: string) =>
      h.request('POST', '/v1/nfce/venda', {
        json: body,
        headers: {
          'Idempotency-Key': key,
          'X-Operator-Token': caixa,
          ...(approval === undefined ? {} : { 'X-Supervisor-Authorization': approval }),
        },
      });
    const before = await documentsCount();
    const refused = await withKey();
    expect(refused.status).toBe(403);
    expect((refused.body as ErrorBody).error).toBe('autorizacao_necessaria');
    expect(await documentsCount()).toBe(before);
    // Nothing ran, so the refusal is not what the key replays: the approved retry is issued.
    const approved = await withKey(await authorize('7', '7302', 'preco'));
    expect(approved.status, JSON.stringify(approved.body)).toBe(201);
    expect(await documentsCount()).toBe(before + 1);
    // From then on the key replays the sale, never a second note.
    const replay = await withKey();
    expect(replay.status).toBe(201);
    expect((replay.body as Doc).id).toBe((approved.body as Doc).id);
    expect(await documentsCount()).toBe(before + 1);
  });

  it('holds discounts to the limit of the role and of the approver', async () => {
    // 2.00 of 20.00 (10 %): above the caixa's 5 %.
    const refused = await sell(caixa, sale({ valorDesconto: '2.00' }));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ acao: 'desconto' });
    // The supervisor gives it alone (up to 20 %)…
    const bySupervisor = await sell(supervisor, sale({ valorDesconto: '2.00' }));
    expect(bySupervisor.status).toBe(201);
    expect((bySupervisor.body as Doc).operador?.codigo).toBe('7');
    // …and approves it for the caixa, counting item discounts too (1.00 + 1.00 = 10 %).
    const ok = await sell(
      caixa,
      sale({ valorDesconto: '1.00' }, { valorDesconto: '1.00' }),
      await authorize('7', '7302', 'desconto'),
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    // 6.00 (30 %) is above the supervisor's own limit: its approval is not enough, the gerente's is.
    const tooMuch = await sell(
      caixa,
      sale({ valorDesconto: '6.00' }),
      await authorize('7', '7302', 'desconto'),
    );
    expect(tooMuch.status).toBe(403);
    expect((tooMuch.body as ErrorBody).details[0]?.error).toBe(
      "the discount is above the approver's own limit",
    );
    const byGerente = await sell(
      caixa,
      sale({ valorDesconto: '6.00' }),
      await authorize('1', '4826', 'desconto'),
    );
    expect(byGerente.status).toBe(201);
    expect(await audit((byGerente.body as Doc).id)).toEqual([
      expect.objectContaining({ acao: 'desconto', autorizado_por: expect.objectContaining({ codigo: '1' }) }),
    ]);
  });

  it('takes a price change and a discount together with two approvals, consuming none when one is missing', async () => {
    const preco = await authorize('7', '7302', 'preco');
    const body = sale({ valorDesconto: '3.00' }, { valorUnitario: '9.00' });
    const missing = await sell(caixa, body, preco);
    expect(missing.status).toBe(403);
    expect(missing.body).toMatchObject({ acao: 'desconto' });
    const desconto = await authorize('7', '7302', 'desconto');
    const res = await sell(caixa, body, `${preco}, ${desconto}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await audit((res.body as Doc).id)).map((a) => [a.acao, a.autorizado_por?.codigo])).toEqual([
      ['preco', '7'],
      ['desconto', '7'],
    ]);
  });

  it('refuses an unknown operator token on a sale', async () => {
    const res = await sell('op_nao_existe', sale());
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'operador_nao_autenticado' });
  });
});

describe('operator rules on cancels and reprints', () => {
  let docId: string;

  beforeAll(async () => {
    const res = await sell(caixa, sale());
    expect(res.status).toBe(201);
    docId = (res.body as Doc).id;
    const printer = await h.request('POST', `/v1/companies/${h.companyId}/printers`, {
      json: {
        nome: 'Balcão',
        tipo: 'rede',
        conexao: { host: '127.0.0.1', porta: 9, permitirRedeLocal: true },
        impressaoAutomatica: false,
      },
    });
    expect(printer.status).toBe(201);
  });

  it("needs a supervisor for a caixa's reprint and audits every reprint by an operator", async () => {
    const refused = await h.request('POST', `/v1/nfce/${docId}/reprint`, {
      headers: { 'X-Operator-Token': caixa },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'autorizacao_necessaria', acao: 'reimprimir' });
    const approved = await h.request('POST', `/v1/nfce/${docId}/reprint`, {
      headers: {
        'X-Operator-Token': caixa,
        'X-Supervisor-Authorization': await authorize('1', '4826', 'reimprimir'),
      },
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(202);
    const bySupervisor = await h.request('POST', `/v1/nfce/${docId}/reprint`, {
      headers: { 'X-Operator-Token': supervisor },
    });
    expect(bySupervisor.status).toBe(202);
    // Without an operator nothing changes and nothing is audited.
    expect((await h.request('POST', `/v1/nfce/${docId}/reprint`)).status).toBe(202);
    const rows = (await audit(docId)).filter((a) => a.acao === 'reimprimir');
    expect(rows.map((a) => [a.operador.codigo, a.autorizado_por?.codigo ?? null])).toEqual([
      ['2', '1'],
      ['7', null],
    ]);
  });

  it("needs a supervisor for a caixa's cancel and audits it with the justification", async () => {
    const justificativa = 'Cliente desistiu da compra no caixa';
    const refused = await h.request('POST', `/v1/nfce/${docId}/cancel`, {
      json: { justificativa },
      headers: { 'X-Operator-Token': caixa },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'autorizacao_necessaria', acao: 'cancelar_venda' });
    expect((await h.request('GET', `/v1/nfce/${docId}`)).body).toMatchObject({ status: 'autorizada' });

    const approval = await authorize('7', '7302', 'cancelar_venda');
    const res = await h.request('POST', `/v1/nfce/${docId}/cancel`, {
      json: { justificativa },
      headers: { 'X-Operator-Token': caixa, 'X-Supervisor-Authorization': approval },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect((await audit(docId)).filter((a) => a.acao === 'cancelar_venda')).toEqual([
      expect.objectContaining({
        operador: expect.objectContaining({ codigo: '2' }),
        autorizado_por: expect.objectContaining({ codigo: '7' }),
        detalhe: { justificativa },
      }),
    ]);
  });
});
