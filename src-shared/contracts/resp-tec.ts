// The company's technical responsible (infRespTec, group ZD, NT 2018.005): the software house that answers
// for the notes, and its CSRT when the UF issued one. Set through PUT /v1/companies/:id/config.
import { z } from 'zod';
import { cnpjSchema } from './common.ts';

/** Each field with the snake_case name of the config route and the layout's (or camelCase) alias. */
const ALIASES = [
  ['contato', 'xContato'],
  ['fone', 'telefone'],
  ['id_csrt', 'idCSRT'],
  ['csrt', 'CSRT'],
] as const;

const digits = (s: string) => s.replace(/\D/g, '');

/**
 * `responsavel_tecnico` (also `responsavelTecnico`) of the config body: CNPJ, contact name, e-mail and phone
 * (ZD02-ZD06), and optionally the CSRT the UF issued (idCSRT, 2 digits, ZD08, and the token, kept sealed like
 * the CSC and never returned). `null` removes it.
 */
export const respTecInputSchema = z
  .strictObject({
    cnpj: cnpjSchema,
    contato: z.string().trim().min(2).max(60).optional(),
    xContato: z.string().trim().min(2).max(60).optional(),
    email: z.email().max(60),
    fone: z
      .string()
      .transform(digits)
      .refine((s) => /^\d{6,14}$/.test(s), { error: 'must have 6 to 14 digits' })
      .optional(),
    telefone: z
      .string()
      .transform(digits)
      .refine((s) => /^\d{6,14}$/.test(s), { error: 'must have 6 to 14 digits' })
      .optional(),
    id_csrt: z
      .union([z.string(), z.number().int()])
      .transform((v) => String(v).trim())
      .refine((v) => /^\d{1,2}$/.test(v), { error: 'idCSRT has 1 or 2 digits' })
      .transform((v) => v.padStart(2, '0'))
      .optional(),
    idCSRT: z
      .union([z.string(), z.number().int()])
      .transform((v) => String(v).trim())
      .refine((v) => /^\d{1,2}$/.test(v), { error: 'idCSRT has 1 or 2 digits' })
      .transform((v) => v.padStart(2, '0'))
      .optional(),
    csrt: z
      .string()
      .trim()
      .regex(/^[\x21-\x7e]{8,100}$/, { error: 'CSRT must be 8 to 100 visible characters' })
      .optional(),
    CSRT: z
      .string()
      .trim()
      .regex(/^[\x21-\x7e]{8,100}$/, { error: 'CSRT must be 8 to 100 visible characters' })
      .optional(),
  })
  .superRefine((body, ctx) => {
    for (const [name, alias] of ALIASES) {
      if (body[name] !== undefined && body[alias] !== undefined)
        ctx.addIssue({ code: 'custom', path: [alias], message: `the same field as ${name}: give it once` });
    }
    if (body.contato === undefined && body.xContato === undefined)
      ctx.addIssue({ code: 'custom', path: ['contato'], message: 'required: the contact person (xContato)' });
    if (body.fone === undefined && body.telefone === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['fone'],
        message: 'required: the contact phone, 6 to 14 digits',
      });
    const id = body.id_csrt ?? body.idCSRT;
    const token = body.csrt ?? body.CSRT;
    if ((id === undefined) !== (token === undefined)) {
      const camel = body.idCSRT !== undefined || body.CSRT !== undefined;
      ctx.addIssue({
        code: 'custom',
        path: [id === undefined ? (camel ? 'idCSRT' : 'id_csrt') : camel ? 'CSRT' : 'csrt'],
        message: camel ? 'idCSRT and CSRT are set together' : 'id_csrt and csrt are set together',
      });
    }
  })
  .transform((b) => ({
    cnpj: b.cnpj,
    xContato: (b.contato ?? b.xContato) as string,
    email: b.email,
    fone: (b.fone ?? b.telefone) as string,
    csrt:
      (b.id_csrt ?? b.idCSRT) === undefined
        ? null
        : { idCSRT: (b.id_csrt ?? b.idCSRT) as string, token: (b.csrt ?? b.CSRT) as string },
  }));
export type RespTecInput = z.output<typeof respTecInputSchema>;

/** What a company view shows of it: the CSRT token is a secret and never returned. */
export const respTecViewSchema = z.object({
  cnpj: z.string(),
  xContato: z.string(),
  email: z.string(),
  fone: z.string(),
  idCSRT: z.string().nullable(),
  csrtConfigured: z.boolean(),
});
export type RespTecView = z.infer<typeof respTecViewSchema>;
