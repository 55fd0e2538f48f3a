// The register tickets: what the operator signs for the float, each movement and the closing.
import { describe, expect, it } from 'vitest';
import {
  brl,
  dataHora,
  movementTicket,
  openingTicket,
  shiftReportTicket,
  type TicketLine,
} from './ticket.ts';
import { computeShiftReport, type ReportInput } from './report.ts';

const ana = { id: 'op-1', codigo: '1', nome: 'Ana' };
const bia = { id: 'op-2', codigo: '2', nome: 'Bia' };

const pairs = (lines: TicketLine[]) =>
  Object.fromEntries(lines.flatMap((l) => ('par' in l ? [[l.par[0], l.par[1]]] : [])));
const texts = (lines: TicketLine[]) => lines.flatMap((l) => ('texto' in l ? [l.texto] : []));

describe('brl', () => {
  it('writes exact cents the Brazilian way', () => {
    expect(brl(0n)).toBe('R$ 0,00');
    expect(brl(5n)).toBe('R$ 0,05');
    expect(brl(123456789n)).toBe('R$ 1.234.567,89');
    expect(brl(-1050n)).toBe('-R$ 10,50');
  });
  it('shows Brasília time', () => {
    expect(dataHora('2026-11-24T11:05:00.000Z')).toBe('24/11/2026 08:05');
  });
});

describe('tickets', () => {
  it('opening: register, operator, time and float', () => {
    const t = openingTicket({ caixa: '2', operador: ana, at: '2026-11-24T11:00:00.000Z', fundo: 15000n });
    expect(t.titulo).toBe('ABERTURA DE CAIXA');
    expect(pairs(t.linhas)).toEqual({
      Caixa: '2',
      Operador: '1 Ana',
      'Data/hora': '24/11/2026 08:00',
      'Fundo de troco': 'R$ 150,00',
    });
  });

  it('sangria and suprimento: value, reason and who authorized', () => {
    const sangria = movementTicket({
      caixa: '1',
      movement: {
        tipo: 'sangria',
        valor: 20000n,
        motivo: 'Cofre',
        operador: ana,
        created_at: '2026-11-24T15:00:00.000Z',
      },
      autorizadoPor: bia,
    });
    expect(sangria.titulo).toBe('SANGRIA');
    expect(pairs(sangria.linhas)).toMatchObject({ Valor: 'R$ 200,00', 'Autorizado por': '2 Bia' });
    expect(texts(sangria.linhas)).toContain('Motivo: Cofre');
    const suprimento = movementTicket({
      caixa: '1',
      movement: {
        tipo: 'suprimento',
        valor: 5000n,
        motivo: 'Troco',
        operador: ana,
        created_at: '2026-11-24T15:00:00.000Z',
      },
    });
    expect(suprimento.titulo).toBe('SUPRIMENTO');
    expect(pairs(suprimento.linhas)['Autorizado por']).toBeUndefined();
  });

  const input = (closed: boolean): ReportInput => ({
    session: {
      id: 's',
      caixa: '1',
      status: closed ? 'fechada' : 'aberta',
      opened_at: '2026-11-24T11:00:00.000Z',
      opened_by: ana,
      closed_at: closed ? '2026-11-24T21:00:00.000Z' : null,
      closed_by: closed ? ana : null,
      fundo_troco: '100.00',
    },
    documents: [
      {
        id: 'a',
        numero: 10,
        serie: 1,
        status: 'autorizada',
        replaced_by: null,
        v_nf: '30.00',
        pag: { detPag: [{ tPag: '01', vPag: '50.00' }], vTroco: '20.00' },
      },
      {
        id: 'b',
        numero: 11,
        serie: 1,
        status: 'cancelada',
        replaced_by: null,
        v_nf: '8.00',
        pag: { detPag: [{ tPag: '03', vPag: '8.00' }], vTroco: null },
      },
      {
        id: 'c',
        numero: 12,
        serie: 1,
        status: 'contingencia',
        replaced_by: null,
        v_nf: '12.00',
        pag: { detPag: [{ tPag: '03', vPag: '12.00' }], vTroco: null },
      },
    ],
    movements: [
      {
        id: 'm',
        tipo: 'sangria',
        valor: '50.00',
        motivo: 'Cofre',
        operador: ana,
        created_at: '2026-11-24T18:00:00.000Z',
        job_id: null,
      },
    ],
    voids: [
      {
        id: 'v',
        tipo: 'item',
        descricao: 'Arroz 5kg',
        valor: '25.90',
        operador: ana,
        created_at: '2026-11-24T12:00:00.000Z',
      },
    ],
    contagem: closed ? { dinheiro: 7900n, cartao_credito: 1200n } : null,
  });

  it('closing: sales per method, movements, cancellations, voids, pending contingency, the count', () => {
    const t = shiftReportTicket(computeShiftReport(input(true)));
    expect(t.titulo).toBe('FECHAMENTO DE CAIXA');
    const all = t.linhas
      .map((l) => ('par' in l ? l.par.join(' = ') : 'texto' in l ? l.texto : ''))
      .join('\n');
    expect(all).toContain('Vendas (2) = R$ 42,00');
    expect(all).toContain('Dinheiro (1) = R$ 30,00');
    expect(all).toContain('Cartão de crédito (1) = R$ 12,00');
    expect(all).toContain('Troco dado = R$ 20,00');
    expect(all).toContain('Sangria 15:00 = -R$ 50,00');
    expect(all).toContain('NFC-e 11 série 1 = R$ 8,00');
    expect(all).toContain('Item: Arroz 5kg = R$ 25,90');
    expect(all).toContain('CONTINGÊNCIA PENDENTE (1)');
    // Expected cash: 100 + 30 − 50 = 80; counted 79: one real missing.
    expect(all).toContain('  Esperado = R$ 80,00');
    expect(all).toContain('  Diferença = -R$ 1,00');
    expect(all).toContain('Diferença total = -R$ 1,00');
  });

  it('a partial reading while open has no expected amounts', () => {
    const t = shiftReportTicket(computeShiftReport(input(false)));
    expect(t.titulo).toBe('LEITURA PARCIAL DE CAIXA');
    const all = JSON.stringify(t.linhas);
    expect(all).not.toContain('Esperado');
    expect(all).not.toContain('CONFERÊNCIA');
  });
});

describe('local days', () => {
  it('start at local midnight in the company zone', async () => {
    const { startOfLocalDay, endOfLocalDay } = await import('./local-day.ts');
    expect(startOfLocalDay('2026-11-24', 'America/Sao_Paulo')).toBe('2026-11-24T03:00:00.000Z');
    expect(endOfLocalDay('2026-11-24', 'America/Manaus')).toBe('2026-11-25T04:00:00.000Z');
    expect(endOfLocalDay('2026-12-31', 'America/Noronha')).toBe('2027-01-01T02:00:00.000Z');
    expect(dataHora('2026-11-24T11:05:00.000Z', 'America/Manaus')).toBe('24/11/2026 07:05');
  });
});
