// /v1/api-keys: creation shows the secret once; rotation keeps the old key alive for a grace period.
import { z } from 'zod';
import { timestampSchema } from './common.ts';

/** Rate-limit plans (seed §8): per-second and per-minute budgets per key. */
export const RATE_PLANS = {
  basic: { perSecond: 5, perMinute: 120 },
  standard: { perSecond: 20, perMinute: 1200 },
  terminal: { perSecond: 50, perMinute: 3000 },
} as const;
export type RatePlan = keyof typeof RATE_PLANS;
export const ratePlanSchema = z.enum(Object.keys(RATE_PLANS) as [RatePlan, ...RatePlan[]]);

export const apiKeyCreateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(80),
    scope: z.enum(['company', 'organization']),
    companyId: z.string().min(1).optional(),
    /** Omitted: `standard`, or the creating key's own plan when that is lower (a key never hands out more). */
    plan: ratePlanSchema.optional(),
    expiresAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional(),
  })
  .superRefine((k, ctx) => {
    if (k.scope === 'company' && k.companyId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['companyId'], message: 'required for a company key' });
    }
    if (k.scope === 'organization' && k.companyId !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['companyId'],
        message: 'an organization key is not tied to one company',
      });
    }
  });
export type ApiKeyCreate = z.output<typeof apiKeyCreateSchema>;

export const apiKeyRotateSchema = z.strictObject({
  /** How long the old key keeps working, in seconds (default 24 h, at most 30 days). */
  graceSeconds: z
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
});

export const apiKeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  scope: z.enum(['company', 'organization']),
  organizationId: z.string(),
  companyId: z.string().nullable(),
  plan: z.string(),
  ratePerSecond: z.number().int(),
  ratePerMinute: z.number().int(),
  prefix: z.string(),
  createdAt: timestampSchema,
  expiresAt: timestampSchema.nullable(),
  revokedAt: timestampSchema.nullable(),
  replacedBy: z.string().nullable(),
  lastUsedAt: timestampSchema.nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;

/** Only creation and rotation answers carry the secret, once. */
export const apiKeyCreatedSchema = apiKeyViewSchema.extend({ key: z.string() });
export type ApiKeyCreated = z.infer<typeof apiKeyCreatedSchema>;
