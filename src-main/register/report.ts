// The shift report of a register session, computed from what the session recorded: its notes (payments
// and change as signed in the XML), cancellations, notes still in contingency, cash movements and voids.
// Pure and exact: amounts are bigint cents, never binary floats.
import { cents, formatCents } from '../../src-shared/money.ts';
import { PAYMENT_METHOD_NAMES, type TPag } from '../../src-shared/tables/payment-methods.ts';
import type { DocumentStatus } from '../../src-shared/contracts/documents.ts';
import type { MovementView, ShiftReportView, VoidView } from '../../src-shared/contracts/register.ts';

export interface ReportOperator {
  id: string;
  codigo: string;
  nome: string;
}

export interface ReportSession {
  id: string;
  caixa: string;
  status: 'aberta' | 'fechada';
  opened_at: string;
  opened_by: ReportOperator | null;
  closed_at: string | null;
  closed_by: ReportOperator | null;
  /** Exact decimal text. */
  fundo_troco: string;
}

export interface ReportDocument {
  id: string;
  numero: number;
  serie: number;
  status: DocumentStatus;
  /** Set on an attempt the sale re-issued under another number (the cashier's offline fallback). */
  replaced_by: string | null;
  /** vNF as decimal text. */
  v_nf: string;
  /** The note's pag group: detPag (tPag, vPag) and vTroco, as decimal text. */
  pag: { detPag: Array<{ tPag: string; vPag: string }>; vTroco: string | null } | null;
}

export interface ReportMovement {
  id: string;
  tipo: 'sangria' | 'suprimento';
  valor: string;
  motivo: string;
  operador: ReportOperator | null;
  created_at: string;
  job_id: string | null;
}

export interface ReportVoid {
  id: string;
  tipo: 'item' | 'venda';
  descricao: string;
  valor: string;
  operador: ReportOperator | null;
  created_at: string;
}

export interface ReportInput {
  session: ReportSession;
  documents: ReportDocument[];
  movements: ReportMovement[];
  voids: ReportVoid[];
  /** The blind count (method → cents); null while the session is open. */
  contagem: Record<string, bigint> | null;
}

export interface NoteLine {
  id: string;
  numero: number;
  serie: number;
  valor: bigint;
}

export interface ShiftReport {
  session: ReportSession;
  fundo: bigint;
  vendas: { quantidade: number; total: bigint };
  /** Per method; dinheiro is what stayed in the drawer (cash paid minus change). */
  porMetodo: Array<{ metodo: string; quantidade: number; valor: bigint }>;
  troco: bigint;
  cancelamentos: NoteLine[];
  contingenciaPendente: NoteLine[];
  movimentos: ReportMovement[];
  voids: ReportVoid[];
  suprimentos: bigint;
  sangrias: bigint;
  /** What the drawer and each method should hold: always computed, shown only once closed. */
  esperado: Record<string, bigint>;
  contado: Record<string, bigint> | null;
  diferenca: Record<string, bigint> | null;
  diferencaTotal: bigint | null;
}

/** tPag → the count's key: the first spelling-B name of each code; both PIX kinds are counted as `pix`. */
const METHOD_OF_TPAG: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [name, code] of Object.entries(PAYMENT_METHOD_NAMES)) if (!map.has(code)) map.set(code, name);
  map.set('20' satisfies TPag, 'pix');
  map.set('22' satisfies TPag, 'outros');
  return map;
})();

export function methodOfTPag(tPag: string): string {
  return METHOD_OF_TPAG.get(tPag) ?? 'outros';
}

/** The order methods are listed in: the drawer first, then the table's order. */
const METHOD_ORDER = [...new Set(['dinheiro', ...METHOD_OF_TPAG.values()])];
const byMethodOrder = (a: string, b: string) => {
  const ia = METHOD_ORDER.indexOf(a);
  const ib = METHOD_ORDER.indexOf(b);
  return (ia === -1 ? 999 : ia) - (ib === -1 ? 999 : ib) || a.localeCompare(b);
};

/**
 * A note of the session is a sale when it stands: authorized, issued in contingency, or still being sent
 * (the customer paid). An attempt replaced by another note is not (its replacement is the sale) unless the
 * authority authorized it after all, in which case the queue cancels the replacement.
 */
export function isSale(doc: Pick<ReportDocument, 'status' | 'replaced_by'>): boolean {
  if (doc.status === 'autorizada' || doc.status === 'contingencia') return true;
  return doc.status === 'processando' && doc.replaced_by === null;
}

const add = (map: Map<string, bigint>, key: string, value: bigint) =>
  map.set(key, (map.get(key) ?? 0n) + value);

export function computeShiftReport(input: ReportInput): ShiftReport {
  const { session } = input;
  const fundo = cents(session.fundo_troco);
  const perMethod = new Map<string, { quantidade: number; valor: bigint }>();
  let total = 0n;
  let quantidade = 0;
  let troco = 0n;
  const cancelamentos: NoteLine[] = [];
  const contingenciaPendente: NoteLine[] = [];

  for (const doc of input.documents) {
    const line: NoteLine = { id: doc.id, numero: doc.numero, serie: doc.serie, valor: cents(doc.v_nf) };
    if (doc.status === 'cancelada') cancelamentos.push(line);
    if (doc.status === 'contingencia') contingenciaPendente.push(line);
    if (!isSale(doc)) continue;
    quantidade += 1;
    total += line.valor;
    const methodsOfSale = new Set<string>();
    for (const det of doc.pag?.detPag ?? []) {
      const metodo = methodOfTPag(det.tPag);
      const entry = perMethod.get(metodo) ?? { quantidade: 0, valor: 0n };
      entry.valor += cents(det.vPag);
      if (!methodsOfSale.has(metodo)) entry.quantidade += 1;
      methodsOfSale.add(metodo);
      perMethod.set(metodo, entry);
    }
    // vTroco is handed back in cash whatever was tendered (MOC 7.0 YA09): it leaves the drawer.
    const change = doc.pag?.vTroco == null ? 0n : cents(doc.pag.vTroco);
    if (change !== 0n) {
      troco += change;
      const cash = perMethod.get('dinheiro') ?? { quantidade: 0, valor: 0n };
      cash.valor -= change;
      perMethod.set('dinheiro', cash);
    }
  }

  let suprimentos = 0n;
  let sangrias = 0n;
  for (const m of input.movements) {
    if (m.tipo === 'suprimento') suprimentos += cents(m.valor);
    else sangrias += cents(m.valor);
  }

  const esperado = new Map<string, bigint>();
  esperado.set('dinheiro', fundo + (perMethod.get('dinheiro')?.valor ?? 0n) + suprimentos - sangrias);
  for (const [metodo, { valor }] of perMethod) if (metodo !== 'dinheiro') add(esperado, metodo, valor);

  let contado: Map<string, bigint> | null = null;
  let diferenca: Map<string, bigint> | null = null;
  let diferencaTotal: bigint | null = null;
  if (input.contagem !== null) {
    contado = new Map(Object.entries(input.contagem));
    for (const key of contado.keys()) if (!esperado.has(key)) esperado.set(key, 0n);
    for (const key of esperado.keys()) if (!contado.has(key)) contado.set(key, 0n);
    diferenca = new Map();
    diferencaTotal = 0n;
    for (const [key, expected] of esperado) {
      const d = (contado.get(key) ?? 0n) - expected;
      diferenca.set(key, d);
      diferencaTotal += d;
    }
  }

  const sortedRecord = (map: Map<string, bigint>) =>
    Object.fromEntries([...map.entries()].sort(([a], [b]) => byMethodOrder(a, b)));

  return {
    session,
    fundo,
    vendas: { quantidade, total },
    porMetodo: [...perMethod.entries()]
      .sort(([a], [b]) => byMethodOrder(a, b))
      .map(([metodo, v]) => ({ metodo, quantidade: v.quantidade, valor: v.valor })),
    troco,
    cancelamentos,
    contingenciaPendente,
    movimentos: input.movements,
    voids: input.voids,
    suprimentos,
    sangrias,
    esperado: sortedRecord(esperado),
    contado: contado === null ? null : sortedRecord(contado),
    diferenca: diferenca === null ? null : sortedRecord(diferenca),
    diferencaTotal,
  };
}

/** Cents as the JSON number the API answers with (exact: formatted as decimal text first). */
export function moneyNumber(value: bigint): number {
  return Number(formatCents(value));
}

const numbers = (record: Record<string, bigint>) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, moneyNumber(v)]));

const noteView = (n: NoteLine) => ({
  id: n.id,
  numero: n.numero,
  serie: n.serie,
  valor: moneyNumber(n.valor),
});

export const movementView = (m: ReportMovement): MovementView => ({
  id: m.id,
  tipo: m.tipo,
  valor: moneyNumber(cents(m.valor)),
  motivo: m.motivo,
  operador: m.operador,
  created_at: m.created_at,
  impressao: m.job_id === null ? null : { job_id: m.job_id },
});

export const voidView = (v: ReportVoid): VoidView => ({
  id: v.id,
  tipo: v.tipo,
  descricao: v.descricao,
  valor: moneyNumber(cents(v.valor)),
  operador: v.operador,
  created_at: v.created_at,
});

/** The report as GET …/report answers it; the expected amounts stay hidden while the session is open. */
export function shiftReportView(report: ShiftReport): ShiftReportView {
  const s = report.session;
  const closed = report.contado !== null;
  return {
    sessao: {
      id: s.id,
      caixa: s.caixa,
      status: s.status,
      aberta_em: s.opened_at,
      aberta_por: s.opened_by,
      fechada_em: s.closed_at,
      fechada_por: s.closed_by,
    },
    fundo_troco: moneyNumber(report.fundo),
    vendas: { quantidade: report.vendas.quantidade, total: moneyNumber(report.vendas.total) },
    por_metodo: report.porMetodo.map((m) => ({
      metodo: m.metodo,
      quantidade: m.quantidade,
      valor: moneyNumber(m.valor),
    })),
    troco: moneyNumber(report.troco),
    cancelamentos: report.cancelamentos.map(noteView),
    voids: report.voids.map(voidView),
    contingencia_pendente: report.contingenciaPendente.map(noteView),
    movimentos: report.movimentos.map(movementView),
    suprimentos: moneyNumber(report.suprimentos),
    sangrias: moneyNumber(report.sangrias),
    esperado: closed ? numbers(report.esperado) : null,
    contado: report.contado === null ? null : numbers(report.contado),
    diferenca: report.diferenca === null ? null : numbers(report.diferenca),
    diferenca_total: report.diferencaTotal === null ? null : moneyNumber(report.diferencaTotal),
  };
}

// The report is kept with the closed session exactly as computed: amounts as decimal text, read back as cents.
const toText = (_key: string, value: unknown) => (typeof value === 'bigint' ? formatCents(value) : value);

export function storeReport(report: ShiftReport): string {
  return JSON.stringify(report, toText);
}

const centsRecord = (record: Record<string, string>) =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, cents(v)]));

export function loadReport(text: string): ShiftReport {
  // The stored shape is ShiftReport with every bigint written as decimal text (storeReport).
  const raw = JSON.parse(text) as Record<string, unknown> & {
    session: ReportSession;
    fundo: string;
    vendas: { quantidade: number; total: string };
    porMetodo: Array<{ metodo: string; quantidade: number; valor: string }>;
    troco: string;
    cancelamentos: Array<Omit<NoteLine, 'valor'> & { valor: string }>;
    contingenciaPendente: Array<Omit<NoteLine, 'valor'> & { valor: string }>;
    movimentos: ReportMovement[];
    voids: ReportVoid[];
    suprimentos: string;
    sangrias: string;
    esperado: Record<string, string>;
    contado: Record<string, string> | null;
    diferenca: Record<string, string> | null;
    diferencaTotal: string | null;
  };
  const note = (n: Omit<NoteLine, 'valor'> & { valor: string }): NoteLine => ({
    ...n,
    valor: cents(n.valor),
  });
  return {
    session: raw.session,
    fundo: cents(raw.fundo),
    vendas: { quantidade: raw.vendas.quantidade, total: cents(raw.vendas.total) },
    porMetodo: raw.porMetodo.map((m) => ({ ...m, valor: cents(m.valor) })),
    troco: cents(raw.troco),
    cancelamentos: raw.cancelamentos.map(note),
    contingenciaPendente: raw.contingenciaPendente.map(note),
    movimentos: raw.movimentos,
    voids: raw.voids,
    suprimentos: cents(raw.suprimentos),
    sangrias: cents(raw.sangrias),
    esperado: centsRecord(raw.esperado),
    contado: raw.contado === null ? null : centsRecord(raw.contado),
    diferenca: raw.diferenca === null ? null : centsRecord(raw.diferenca),
    diferencaTotal: raw.diferencaTotal === null ? null : cents(raw.diferencaTotal),
  };
}
