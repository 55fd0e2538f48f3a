// The NF-e / NFC-e creation payload in spelling A (camelCase). Spelling B (snake_case) is converted to this
// shape key by key before validation (src-main/fiscal/nfe/normalize.ts), so one schema serves both.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';
import { fiscalTaxesSchema } from './catalog.ts';
import { ambienteSchema, cnpjSchema, cpfSchema } from './common.ts';
import { resolveTPag } from '../tables/payment-methods.ts';

const money = decimalText(13, 2, 'an amount');
const cfopText = z.string().regex(/^[1-7]\d{3}$/, { error: 'must be a 4-digit CFOP' });
/** `0`/`1` as the specification writes them (strings), or as numbers. */
const zeroOrOne = z
  .union([z.literal(0), z.literal(1), z.literal('0'), z.literal('1')], {
    error: "must be 0 or 1 (or '0'/'1')",
  })
  .transform((v) => Number(v) as 0 | 1);
const text = (max: number) => z.string().trim().min(1).max(max);

/**
 * The recipient's address in any of the accepted spellings: the specification's (§2.2: logradouro, numero,
 * complemento, bairro, xMun, UF, CEP; spelling B: municipio, uf, cep) or the layout's (xLgr, nro, xCpl,
 * xBairro, cMun, xMun, uf, cep, fone). Which fields are required, and the IBGE code derived from the city's
 * name when none is given, are decided in one place (src-main/fiscal/nfe/normalize.ts), so that every
 * missing sub-field is reported at once in the caller's own spelling.
 */
const recipientAddressSchema = z.strictObject({
  logradouro: text(60).optional(),
  xLgr: text(60).optional(),
  numero: text(60).optional(),
  nro: text(60).optional(),
  complemento: text(60).optional(),
  xCpl: text(60).optional(),
  bairro: text(60).optional(),
  xBairro: text(60).optional(),
  /** IBGE municipality code (7 digits); derived from the city's name and UF when omitted. */
  codigoMunicipio: z
    .string()
    .regex(/^\d{7}$/, { error: 'must be the 7-digit IBGE municipality code' })
    .optional(),
  cMun: z
    .string()
    .regex(/^\d{7}$/, { error: 'must be the 7-digit IBGE municipality code' })
    .optional(),
  municipio: text(60).optional(),
  xMun: text(60).optional(),
  uf: z.string().trim().optional(),
  UF: z.string().trim().optional(),
  cep: z.string().optional(),
  CEP: z.string().optional(),
  telefone: z.string().optional(),
  fone: z.string().optional(),
});

/** §2.2 (spelling A `customer`) and spelling B `destinatario`: tax id, name, contact and address. */
export const customerPayloadSchema = z.strictObject({
  /** §2.2: CPF or CNPJ (numeric or alphanumeric), told apart by its length. */
  cpfCnpj: z.string().trim().optional(),
  cpf: cpfSchema.optional(),
  cnpj: cnpjSchema.optional(),
  idEstrangeiro: text(20).optional(),
  nome: text(60).optional(),
  ie: z.string().trim().optional(),
  indIEDest: z.union([z.literal(1), z.literal(2), z.literal(9)]).optional(),
  email: z.email().optional(),
  telefone: z.string().optional(),
  endereco: recipientAddressSchema.optional(),
  /** Spelling B draws the recipient's state beside its address fields. */
  uf: z.string().trim().optional(),
  logradouro: text(60).optional(),
  numero: text(60).optional(),
  complemento: text(60).optional(),
  bairro: text(60).optional(),
  municipio: text(60).optional(),
  codigoMunicipio: z
    .string()
    .regex(/^\d{7}$/, { error: 'must be the 7-digit IBGE municipality code' })
    .optional(),
  cep: z.string().optional(),
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
  cfop: cfopText.optional(),
  /** §2.3 spells it in capitals. */
  CFOP: cfopText.optional(),
  /** Defaults to UN. */
  unidade: text(6).optional(),
  /** Required; optional here so that its absence is reported together with every other fault. */
  quantidade: decimalText(11, 4, 'a quantity')
    .refine((q) => !/^0+(\.0+)?$/.test(q), {
      error: 'must be positive',
    })
    .optional(),
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
  /**
   * Devolução (finalidade 4, group UA): the share returned in percent and the IPI returned, which replaces the
   * item's IPI group. POST /v1/nfe/:id/devolucao fills it from the original note.
   */
  impostoDevol: z
    .strictObject({
      pDevol: decimalText(3, 2, 'a percentage').refine((p) => Number(p) <= 100, {
        error: 'must be at most 100',
      }),
      vIPIDevol: money,
    })
    .optional(),
});

/** §2.4 (`forma` tPag code, `valor`); spelling B names the method (`metodo: "pix"`). Both are required. */
export const paymentPayloadSchema = z.strictObject({
  forma: z
    .string()
    .trim()
    .refine((v) => resolveTPag(v) !== undefined, {
      error: 'unknown payment method: a tPag code or a name such as dinheiro, pix, cartao_credito, boleto',
    })
    .describe(
      'tPag code (01 cash, 03 credit, 04 debit, 15 boleto, 17 PIX dinâmico, 20 PIX estático, 90 none, 99 other, …) ' +
        'or a name: dinheiro, cartao_credito, cartao_debito, pix (= 17, dynamic), pix_dinamico (17), ' +
        'pix_estatico (20, static QR code or key, no card group), boleto, cheque, vale_alimentacao, outros, …',
    )
    .optional(),
  valor: money.optional(),
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
  /**
   * Dynamic PIX (Balcão): the txid of a charge made with POST /v1/pix/charges and paid (CONCLUIDA); the note
   * gets tPag 17 with the card group filled from the PSP's settlement (tpIntegra 1, CNPJ, cAut = endToEndId).
   */
  pixTxid: z
    .string()
    .regex(/^[a-zA-Z0-9]{26,35}$/, { error: 'must be the txid of a PIX charge (26 to 35 letters or digits)' })
    .optional(),
});

const modFreteSchema = z.union(
  [0, 1, 2, 3, 4, 9].map((n) => z.literal(n)) as [z.ZodLiteral<number>, ...z.ZodLiteral<number>[]],
  { error: 'must be 0, 1, 2, 3, 4 or 9' },
);

const indPresSchema = z
  .union(
    [0, 1, 2, 3, 4, 5, 9].map((n) => z.literal(n)) as [z.ZodLiteral<number>, ...z.ZodLiteral<number>[]],
    {
      error: 'must be 0, 1, 2, 3, 4, 5 or 9',
    },
  )
  .optional();

/** The carrier (transporta, X03): CNPJ/CPF check digits are checked with the authority's rules 542/543. */
const carrierSchema = z.strictObject({
  cnpj: z.string().trim().optional(),
  cpf: z.string().trim().optional(),
  nome: text(60).optional(),
  ie: z.string().trim().optional(),
  /** Street, number and district in one line (xEnder). */
  endereco: text(60).optional(),
  municipio: text(60).optional(),
  uf: z.string().trim().optional(),
});

const vehicleSchema = z.strictObject({
  placa: z
    .string()
    .trim()
    .transform((p) => p.toUpperCase().replace(/[\s-]/g, ''))
    .refine((p) => /^([A-Z]{2,3}[0-9]{4}|[A-Z]{3,4}[0-9]{3}|[A-Z0-9]{7})$/.test(p), {
      error: 'must be a vehicle plate such as ABC1234 or ABC1D23',
    }),
  uf: z.string().trim().optional(),
  /** Registro Nacional de Transportador de Carga (ANTT). */
  rntc: text(20).optional(),
});

const weight = decimalText(12, 3, 'a weight in kg');
const volumeSchema = z.strictObject({
  quantidade: z.number().int().min(0).max(999999999999999).optional(),
  especie: text(60).optional(),
  marca: text(60).optional(),
  numeracao: text(60).optional(),
  pesoLiquido: weight.optional(),
  pesoBruto: weight.optional(),
});

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, { error: 'must be a date YYYY-MM-DD' });
const billingSchema = z.strictObject({
  /** nFat; defaults to the note's number. */
  numero: text(60).optional(),
  /** vOrig; defaults to vLiq + vDesc. */
  valorOriginal: money.optional(),
  valorDesconto: money.optional(),
  /** vLiq; defaults to the sum of the instalments, else vOrig − vDesc, else the note's total. */
  valorLiquido: money.optional(),
  parcelas: z
    .array(
      z.strictObject({
        /** nDup: 001, 002... in order (rule 852); numbered so when omitted. */
        numero: z.string().trim().optional(),
        vencimento: isoDate.optional(),
        valor: money.optional(),
      }),
    )
    .max(120)
    .optional(),
});

export const nfePayloadSchema = z.strictObject({
  modelo: z.union([z.literal(55), z.literal(65)]).optional(),
  serie: z.number().int().min(0).max(999).optional(),
  /** Overrides the company's environment for this note (§2.1). */
  ambiente: ambienteSchema.optional(),
  /** Required for NF-e; an NFC-e defaults to VENDA AO CONSUMIDOR (§2.6). */
  naturezaOperacao: text(60).optional(),
  tipoOperacao: zeroOrOne.default(1),
  finalidade: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]).default(1),
  /** §2.1 `indFinal`; `consumidorFinal` (boolean) is the older spelling of the same flag. */
  indFinal: zeroOrOne.optional(),
  consumidorFinal: z.boolean().optional(),
  /** §2.1 `indPres`, default 1; `presenca` is the older spelling. */
  indPres: indPresSchema,
  presenca: indPresSchema,
  intermediador: z.boolean().optional(),
  customerId: z.string().min(1).optional(),
  customer: customerPayloadSchema.optional(),
  cpfConsumidor: cpfSchema.optional(),
  itens: z
    .array(itemPayloadSchema)
    .min(1, { error: 'at least one item' })
    .max(990, { error: 'at most 990 items' })
    .optional(),
  pagamentos: z.array(paymentPayloadSchema).max(100).optional(),
  /** Spelling B: one payment object (`{metodo: "pix", valor: 10}`). */
  pagamento: paymentPayloadSchema.optional(),
  valorFrete: money.optional(),
  valorSeguro: money.optional(),
  valorDesconto: money.optional(),
  valorOutros: money.optional(),
  modalidadeFrete: modFreteSchema.optional(),
  /**
   * §2.1 `transporte.modFrete`: 0 sender, 1 recipient, 9 no freight (2, 3, 4 as the layout allows); on an NF-e
   * also the carrier, its vehicle and the volumes (group X).
   */
  transporte: z
    .strictObject({
      modFrete: modFreteSchema.optional(),
      transportadora: carrierSchema.optional(),
      veiculo: vehicleSchema.optional(),
      volumes: z.array(volumeSchema).max(5000).optional(),
    })
    .optional(),
  /** NF-e only (group Y): the invoice (fatura) and its instalments (duplicatas), e.g. a sale by boleto. */
  cobranca: billingSchema.optional(),
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
