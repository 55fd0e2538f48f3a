// The thermal tickets of a register session: the opening float, each sangria and suprimento, and the shift
// report at closing, as lines for the generic ticket printer (printing/service.ts queueTicketPrint).
import { cents, formatCents } from '../../src-shared/money.ts';
import type { ReportMovement, ReportOperator, ShiftReport } from './report.ts';

/** One line of a ticket, as the generic ticket printer lays it out in the printer's width. */
export type TicketLine =
  | { texto: string; negrito?: boolean; alinhar?: 'esquerda' | 'centro' | 'direita' }
  | { par: [string, string] }
  | { separador: true }
  | { qrcode: string };

export interface Ticket {
  titulo: string;
  linhas: TicketLine[];
}

/** R$ 1.234,56: the amount as a Brazilian reads it (from exact cents). */
export function brl(value: bigint): string {
  const [int = '0', frac = '00'] = formatCents(value < 0n ? -value : value).split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${value < 0n ? '-' : ''}R$ ${grouped},${frac}`;
}

/** The store's clock: Brasília time unless the company's UF lives in another zone. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

const formats = new Map<string, Intl.DateTimeFormat>();

export function dataHora(iso: string, timeZone = DEFAULT_TIME_ZONE): string {
  let format = formats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('pt-BR', {
      timeZone,
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
    });
    formats.set(timeZone, format);
  }
  return format.format(new Date(iso)).replace(',', '');
}

const operatorText = (op: ReportOperator | null) => (op === null ? '-' : `${op.codigo} ${op.nome}`);

const METHOD_LABELS: Readonly<Record<string, string>> = {
  dinheiro: 'Dinheiro',
  cheque: 'Cheque',
  cartao_credito: 'Cartão de crédito',
  cartao_debito: 'Cartão de débito',
  credito_loja: 'Crédito loja',
  vale_alimentacao: 'Vale alimentação',
  vale_refeicao: 'Vale refeição',
  vale_presente: 'Vale presente',
  vale_combustivel: 'Vale combustível',
  boleto: 'Boleto',
  deposito: 'Depósito',
  pix: 'PIX',
  transferencia: 'Transferência',
  fidelidade: 'Fidelidade/cashback',
  credito_em_loja: 'Crédito em loja',
  sem_pagamento: 'Sem pagamento',
  outros: 'Outros',
};

export function methodLabel(metodo: string): string {
  return METHOD_LABELS[metodo] ?? metodo;
}

const signature = (who: string): TicketLine[] => [
  { texto: '' },
  { texto: '________________________________', alinhar: 'centro' },
  { texto: who, alinhar: 'centro' },
];

export function openingTicket(input: {
  caixa: string;
  operador: ReportOperator | null;
  at: string;
  fundo: bigint;
  timeZone?: string | undefined;
}): Ticket {
  return {
    titulo: 'ABERTURA DE CAIXA',
    linhas: [
      { par: ['Caixa', input.caixa] },
      { par: ['Operador', operatorText(input.operador)] },
      { par: ['Data/hora', dataHora(input.at, input.timeZone)] },
      { separador: true },
      { par: ['Fundo de troco', brl(input.fundo)] },
      ...signature('Operador'),
    ],
  };
}

export function movementTicket(input: {
  caixa: string;
  movement: Pick<ReportMovement, 'tipo' | 'motivo' | 'operador' | 'created_at'> & { valor: bigint };
  autorizadoPor?: ReportOperator | null;
  timeZone?: string | undefined;
}): Ticket {
  const m = input.movement;
  return {
    titulo: m.tipo === 'sangria' ? 'SANGRIA' : 'SUPRIMENTO',
    linhas: [
      { par: ['Caixa', input.caixa] },
      { par: ['Operador', operatorText(m.operador)] },
      ...(input.autorizadoPor == null
        ? []
        : [{ par: ['Autorizado por', operatorText(input.autorizadoPor)] } satisfies TicketLine]),
      { par: ['Data/hora', dataHora(m.created_at, input.timeZone)] },
      { separador: true },
      { par: ['Valor', brl(m.valor)] },
      { texto: `Motivo: ${m.motivo}` },
      ...signature(m.tipo === 'sangria' ? 'Quem retirou' : 'Quem entregou'),
    ],
  };
}

/** The shift report; while the session is open it is a partial reading without expected amounts. */
export function shiftReportTicket(report: ShiftReport, timeZone = DEFAULT_TIME_ZONE): Ticket {
  const s = report.session;
  const closed = report.contado !== null && report.diferenca !== null;
  const lines: TicketLine[] = [
    { par: ['Caixa', s.caixa] },
    { par: ['Abertura', dataHora(s.opened_at, timeZone)] },
    { par: ['Aberto por', operatorText(s.opened_by)] },
  ];
  if (s.closed_at !== null) {
    lines.push({ par: ['Fechamento', dataHora(s.closed_at, timeZone)] });
    lines.push({ par: ['Fechado por', operatorText(s.closed_by)] });
  }
  lines.push({ separador: true }, { texto: 'VENDAS', negrito: true });
  lines.push({ par: [`Vendas (${report.vendas.quantidade})`, brl(report.vendas.total)] });
  for (const m of report.porMetodo)
    lines.push({ par: [`${methodLabel(m.metodo)} (${m.quantidade})`, brl(m.valor)] });
  if (report.troco !== 0n) lines.push({ par: ['Troco dado', brl(report.troco)] });

  lines.push({ separador: true }, { texto: 'MOVIMENTOS', negrito: true });
  lines.push({ par: ['Fundo de troco', brl(report.fundo)] });
  for (const m of report.movimentos) {
    const sign = m.tipo === 'sangria' ? '-' : '+';
    lines.push({
      par: [
        `${m.tipo === 'sangria' ? 'Sangria' : 'Suprimento'} ${dataHora(m.created_at, timeZone).slice(11)}`,
        `${sign}${brl(cents(m.valor))}`,
      ],
    });
    lines.push({ texto: `  ${m.motivo}` });
  }
  lines.push({ par: ['Suprimentos', brl(report.suprimentos)] });
  lines.push({ par: ['Sangrias', brl(report.sangrias)] });

  if (report.cancelamentos.length > 0) {
    lines.push(
      { separador: true },
      { texto: `CANCELAMENTOS (${report.cancelamentos.length})`, negrito: true },
    );
    for (const c of report.cancelamentos)
      lines.push({ par: [`NFC-e ${c.numero} série ${c.serie}`, brl(c.valor)] });
  }
  if (report.voids.length > 0) {
    lines.push(
      { separador: true },
      { texto: `ITENS/VENDAS ANULADOS (${report.voids.length})`, negrito: true },
    );
    for (const v of report.voids)
      lines.push({ par: [`${v.tipo === 'item' ? 'Item' : 'Venda'}: ${v.descricao}`, brl(cents(v.valor))] });
  }
  if (report.contingenciaPendente.length > 0) {
    lines.push(
      { separador: true },
      { texto: `CONTINGÊNCIA PENDENTE (${report.contingenciaPendente.length})`, negrito: true },
    );
    for (const c of report.contingenciaPendente)
      lines.push({ par: [`NFC-e ${c.numero} série ${c.serie}`, brl(c.valor)] });
  }

  if (closed && report.contado !== null && report.diferenca !== null) {
    lines.push({ separador: true }, { texto: 'CONFERÊNCIA', negrito: true });
    for (const [metodo, expected] of Object.entries(report.esperado)) {
      lines.push({ texto: methodLabel(metodo), negrito: true });
      lines.push({ par: ['  Esperado', brl(expected)] });
      lines.push({ par: ['  Contado', brl(report.contado[metodo] ?? 0n)] });
      lines.push({ par: ['  Diferença', brl(report.diferenca[metodo] ?? 0n)] });
    }
    lines.push({ par: ['Diferença total', brl(report.diferencaTotal ?? 0n)] });
    lines.push(...signature('Operador'), ...signature('Supervisor'));
  }
  return { titulo: closed ? 'FECHAMENTO DE CAIXA' : 'LEITURA PARCIAL DE CAIXA', linhas: lines };
}
