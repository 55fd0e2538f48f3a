// Sales reports (issue 13 item 11) over real sales through the API and the sandbox authority: per payment
// method the totals equal the sums of the payments made (change netted from cash), and per day, session,
// operator and product the lines add up to the sales; a cancelled sale is left out and counted apart; CSV
// export for a pt-BR spreadsheet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { contractCaller, signInToken } from './operator-helpers.ts';

let h: Harness;

const call = contractCaller(() => h, { waitOut429: true });

interface Line {
  chave: string;
  rotulo: string;
  vendas: number;
  itens?: number;
  total: number;
}
interface Report {
  agrupar: string;
  linhas: Line[];
  vendas: number;
  total: number;
  canceladas: { quantidade: number; total: number };
}

const taxes = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const item = (codigo: string, quantidade: number | string, valor: string) => ({
  codigo,
  descricao: `Produto ${codigo}`,
  ncm: '22011000',
  unidade: 'UN',
  quantidade,
  valor_unitario: valor,
  cfop: '5102',
  tributacao: taxes,
});

/** Cents of a decimal text, to sum exactly in the test as well. */
const c = (text: string) => Math.round(Number(text) * 100);

interface Made {
  id: string;
  itens: ReturnType<typeof item>[];
  pagamentos: { metodo: string; valor: string }[];
  operator: boolean;
}
const made: Made[] = [];
let token: string;
let day: string;
let sessionId: string;

async function sell(itens: ReturnType<typeof item>[], pagamentos: Made['pagamentos'], operator: boolean) {
  const res = await call('POST', '/v1/nfce/venda', {
    json: { itens, pagamentos },
    ...(operator ? { headers: { 'X-Operator-Token': token } } : {}),
  });
  expect(res.status, res.text).toBe(201);
  const body = res.body as { id: string; status: string; dh_emissao: string };
  expect(body.status).toBe('autorizada');
  day = body.dh_emissao.slice(0, 10);
  made.push({ id: body.id, itens, pagamentos, operator });
  return body.id;
}

/** The total a sale's payments left with the store: what was paid less the change (given from cash). */
function kept(sale: Made): Map<string, number> {
  const total = sale.itens.reduce((a, i) => a + Math.round(Number(i.quantidade) * c(i.valor_unitario)), 0);
  const paid = sale.pagamentos.reduce((a, p) => a + c(p.valor), 0);
  const out = new Map<string, number>();
  for (const p of sale.pagamentos) out.set(p.metodo, (out.get(p.metodo) ?? 0) + c(p.valor));
  out.set('dinheiro', (out.get('dinheiro') ?? 0) - (paid - total));
  if (out.get('dinheiro') === 0 && !sale.pagamentos.some((p) => p.metodo === 'dinheiro'))
    out.delete('dinheiro');
  return out;
}

beforeAll(async () => {
  h = await startHarness();
  token = await signInToken(call, '1', '4826', '1');
  const opened = await call('POST', '/v1/register-sessions', {
    headers: { 'X-Operator-Token': token },
    json: { fundo_troco: '50.00' },
  });
  expect(opened.status, opened.text).toBe(201);
  sessionId = (opened.body as { id: string }).id;

  // Twelve sales of mixed methods, half by the signed-in gerente, half by other software.
  const methods: Made['pagamentos'][] = [
    [{ metodo: 'dinheiro', valor: '20.00' }],
    [{ metodo: 'cartao_credito', valor: '7.80' }],
    [{ metodo: 'cartao_debito', valor: '11.35' }],
    [{ metodo: 'pix', valor: '3.90' }],
  ];
  for (let i = 0; i < 12; i++) {
    const itens = [item('A', (i % 3) + 1, '3.90'), ...(i % 2 === 0 ? [item('B', '0.5', '7.10')] : [])];
    const total = itens.reduce((a, it) => a + Math.round(Number(it.quantidade) * c(it.valor_unitario)), 0);
    const kind = methods[i % 4]?.[0]?.metodo ?? 'dinheiro';
    const totalText = (total / 100).toFixed(2);
    const pagamentos =
      kind === 'dinheiro'
        ? [{ metodo: 'dinheiro', valor: '50.00' }]
        : i === 5
          ? [
              { metodo: kind, valor: '1.00' },
              { metodo: 'dinheiro', valor: ((total - 100) / 100 + 5).toFixed(2) },
            ]
          : [{ metodo: kind, valor: totalText }];
    await sell(itens, pagamentos, i % 2 === 0);
  }
  // One more, cancelled: out of every line, counted apart.
  const cancelled = await sell([item('C', 1, '9.99')], [{ metodo: 'pix', valor: '9.99' }], false);
  made.pop();
  const cancel = await call('POST', `/v1/nfce/${cancelled}/cancel`, {
    json: { justificativa: 'Venda cancelada a pedido do cliente' },
  });
  expect(cancel.status, cancel.text).toBe(202);
  for (let i = 0; i < 100; i++) {
    await h.service.worker.tick();
    const read = await call('GET', `/v1/nfce/${cancelled}`);
    if ((read.body as { status: string }).status === 'cancelada') break;
    await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(() => h.stop());

const report = async (agrupar: string) => {
  const res = await call('GET', `/v1/reports/sales?de=${day}&ate=${day}&agrupar=${agrupar}`);
  expect(res.status, res.text).toBe(200);
  return res.body as Report;
};
const cents = (lines: Line[]) => new Map(lines.map((l) => [l.chave, Math.round(l.total * 100)]));
const grandTotal = () =>
  made.reduce(
    (a, s) => a + s.itens.reduce((b, i) => b + Math.round(Number(i.quantidade) * c(i.valor_unitario)), 0),
    0,
  );

describe('GET /v1/reports/sales', () => {
  it('per payment method: each total is the sum of what the sales paid with it, change taken from cash', async () => {
    const r = await report('metodo');
    const expected = new Map<string, number>();
    for (const sale of made) for (const [m, v] of kept(sale)) expected.set(m, (expected.get(m) ?? 0) + v);
    expect(cents(r.linhas)).toEqual(expected);
    expect(r.vendas).toBe(12);
    expect(Math.round(r.total * 100)).toBe(grandTotal());
    expect([...expected.values()].reduce((a, b) => a + b, 0)).toBe(grandTotal());
    expect(r.canceladas).toEqual({ quantidade: 1, total: 9.99 });
    process.stdout.write(
      `sales report: ${r.vendas} sales, total ${r.total}; ${r.linhas.map((l) => `${l.chave} ${l.total} (${l.vendas})`).join(', ')}; cancelled ${r.canceladas.total}\n`,
    );
    const pix = r.linhas.find((l) => l.chave === 'pix');
    expect(pix).toMatchObject({ rotulo: 'PIX', vendas: 3 });
  });

  it('per day, session and operator the lines add up to the sales', async () => {
    const perDay = await report('dia');
    expect(perDay.linhas).toHaveLength(1);
    expect(perDay.linhas[0]).toMatchObject({ chave: day, vendas: 12 });
    expect(Math.round((perDay.linhas[0]?.total ?? 0) * 100)).toBe(grandTotal());

    const byOperatorSale = (operator: boolean) =>
      made
        .filter((s) => s.operator === operator)
        .reduce(
          (a, s) =>
            a + s.itens.reduce((b, i) => b + Math.round(Number(i.quantidade) * c(i.valor_unitario)), 0),
          0,
        );
    const perSession = await report('sessao');
    expect(new Map(perSession.linhas.map((l) => [l.chave, [l.vendas, Math.round(l.total * 100)]]))).toEqual(
      new Map([
        [sessionId, [6, byOperatorSale(true)]],
        ['sem_sessao', [6, byOperatorSale(false)]],
      ]),
    );
    expect(perSession.linhas.find((l) => l.chave === sessionId)?.rotulo).toMatch(
      /^Caixa 1 · \d\d\/\d\d\/\d{4} \d\d:\d\d$/,
    );

    const perOperator = await report('operador');
    expect(perOperator.linhas.map((l) => [l.rotulo, l.vendas])).toEqual(
      expect.arrayContaining([
        ['1 Gerente Demo', 6],
        ['Sem operador', 6],
      ]),
    );
  });

  it('per product: quantities and amounts of each item', async () => {
    const r = await report('produto');
    const a = made.flatMap((s) => s.itens.filter((i) => i.codigo === 'A'));
    const b = made.flatMap((s) => s.itens.filter((i) => i.codigo === 'B'));
    expect(r.linhas.map((l) => [l.chave, l.rotulo, l.vendas, l.itens, Math.round(l.total * 100)])).toEqual([
      [
        'A',
        'Produto A',
        12,
        a.reduce((x, i) => x + Number(i.quantidade), 0),
        a.reduce((x, i) => x + Number(i.quantidade) * 390, 0),
      ],
      ['B', 'Produto B', 6, 3, b.length * 355],
    ]);
  });

  it('exports CSV for a pt-BR spreadsheet, by ?formato=csv or Accept, and checks its parameters', async () => {
    const res = await call('GET', `/v1/reports/sales?de=${day}&ate=${day}&agrupar=metodo&formato=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="vendas-metodo-${day}-${day}.csv"`,
    );
    // The BOM that tells a spreadsheet the file is UTF-8 (fetch's text() hides it: read the bytes).
    const raw = await fetch(
      `${h.service.url}/v1/reports/sales?de=${day}&ate=${day}&agrupar=metodo&formato=csv`,
      {
        headers: { 'X-API-Key': h.apiKey },
      },
    );
    const bytes = Buffer.from(await raw.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8').slice(1)).toBe(res.text);
    const rows = res.text.split('\r\n');
    expect(rows[0]).toBe('Chave;Descrição;Vendas;Total');
    const json = await report('metodo');
    const dinheiro = json.linhas.find((l) => l.chave === 'dinheiro');
    expect(rows).toContain(
      `dinheiro;Dinheiro;${dinheiro?.vendas};${(dinheiro?.total ?? 0).toFixed(2).replace('.', ',')}`,
    );
    expect(rows.at(-2)).toBe(`TOTAL;${day} a ${day};12;${(grandTotal() / 100).toFixed(2).replace('.', ',')}`);
    expect(rows.at(-1)).toBe('');

    const byAccept = await call('GET', `/v1/reports/sales?de=${day}&ate=${day}&agrupar=produto`, {
      headers: { Accept: 'text/csv' },
    });
    expect(byAccept.text.split('\r\n')[0]).toBe('Chave;Descrição;Vendas;Quantidade;Total');
    // A link a browser opens carries the key in the query.
    const link = await call('GET', `/v1/reports/sales?de=${day}&ate=${day}&formato=csv&api_key=${h.apiKey}`, {
      key: null,
    });
    expect(link.status).toBe(200);

    const bad = await call('GET', '/v1/reports/sales?de=2026-13-01&ate=2026-01-01&agrupar=semana');
    expect(bad.status).toBe(400);
    expect((bad.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'agrupar',
      'de',
    ]);
    const reversed = await call('GET', '/v1/reports/sales?de=2026-02-01&ate=2026-01-01');
    expect((reversed.body as { details: { field: string }[] }).details.map((d) => d.field)).toEqual(['ate']);
    const empty = await call('GET', '/v1/reports/sales?de=2001-01-01&ate=2001-01-31');
    expect(empty.body).toMatchObject({ linhas: [], vendas: 0, total: 0 });
  });
});
