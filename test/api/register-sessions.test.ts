// Register sessions (issue 13 item 2) against the running service: opening with the float, sangria and
// suprimento, sales tied to the session and refused on a closed register, the blind close with its
// differences, the shift report, and a restart mid-shift that keeps the session and its movements.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { fromDomainError } from '../../src-main/api/errors.ts';
import { DomainError } from '../../src-main/errors.ts';
import { asOperator, contractCaller, signInToken } from './operator-helpers.ts';

let h: Harness;

const call = contractCaller(() => h);

interface Ref {
  id: string;
  codigo: string;
  nome: string;
}
interface Movement {
  id: string;
  tipo: string;
  valor: number;
  motivo: string;
  operador: Ref | null;
  impressao: { job_id: string } | null;
}
interface Session {
  id: string;
  caixa: string;
  status: string;
  aberta_por: Ref | null;
  fechada_por: Ref | null;
  fundo_troco: number;
  movimentos: Movement[];
  vendas: { quantidade: number };
  fechamento: null | {
    contado: Record<string, number>;
    esperado: Record<string, number>;
    diferenca: Record<string, number>;
    diferenca_total: number;
  };
}
interface Report {
  vendas: { quantidade: number; total: number };
  por_metodo: { metodo: string; quantidade: number; valor: number }[];
  troco: number;
  cancelamentos: { id: string }[];
  voids: { tipo: string; descricao: string; valor: number }[];
  movimentos: Movement[];
  esperado: Record<string, number> | null;
  diferenca_total: number | null;
}
interface ErrorBody {
  error: string;
  details: { field: string; error: string }[];
}
interface Sale {
  id: string;
  status: string;
  total_nota: number;
}

const taxes = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const sale = (valor: string, pagamentos: { metodo: string; valor: string }[]) => ({
  itens: [
    {
      codigo: 'REG1',
      descricao: 'Produto do caixa',
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 1,
      valor_unitario: valor,
      cfop: '5102',
      tributacao: taxes,
    },
  ],
  pagamentos,
});

const signIn = (codigo: string, pin: string, caixa: string) => signInToken(call, codigo, pin, caixa);
const as = asOperator;

let caixa: string;
let gerente: string;

beforeAll(async () => {
  h = await startHarness();
  caixa = await signIn('2', '3971', '5');
  gerente = await signIn('1', '4826', '5');
});
afterAll(() => h.stop());

describe('register sessions', () => {
  let session: Session;

  it('refuses an operator sale on a closed register; other software sells as before', async () => {
    const refused = await call(
      'POST',
      '/v1/nfce/venda',
      as(gerente, sale('7.00', [{ metodo: 'dinheiro', valor: '10.00' }])),
    );
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'caixa_fechado', details: [{ field: 'caixa' }] });
    const draft = await call(
      'POST',
      '/v1/nfce',
      as(gerente, sale('7.00', [{ metodo: 'dinheiro', valor: '10.00' }])),
    );
    expect(draft.status).toBe(409);
    const machine = await call('POST', '/v1/nfce/venda', {
      json: sale('7.00', [{ metodo: 'dinheiro', valor: '10.00' }]),
    });
    expect(machine.status, machine.text).toBe(201);
  });

  it('needs an operator to open, validates every field, and opens one session per register', async () => {
    const anonymous = await call('POST', '/v1/register-sessions', { json: { fundo_troco: '100.00' } });
    expect(anonymous.status).toBe(400);
    expect((anonymous.body as ErrorBody).details.map((d) => d.field)).toEqual(['X-Operator-Token']);

    const bad = await call('POST', '/v1/register-sessions', as(caixa, { fundo_troco: '-1', caixa: '' }));
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).details.map((d) => d.field).sort()).toEqual(['caixa', 'fundo_troco']);

    const opened = await call('POST', '/v1/register-sessions', as(caixa, { fundo_troco: '100.00' }));
    expect(opened.status, opened.text).toBe(201);
    session = opened.body as Session;
    expect(session).toMatchObject({
      caixa: '5',
      status: 'aberta',
      fundo_troco: 100,
      aberta_por: { codigo: '2', nome: 'Caixa Demo' },
      movimentos: [],
      vendas: { quantidade: 0 },
      fechamento: null,
    });

    const again = await call('POST', '/v1/register-sessions', as(gerente, { fundo_troco: 50 }));
    expect(again.status).toBe(409);
    expect((again.body as ErrorBody).error).toBe('caixa_ja_aberto');

    const current = await call('GET', '/v1/register-sessions/current?caixa=5');
    expect(current.status).toBe(200);
    expect((current.body as Session).id).toBe(session.id);
    const other = await call('GET', '/v1/register-sessions/current?caixa=6');
    expect(other.status).toBe(404);
  });

  it('ties the operators’ sales to the session; cash change stays out of the drawer', async () => {
    const sales: [string, { metodo: string; valor: string }[]][] = [
      ['7.00', [{ metodo: 'dinheiro', valor: '10.00' }]], // change 3,00
      ['12.35', [{ metodo: 'cartao_debito', valor: '12.35' }]],
      [
        '20.00',
        [
          { metodo: 'dinheiro', valor: '5.00' },
          { metodo: 'pix', valor: '15.00' },
        ],
      ],
    ];
    for (const [valor, pagamentos] of sales) {
      const res = await call('POST', '/v1/nfce/venda', as(gerente, sale(valor, pagamentos)));
      expect(res.status, res.text).toBe(201);
      expect((res.body as Sale).status).toBe('autorizada');
    }
    const tagged = await h.service.db
      .selectFrom('documents')
      .select(['id', 'register_session_id'])
      .where('register_session_id', '=', session.id)
      .execute();
    expect(tagged).toHaveLength(3);
    // The sale made without an operator belongs to no session.
    const untagged = await h.service.db
      .selectFrom('documents')
      .select('id')
      .where('register_session_id', 'is', null)
      .execute();
    expect(untagged).toHaveLength(1);
  });

  it('records sangria and suprimento with every fault named at once', async () => {
    const bad = await call(
      'POST',
      `/v1/register-sessions/${session.id}/movements`,
      as(caixa, { tipo: 'retirada', valor: '0', motivo: '' }),
    );
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).details.map((d) => d.field).sort()).toEqual(['motivo', 'tipo', 'valor']);
    const anonymous = await call('POST', `/v1/register-sessions/${session.id}/movements`, {
      json: { tipo: 'sangria', valor: '1.00', motivo: 'x' },
    });
    expect(anonymous.status).toBe(400);

    const suprimento = await call(
      'POST',
      `/v1/register-sessions/${session.id}/movements`,
      as(caixa, { tipo: 'suprimento', valor: 50, motivo: 'Troco em moedas' }),
    );
    expect(suprimento.status, suprimento.text).toBe(201);
    expect(suprimento.body).toMatchObject({ tipo: 'suprimento', valor: 50, operador: { codigo: '2' } });
    const sangria = await call(
      'POST',
      `/v1/register-sessions/${session.id}/movements`,
      as(caixa, { tipo: 'sangria', valor: '30.10', motivo: 'Cofre' }),
    );
    expect(sangria.status).toBe(201);
    const voided = await call(
      'POST',
      `/v1/register-sessions/${session.id}/voids`,
      as(caixa, { tipo: 'item', descricao: 'Arroz 5kg', valor: '25.90' }),
    );
    expect(voided.status, voided.text).toBe(201);

    const read = await call('GET', `/v1/register-sessions/${session.id}`);
    const view = read.body as Session;
    expect(view.movimentos.map((m) => [m.tipo, m.valor, m.motivo])).toEqual([
      ['suprimento', 50, 'Troco em moedas'],
      ['sangria', 30.1, 'Cofre'],
    ]);
    expect(view.vendas.quantidade).toBe(3);
    // Blind count: nothing expected is shown while the session is open.
    expect(view.fechamento).toBeNull();
    expect(read.text).not.toContain('esperado');
    const partial = (await call('GET', `/v1/register-sessions/${session.id}/report`)).body as Report;
    expect(partial.esperado).toBeNull();
    expect(partial.vendas).toEqual({ quantidade: 3, total: 39.35 });
  });

  it('closes with the blind count: differences per method, the report fixed, nothing more on it', async () => {
    // Expected cash: 100 float + (10 − 3 change) + 5 + 50 suprimento − 30,10 sangria = 131,90.
    const closed = await call(
      'POST',
      `/v1/register-sessions/${session.id}/close`,
      as(caixa, { contagem: { dinheiro: '129.90', cartao_debito: 12.35, pix: '15.00' } }),
    );
    expect(closed.status, closed.text).toBe(200);
    const body = closed.body as Session & { relatorio: Report };
    expect(body.status).toBe('fechada');
    expect(body.fechada_por?.codigo).toBe('2');
    expect(body.fechamento).toEqual({
      contado: { dinheiro: 129.9, cartao_debito: 12.35, pix: 15 },
      esperado: { dinheiro: 131.9, cartao_debito: 12.35, pix: 15 },
      diferenca: { dinheiro: -2, cartao_debito: 0, pix: 0 },
      diferenca_total: -2,
    });
    const report = (await call('GET', `/v1/register-sessions/${session.id}/report`)).body as Report;
    expect(report).toMatchObject({
      vendas: { quantidade: 3, total: 39.35 },
      por_metodo: [
        { metodo: 'dinheiro', quantidade: 2, valor: 12 },
        { metodo: 'cartao_debito', quantidade: 1, valor: 12.35 },
        { metodo: 'pix', quantidade: 1, valor: 15 },
      ],
      troco: 3,
      voids: [{ tipo: 'item', descricao: 'Arroz 5kg', valor: 25.9 }],
      diferenca_total: -2,
    });
    const byMethod = report.por_metodo.reduce((a, m) => a + Math.round(m.valor * 100), 0);
    expect(byMethod).toBe(3935);
    expect(report).toEqual(body.relatorio);

    const twice = await call(
      'POST',
      `/v1/register-sessions/${session.id}/close`,
      as(caixa, { contagem: {} }),
    );
    expect(twice.status).toBe(409);
    const late = await call(
      'POST',
      `/v1/register-sessions/${session.id}/movements`,
      as(caixa, { tipo: 'sangria', valor: '1.00', motivo: 'x' }),
    );
    expect(late.status).toBe(409);
    expect((late.body as ErrorBody).error).toBe('caixa_fechado');
    const afterClose = await call(
      'POST',
      '/v1/nfce/venda',
      as(gerente, sale('1.00', [{ metodo: 'dinheiro', valor: '1.00' }])),
    );
    expect(afterClose.status).toBe(409);
    expect((afterClose.body as ErrorBody).error).toBe('caixa_fechado');

    const list = await call('GET', '/v1/register-sessions?status=fechada&caixa=5');
    expect((list.body as { data: Session[] }).data.map((s) => s.id)).toEqual([session.id]);
  });

  it('a sale whose register closed after the route looked is refused before it is numbered', async () => {
    const { withSaleRegister } = await import('../../src-main/register/sale-context.ts');
    const { sellNfce } = await import('../../src-main/documents/issue.ts');
    const opened = await call(
      'POST',
      '/v1/register-sessions',
      as(caixa, { fundo_troco: '5.00', caixa: '11' }),
    );
    const id = (opened.body as Session).id;
    // The route saw the register open; the closing commits before the sale's transaction.
    const closed = await call(
      'POST',
      `/v1/register-sessions/${id}/close`,
      as(caixa, { contagem: { dinheiro: 5 } }),
    );
    expect(closed.status).toBe(200);
    const before = await h.service.db.selectFrom('documents').select('id').execute();
    const deps = { db: h.service.db, clock: h.clock, secrets: h.service.secrets, worker: h.service.worker };
    const refused = await withSaleRegister({ companyId: h.companyId, sessionId: id, operatorId: null }, () =>
      sellNfce(deps, h.companyId, sale('2.00', [{ metodo: 'dinheiro', valor: '2.00' }]), 3000),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('caixa_fechado');
    expect(fromDomainError(refused as DomainError).status).toBe(409);
    expect(await h.service.db.selectFrom('documents').select('id').execute()).toEqual(before);
    // The number was not taken: the next sale gets the one after the last note.
    const next = await call('POST', '/v1/nfce/venda', {
      json: sale('2.00', [{ metodo: 'dinheiro', valor: '2.00' }]),
    });
    expect(next.status).toBe(201);
    const numbers = await h.service.db
      .selectFrom('documents')
      .select('n_nf')
      .where('modelo', '=', 65)
      .execute();
    const sorted = numbers.map((n) => n.n_nf).sort((a, b) => a - b);
    expect(sorted.at(-1)).toBe((sorted.at(-2) ?? 0) + 1);
  });

  it('the note names its operator and session in the transaction that creates it (a crash after it keeps both)', async () => {
    const { withSaleRegister } = await import('../../src-main/register/sale-context.ts');
    const { sellNfce, createDraft } = await import('../../src-main/documents/issue.ts');
    const opened = await call(
      'POST',
      '/v1/register-sessions',
      as(caixa, { fundo_troco: '5.00', caixa: '12' }),
    );
    expect(opened.status, opened.text).toBe(201);
    const sessionId = (opened.body as Session).id;
    const operator = await h.service.db
      .selectFrom('operators')
      .select('id')
      .where('company_id', '=', h.companyId)
      .where('codigo', '=', '2')
      .executeTakeFirstOrThrow();
    const deps = { db: h.service.db, clock: h.clock, secrets: h.service.secrets, worker: h.service.worker };
    const attribution = { companyId: h.companyId, sessionId, operatorId: operator.id };
    // Only the service's own step runs: nothing after it (the route's answer) is needed for the row to say who sold.
    const sold = await withSaleRegister(attribution, () =>
      sellNfce(deps, h.companyId, sale('3.00', [{ metodo: 'dinheiro', valor: '3.00' }]), 3000),
    );
    const draft = await withSaleRegister(attribution, () =>
      createDraft(deps, h.companyId, 65, sale('4.00', [{ metodo: 'dinheiro', valor: '4.00' }])),
    );
    const rows = await h.service.db
      .selectFrom('documents')
      .select(['id', 'operator_id', 'register_session_id'])
      .where('id', 'in', [sold.document.id, draft.id])
      .execute();
    expect(rows).toHaveLength(2);
    for (const row of rows)
      expect(row).toMatchObject({ operator_id: operator.id, register_session_id: sessionId });
  });

  it('keeps the session and every movement across a restart mid-shift', async () => {
    const opened = await call(
      'POST',
      '/v1/register-sessions',
      as(caixa, { fundo_troco: '80.00', caixa: '7' }),
    );
    expect(opened.status).toBe(201);
    const id = (opened.body as Session).id;
    for (let i = 1; i <= 5; i++) {
      const res = await call(
        'POST',
        `/v1/register-sessions/${id}/movements`,
        as(caixa, { tipo: i % 2 === 0 ? 'sangria' : 'suprimento', valor: `${i}.0${i}`, motivo: `mov ${i}` }),
      );
      expect(res.status).toBe(201);
    }
    const { dataDir } = h;
    await h.stop();
    h = await startHarness({ dataDir });
    const current = await call('GET', '/v1/register-sessions/current?caixa=7');
    expect(current.status).toBe(200);
    const view = current.body as Session;
    expect(view.id).toBe(id);
    expect(view.status).toBe('aberta');
    expect(view.movimentos.map((m) => m.motivo)).toEqual(['mov 1', 'mov 2', 'mov 3', 'mov 4', 'mov 5']);
    // The operator's token survived too, and the shift goes on.
    const more = await call(
      'POST',
      `/v1/register-sessions/${id}/movements`,
      as(caixa, { tipo: 'sangria', valor: '1.00', motivo: 'depois' }),
    );
    expect(more.status).toBe(201);
  });

  it("lists sessions by the store's day: opened at 22:30 in São Paulo is that day, not the next UTC day", async () => {
    const next = new Date(h.clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
    h.clock.set(`${next}T01:30:00.000Z`);
    const localDay = new Date(Date.parse(`${next}T01:30:00.000Z`) - 3 * 3600_000).toISOString().slice(0, 10);
    const late = await signIn('2', '3971', '8');
    const opened = await call('POST', '/v1/register-sessions', as(late, { fundo_troco: '10.00' }));
    expect(opened.status, opened.text).toBe(201);
    const id = (opened.body as Session).id;
    const ids = async (query: string) =>
      ((await call('GET', `/v1/register-sessions?caixa=8&${query}`)).body as { data: Session[] }).data.map(
        (s) => s.id,
      );
    expect(await ids(`de=${localDay}&ate=${localDay}`)).toEqual([id]);
    expect(await ids(`de=${next}`)).toEqual([]);
    expect(await ids(`ate=${localDay}`)).toEqual([id]);
    const bad = await call('GET', '/v1/register-sessions?de=24-11-2026&status=open');
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).details.map((d) => d.field).sort()).toEqual(['de', 'status']);
  });
});
