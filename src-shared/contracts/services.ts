// /v1/services: the services a company sells (installation, repair, delivery as a service), each with its
// national tax code (cTribNac) and optionally its ISS rate, the catalogue the NFS-e is issued from.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';
import { nationalServiceCodeFault } from '../nfse-service-code.ts';
import { timestampSchema } from './common.ts';

/**
 * LC 116/2003 art. 8-A and art. 8, II: the ISS rate is at least 2 % and at most 5 %. Compared in hundredths
 * of a percent, never as a float.
 */
export const ISS_RATE_MIN_HUNDREDTHS = 200;
export const ISS_RATE_MAX_HUNDREDTHS = 500;

/** '5' → '5.00', '2.5' → '2.50': the stored form of a rate or a price (2 places). */
export function twoPlaces(text: string): string {
  const [int = '0', frac = ''] = text.split('.');
  return `${String(BigInt(int))}.${frac.padEnd(2, '0')}`;
}

/** The ISS rate as percent text with up to 2 places, 2.00–5.00; the output always has 2 places. */
export const issRateText = decimalText(1, 2, 'a percentage')
  .refine(
    (text) => {
      const hundredths = Number(twoPlaces(text).replace('.', ''));
      return hundredths >= ISS_RATE_MIN_HUNDREDTHS && hundredths <= ISS_RATE_MAX_HUNDREDTHS;
    },
    { error: 'must be between 2.00 and 5.00 (LC 116/2003: the ISS rate is 2 % to 5 %)' },
  )
  .transform(twoPlaces);

/** A price as the DPS's vServ (TSDec15V2: up to 13 integer digits, 2 places); stored with 2 places. */
export const serviceValueText = decimalText(13, 2, 'an amount').transform(twoPlaces);

export const nationalServiceCode = z
  .string()
  .trim()
  .superRefine((code, ctx) => {
    const fault = nationalServiceCodeFault(code);
    if (fault !== null) ctx.addIssue({ code: 'custom', message: fault });
  });

/** The snake_case names of the NFS-e payload (§2.8) are accepted for the two fields it shares with it. */
const SNAKE_ALIASES: Readonly<Record<string, string>> = {
  codigo_tributacao_nacional: 'codigoTributacaoNacional',
  aliquota_iss: 'aliquotaIss',
};

function acceptSnakeCase(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const [snake, camel] of Object.entries(SNAKE_ALIASES)) {
    // Both spellings at once stay as sent, so the strict schema names the extra one.
    if (snake in out && !(camel in out)) {
      out[camel] = out[snake];
      delete out[snake];
    }
  }
  return out;
}

/** The body's fields (the OpenAPI document describes this one: the preprocessing only renames). */
export const serviceFieldsSchema = z.strictObject({
  codigo: z.string().trim().min(1).max(60),
  // The DPS's xDescServ takes up to 2000 characters; the catalogue's text is its default.
  descricao: z.string().trim().min(1).max(2000),
  codigoTributacaoNacional: nationalServiceCode,
  /** Absent or null: the rate the municipality registers for the code (national parameters service). */
  aliquotaIss: issRateText.nullable().optional(),
  /** Absent or null: the price is typed on each note. */
  valor: serviceValueText.nullable().optional(),
  ativo: z.boolean().default(true),
});

export const serviceCreateSchema = z.preprocess(acceptSnakeCase, serviceFieldsSchema);
export type ServiceCreate = z.output<typeof serviceFieldsSchema>;

export const serviceViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  codigo: z.string(),
  descricao: z.string(),
  codigoTributacaoNacional: z.string(),
  aliquotaIss: z.string().nullable(),
  valor: z.string().nullable(),
  ativo: z.boolean(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type ServiceView = z.infer<typeof serviceViewSchema>;

export const serviceListQuerySchema = z.object({
  /** Part of the description (accents and case ignored), or the exact shop code or national code. */
  q: z.string().trim().min(1).max(60).optional(),
  ativo: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  codigoTributacaoNacional: z
    .string()
    .regex(/^\d{6}$/, { error: 'must have 6 digits' })
    .optional(),
});
