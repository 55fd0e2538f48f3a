// The answers of /v1/dce (the DC-e, content declaration, model 99): the DC-e object, its cancellation, the XML
// answer and the company's DC-e settings; and the requests of the routes (create query, list filters, cancel,
// XML and DACE queries), so routes, OpenAPI document, renderer and tests read one definition.
import { z } from 'zod';
import {
  ambienteSchema,
  createdPeriodFilterShape,
  justificativaSchema,
  moneyTextSchema,
  printedPdfQuerySchema,
  timestampSchema,
} from './common.ts';
import { eventOutcomeShape } from './documents.ts';

/** The model of the DC-e in the access key and in our tables (Ajuste SINIEF 05/21). */
export const DCE_MODELO = 99;

/** Stored statuses of a DC-e: the shared lifecycle's, without contingency or denial (the DC-e has neither). */
export const DCE_STATUSES = ['rascunho', 'processando', 'autorizada', 'erro', 'cancelada'] as const;
export const dceStatusSchema = z.enum(DCE_STATUSES);
export type DceStatus = z.infer<typeof dceStatusSchema>;

/**
 * Who issues the DC-e for the declarant (tpEmit): 1 a marketplace / online shop, 2 the declarant's own system,
 * 3 a carrier. 0 (the fisco's app) and 4 (the Correios) are not Balcão's to use.
 */
export const DCE_TIPOS_EMITENTE = ['marketplace', 'proprio', 'transportadora'] as const;
export const dceTipoEmitenteSchema = z.enum(DCE_TIPOS_EMITENTE, {
  error: 'must be marketplace, proprio or transportadora',
});
export type DceTipoEmitente = z.infer<typeof dceTipoEmitenteSchema>;

/** modTrans: 0 the Correios, 1 the declarant's own means, 2 a carrier. */
export const DCE_MODALIDADES_TRANSPORTE = ['correios', 'proprio', 'transportadora'] as const;

/** A party as the view shows it: `doc` is the CPF, CNPJ or foreign id (idOutros) as the XML carries it. */
export const dcePartyViewSchema = z.object({ doc: z.string(), nome: z.string() });

export const dceDestinatarioViewSchema = dcePartyViewSchema.extend({
  /** xMun of the address (the IBGE table's name when the payload gave only the code). */
  municipio: z.string(),
  uf: z.string(),
});

/** The cancellation (event 110111) of a DC-e, and any later event the layout may add. */
export const dceEventViewSchema = z.object({
  id: z.string(),
  dce_id: z.uuid(),
  ...eventOutcomeShape,
  created_at: timestampSchema,
  registered_at: timestampSchema.nullable(),
});
export type DceEventView = z.infer<typeof dceEventViewSchema>;

/**
 * GET /v1/dce/:id, the list items and the create/send answers. The specification shows nothing of it beyond
 * "POST /v1/dce answers 201": the names are the other views' where they exist (numero, serie, chave_acesso,
 * protocolo, valor_total, cStat, xMotivo, authorized_at, xml_url).
 */
export const dceViewSchema = z.object({
  id: z.uuid(),
  status: dceStatusSchema.meta({
    description:
      'rascunho, processando (queued, or a cancellation waiting for the authority), autorizada, erro (rejected: correct with PUT and send again), cancelada',
  }),
  modelo: z.literal(DCE_MODELO),
  serie: z.number().int(),
  /** nDC. */
  numero: z.number().int(),
  /** The 44-digit access key: fixed when the draft is signed (the number is reserved then). */
  chave_acesso: z.string().length(44),
  ambiente: ambienteSchema,
  tipo_emitente: dceTipoEmitenteSchema,
  /** The declarant (XML emit): the sender of the goods; the company itself with tipo_emitente proprio. */
  emitente: dcePartyViewSchema,
  destinatario: dceDestinatarioViewSchema,
  itens_count: z.number().int().min(1),
  /** vDC: the sum of the items' values. */
  valor_total: moneyTextSchema,
  modalidade_transporte: z.enum(DCE_MODALIDADES_TRANSPORTE),
  /** dhEmi of the DC-e. */
  data_emissao: z.string(),
  /** nProt of the authorization; null before it. */
  protocolo: z.string().nullable(),
  /** The authority's last answer (authorization, rejection). */
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  /** infDCeSupl/qrCodDCe: what the DACE's QR code opens. */
  qr_code: z.string().nullable(),
  /** infDCeSupl/urlChave: where the key is consulted by hand. */
  url_chave: z.string().nullable(),
  authorized_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
  created_at: timestampSchema,
  updated_at: timestampSchema,
  /** The DACE on A4 and on the 100 × 150 mm label (GET …/dace?formato=etiqueta). */
  dace_url: z.string(),
  dace_etiqueta_url: z.string(),
  xml_url: z.string(),
  /** What the answer tells the caller (created, queued, how to follow it). */
  message: z.string().optional(),
});
export type DceView = z.infer<typeof dceViewSchema>;

/** POST /v1/dce's query: `enviar=true` creates the DC-e and queues it at once (202 instead of 201). */
export const dceCreateQuerySchema = z.object({ enviar: z.enum(['true', 'false']).optional() });

/** §4.6 list filters of GET /v1/dce (the specification leaves them to us). */
export const dceListFilterShape = {
  status: z
    .enum([...DCE_STATUSES, 'rejeitada'])
    .optional()
    .meta({ description: '`rejeitada` is an alias of `erro`' }),
  ...createdPeriodFilterShape,
  /** Part of the access key, the number, or part of the recipient's name. */
  q: z.string().trim().min(1).max(60).optional(),
};

/** POST /v1/dce/:id/cancel: the xJust of evCancDCe. */
export const dceCancelRequestSchema = z.strictObject({ justificativa: justificativaSchema });
export type DceCancelRequest = z.infer<typeof dceCancelRequestSchema>;

/** The answer of POST /v1/dce/:id/cancel (200 registered, 202 still on its way). */
export const dceCancelAnswerSchema = z.object({
  document: dceViewSchema,
  event: dceEventViewSchema,
  message: z.string().optional(),
});
export type DceCancelAnswer = z.infer<typeof dceCancelAnswerSchema>;

/** GET /v1/dce/:id/xml: the XML itself, or `formato=json` for every XML of the DC-e at once. */
export const dceXmlQuerySchema = z.object({ formato: z.enum(['xml', 'json']).optional() });

export const dceXmlAnswerSchema = z.object({
  id: z.uuid(),
  /** The signed DCe as stored. */
  dce_xml: z.string(),
  /** dceProc (DCe + protDCe) once authorized. */
  proc_xml: z.string().nullable(),
  /** The events: the procEventoDCe once registered, the signed eventoDCe before. */
  eventos: z.array(z.object({ tpEvento: z.string(), nSeqEvento: z.number().int(), xml: z.string() })),
});
export type DceXmlAnswer = z.infer<typeof dceXmlAnswerSchema>;

/** GET /v1/dce/:id/dace: A4 (default) or the 100 × 150 mm label; `previa=true` prints a draft for checking. */
export const dceDaceQuerySchema = printedPdfQuerySchema.extend({
  formato: z.enum(['a4', 'etiqueta']).optional(),
  previa: z.enum(['true', 'false']).optional(),
});

/** PUT /v1/companies/:id/dce-settings: the defaults of the company's DC-e (the payload overrides them). */
export const dceSettingsSchema = z.strictObject({
  tipo_emitente: dceTipoEmitenteSchema.default('marketplace'),
  /** Marketplace/Site: the shop's address on the web (required to issue as marketplace). */
  site: z
    .string()
    .trim()
    .min(3, { error: 'must have at least 3 characters' })
    .max(120, { error: 'must have at most 120 characters' })
    .nullable()
    .default(null),
  serie: z
    .number({ error: 'must be an integer from 0 to 999' })
    .int({ error: 'must be an integer from 0 to 999' })
    .min(0, { error: 'must be an integer from 0 to 999' })
    .max(999, { error: 'must be an integer from 0 to 999' })
    .default(1),
});
export type DceSettingsRequest = z.input<typeof dceSettingsSchema>;
export type DceSettingsInput = z.output<typeof dceSettingsSchema>;

export const dceSettingsViewSchema = z.object({
  tipo_emitente: dceTipoEmitenteSchema,
  site: z.string().nullable(),
  serie: z.number().int(),
  /** true: nothing saved yet, these are the defaults. */
  padrao: z.boolean(),
});
export type DceSettingsView = z.infer<typeof dceSettingsViewSchema>;
