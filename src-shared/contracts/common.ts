// Building blocks shared by the /v1 request schemas: address, identifiers, pagination queries.
import { z } from 'zod';
import { isValidCnpj, isValidCpf, normalizeCnpj, normalizeCpf } from '../tax-ids.ts';
import { isUf, ufBySigla } from '../uf.ts';

export const ambienteSchema = z.enum(['homologacao', 'producao']);

export const cnpjSchema = z
  .string()
  .transform(normalizeCnpj)
  .refine(isValidCnpj, { error: 'invalid CNPJ (check digits or format)' });

export const cpfSchema = z
  .string()
  .transform(normalizeCpf)
  .refine(isValidCpf, { error: 'invalid CPF (check digits or format)' });

export const ufSchema = z
  .string()
  .transform((s) => s.trim().toUpperCase())
  .refine(isUf, { error: 'unknown UF' });

const text = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, { error: `must have at least ${min} characters` })
    .max(max);

/** Address fields with the layout's names (TEnderEmi / TEndereco). */
export const addressSchema = z
  .strictObject({
    xLgr: text(60, 2),
    nro: text(60),
    xCpl: text(60).optional(),
    xBairro: text(60, 2),
    cMun: z.string().regex(/^\d{7}$/, { error: 'must be the 7-digit IBGE municipality code' }),
    xMun: text(60, 2).optional(),
    uf: ufSchema,
    cep: z
      .string()
      .transform((s) => s.replace(/\D/g, ''))
      .refine((s) => /^\d{8}$/.test(s), { error: 'must have 8 digits' }),
    fone: z
      .string()
      .transform((s) => s.replace(/\D/g, ''))
      .refine((s) => /^\d{6,14}$/.test(s), { error: 'must have 6 to 14 digits' })
      .optional(),
  })
  .superRefine((address, ctx) => {
    const uf = isUf(address.uf) ? ufBySigla(address.uf) : undefined;
    if (uf !== undefined && !address.cMun.startsWith(String(uf.cUF))) {
      ctx.addIssue({
        code: 'custom',
        path: ['cMun'],
        message: `municipality code is not in UF ${address.uf}`,
      });
    }
  });

export type AddressInput = z.output<typeof addressSchema>;

const pageNumber = z.coerce
  .number()
  .int({ error: 'must be an integer' })
  .min(1, { error: 'must be at least 1' });
const pageSize = z.coerce
  .number()
  .int({ error: 'must be an integer' })
  .min(1, { error: 'must be between 1 and 100' })
  .max(100, { error: 'must be between 1 and 100' });

/** §4.1 style: `?page=&pageSize=`. */
export const pageQuerySchema = z.object({ page: pageNumber.default(1), pageSize: pageSize.default(20) });
/** §4.2 style: `?limit=&offset=`. */
export const offsetQuerySchema = z.object({
  limit: pageSize.default(20),
  offset: z.coerce
    .number()
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must not be negative' })
    .default(0),
});
/**
 * §4.6 general lists: `?page=&limit=`, or `?offset=&limit=` (offset, when given, wins over page). `pageSize`
 * is the older name of `limit`, still accepted so clients written for the §4.1 shape keep working.
 * All optional: the defaults (page 1, limit 20) are applied by listWindow, which knows which were given.
 */
export const pageLimitQueryShape = {
  page: pageNumber.optional(),
  limit: pageSize.optional(),
  offset: z.coerce
    .number()
    .int({ error: 'must be an integer' })
    .min(0, { error: 'must not be negative' })
    .optional(),
  pageSize: pageSize.optional(),
};
/** The §4.6 paging parameters plus a list's own filters, parsed together so every fault is reported at once. */
export function listQuerySchema<S extends z.ZodRawShape>(filters: S) {
  return z.object({ ...pageLimitQueryShape, ...filters }).superRefine((parsed, ctx) => {
    // The generic filters hide the paging keys from the compiler; they are there (pageLimitQueryShape).
    const { limit, pageSize } = parsed as { limit?: number; pageSize?: number };
    if (limit !== undefined && pageSize !== undefined && limit !== pageSize) {
      ctx.addIssue({
        code: 'custom',
        path: ['pageSize'],
        message: `is the older name of limit; give one of them (limit is ${limit})`,
      });
    }
  });
}
export const pageLimitQuerySchema = listQuerySchema({});

/** Where one page of a §4.6 list starts: `page` is 1-based, `offset` counts rows. */
export interface ListWindow {
  page: number;
  limit: number;
  offset: number;
}

/** Resolves the parsed §4.6 parameters: offset wins over page, and then page = floor(offset / limit) + 1. */
export function listWindow(q: {
  page?: number | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  pageSize?: number | undefined;
}): ListWindow {
  const limit = q.limit ?? q.pageSize ?? 20;
  if (q.offset !== undefined) return { page: Math.floor(q.offset / limit) + 1, limit, offset: q.offset };
  const page = q.page ?? 1;
  return { page, limit, offset: (page - 1) * limit };
}

/** §4.1 list body: `{items, total, page, pageSize}`. */
export interface PageList<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}
/** §4.2 list body: `{items, total, limit, offset}`. */
export interface OffsetList<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}
/** §4.6 list body: `{data, meta}`. */
export interface DataList<T> {
  data: T[];
  meta: { page: number; limit: number; total: number; totalPages: number };
}

// The same three bodies as schemas, for the OpenAPI document and the response checks of the tests.
const count = z.number().int().min(0);
export const pageListSchema = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: count, page: z.number().int().min(1), pageSize: count });
export const offsetListSchema = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: count, limit: count, offset: count });
export const dataListSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    meta: z.object({ page: z.number().int().min(1), limit: count, total: count, totalPages: count }),
  });

/** Money in an answer as exact decimal text, as the layouts write it (`"1250.50"`): never a binary float. */
export const moneyTextSchema = z
  .string()
  .regex(/^\d+\.\d{2}$/)
  .meta({ description: 'Money as exact decimal text' });

/** Timestamps of the answers: ISO 8601 (UTC `Z` from our clock; the authority's own carry an offset). */
export const timestampSchema = z.iso.datetime({ offset: true });

/** The reason a cancellation or a void of numbers carries (xJust of the layouts: 15 to 255 characters). */
export const justificativaSchema = z
  .string()
  .trim()
  .min(15, { error: 'must have at least 15 characters' })
  .max(255, { error: 'must have at most 255 characters' });

const dateOrInstant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T.*)?$/, { error: 'must be a date AAAA-MM-DD or an ISO 8601 instant' })
  .optional();

/** The creation period filters of a kind's §4.6 list (the specification leaves them to us). */
export const createdPeriodFilterShape = {
  /** created_at from this day (AAAA-MM-DD) or instant, inclusive. */
  from: dateOrInstant,
  /** created_at up to this day (inclusive, the whole day) or instant (exclusive). */
  to: dateOrInstant,
};

/** GET of a kind's printed PDF (DACTE, DANFSe): `download` asks for an attachment, `regenerate` rebuilds the cached one. */
export const printedPdfQuerySchema = z.object({
  download: z.enum(['true', 'false']).optional(),
  regenerate: z.enum(['true', 'false']).optional(),
});
