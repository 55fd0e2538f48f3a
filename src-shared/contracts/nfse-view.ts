// The answers of /v1/nfse (§2.8, §4.4): the NFS-e object, the cancellation, the XML answer and the provider's
// NFS-e settings; and the requests of the routes (cancel, list filters), so routes, OpenAPI and clients agree.
import { z } from 'zod';
import { ambienteSchema, createdPeriodFilterShape, justificativaSchema, timestampSchema } from './common.ts';

/**
 * Statuses as the NFS-e API shows them: §3 names `authorized` for an authorized NFS-e (the stored
 * `autorizada`), and `rascunho` for the draft a substitution creates; the others are the shared lifecycle's.
 */
export const NFSE_STATUSES = [
  'rascunho',
  'processando',
  'authorized',
  'erro',
  'cancelada',
  'substituida',
] as const;
export const nfseStatusSchema = z.enum(NFSE_STATUSES);
export type NfseStatus = z.infer<typeof nfseStatusSchema>;

export const nfseTomadorViewSchema = z.object({
  cpf_cnpj: z.string(),
  razao_social: z.string(),
  email: z.string().nullable(),
  endereco: z
    .object({
      logradouro: z.string(),
      numero: z.string(),
      bairro: z.string(),
      /** As sent (a name or the IBGE code); the IBGE code when read back from the DPS. */
      municipio: z.string(),
      uf: z.string(),
      cep: z.string(),
    })
    .nullable(),
});
export type NfseTomadorView = z.infer<typeof nfseTomadorViewSchema>;

/** The cancellation (event e101101) of the note, once asked. */
export const nfseCancelamentoSchema = z.object({
  codigo_motivo: z.number().int().nullable(),
  justificativa: z.string().nullable(),
  status: z.enum(['processando', 'registrada', 'rejeitada']),
  /** The event's number in the national environment once registered. */
  protocolo: z.string().nullable(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  registrado_em: timestampSchema.nullable(),
});
export type NfseCancelamento = z.infer<typeof nfseCancelamentoSchema>;

/**
 * GET /v1/nfse/:id, the list items and the POST answers: the §2.8 response fields first, then what the note
 * is about (the DPS's series, number and Id, the service, the taker), the national environment's last
 * answer and the links between a substituted note and its substitute.
 */
export const nfseViewSchema = z.object({
  id: z.uuid(),
  status: nfseStatusSchema.meta({
    description:
      'rascunho, processando (also while a cancellation waits for the national environment), authorized, erro, cancelada, substituida',
  }),
  /** nNFSe given by the national environment; null before authorization. */
  numero_nfse: z.number().int().nullable(),
  chave_acesso_50: z.string().length(50).nullable(),
  /** dhEmi of the DPS. */
  data_emissao: z.string(),
  /** The value of the services (vServ). */
  valor_total: z.number(),
  danfse_url: z.string(),
  xml_url: z.string(),
  /** The national portal's public consultation of the key; null before authorization. */
  qr_code_url: z.string().nullable(),
  /** nDFSe: the note's number in the national data environment; null before authorization. */
  protocolo: z.string().nullable(),
  /** Series and number of the DPS (our sequence); the note's own number is numero_nfse. */
  serie: z.number().int(),
  numero: z.number().int(),
  dps_id: z.string(),
  codigo_tributacao_nacional: z.string(),
  descricao_servico: z.string(),
  valor_servico: z.number(),
  iss_retido: z.boolean(),
  /** ISS rate in percent with two places (`"5.00"`); null when the municipality's applies unstated. */
  aliquota_iss: z.string().nullable(),
  tomador: nfseTomadorViewSchema.nullable(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  /** The note this one replaces (substitution), and the one that replaced it. */
  substitui_nfse_id: z.uuid().nullable(),
  substituida_por_nfse_id: z.uuid().nullable(),
  cancelamento: nfseCancelamentoSchema.nullable(),
  ambiente: ambienteSchema,
  created_at: timestampSchema,
  updated_at: timestampSchema,
  /** What the answer tells the caller (queued, how to follow it). */
  message: z.string().optional(),
});
export type NfseView = z.infer<typeof nfseViewSchema>;

/** POST /v1/nfse's query: `rascunho=true` only creates the draft (201), sent later with POST /v1/nfse/:id/send. */
export const nfseCreateQuerySchema = z.object({ rascunho: z.enum(['true', 'false']).optional() });

/** §4.6 list filters of GET /v1/nfse (the specification leaves them to us). */
export const nfseListFilterShape = {
  status: z
    .enum([...NFSE_STATUSES, 'autorizada', 'rejeitada'])
    .optional()
    .meta({ description: '`autorizada` is an alias of `authorized`, `rejeitada` of `erro`' }),
  ...createdPeriodFilterShape,
};

/** POST /v1/nfse/:id/cancel (§2.8 cancel body). */
export const nfseCancelRequestSchema = z.strictObject({
  codigo_motivo: z.union([z.literal(1), z.literal(2), z.literal(3)], {
    error: 'must be 1 (issue error), 2 (service not rendered) or 3 (duplicate note)',
  }),
  justificativa: justificativaSchema,
});
export type NfseCancelRequest = z.infer<typeof nfseCancelRequestSchema>;

/** The answer of POST /v1/nfse/:id/cancel (200 registered, 202 still on its way). */
export const nfseCancelAnswerSchema = z.object({
  id: z.uuid(),
  status: nfseStatusSchema,
  cancelamento: nfseCancelamentoSchema,
  message: z.string().optional(),
});
export type NfseCancelAnswer = z.infer<typeof nfseCancelAnswerSchema>;

/** GET /v1/nfse/:id/xml without `formato`: the signed DPS, the authorized note and the events. */
export const nfseXmlAnswerSchema = z.object({
  id: z.uuid(),
  dps_xml: z.string(),
  nfse_xml: z.string().nullable(),
  eventos: z.array(z.object({ tpEvento: z.string(), xml: z.string() })),
});
export type NfseXmlAnswer = z.infer<typeof nfseXmlAnswerSchema>;

export const nfseXmlQuerySchema = z.object({
  formato: z.enum(['dps', 'nfse']).optional(),
});

/** GET /v1/nfse/:id/danfse with `Accept: application/json`: where the PDF is, and the public consultation. */
export const nfseDanfseLinkSchema = z.object({
  id: z.uuid(),
  danfse_url: z.string(),
  qr_code_url: z.string().nullable(),
});

const REG_ESP_TRIB: readonly number[] = [0, 1, 2, 3, 4, 5, 6, 9];

/**
 * The provider's NFS-e settings (regTrib of the DPS): PUT /v1/companies/:id/nfse-settings. The one schema of
 * the body: the route, the kind's save and the OpenAPI document all read it.
 */
export const nfseSettingsSchema = z
  .strictObject({
    /** 1 not in the Simples Nacional, 2 MEI, 3 ME/EPP. */
    op_simp_nac: z.union([z.literal(1), z.literal(2), z.literal(3)], { error: 'must be 1, 2 or 3' }),
    /** Only with op_simp_nac 3: 1 every tax by the Simples, 2 federal by the Simples and ISS outside, 3 none. */
    reg_ap_trib_sn: z
      .union([z.literal(1), z.literal(2), z.literal(3)], { error: 'must be 1, 2, 3 or null' })
      .nullable()
      .default(null),
    // A refinement rather than a union of literals: a failed union stops the object's own check below, and
    // every faulty field is reported at once.
    reg_esp_trib: z
      .number()
      .int()
      .refine((n) => REG_ESP_TRIB.includes(n), { error: 'must be 0 to 6 or 9' })
      .default(0)
      .meta({
        description:
          'Special regime: 0 none, 1 cooperative, 2 estimate, 3 ME municipal, 4 notary, 5 professional, 6 society of professionals, 9 others',
        enum: [...REG_ESP_TRIB],
      }),
  })
  .superRefine((value, ctx) => {
    // TCRegTrib: regApTribSN exists only for the ME/EPP of the Simples Nacional.
    if (value.op_simp_nac !== 3 && value.reg_ap_trib_sn !== null) {
      ctx.addIssue({ code: 'custom', path: ['reg_ap_trib_sn'], message: 'only with op_simp_nac 3 (ME/EPP)' });
    }
  });
export type NfseSettingsRequest = z.input<typeof nfseSettingsSchema>;

export const nfseSettingsViewSchema = z.object({
  op_simp_nac: z.number().int(),
  reg_ap_trib_sn: z.number().int().nullable(),
  reg_esp_trib: z.number().int(),
  /** true: nothing saved, the values come from the company's CRT. */
  padrao: z.boolean(),
});
export type NfseSettingsViewBody = z.infer<typeof nfseSettingsViewSchema>;
