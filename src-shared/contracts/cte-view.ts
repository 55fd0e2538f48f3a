// The answers of /v1/cte (§2.7, §4.3): the CT-e object, its events, the debug object and the inutilização
// answer; shared by the service that builds them and the clients that read them. Requests of the routes
// (cancel, CC-e, inutilizar, list filters) are here too, so routes, OpenAPI and client agree.
import { z } from 'zod';
import {
  ambienteSchema,
  createdPeriodFilterShape,
  justificativaSchema,
  moneyTextSchema,
  timestampSchema,
} from './common.ts';
import { eventOutcomeShape } from './documents.ts';

/** Where the service starts or ends (ufIni/xMunIni, ufFim/xMunFim). */
export const ctePlaceSchema = z.object({ uf: z.string(), municipio: z.string() });

/** remetente / destinatario as the CT-e carries them. */
export const ctePartyViewSchema = z.object({ nome: z.string(), cpfCnpj: z.string() });

export const cteStatusSchema = z.enum([
  'rascunho',
  'processando',
  'autorizada',
  'erro',
  'denegada',
  'cancelada',
]);

/** A CT-e event (cancellation 110111, CC-e 110110) and its outcome. */
export const cteEventViewSchema = z.object({
  id: z.string(),
  cte_id: z.uuid(),
  ...eventOutcomeShape,
  created_at: timestampSchema,
  registered_at: timestampSchema.nullable(),
});
export type CteEventView = z.infer<typeof cteEventViewSchema>;

/**
 * GET /v1/cte/:id (§2.7 "CT-e object"): the fields the specification names, then "further data": what the
 * CT-e is about (modal, CFOP, taker, parties, destination), the authority's last answer and links.
 */
export const cteViewSchema = z.object({
  id: z.uuid(),
  company_id: z.uuid(),
  numero: z.number().int(),
  serie: z.number().int(),
  status: cteStatusSchema.meta({
    description:
      'rascunho, processando (also while an event waits for the authority), autorizada, erro, denegada, cancelada',
  }),
  chave_acesso: z.string().length(44),
  protocolo: z.string().nullable(),
  valor_total: moneyTextSchema,
  origem: ctePlaceSchema,
  destino: ctePlaceSchema,
  ambiente: ambienteSchema,
  created_at: timestampSchema,
  modal: z.string(),
  cfop: z.string(),
  toma: z.string(),
  remetente: ctePartyViewSchema,
  destinatario: ctePartyViewSchema,
  tipo_emissao: z.number().int(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  authorized_at: z.string().nullable(),
  dacte_url: z.string(),
  xml_url: z.string(),
  eventos: z.array(cteEventViewSchema),
  updated_at: timestampSchema,
  /** What the answer tells the caller (create, send). */
  message: z.string().optional(),
});
export type CteView = z.infer<typeof cteViewSchema>;

/** POST /v1/cte/:id/send (§4.3): `{success, message}`, queued. */
export const cteSendAnswerSchema = z.object({ success: z.boolean(), message: z.string() });
export type CteSendAnswer = z.infer<typeof cteSendAnswerSchema>;

/** §4.6 list filters of GET /v1/cte (the specification leaves them to us). */
export const cteListFilterShape = {
  status: z
    .enum(['rascunho', 'processando', 'autorizada', 'erro', 'rejeitada', 'denegada', 'cancelada'])
    .optional()
    .meta({ description: '`rejeitada` is an alias of `erro`' }),
  ...createdPeriodFilterShape,
};

/** POST /v1/cte/:id/cancel. */
export const cteCancelRequestSchema = z.strictObject({
  justificativa: justificativaSchema,
});

/** One structured correction (infCorrecao of evCCeCTe). */
export const cteCorrecaoSchema = z.strictObject({
  grupoAlterado: z.string().trim().min(1).max(20),
  campoAlterado: z.string().trim().min(1).max(20),
  valorAlterado: z.string().trim().min(1).max(500),
  nroItemAlterado: z.number().int().min(1).max(999).optional(),
});
export type CteCorrecao = z.infer<typeof cteCorrecaoSchema>;

/**
 * POST /v1/cte/:id/cce (§2.7 "CC-e input"): `correcao` free text (at least 15 characters, written as the
 * observation `compl/xObs`) or `correcoes`, and `sequencia` (the event's nSeqEvento; the next free one when
 * omitted).
 */
export const cteCceRequestSchema = z
  .strictObject({
    correcao: z
      .string()
      .trim()
      .min(15, { error: 'must have at least 15 characters' })
      .max(500, { error: 'must have at most 500 characters' })
      .optional(),
    correcoes: z.array(cteCorrecaoSchema).min(1, { error: 'must have at least one correction' }).optional(),
    sequencia: z.number().int().min(1).max(20, { error: 'a CT-e takes at most 20 CC-e' }).optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.correcao === undefined) === (v.correcoes === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['correcao'], message: 'give either correcao or correcoes' });
    }
  });
export type CteCceRequest = z.infer<typeof cteCceRequestSchema>;

/** POST /v1/cte/inutilizar (§4.3). */
export const cteVoidRequestSchema = z.strictObject({
  serie: z.number().int().min(0).max(999),
  numeroInicial: z.number().int().min(1).max(999_999_999),
  numeroFinal: z.number().int().min(1).max(999_999_999),
  justificativa: justificativaSchema,
});
export type CteVoidRequest = z.infer<typeof cteVoidRequestSchema>;

/** The answer of POST /v1/cte/inutilizar: what was done, and the deadline to communicate it. */
export const cteVoidAnswerSchema = z.object({
  id: z.string(),
  success: z.boolean(),
  status: z.enum(['processando', 'inutilizada', 'rejeitada']),
  modelo: z.literal(57),
  serie: z.number().int(),
  numeroInicial: z.number().int(),
  numeroFinal: z.number().int(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  protocolo: z.string().nullable(),
  /**
   * Whether a request went to the authority. CT-e 4.00 authorities offer no inutilização web service: the
   * range is recorded by Balcão (its numbers are never issued) and `message` says so.
   */
  transmitida: z.boolean(),
  /** The 10th day of the month after the numbers were skipped (AAAA-MM-DD). */
  prazo: z.string(),
  message: z.string(),
  created_at: timestampSchema,
});
export type CteVoidAnswer = z.infer<typeof cteVoidAnswerSchema>;

/** One step of the queue for this CT-e, oldest first. */
export const cteLogEntrySchema = z.object({
  at: timestampSchema,
  operation: z.string(),
  tpEvento: z.string().nullable(),
  state: z.string(),
  attempts: z.number().int(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
});

/** GET /v1/cte/:id/debug (§2.7 "Debug object"). */
export const cteDebugSchema = z.object({
  cte: cteViewSchema.extend({ request_payload: z.unknown() }),
  logs: z.array(cteLogEntrySchema),
  cce: z.array(cteEventViewSchema),
  xml: z.object({
    /** The signed CTe as stored. */
    signed: z.string(),
    /** What went to the authority (the same bytes; null before the first send). */
    transmitted: z.string().nullable(),
    protocol: z.string().nullable(),
    proc: z.string().nullable(),
  }),
  snapshot: z.object({
    document: z.record(z.string(), z.unknown()),
    outbox: z.array(z.record(z.string(), z.unknown())),
    events: z.array(z.record(z.string(), z.unknown())),
  }),
});
export type CteDebug = z.infer<typeof cteDebugSchema>;

/** The carrier's CT-e settings: PUT/GET /v1/companies/:id/cte-settings. */
export const cteSettingsSchema = z.strictObject({
  /** Registro Nacional de Transportadores Rodoviários de Carga (rodo/RNTRC): 8 digits or ISENTO. */
  rntrc: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^(\d{8}|ISENTO)$/, { error: 'must be the 8-digit RNTRC or ISENTO' }),
  /**
   * ICMS of the service: CST `00` (taxed at `aliquota`, decimal text such as `"12.00"`), `40` exempt, `41`
   * not taxed, `51` deferred, or `SN` (Simples Nacional). null: by the tax regime (Simples Nacional and
   * MEI issue ICMSSN; the others must set it).
   */
  icms: z
    .strictObject({
      cst: z.enum(['00', '40', '41', '51', 'SN']),
      aliquota: z
        .string()
        .regex(/^\d{1,2}\.\d{2}$/, { error: 'must be a rate such as 12.00' })
        .optional(),
    })
    .superRefine((v, ctx) => {
      if (v.cst === '00' && v.aliquota === undefined)
        ctx.addIssue({ code: 'custom', path: ['aliquota'], message: 'required with CST 00' });
      if (v.cst !== '00' && v.aliquota !== undefined)
        ctx.addIssue({ code: 'custom', path: ['aliquota'], message: 'only with CST 00' });
    })
    .nullable(),
});
export type CteSettingsInput = z.output<typeof cteSettingsSchema>;

export const cteSettingsViewSchema = z.object({
  rntrc: z.string(),
  icms: z.object({ cst: z.string(), aliquota: z.string().nullable() }).nullable(),
  /** Whether the values are the defaults (no setting saved yet). */
  padrao: z.boolean(),
});
export type CteSettingsView = z.infer<typeof cteSettingsViewSchema>;
