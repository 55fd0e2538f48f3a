// §2.7 CT-e create payload (POST /v1/cte). Field names are the specification's, exactly; the mapping to the
// layout's tags lives in src-main/fiscal/cte/normalize.ts. The specification shows one spelling for CT-e.
//
// What the schema leaves to the fiscal rules on purpose, so that they answer with their cStat instead of a
// generic validation error: valorTotal against the sum of componentesValor (512), the CFOP against the
// origin and destination UF (522) and the referenced NF-e keys (529).
//
// Names added here where §2.7 says what the payload carries without naming it (each documented below):
// - "vehicle data": `veiculo` {placa, uf, renavam?}. CT-e 4.00's rodo group has no vehicle element left
//   (cteModalRodoviario_v4.00.xsd: RNTRC and occ only), so the vehicle travels in compl/ObsCont.
// - "the value of the service": `valorReceber` (vPrest/vRec, the amount to receive; valorTotal when absent).
// - `expedidor` and `recebedor` (exped, receb), same shape as remetente: required when they take the service
//   (toma 1 and 2).
// - `tomador` (ide/toma4), same shape: the taker when it is none of the four parties, toma `4` (outros).
// - `observacoes`: compl/xObs.
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

/** Brazilian plate, old (ABC1234) or Mercosul (ABC1D23); dashes and spaces are dropped. */
const placa = z
  .string()
  .transform((s) => s.replace(/[\s-]/g, '').toUpperCase())
  .refine((s) => /^[A-Z]{3}[0-9][A-Z0-9][0-9]{2}$/.test(s), {
    error: 'must be a plate like ABC1234 or ABC1D23',
  });

/** The vehicle of the trip, written to compl/ObsCont (xCampo `placa`, `uf`, `renavam`). */
export const cteVeiculoSchema = z.strictObject({
  placa,
  /** UF where the vehicle is licensed. */
  uf: ufSchema,
  renavam: z
    .string()
    .regex(/^\d{9}(\d{2})?$/, { error: 'must have 9 or 11 digits' })
    .optional(),
});
export type CteVeiculo = z.infer<typeof cteVeiculoSchema>;

/** toma 1 and 2 name a party the payload must then carry. */
const TAKER_PARTY = { '1': 'expedidor', '2': 'recebedor', '4': 'tomador' } as const;

export const ctePayloadSchema = z
  .strictObject({
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
    /** Service taker: 0 remetente, 1 expedidor, 2 recebedor, 3 destinatário (toma3), 4 outros (toma4). */
    toma: z.enum(['0', '1', '2', '3', '4']),
    remetente: ctePartySchema,
    /** Who hands the cargo to the carrier when not the sender (exped). Required with toma 1. */
    expedidor: ctePartySchema.optional(),
    /** Who receives the cargo from the carrier when not the recipient (receb). Required with toma 2. */
    recebedor: ctePartySchema.optional(),
    destinatario: ctePartySchema,
    /** The taker when it is none of the parties above (ide/toma4). Required with toma 4, refused otherwise. */
    tomador: ctePartySchema.optional(),
    valorTotal: amount,
    /** Amount to receive (vPrest/vRec); valorTotal when absent. */
    valorReceber: amount.optional(),
    componentesValor: z.array(cteComponentSchema).min(1),
    docsOriginarios: z.array(cteDocOriginarioSchema),
    veiculo: cteVeiculoSchema.optional(),
    /** Free observations (compl/xObs), up to 2000 characters. */
    observacoes: text(2000).optional(),
  })
  .superRefine((p, ctx) => {
    const field = p.toma === '1' || p.toma === '2' || p.toma === '4' ? TAKER_PARTY[p.toma] : undefined;
    if (p.toma !== '4' && p.tomador !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['tomador'], message: 'only with toma 4 (outros)' });
    }
    if (field !== undefined && p[field] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `required: toma ${p.toma} says the ${field} takes the service`,
      });
    }
  });
export type CtePayload = z.infer<typeof ctePayloadSchema>;
