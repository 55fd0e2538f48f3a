// Bodies and query strings of the document, file, received-note and sandbox routes that have no contract
// module of their own, so the routes that parse them and the OpenAPI document share one definition.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';
import { justificativaSchema as justificativa } from './common.ts';

const trueFalse = z.enum(['true', 'false'], { error: "must be 'true' or 'false'" });

/** GET /v1/nfe and /v1/nfce filters (the paging parameters are parsed beside them). */
export const documentListFilterSchema = z.object({
  // `rejeitada` is the specification's filter name of `erro`.
  status: z
    .enum([
      'rascunho',
      'processando',
      'contingencia',
      'autorizada',
      'erro',
      'rejeitada',
      'denegada',
      'cancelada',
      'inutilizada',
    ])
    .optional(),
  data_inicio: z.iso.date({ error: 'must be a date AAAA-MM-DD' }).optional(),
  data_fim: z.iso.date({ error: 'must be a date AAAA-MM-DD' }).optional(),
  modelo: z.enum(['55', '65']).optional(),
});

/** POST /v1/nfce?rascunho=true only creates the draft (number reserved, note signed). */
export const documentCreateQuerySchema = z.object({ rascunho: trueFalse.optional() });

/** POST /v1/nfe/:id/send?sync=true waits for the authority (NF-e up to 10 s, NFC-e the sale's 3 s). */
export const sendQuerySchema = z.object({ sync: trueFalse.optional() });

/** POST /v1/nfe/:id/cancel and /v1/nfce/:id/cancel. */
export const cancelRequestSchema = z.strictObject({ justificativa });

const correctionText = z
  .string()
  .trim()
  .min(15, { error: 'must have at least 15 characters' })
  .max(1000, { error: 'must have at most 1000 characters' });

/** POST /v1/nfe/:id/correction-letter: spelling A `correcao`, spelling B `texto_correcao`; exactly one. */
export const correctionRequestSchema = z.strictObject({
  correcao: correctionText.optional(),
  texto_correcao: correctionText.optional(),
});

const modelo = z
  .union([z.literal(55), z.literal(65), z.literal('55'), z.literal('65')], {
    error: 'must be 55 (NF-e) or 65 (NFC-e)',
  })
  .transform((m) => Number(m) as 55 | 65);
const serie = z.number({ error: 'must be a number' }).int().min(0).max(999);
const numero = z.number({ error: 'must be a number' }).int().min(1).max(999_999_999);

/** POST /v1/nfe/inutilizar, spelling A. */
export const voidRequestSchemaA = z.strictObject({
  modelo: modelo.default(55),
  serie,
  numeroInicial: numero,
  numeroFinal: numero,
  justificativa,
});
/** POST /v1/nfe/inutilizar, spelling B. */
export const voidRequestSchemaB = z.strictObject({
  modelo: modelo.default(55),
  serie,
  numero_inicial: numero,
  numero_final: numero,
  justificativa,
});

const hours = z
  .string()
  .regex(/^\d{1,5}$/, { error: 'must be a whole number of hours' })
  .transform(Number)
  .pipe(z.number().max(8760, { error: 'must be at most 8760 (one year)' }));
/** GET /v1/companies/:id/abandoned-numbers. */
export const abandonedQuerySchema = z.object({
  older_than_hours: hours.optional(),
  olderThanHours: hours.optional(),
});
/** GET /v1/companies/:id/xml-export: the month (AAAA-MM) of the notes' dhEmi, in the company's time zone. */
export const xmlExportQuerySchema = z.object({
  mes: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: 'must be a month as AAAA-MM' }),
});
/** POST /v1/companies/:id/abandoned-numbers/void. */
export const abandonedVoidRequestSchema = z.strictObject({
  older_than_hours: z.number().int().min(0).max(8760).optional(),
  olderThanHours: z.number().int().min(0).max(8760).optional(),
  justificativa: justificativa.optional(),
});

/** POST /v1/nfe/:id/devolucao (optional body): a partial return names the items and quantities. */
export const devolucaoRequestSchema = z.strictObject({
  /** A partial return: the items (nItem of the original) and how much of each comes back. */
  itens: z
    .array(
      z.strictObject({
        nItem: z.number().int().min(1).max(990),
        quantidade: decimalText(11, 4, 'a quantity').refine((q) => !/^0+(\.0+)?$/.test(q), {
          error: 'must be positive',
        }),
      }),
    )
    .min(1, { error: 'at least one item' })
    .optional(),
});

/** GET /v1/nfe/received filters. */
export const receivedListFilterSchema = z.object({
  situacao: z.enum(['autorizada', 'denegada', 'cancelada']).optional(),
  manifestacao: z
    .enum(['sem_manifestacao', 'ciencia', 'confirmacao', 'desconhecimento', 'nao_realizada'])
    .optional(),
  cnpj_emitente: z
    .string()
    .transform((s) => s.replace(/[./-]/g, '').toUpperCase())
    .refine((s) => /^[0-9A-Z]{12}[0-9]{2}$/.test(s) || /^[0-9]{11}$/.test(s), {
      error: 'must be a CNPJ (14 positions) or CPF (11 digits)',
    })
    .optional(),
  completa: z.enum(['true', 'false'], { error: 'must be true or false' }).optional(),
  data_inicio: z.iso.date({ error: 'must be a date AAAA-MM-DD' }).optional(),
  data_fim: z.iso.date({ error: 'must be a date AAAA-MM-DD' }).optional(),
});

/** POST /v1/nfe/received/:id/manifest (seed §4.1: event codes 210210, 210200, 210220, 210240). */
export const manifestRequestSchema = z
  .strictObject({
    tipo: z.enum(['ciencia', 'confirmacao', 'desconhecimento', 'nao_realizada'], {
      error: 'must be ciencia, confirmacao, desconhecimento or nao_realizada',
    }),
    justificativa: justificativa.optional(),
  })
  .superRefine((body, ctx) => {
    if (body.tipo === 'nao_realizada' && body.justificativa === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['justificativa'],
        message: 'is required for nao_realizada (15 to 255 characters)',
      });
    }
  });

/** POST /v1/companies/:id/certificate as JSON (multipart sends the file itself). */
export const certificateJsonSchema = z.strictObject({
  certificate: z.base64({ error: 'must be the .pfx file in base64' }),
  password: z.string().min(1).max(256),
});

const largura = z.enum(['80', '58'], { error: "must be '80' or '58'" }).default('80');
/** GET /v1/nfe/:id/danfe and /v1/nfce/:id/danfe: the DANFCe's paper width. */
export const danfeQuerySchema = z.object({ largura });

/** The receipt's options shared by /escpos and /escpos/preview.png. */
export function receiptQuerySchema(codePages: readonly [string, ...string[]]) {
  return z.object({
    largura,
    cut: trueFalse.default('true'),
    // The printer profile: its QR command (native GS ( k, or an image for printers without it) and code page.
    qr: z.enum(['nativo', 'raster'], { error: "must be 'nativo' or 'raster'" }).optional(),
    code_page: z.enum(codePages, { error: `must be one of ${codePages.join(', ')}` }).optional(),
  });
}
export function escposQuerySchema(codePages: readonly [string, ...string[]]) {
  return receiptQuerySchema(codePages).extend({
    format: z.enum(['raw', 'base64', 'json'], { error: "must be 'raw', 'base64' or 'json'" }).default('raw'),
  });
}
