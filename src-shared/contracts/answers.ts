// Answers of /v1 actions whose shapes are built in their route or service rather than by a view of their
// own (abandoned numbers, received-notes sync, receipt JSON, synchronous send, logo, sandbox faults), as zod
// schemas: the OpenAPI document describes them and the contract tests check every answer against it.
import { z } from 'zod';
import { ambienteSchema, timestampSchema } from './common.ts';
import { documentStatusSchema } from './documents.ts';
import { errorBodySchema } from './errors.ts';

const int = () => z.number().int();

/** POST /v1/nfe/:id/send?sync=true (seed §4.1: the synchronous variant). */
export const syncSendAnswerSchema = z.object({
  id: z.string(),
  numero: int(),
  serie: int(),
  status: documentStatusSchema,
  chave_acesso: z.string(),
  protocolo: z.string().nullable(),
  autorizada_em: timestampSchema.nullable(),
  danfe_url: z.string(),
  xml_url: z.string(),
  /** Only on NFC-e: 1 normal, 9 offline contingency. */
  tipo_emissao: int().optional(),
  /** Only on NFC-e: the QR code's content. */
  qr_code: z.string().nullable().optional(),
});

/** POST /v1/nfe/batch. */
export const batchCreatedSchema = z.object({
  batchId: z.string(),
  total: int(),
  status: z.literal('processando'),
});

/** GET /v1/nfce/:id/escpos?format=json. */
export const escposJsonSchema = z.object({
  id: z.string(),
  chave_acesso: z.string(),
  largura: z.union([z.literal(80), z.literal(58)]),
  colunas: int(),
  cut: z.boolean(),
  qr: z.enum(['nativo', 'raster']),
  code_page: z.string(),
  tamanho: int(),
  base64: z.string(),
  texto: z.string(),
});

/** PUT /v1/companies/:id/logo. */
export const logoInfoSchema = z.object({
  mediaType: z.enum(['image/png', 'image/jpeg']),
  width: int(),
  height: int(),
  bytes: int(),
});

const numberRange = {
  modelo: z.union([z.literal(55), z.literal(65)]),
  serie: int(),
  numeroInicial: int(),
  numeroFinal: int(),
};

/** GET /v1/companies/:id/abandoned-numbers. */
export const abandonedNumbersSchema = z.object({
  older_than_hours: z.number(),
  cutoff: timestampSchema,
  total: int(),
  verificacao_diaria: z
    .object({ verificada_em: timestampSchema, older_than_hours: z.number(), total: int() })
    .nullable(),
  items: z.array(
    z.object({
      id: z.string(),
      modelo: z.union([z.literal(55), z.literal(65)]),
      serie: int(),
      numero: int(),
      status: z.enum(['rascunho', 'erro']),
      ambiente: ambienteSchema,
      criada_em: timestampSchema,
      atualizada_em: timestampSchema,
    }),
  ),
  /**
   * Numbers below the series' next number that no document holds and no inutilização (being sent or
   * homologated) covers, as ranges: they must be voided too, and the offer includes them.
   */
  sem_documento: z.array(z.object(numberRange)),
  offer: z
    .object({
      message: z.string(),
      method: z.literal('POST'),
      url: z.string(),
      body: z.object({ older_than_hours: z.number(), justificativa: z.string() }),
      ranges: z.array(z.object(numberRange)),
    })
    .nullable(),
});

/** POST /v1/companies/:id/abandoned-numbers/void; `inutilizacao` is the void result of POST /v1/nfe/inutilizar. */
export function abandonedVoidAnswerSchema<T extends z.ZodType>(voidResult: T) {
  return z.object({
    older_than_hours: z.number(),
    cutoff: timestampSchema,
    voided: int(),
    results: z.array(
      z.object({
        ...numberRange,
        success: z.boolean(),
        inutilizacao: voidResult.nullable(),
        error: errorBodySchema.extend({ status: int() }).nullable(),
      }),
    ),
  });
}

/** POST /v1/nfe/received/sync: one round of NFeDistribuicaoDFe. */
export const receivedSyncSchema = z.object({
  /** Whether the authority was asked at all (false while the wait after a 137 runs). */
  consultado: z.boolean(),
  consultas: int(),
  documentos: int(),
  novas: int(),
  atualizadas: int(),
  eventos: int(),
  ultNSU: z.string(),
  maxNSU: z.string(),
  cStat: z.string().nullable(),
  xMotivo: z.string().nullable(),
  /** Until when the authority will not be asked (after a 137 or 656), or null. */
  proxima_consulta_em: timestampSchema.nullable(),
});

const scopedFault = {
  services: z.union([z.array(z.string()), z.literal('all')]),
  remaining: int().nullable(),
};

/** GET/POST /v1/sandbox/faults: the embedded sandbox authority's fault switches. */
export const sandboxFaultsSchema = z.object({
  online: z.boolean(),
  timeout: z.object(scopedFault).nullable(),
  slow: z.object({ ...scopedFault, ms: z.number() }).nullable(),
  paused: z.object({ ...scopedFault, cStat: z.union([z.literal(108), z.literal(109)]) }).nullable(),
  loseResponse: z.object(scopedFault).nullable(),
  reject: z.object({ ...scopedFault, cStat: int() }).nullable(),
  /** The national NFS-e's: the next DPS refused with this code of the NFS-e table (e.g. `E001`). */
  nfseReject: z.object({ ...scopedFault, code: z.string() }).nullable(),
  /** The DC-e's: the next DC-e refused with this code of the DC-e table (e.g. `225`). */
  dceReject: z.object({ ...scopedFault, code: z.string() }).nullable(),
  random: z
    .object({
      seed: int(),
      refuse: z.number().optional(),
      timeout: z.number().optional(),
      slow: z.number().optional(),
      pause: z.number().optional(),
      lose: z.number().optional(),
      slowMs: z.number().optional(),
      services: z.array(z.string()).optional(),
    })
    .nullable(),
});
