// Register sessions, cash movements, the blind closing, the shift report and the sales report (issue 13
// items 2 and 11): the /v1 requests and answers, shared by the service, the renderer and the tests.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';

/** Money in a request: decimal text or a JSON number ("12.50" / 12.5), turned into exact text at once. */
const moneyInput = decimalText(13, 2, 'an amount');
const positiveMoney = moneyInput.refine((text) => /[1-9]/.test(text), { error: 'must be greater than zero' });

/** Money in an answer: a JSON number like the documents' `total_nota`, computed in exact decimals. */
const money = z.number().meta({ description: 'Money as a JSON number, computed in exact decimals' });

/** Register (terminal) number as text, like the operator's sign-in `caixa`. */
export const caixaSchema = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z_-]{1,20}$/, { error: 'must be 1–20 letters, digits, - or _' });

/** Payment method keys of the blind count: spelling-B names (src-shared/tables/payment-methods.ts). */
export const COUNT_METHODS = [
  'dinheiro',
  'cheque',
  'cartao_credito',
  'cartao_debito',
  'credito_loja',
  'vale_alimentacao',
  'vale_refeicao',
  'vale_presente',
  'vale_combustivel',
  'boleto',
  'deposito',
  'pix',
  'transferencia',
  'fidelidade',
  'credito_em_loja',
  'sem_pagamento',
  'outros',
] as const;
export type CountMethod = (typeof COUNT_METHODS)[number];

export const sessionOpenSchema = z.strictObject({
  caixa: caixaSchema.optional(),
  fundo_troco: moneyInput,
});
export type SessionOpen = z.output<typeof sessionOpenSchema>;

export const movementCreateSchema = z.strictObject({
  tipo: z.enum(['sangria', 'suprimento'], { error: "must be 'sangria' or 'suprimento'" }),
  valor: positiveMoney,
  motivo: z.string().trim().min(1, { error: 'is required' }).max(200),
});
export type MovementCreate = z.output<typeof movementCreateSchema>;

export const voidCreateSchema = z.strictObject({
  tipo: z.enum(['item', 'venda'], { error: "must be 'item' or 'venda'" }),
  descricao: z.string().trim().min(1, { error: 'is required' }).max(200),
  valor: moneyInput,
});
export type VoidCreate = z.output<typeof voidCreateSchema>;

export const sessionCloseSchema = z.strictObject({
  contagem: z.partialRecord(z.enum(COUNT_METHODS), moneyInput),
});
export type SessionClose = z.output<typeof sessionCloseSchema>;

export const sessionListQuerySchema = z.object({
  status: z.enum(['aberta', 'fechada']).optional(),
  caixa: caixaSchema.optional(),
  de: z.iso.date({ error: 'must be a date AAAA-MM-DD' }).optional(),
  ate: z.iso.date({ error: 'must be a date AAAA-MM-DD' }).optional(),
});

export const currentSessionQuerySchema = z.object({ caixa: caixaSchema.optional() });

export const operatorRefSchema = z.object({ id: z.string(), codigo: z.string(), nome: z.string() });
export type OperatorRef = z.infer<typeof operatorRefSchema>;

export const movementViewSchema = z.object({
  id: z.string(),
  tipo: z.enum(['sangria', 'suprimento']),
  valor: money,
  motivo: z.string(),
  operador: operatorRefSchema.nullable(),
  created_at: z.string(),
  impressao: z.object({ job_id: z.string() }).nullable(),
});
export type MovementView = z.infer<typeof movementViewSchema>;

export const voidViewSchema = z.object({
  id: z.string(),
  tipo: z.enum(['item', 'venda']),
  descricao: z.string(),
  valor: money,
  operador: operatorRefSchema.nullable(),
  created_at: z.string(),
});
export type VoidView = z.infer<typeof voidViewSchema>;

const perMethod = z.record(z.string(), money);

export const closingViewSchema = z.object({
  contado: perMethod,
  esperado: perMethod,
  diferenca: perMethod.meta({ description: 'contado − esperado per method: negative is missing money' }),
  diferenca_total: money,
});

export const sessionViewSchema = z.object({
  id: z.string(),
  caixa: z.string(),
  status: z.enum(['aberta', 'fechada']),
  aberta_em: z.string(),
  aberta_por: operatorRefSchema.nullable(),
  fundo_troco: money,
  fechada_em: z.string().nullable(),
  fechada_por: operatorRefSchema.nullable(),
  movimentos: z.array(movementViewSchema),
  vendas: z.object({ quantidade: z.number().int() }),
  /** Null while open: the expected amounts are never shown before the blind count. */
  fechamento: closingViewSchema.nullable(),
  impressao: z.object({ job_id: z.string() }).nullable().optional(),
});
export type SessionView = z.infer<typeof sessionViewSchema>;

const noteRef = z.object({ id: z.string(), numero: z.number().int(), serie: z.number().int(), valor: money });

export const shiftReportSchema = z.object({
  sessao: z.object({
    id: z.string(),
    caixa: z.string(),
    status: z.enum(['aberta', 'fechada']),
    aberta_em: z.string(),
    aberta_por: operatorRefSchema.nullable(),
    fechada_em: z.string().nullable(),
    fechada_por: operatorRefSchema.nullable(),
  }),
  fundo_troco: money,
  vendas: z.object({ quantidade: z.number().int(), total: money }),
  por_metodo: z.array(z.object({ metodo: z.string(), quantidade: z.number().int(), valor: money })),
  troco: money.meta({ description: 'Change given in cash (vTroco), already netted from dinheiro' }),
  cancelamentos: z.array(noteRef),
  voids: z.array(voidViewSchema),
  contingencia_pendente: z.array(noteRef),
  movimentos: z.array(movementViewSchema),
  suprimentos: money,
  sangrias: money,
  /** Null while the session is open (blind count). */
  esperado: perMethod.nullable(),
  contado: perMethod.nullable(),
  diferenca: perMethod.nullable(),
  diferenca_total: money.nullable(),
});
export type ShiftReportView = z.infer<typeof shiftReportSchema>;

// --- sales reports (issue item 11) ------------------------------------------------------------------

export const SALES_GROUPINGS = ['dia', 'sessao', 'operador', 'produto', 'metodo'] as const;
export type SalesGrouping = (typeof SALES_GROUPINGS)[number];

export const salesReportQuerySchema = z
  .object({
    de: z.iso.date({ error: 'must be a date AAAA-MM-DD' }),
    ate: z.iso.date({ error: 'must be a date AAAA-MM-DD' }),
    agrupar: z.enum(SALES_GROUPINGS).default('dia'),
    formato: z.enum(['json', 'csv']).optional(),
  })
  .refine((q) => q.de <= q.ate, { path: ['ate'], error: 'must not be before de' });
export type SalesReportQuery = z.output<typeof salesReportQuerySchema>;

export const salesReportLineSchema = z.object({
  chave: z.string(),
  rotulo: z.string(),
  vendas: z.number().int().meta({ description: 'Notes counted in the line' }),
  itens: z.number().optional().meta({ description: 'Quantity sold (agrupar=produto)' }),
  total: money,
});
export type SalesReportLine = z.infer<typeof salesReportLineSchema>;

export const salesReportSchema = z.object({
  agrupar: z.enum(SALES_GROUPINGS),
  de: z.string(),
  ate: z.string(),
  linhas: z.array(salesReportLineSchema),
  vendas: z.number().int(),
  total: money,
  canceladas: z.object({ quantidade: z.number().int(), total: money }),
});
export type SalesReport = z.infer<typeof salesReportSchema>;

/** POST …/close: the closed session, the report fixed with it, and the report's print job. */
export const sessionClosedSchema = sessionViewSchema.extend({
  relatorio: shiftReportSchema,
  impressao: z.object({ job_id: z.string() }).nullable(),
});
