// Dynamic PIX at the counter: the company's PSP settings, the charges (Banco Central "API Pix" cob) and the
// sandbox PSP's switches, shared by the service, the renderer and the tests.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';
import { cnpjSchema, timestampSchema } from './common.ts';

/** API Pix v2: txid of a cob created with PUT, 26 to 35 characters [a-zA-Z0-9]. */
export const TXID_PATTERN = /^[a-zA-Z0-9]{26,35}$/;
export const txidSchema = z.string().regex(TXID_PATTERN, { error: 'must be 26 to 35 letters or digits' });

/** Status of a cob (API Pix v2 `CobStatus`). */
export const PIX_STATUSES = [
  'ATIVA',
  'CONCLUIDA',
  'REMOVIDA_PELO_USUARIO_RECEBEDOR',
  'REMOVIDA_PELO_PSP',
] as const;
export type PixStatus = (typeof PIX_STATUSES)[number];

const money = decimalText(10, 2, 'an amount');
const decimalNumber = z.number().meta({ description: 'Money as a JSON number, computed in exact decimals' });
const text = (max: number) => z.string().trim().min(1).max(max);

/** PUT /v1/companies/:companyId/pix. */
export const pixConfigSchema = z.strictObject({
  /** `sandbox`: the PSP embedded in the service (its address is found at run time); `psp`: a real one. */
  provedor: z.enum(['sandbox', 'psp']),
  /** The receiving PIX key (DICT) of the store. */
  chave: text(77),
  /** API Pix base URL, e.g. https://pix.example.com/api/v2 (required for `psp`). */
  base_url: z.url({ protocol: /^https$/, error: 'must be an https URL' }).optional(),
  /** OAuth2 token endpoint; default `<base_url without /api/v2>/oauth/token`. */
  token_url: z.url({ protocol: /^https$/, error: 'must be an https URL' }).optional(),
  client_id: text(200).optional(),
  client_secret: text(500).optional(),
  /** The client certificate the PSP requires for mutual TLS (PKCS#12, base64). */
  certificado_pfx: z.base64({ error: 'must be the PKCS#12 file in base64' }).optional(),
  senha_certificado: z.string().max(200).optional(),
  /** CNPJ of the PSP (the NFC-e's card group `CNPJ`). */
  cnpj_psp: cnpjSchema.optional(),
  /** Lifetime of each charge (calendario.expiracao), 30 s to 24 h; default 300. */
  expiracao_segundos: z.number().int().min(30).max(86_400).optional(),
});
export type PixConfigInput = z.infer<typeof pixConfigSchema>;

export const pixConfigViewSchema = z.object({
  provedor: z.enum(['sandbox', 'psp']),
  chave: z.string(),
  base_url: z.string().nullable(),
  token_url: z.string().nullable(),
  client_id: z.string().nullable(),
  tem_client_secret: z.boolean(),
  tem_certificado: z.boolean(),
  cnpj_psp: z.string().nullable(),
  expiracao_segundos: z.number().int(),
  updated_at: timestampSchema,
});
export type PixConfigView = z.infer<typeof pixConfigViewSchema>;

/** POST /v1/companies/:companyId/pix/test: the PSP issued a token with the stored credentials. */
export const pixConnectionTestSchema = z.object({
  ok: z.literal(true),
  provedor: z.enum(['sandbox', 'psp']),
  /** The scope the PSP granted, when it says. */
  escopo: z.string().nullable(),
  /** Lifetime of the token the PSP issued. */
  expira_em_segundos: z.number().int(),
  testado_em: timestampSchema,
});
export type PixConnectionTest = z.infer<typeof pixConnectionTestSchema>;

/** POST /v1/pix/charges. */
export const pixChargeCreateSchema = z.strictObject({
  valor: money,
  /** solicitacaoPagador: shown to the payer by the bank app. */
  descricao: text(140).optional(),
});
export type PixChargeCreate = z.infer<typeof pixChargeCreateSchema>;

export const pixChargeViewSchema = z.object({
  txid: z.string(),
  status: z.enum(PIX_STATUSES),
  valor: decimalNumber,
  /** The BR Code to show as a QR code (or to copy and paste). */
  pixCopiaECola: z.string(),
  qrcode_png_url: z.string(),
  criada_em: timestampSchema,
  expira_em: timestampSchema,
  pago_em: timestampSchema.nullable(),
  end_to_end_id: z.string().nullable(),
  /** The NFC-e that used the payment, once a sale did. */
  document_id: z.string().nullable(),
});
export type PixChargeView = z.infer<typeof pixChargeViewSchema>;

/** POST /v1/sandbox/pix/faults: switches of the embedded sandbox PSP. */
export const pixSandboxFaultsSchema = z.strictObject({
  /** The next PUT /cob is refused with a problem body. */
  recusar_proxima: z.boolean().optional(),
  /** Every answer waits this long (0 to switch off). */
  atraso_ms: z.number().int().min(0).max(60_000).optional(),
  /** The next request gets no answer at all (the client's timeout runs out). */
  timeout_proxima: z.boolean().optional(),
  /** This charge expires now. */
  expirar: txidSchema.optional(),
});
export const pixSandboxFaultsViewSchema = z.object({
  recusar_proxima: z.boolean(),
  atraso_ms: z.number().int(),
  timeout_proxima: z.boolean(),
});
export type PixSandboxFaults = z.infer<typeof pixSandboxFaultsViewSchema>;

/** Body of the PSP's webhook (API Pix v2 `POST {webhookUrl}/pix`). */
export const pixWebhookBodySchema = z.object({
  pix: z
    .array(
      z.looseObject({
        endToEndId: z.string().min(1).max(64),
        txid: z.string().max(35).optional(),
        valor: z.string().max(20),
        horario: z.string().max(40).optional(),
      }),
    )
    .max(1000),
});
