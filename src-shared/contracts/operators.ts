// /v1/operators: the people who sell (issue 13 item 1), their sign-in and the supervisor's approvals.
import { z } from 'zod';
import { timestampSchema } from './common.ts';
import { OPERATOR_ACTIONS, OPERATOR_ROLES } from '../tables/operator-roles.ts';

export const operatorRoleSchema = z.enum(OPERATOR_ROLES);
export const operatorActionSchema = z.enum(OPERATOR_ACTIONS);

/** A PIN nobody guesses first: not one digit repeated, not a run up or down (1234, 9876, 0123…). */
export function trivialPin(pin: string): boolean {
  if (/^(\d)\1*$/.test(pin)) return true;
  const steps = [...pin].slice(1).map((d, i) => (Number(d) - Number(pin[i]) + 10) % 10);
  return steps.every((s) => s === 1) || steps.every((s) => s === 9);
}

/** The service answers 422 (not 400) when this is the only fault: the PIN is well formed, just weak. */
export const TRIVIAL_PIN_ERROR = 'too easy to guess: not one digit repeated nor a run like 1234';

export const pinSchema = z
  .string({ error: 'must be text of 4 to 8 digits' })
  .regex(/^\d{4,8}$/, { error: 'must be 4 to 8 digits' })
  .refine((pin) => !trivialPin(pin), { error: TRIVIAL_PIN_ERROR });

/** The code typed at the register; JSON numbers are accepted as they are what a form sends. */
export const codigoSchema = z.preprocess(
  (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? String(v) : v),
  z.string({ error: 'must be 1 to 6 digits' }).regex(/^\d{1,6}$/, { error: 'must be 1 to 6 digits' }),
);

const nomeSchema = z.string().trim().min(2).max(60);

export const operatorCreateSchema = z.strictObject({
  nome: nomeSchema,
  papel: operatorRoleSchema,
  pin: pinSchema,
  codigo: codigoSchema.optional(),
});
export type OperatorCreate = z.output<typeof operatorCreateSchema>;

export const operatorUpdateSchema = z.strictObject({
  nome: nomeSchema.optional(),
  papel: operatorRoleSchema.optional(),
  /** A new PIN also lifts a lock. */
  pin: pinSchema.optional(),
  ativo: z.boolean().optional(),
});
export type OperatorUpdate = z.output<typeof operatorUpdateSchema>;

export const operatorListQuerySchema = z.object({
  ativo: z.enum(['true', 'false']).optional(),
});

export const operatorViewSchema = z.object({
  id: z.string(),
  codigo: z.string(),
  nome: z.string(),
  papel: operatorRoleSchema,
  ativo: z.boolean(),
  /** Until when wrong PINs keep the operator out; null when not locked. */
  bloqueado_ate: timestampSchema.nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
export type OperatorView = z.infer<typeof operatorViewSchema>;

/** How a note or an audit row names its operator. */
export const operatorRefSchema = z.object({ id: z.string(), codigo: z.string(), nome: z.string() });
export type OperatorRef = z.infer<typeof operatorRefSchema>;

const caixaSchema = z
  .string()
  .trim()
  .regex(/^[0-9A-Za-z-]{1,10}$/, { error: 'must be 1 to 10 letters, digits or -' });

export const signInSchema = z.strictObject({
  codigo: codigoSchema,
  pin: z.string({ error: 'must be text of digits' }).regex(/^\d{1,8}$/, { error: 'must be up to 8 digits' }),
  /** The register (terminal) number; "1" when absent. */
  caixa: caixaSchema.optional(),
});

export const signInAnswerSchema = z.object({
  operador: operatorViewSchema,
  /** Sent back in `X-Operator-Token`; valid 12 h or until sign-out. */
  token: z.string(),
  caixa: z.string(),
  expira_em: timestampSchema,
});

export const meAnswerSchema = z.object({
  operador: operatorViewSchema,
  caixa: z.string(),
  expira_em: timestampSchema,
});

export const authorizeSchema = z.strictObject({
  codigo: codigoSchema,
  pin: z.string({ error: 'must be text of digits' }).regex(/^\d{1,8}$/, { error: 'must be up to 8 digits' }),
  acao: operatorActionSchema,
});

export const authorizeAnswerSchema = z.object({
  /** Sent in `X-Supervisor-Authorization` with the request it approves; single use, 2 minutes. */
  autorizacao: z.string(),
  supervisor: operatorViewSchema,
  acao: operatorActionSchema,
  expira_em: timestampSchema,
});

export const operatorActionRequestSchema = z.strictObject({
  acao: z.literal('remover_item', { error: "must be 'remover_item'" }),
  /** What was removed, for the audit (free JSON object). */
  detalhe: z.record(z.string(), z.unknown()).optional(),
});

export const operatorActionViewSchema = z.object({
  id: z.string(),
  acao: z.string(),
  operador: operatorRefSchema,
  autorizado_por: operatorRefSchema.nullable(),
  document_id: z.string().nullable(),
  detalhe: z.unknown().nullable(),
  created_at: timestampSchema,
});
export type OperatorActionView = z.infer<typeof operatorActionViewSchema>;

export const operatorActionsQuerySchema = z.object({
  document_id: z.string().min(1).optional(),
  operator_id: z.string().min(1).optional(),
});

export const operatorActionAnswerSchema = z.object({
  acao: operatorActionSchema,
  operador: operatorViewSchema.nullable(),
  autorizado_por: operatorViewSchema.nullable(),
});
