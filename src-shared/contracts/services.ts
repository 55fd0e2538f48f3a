// /v1/services: the services a company sells (installation, repair, delivery as a service), each with its
// national tax code (cTribNac) and optionally its ISS rate, the catalogue the NFS-e is issued from.
import { z } from 'zod';
import { decimalText } from '../decimal-text.ts';
import { NFSE_IND_OP_CODES, PIS_COFINS_CST_CODES } from '../nfse-ibscbs.ts';
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
  /**
   * IBS/CBS classification of the DPS (group IBSCBS/valores/trib/gIBSCBS). Absent or null: CST 000 with
   * cClassTrib 000001 (integral taxation). cClassTrib alone gives its CST (its first three digits); the
   * service layer checks the class against the shipped table.
   */
  cstIbsCbs: z
    .string()
    .regex(/^\d{3}$/, { error: 'must be the 3-digit IBS/CBS CST' })
    .nullable()
    .optional(),
  cClassTrib: z
    .string()
    .regex(/^\d{6}$/, { error: 'must be the 6-digit cClassTrib' })
    .nullable()
    .optional(),
  /** Operation indicator of annex C (place of supply); absent or null: by the nature of the national code. */
  cIndOp: z
    .string()
    .refine((v) => NFSE_IND_OP_CODES.includes(v), { error: 'must be a cIndOp code of annex C (e.g. 100301)' })
    .nullable()
    .optional(),
  /** PIS/COFINS CST written when the provider is outside the Simples Nacional; absent or null: 01. */
  cstPisCofins: z
    .string()
    .refine((v) => PIS_COFINS_CST_CODES.includes(v), {
      error: 'must be a PIS/COFINS CST of the layout (e.g. 01)',
    })
    .nullable()
    .optional(),
});

/** Cross-field rules of the classification, each fault reported with the others. */
const serviceFieldsChecked = serviceFieldsSchema.superRefine((v, ctx) => {
  const cst = v.cstIbsCbs ?? null;
  const cls = v.cClassTrib ?? null;
  if (cst !== null && cls === null)
    ctx.addIssue({ code: 'custom', path: ['cClassTrib'], message: 'is required with cstIbsCbs' });
  if (cst !== null && cls !== null && cls.slice(0, 3) !== cst)
    ctx.addIssue({
      code: 'custom',
      path: ['cClassTrib'],
      message: `belongs to CST ${cls.slice(0, 3)}, not ${cst} (its first three digits are its CST)`,
    });
});

export const serviceCreateSchema = z.preprocess(acceptSnakeCase, serviceFieldsChecked);
export type ServiceCreate = z.output<typeof serviceFieldsSchema>;

export const serviceViewSchema = z.object({
  id: z.string(),
  companyId: z.string(),
  codigo: z.string(),
  descricao: z.string(),
  codigoTributacaoNacional: z.string(),
  aliquotaIss: z.string().nullable(),
  valor: z.string().nullable(),
  /** As stored: null means the default the NFS-e applies (CST 000, cClassTrib 000001, cIndOp by nature, 01). */
  cstIbsCbs: z.string().nullable(),
  cClassTrib: z.string().nullable(),
  cIndOp: z.string().nullable(),
  cstPisCofins: z.string().nullable(),
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
