// §2.8 NFS-e (national standard) payloads: the create body of POST /v1/nfse and the substitute body of
// POST /v1/nfse/:id/substituir. Field names are the specification's, exactly; the mapping to the DPS tags
// lives in src-main/fiscal/nfse/model.ts. Every faulty field is reported at once (zod collects them all).
import { z } from 'zod';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from '../tax-ids.ts';
import { ufSchema } from './common.ts';

const text = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, { error: `must have at least ${min} characters` })
    .max(max, { error: `must have at most ${max} characters` });

/** A JSON number with at most two decimal places (money in reais), above zero. */
const amount = z
  .number()
  .positive()
  .refine((v) => Number.isFinite(v) && Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, {
    error: 'must have at most 2 decimal places',
  });

/** cTribNac (TSCodTribNac): 6 digits, item (2) + subitem (2) + desdobro (2) of the national list. */
const codigoTributacaoNacional = z
  .string()
  .trim()
  .regex(/^\d{6}$/, { error: 'must be the 6-digit national tax code' });

const cpfCnpj = z
  .string()
  .transform((s) => s.replace(/[.\-/\s]/g, '').toUpperCase())
  .refine((s) => (s.length === 11 ? isValidCpf(normalizeCpf(s)) : isValidCnpj(normalizeCnpj(s))), {
    error: 'invalid CPF or CNPJ',
  });

export const nfseEnderecoSchema = z.strictObject({
  logradouro: text(255),
  numero: text(60),
  bairro: text(60),
  /** The municipality's 7-digit IBGE code, or its name (resolved with `uf`). */
  municipio: text(60),
  uf: ufSchema,
  cep: z
    .string()
    .transform((s) => s.replace(/[.\-\s]/g, ''))
    .refine((s) => /^\d{8}$/.test(s), { error: 'must have 8 digits' }),
});
export type NfseEndereco = z.output<typeof nfseEnderecoSchema>;

export const nfseTomadorSchema = z.strictObject({
  cpf_cnpj: cpfCnpj,
  /** xNome of toma (TSNomeRazaoSocial, up to 300 characters). */
  razao_social: text(300),
  email: z.email({ error: 'must be an e-mail address' }).max(80).optional(),
  endereco: nfseEnderecoSchema.optional(),
});
export type NfseTomador = z.output<typeof nfseTomadorSchema>;

export const nfsePayloadSchema = z.strictObject({
  codigo_tributacao_nacional: codigoTributacaoNacional,
  /** xDescServ (TSDesc2000). */
  descricao_servico: text(2000),
  valor_servico: amount,
  /** true: the taker withholds the ISS (tpRetISSQN 2); false: the provider pays it (tpRetISSQN 1). */
  iss_retido: z.boolean(),
  tomador: nfseTomadorSchema,
});
export type NfsePayload = z.output<typeof nfsePayloadSchema>;

/** §2.8 substitute body: all optional; what is absent is taken from the note being replaced. */
export const nfseSubstitutePayloadSchema = z.strictObject({
  codigoServico: codigoTributacaoNacional.optional(),
  descricao: text(2000).optional(),
  valorServico: amount.optional(),
  /** Reason code of the substitution (cMotivo of the 105102 event, e.g. `01`). */
  cMotivo: z
    .string()
    .regex(/^\d{2}$/, { error: 'must be a 2-digit reason code' })
    .optional(),
  xMotivo: text(255, 15).optional(),
  sendImmediate: z.boolean().default(false),
});
export type NfseSubstitutePayload = z.output<typeof nfseSubstitutePayloadSchema>;

export interface FieldFault {
  field: string;
  error: string;
}

/** Every issue of a failed parse as {field, error}, the field a dotted path (`tomador.endereco.cep`). */
export function nfseFieldFaults(error: z.ZodError): FieldFault[] {
  return error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(body)', error: i.message }));
}
