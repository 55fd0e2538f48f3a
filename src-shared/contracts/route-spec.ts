// The small builders every route list of the OpenAPI document writes its entries with (api-routes.ts and the
// per-resource *-routes.ts files), so a JSON answer, a JSON body and the Idempotency-Key read the same everywhere.
import type { z } from 'zod';
import type { Content } from './openapi.ts';

export const json = (schema: z.ZodType): Record<string, Content> => ({ 'application/json': schema });

export const ok = (schema: z.ZodType, description = 'OK.') => ({ description, content: json(schema) });

export const jsonBody = (schema: z.ZodType, required = true, description?: string) => ({
  required,
  ...(description === undefined ? {} : { description }),
  content: json(schema),
});

export const idempotencyKey = {
  name: 'Idempotency-Key',
  description:
    'Up to 255 characters: a retry with the same key returns the first answer (kept 24 h) and never transmits twice; the same key with another body answers 409.',
};
