// The shift report's arithmetic: sales per method, change netted from cash, movements, the blind count.
import { describe, expect, it } from 'vitest';
import {
  computeShiftReport,
  isSale,
  loadReport,
  storeReport,
  methodOfTPag,
  shiftReportView,
  type ReportDocument,
  type ReportInput,
  type ReportMovement,
} from './report.ts';

const ana = { id: 'op-1', codigo: '1', nome: 'Ana' };

function session(overrides: Partial<ReportInput['session']> = {}): ReportInput['session'] {
  return {
    id: 'ses-1',
    caixa: '1',
    status: 'aberta',
    opened_at: '2026-11-24T08:00:00.000Z',
    opened_by: ana,
    closed_at: null,
    closed_by: null,
    fundo_troco: '100.00',
    ...overrides,
  };
}

let seq = 0;
function note(
  payments: Array<[string, string]>,
  vTroco: string | null = null,
  overrides: Partial<ReportDocument> = {},
): ReportDocument {
  seq += 1;
  const paid = payments.reduce((a, [, v]) => a + BigInt(v.replace('.', '')), 0n);
  const change = vTroco === null ? 0n : BigInt(vTroco.replace('.', ''));
  const vnf = paid - change;
  return {
    id: `doc-${seq}`,
    numero: seq,
    serie: 1,
    status: 'autorizada',
    replaced_by: null,
    v_nf: `${vnf / 100n}.${String(vnf % 100n).padStart(2, '0')}`,
    pag: { detPag: payments.map(([tPag, vPag]) => ({ tPag, vPag })), vTroco },
    ...overrides,
  };
}

function movement(tipo: 'sangria' | 'suprimento', valor: string): ReportMovement {
  seq += 1;
  return {
    id: `mov-${seq}`,
    tipo,
    valor,
    motivo: 'teste',
    operador: ana,
    created_at: '2026-11-24T10:00:00.000Z',
    job_id: null,
  };
}

describe('computeShiftReport', () => {
  it('nets the change from cash: the drawer expects what stayed, and methods add up to the notes', () => {
    const docs = [
      note([['01', '50.00']], '12.35'), // R$ 37,65 sale paid with a 50 note
      note([['03', '20.10']]),
      note([
        ['01', '10.00'],
        ['04', '5.55'],
      ]),
      note([['17', '7.77']]),
      note([['20', '1.01']]),
    ];
    const report = computeShiftReport({
      session: session(),
      documents: docs,
      movements: [],
      voids: [],
      contagem: null,
    });
    expect(report.vendas).toEqual({ quantidade: 5, total: 3765n + 2010n + 1555n + 777n + 101n });
    expect(report.troco).toBe(1235n);
    expect(report.porMetodo).toEqual([
      { metodo: 'dinheiro', quantidade: 2, valor: 3765n + 1000n },
      { metodo: 'cartao_credito', quantidade: 1, valor: 2010n },
      { metodo: 'cartao_debito', quantidade: 1, valor: 555n },
      { metodo: 'pix', quantidade: 2, valor: 878n },
    ]);
    const byMethods = report.porMetodo.reduce((a, m) => a + m.valor, 0n);
    expect(byMethods).toBe(report.vendas.total);
    expect(report.esperado).toEqual({
      dinheiro: 10000n + 4765n,
      cartao_credito: 2010n,
      cartao_debito: 555n,
      pix: 878n,
    });
    expect(report.contado).toBeNull();
    expect(report.diferenca).toBeNull();
  });

  it('adds suprimentos and takes sangrias from the expected cash', () => {
    const report = computeShiftReport({
      session: session({ fundo_troco: '150.50' }),
      documents: [note([['01', '30.00']])],
      movements: [
        movement('suprimento', '50.00'),
        movement('sangria', '120.25'),
        movement('sangria', '0.05'),
      ],
      voids: [],
      contagem: null,
    });
    expect(report.suprimentos).toBe(5000n);
    expect(report.sangrias).toBe(12030n);
    expect(report.esperado['dinheiro']).toBe(15050n + 3000n + 5000n - 12030n);
  });

  it('compares the blind count per method; missing methods count as zero on either side', () => {
    const report = computeShiftReport({
      session: session({ status: 'fechada' }),
      documents: [note([['01', '10.00']]), note([['03', '25.00']]), note([['17', '4.00']])],
      movements: [],
      voids: [],
      // pix not counted, a cheque counted though none was taken.
      contagem: { dinheiro: 10990n, cartao_credito: 2500n, cheque: 300n },
    });
    expect(report.esperado).toEqual({ dinheiro: 11000n, cheque: 0n, cartao_credito: 2500n, pix: 400n });
    expect(report.contado).toEqual({ dinheiro: 10990n, cheque: 300n, cartao_credito: 2500n, pix: 0n });
    expect(report.diferenca).toEqual({ dinheiro: -10n, cheque: 300n, cartao_credito: 0n, pix: -400n });
    expect(report.diferencaTotal).toBe(-110n);
  });

  it('lists cancellations and contingency notes; counts only the notes that stand as sales', () => {
    const cancelled = note([['01', '9.99']], null, { status: 'cancelada' });
    const offline = note([['03', '3.00']], null, { status: 'contingencia' });
    const inFlight = note([['04', '2.00']], null, { status: 'processando' });
    const replacedAttempt = note([['04', '2.00']], null, { status: 'processando', replaced_by: 'x' });
    const refused = note([['01', '1.00']], null, { status: 'erro' });
    const report = computeShiftReport({
      session: session(),
      documents: [cancelled, offline, inFlight, replacedAttempt, refused],
      movements: [],
      voids: [],
      contagem: null,
    });
    expect(report.vendas).toEqual({ quantidade: 2, total: 500n });
    expect(report.cancelamentos).toEqual([
      { id: cancelled.id, numero: cancelled.numero, serie: 1, valor: 999n },
    ]);
    expect(report.contingenciaPendente.map((n) => n.id)).toEqual([offline.id]);
    expect(report.esperado['dinheiro']).toBe(10000n);
  });

  it('counts exactly where floats would drift: 1 000 sales of R$ 0,10 with R$ 0,07 change', () => {
    const docs = Array.from({ length: 1000 }, () => note([['01', '0.17']], '0.07'));
    const report = computeShiftReport({
      session: session({ fundo_troco: '0.00' }),
      documents: docs,
      movements: [],
      voids: [],
      contagem: { dinheiro: 10000n },
    });
    expect(report.vendas.total).toBe(10000n);
    expect(report.troco).toBe(7000n);
    expect(report.diferencaTotal).toBe(0n);
    expect(shiftReportView(report).esperado).toEqual({ dinheiro: 100 });
  });
});

describe('shiftReportView', () => {
  it('hides the expected amounts while the session is open (blind count)', () => {
    const view = shiftReportView(
      computeShiftReport({
        session: session(),
        documents: [note([['01', '12.34']])],
        movements: [],
        voids: [],
        contagem: null,
      }),
    );
    expect(view.esperado).toBeNull();
    expect(view.diferenca_total).toBeNull();
    expect(view.vendas).toEqual({ quantidade: 1, total: 12.34 });
    expect(view.fundo_troco).toBe(100);
  });
});

describe('helpers', () => {
  it('names tPag codes with the spelling-B keys of the count', () => {
    expect(['01', '03', '04', '17', '20', '99', '22', '77'].map(methodOfTPag)).toEqual([
      'dinheiro',
      'cartao_credito',
      'cartao_debito',
      'pix',
      'pix',
      'outros',
      'outros',
      'outros',
    ]);
    expect(isSale({ status: 'autorizada', replaced_by: 'y' })).toBe(true);
    expect(isSale({ status: 'substituida', replaced_by: null })).toBe(false);
  });
});

describe('storeReport / loadReport', () => {
  it('keeps the closed report exactly, negative differences included', () => {
    const report = computeShiftReport({
      session: session({ status: 'fechada', closed_at: '2026-11-24T20:00:00.000Z', closed_by: ana }),
      documents: [note([['01', '50.00']], '0.01'), note([['03', '9.99']], null, { status: 'cancelada' })],
      movements: [movement('sangria', '10.00')],
      voids: [],
      contagem: { dinheiro: 13998n },
    });
    expect(loadReport(storeReport(report))).toEqual(report);
  });
});
