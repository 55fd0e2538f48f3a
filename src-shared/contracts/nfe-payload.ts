// The NF-e / NFC-e creation payload in spelling A (camelCase). Spelling B (snake_case) is converted to this
// shape key by key before validation (src-main/fiscal/nfe/normalize.ts), so one schema serves both.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';
import { fiscalTaxesSchema } from './catalog.ts';
import { addressSchema, cnpjSchema, cpfSchema } from './common.ts';
import { resolveTPag } from '../tables/payment-methods.ts';

const money = decimalText(13, 2, 'an amount');
const text = (max: number) => z.string().trim().min(1).max(max);

const partyAddressSchema = z.strictObject({
  logradouro: text(60),
  numero: text(60),
  complemento: text(60).optional(),
  bairro: text(60),
  codigoMunicipio: z.string().regex(/^\d{7}$/, { error: 'must be the 7-digit IBGE municipality code' }),
  municipio: text(60).optional(),
  uf: z.string(),
  cep: z.string().optional(),
  telefone: z.string().optional(),
});

export const customerPayloadSchema = z.strictObject({
  cpf: cpfSchema.optional(),
  cnpj: cnpjSchema.optional(),
  idEstrangeiro: text(20).optional(),
  nome: text(60).optional(),
  ie: z.string().trim().optional(),
  indIEDest: z.union([z.literal(1), z.literal(2), z.literal(9)]).optional(),
  email: z.email().optional(),
  endereco: z.union([partyAddressSchema, addressSchema]).optional(),
});

const detailedTaxesSchema = z.strictObject({
  vBC: money.optional(),
  vICMS: money.optional(),
  vBCST: money.optional(),
  vICMSST: money.optional(),
  vPIS: money.optional(),
  vCOFINS: money.optional(),
  vIPI: money.optional(),
  vTotTrib: money.optional(),
});

export const itemPayloadSchema = z.strictObject({
  productId: z.string().min(1).optional(),
  codigo: text(60).optional(),
  descricao: text(120).optional(),
  gtin: z.string().trim().optional(),
  ncm: z
    .string()
    .regex(/^(\d{8}|00)$/, { error: 'must have 8 digits' })
    .optional(),
  cest: z
    .string()
    .regex(/^\d{7}$/, { error: 'must have 7 digits' })
    .optional(),
  cfop: z
    .string()
    .regex(/^[1-7]\d{3}$/, { error: 'must be a 4-digit CFOP' })
    .optional(),
  unidade: text(6).optional(),
  quantidade: decimalText(11, 4, 'a quantity').refine((q) => !/^0+(\.0+)?$/.test(q), {
    error: 'must be positive',
  }),
  valorUnitario: decimalText(11, 10, 'a unit price').optional(),
  valorDesconto: money.optional(),
  valorFrete: money.optional(),
  valorSeguro: money.optional(),
  valorOutros: money.optional(),
  fiscalProfileId: z.string().min(1).optional(),
  /** Simple mode without a stored profile: the rules inline. */
  tributacao: fiscalTaxesSchema.optional(),
  /** Detailed mode: values computed by the caller. */
  impostos: detailedTaxesSchema.optional(),
  informacoesAdicionais: text(500).optional(),
});

export const paymentPayloadSchema = z.strictObject({
  forma: z
    .string()
    .trim()
    .refine((v) => resolveTPag(v) !== undefined, {
      error: 'unknown payment method: a tPag code or a name such as dinheiro, pix',
    }),
  valor: money,
  descricao: text(60).optional(),
  aPrazo: z.boolean().optional(),
  cartao: z
    .strictObject({
      integrado: z.boolean().default(false),
      cnpjCredenciadora: cnpjSchema.optional(),
      bandeira: z
        .string()
        .regex(/^\d{2}$/, { error: 'must be the 2-digit tBand code' })
        .optional(),
      autorizacao: text(128).optional(),
    })
    .optional(),
});

export const nfePayloadSchema = z.strictObject({
  modelo: z.union([z.literal(55), z.literal(65)]).optional(),
  serie: z.number().int().min(0).max(999).optional(),
  naturezaOperacao: text(60).default('VENDA'),
  tipoOperacao: z.union([z.literal(0), z.literal(1)]).default(1),
  finalidade: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]).default(1),
  consumidorFinal: z.boolean().optional(),
  presenca: z
    .union(
      [0, 1, 2, 3, 4, 5, 9].map((n) => z.literal(n)) as [z.ZodLiteral<number>, ...z.ZodLiteral<number>[]],
    )
    .optional(),
  intermediador: z.boolean().optional(),
  customerId: z.string().min(1).optional(),
  customer: customerPayloadSchema.optional(),
  cpfConsumidor: cpfSchema.optional(),
  itens: z
    .array(itemPayloadSchema)
    .min(1, { error: 'at least one item' })
    .max(990, { error: 'at most 990 items' }),
  pagamentos: z.array(paymentPayloadSchema).max(100).optional(),
  valorFrete: money.optional(),
  valorSeguro: money.optional(),
  valorDesconto: money.optional(),
  valorOutros: money.optional(),
  modalidadeFrete: z
    .union([0, 1, 2, 3, 4, 9].map((n) => z.literal(n)) as [z.ZodLiteral<number>, ...z.ZodLiteral<number>[]])
    .optional(),
  informacoesAdicionais: text(5000).optional(),
  informacoesFisco: text(2000).optional(),
  nfeReferenciada: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]))
    .optional(),
});

export type NfePayload = z.output<typeof nfePayloadSchema>;
export type ItemPayload = z.output<typeof itemPayloadSchema>;
export type CustomerPayload = z.output<typeof customerPayloadSchema>;
