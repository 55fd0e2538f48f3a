// §2.7 CT-e create payload (POST /v1/cte). Field names are the specification's, exactly; the mapping to the
// layout's tags lives in src-main/fiscal/cte/normalize.ts. The specification shows one spelling for CT-e.
//
// What the schema leaves to the fiscal rules on purpose, so that they answer with their cStat instead of a
// generic validation error: valorTotal against the sum of componentesValor (512), the CFOP against the
// origin and destination UF (522) and the referenced NF-e keys (529).
//
// The specification says the payload "also carries vehicle data" without naming its fields, and CT-e 4.00's
// rodo group has no vehicle element left (cteModalRodoviario_v4.00.xsd: RNTRC and occ only), so no vehicle
// field is declared here until the specification names one.
import { z } from 'zod';
import { normalizeCnpj, normalizeCpf, isValidCnpj, isValidCpf } from '../tax-ids.ts';
import { addressSchema, ufSchema } from './common.ts';

const text = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, { error: `must have at least ${min} characters` })
    .max(max);

/** A JSON number with at most two decimal places (money in reais). */
const amount = z
  .number()
  .nonnegative()
  .refine((v) => Number.isFinite(v) && Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, {
    error: 'must have at most 2 decimal places',
  });

const cpfCnpj = z
  .string()
  .transform((s) => s.replace(/[.\-/\s]/g, '').toUpperCase())
  .refine((s) => (s.length === 11 ? isValidCpf(normalizeCpf(s)) : isValidCnpj(normalizeCnpj(s))), {
    error: 'invalid CPF or CNPJ',
  });

/** remetente / destinatario: the specification names `nome` and `cpfCnpj`; the address is the layout's. */
export const ctePartySchema = z.strictObject({
  nome: text(60, 2),
  cpfCnpj,
  /** Inscrição estadual, or `ISENTO`. */
  ie: text(14, 2).optional(),
  endereco: addressSchema.optional(),
});
export type CteParty = z.infer<typeof ctePartySchema>;

export const cteComponentSchema = z.strictObject({
  /** Name of the freight component (vPrest/Comp/xNome, up to 15 characters). */
  nome: text(15),
  valor: amount,
});

/** A carried NF-e: its access key, as a string or as `{ chave }`; checked by rule 529, not here. */
export const cteDocOriginarioSchema = z.union([z.string(), z.strictObject({ chave: z.string().optional() })]);

export const ctePayloadSchema = z.strictObject({
  customerId: z.uuid(),
  /** Transport modal code (ide/modal): `01` road is the one issued today. */
  modal: z.string().regex(/^0[1-6]$/, { error: 'must be a modal code 01 to 06' }),
  /** `5353` within a state, `6353` between states. */
  cfop: z.string().regex(/^\d{4}$/, { error: 'must have 4 digits' }),
  natOp: text(60),
  ufIni: ufSchema,
  xMunIni: text(60, 2),
  ufFim: ufSchema,
  xMunFim: text(60, 2),
  /** Service taker (ide/toma3/toma): 0 remetente, 1 expedidor, 2 recebedor, 3 destinatário. */
  toma: z.enum(['0', '1', '2', '3']),
  remetente: ctePartySchema,
  destinatario: ctePartySchema,
  valorTotal: amount,
  componentesValor: z.array(cteComponentSchema).min(1),
  docsOriginarios: z.array(cteDocOriginarioSchema),
});
export type CtePayload = z.infer<typeof ctePayloadSchema>;
