// /v1/customers: the recipient (dest) of NF-e and the identified consumer of NFC-e.
import { z } from 'zod';
import { addressSchema, cnpjSchema, cpfSchema, timestampSchema } from './common.ts';
import { ieProblem } from '../ie.ts';

const customerFields = {
  cpf: cpfSchema.optional(),
  cnpj: cnpjSchema.optional(),
  idEstrangeiro: z.string().trim().min(1).max(20).optional(),
  xNome: z.string().trim().min(2).max(60),
  ie: z
    .string()
    .trim()
    .transform((s) => s.replace(/[.\-/\s]/g, '').toUpperCase())
    .refine((s) => s === 'ISENTO' || /^\d{2,14}$/.test(s), { error: 'must be 2 to 14 digits or ISENTO' })
    .optional(),
  /** indIEDest: 1 contribuinte, 2 isento, 9 não contribuinte; derived when absent. */
  indIEDest: z.union([z.literal(1), z.literal(2), z.literal(9)], { error: 'must be 1, 2 or 9' }).optional(),
  email: z.email().optional(),
  fone: z
    .string()
    .transform((s) => s.replace(/\D/g, ''))
    .refine((s) => /^\d{6,14}$/.test(s), { error: 'must have 6 to 14 digits' })
    .optional(),
  endereco: addressSchema.optional(),
};

export const customerCreateSchema = z.strictObject(customerFields).superRefine((c, ctx) => {
  const ids = [c.cpf, c.cnpj, c.idEstrangeiro].filter((v) => v !== undefined).length;
  if (ids !== 1) {
    ctx.addIssue({
      code: 'custom',
      path: ['cpf'],
      message: 'give exactly one of cpf, cnpj or idEstrangeiro',
    });
  }
  if (c.indIEDest === 1 && (c.ie === undefined || c.ie === 'ISENTO')) {
    ctx.addIssue({ code: 'custom', path: ['ie'], message: 'indIEDest 1 requires the IE' });
  }
  if (c.ie !== undefined && c.ie !== 'ISENTO') {
    // SEFAZ checks the recipient's IE by the algorithm of the UF of its address (rejection 210).
    const uf = c.endereco?.uf;
    const problem =
      uf === undefined
        ? 'give the address (endereco.uf): an IE is checked by the algorithm of its state'
        : ieProblem(uf, c.ie);
    if (problem !== null)
      ctx.addIssue({ code: 'custom', path: ['ie'], message: `${problem} (SEFAZ rejects it with cStat 210)` });
    if (c.indIEDest === 2)
      ctx.addIssue({
        code: 'custom',
        path: ['indIEDest'],
        message:
          'indIEDest 2 (isento) is a recipient without an IE: give ie ISENTO or indIEDest 1 (cStat 791)',
      });
  }
});
export type CustomerCreate = z.output<typeof customerCreateSchema>;

/** PUT replaces the customer: same shape as create. */
export const customerUpdateSchema = customerCreateSchema;

export const customerViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  cpf: z.string().nullable(),
  cnpj: z.string().nullable(),
  idEstrangeiro: z.string().nullable(),
  xNome: z.string(),
  ie: z.string().nullable(),
  indIEDest: z.number().int(),
  email: z.string().nullable(),
  fone: z.string().nullable(),
  endereco: z
    .object({
      xLgr: z.string().nullable(),
      nro: z.string().nullable(),
      xCpl: z.string().nullable(),
      xBairro: z.string().nullable(),
      cMun: z.string().nullable(),
      xMun: z.string().nullable(),
      uf: z.string().nullable(),
      cep: z.string().nullable(),
    })
    .nullable(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type CustomerView = z.infer<typeof customerViewSchema>;

export const customerListQuerySchema = z.object({
  q: z.string().trim().min(1).max(60).optional(),
});
