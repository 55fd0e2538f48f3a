// The company's DC-e settings as GET/PUT /v1/companies/:id/dce-settings show and take them: the issuer type
// its DC-e are issued as (tpEmit), the marketplace site written in them and the default series.
import { z } from 'zod';

/** The issuer types Balcão issues as; 0 (the fisco's app) and 4 (the Correios) are not ours to use. */
export const DCE_TIPOS_EMITENTE = ['marketplace', 'proprio', 'transportadora'] as const;
export type DceTipoEmitente = (typeof DCE_TIPOS_EMITENTE)[number];

/** tpEmit of the layout 1.00 for each issuer type. */
export const DCE_TP_EMIT: Readonly<Record<DceTipoEmitente, 1 | 2 | 3>> = {
  marketplace: 1,
  proprio: 2,
  transportadora: 3,
};

export function tipoEmitenteOf(tpEmit: number): DceTipoEmitente | undefined {
  return DCE_TIPOS_EMITENTE.find((t) => DCE_TP_EMIT[t] === tpEmit);
}

export const dceTipoEmitenteSchema = z.enum(DCE_TIPOS_EMITENTE, {
  error: 'must be marketplace, proprio or transportadora',
});

/** Marketplace/Site of the layout: 2 to 120 characters. */
export const dceSiteSchema = z
  .string()
  .trim()
  .min(2, { error: 'must have 2 to 120 characters' })
  .max(120, { error: 'must have 2 to 120 characters' });

/** TSerie: 0 to 999. */
export const dceSerieSchema = z
  .number({ error: 'must be an integer from 0 to 999' })
  .int({ error: 'must be an integer from 0 to 999' })
  .min(0, { error: 'must be an integer from 0 to 999' })
  .max(999, { error: 'must be an integer from 0 to 999' });

export const dceSettingsSchema = z.strictObject({
  tipo_emitente: dceTipoEmitenteSchema.default('marketplace'),
  /** Written as Marketplace/Site when issuing as a marketplace (a DC-e may also name its own). */
  site: dceSiteSchema.nullable().default(null),
  serie: dceSerieSchema.default(1),
});
export type DceSettingsRequest = z.input<typeof dceSettingsSchema>;

export const dceSettingsViewSchema = z.object({
  tipo_emitente: dceTipoEmitenteSchema,
  site: z.string().nullable(),
  serie: z.number().int(),
  /** true: nothing saved, these are the defaults. */
  padrao: z.boolean(),
});
export type DceSettingsView = z.infer<typeof dceSettingsViewSchema>;
