// The municipal parameters of the sandbox's national environment (ADN Parâmetros Municipais): whether a
// municipality joined the national NFS-e agreement and the ISS rate it registers per national service code.
// Every municipality is joined with 5.00 % for every service unless POST /_sandbox/nfse/municipios says
// otherwise.
import { z } from 'zod';
import { parseScaled } from '../../../src-shared/money.ts';
import { nationalServiceCodeFault } from '../../../src-shared/nfse-service-code.ts';
import type { SandboxTx } from '../store.ts';

/** The rate every municipality registers for every service unless configured. */
export const DEFAULT_ALIQUOTA = '5.00';
/** LC 116/2003 art. 8-A and art. 8 II: the ISS rate is at least 2 % and at most 5 %. */
export const ALIQUOTA_MIN = '2.00';
export const ALIQUOTA_MAX = '5.00';

export interface MunicipioParams {
  cMun: string;
  aderente: boolean;
  /** Rates configured per national service code (null: the municipality registers none for it). */
  aliquotas: Record<string, string | null>;
}

const rate = z.string().refine((t) => /^\d{1,3}\.\d{2}$/.test(t) && parseScaled(t, 2) <= 10000n, {
  error: 'a percent up to 100.00 with two decimals, e.g. "2.50"',
});

/** Body of POST /_sandbox/nfse/municipios. */
export const municipioRequestSchema = z.strictObject({
  cMun: z.string().regex(/^\d{7}$/, { error: 'the 7-digit IBGE code' }),
  aderente: z.boolean().optional(),
  aliquotas: z
    .record(
      z.string().refine((code) => nationalServiceCodeFault(code) === null, {
        error: 'keys are 6-digit national tax codes',
      }),
      z.union([rate, z.null()]),
    )
    .optional(),
});
export type MunicipioRequest = z.infer<typeof municipioRequestSchema>;

export async function municipioOf(db: SandboxTx, cMun: string): Promise<MunicipioParams> {
  const row = await db.selectFrom('nfse_municipios').selectAll().where('c_mun', '=', cMun).executeTakeFirst();
  if (row === undefined) return { cMun, aderente: true, aliquotas: {} };
  return {
    cMun,
    aderente: row.aderente === 1,
    aliquotas: JSON.parse(row.aliquotas) as Record<string, string | null>,
  };
}

/** The rate the municipality registers for the service, or null when it registers none. */
export function aliquotaOf(params: MunicipioParams, cTribNac: string): string | null {
  const own = params.aliquotas[cTribNac];
  return own === undefined ? DEFAULT_ALIQUOTA : own;
}

/** Merges the request into the municipality's parameters (rates given replace those of the same code). */
export async function configureMunicipio(
  db: SandboxTx,
  now: Date,
  req: MunicipioRequest,
): Promise<MunicipioParams> {
  const current = await municipioOf(db, req.cMun);
  const next: MunicipioParams = {
    cMun: req.cMun,
    aderente: req.aderente ?? current.aderente,
    aliquotas: { ...current.aliquotas, ...req.aliquotas },
  };
  const values = {
    aderente: next.aderente ? 1 : 0,
    aliquotas: JSON.stringify(next.aliquotas),
    updated_at: now.toISOString(),
  };
  await db
    .insertInto('nfse_municipios')
    .values({ c_mun: req.cMun, ...values })
    .onConflict((oc) => oc.column('c_mun').doUpdateSet(values))
    .execute();
  return next;
}

/** Two rates compared as numbers ("5", "5.0" and "5.00" are the same rate); null when either is unreadable. */
export function sameRate(a: string, b: string): boolean {
  try {
    return parseScaled(a, 2) === parseScaled(b, 2);
  } catch {
    return false;
  }
}

export function rateWithinLimits(value: string): boolean {
  try {
    const v = parseScaled(value, 2);
    return v >= parseScaled(ALIQUOTA_MIN, 2) && v <= parseScaled(ALIQUOTA_MAX, 2);
  } catch {
    return false;
  }
}
