// GET/POST /v1/sandbox/faults: the embedded sandbox authority's fault switches (offline, timeouts, pauses...)
// for the UI and browser tests, behind an organization key instead of the authority's own control port. The
// switches are the key's organization's own: they apply to requests made with its companies' certificates.
import { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { forbidden, notFound, validationError } from '../errors.ts';
import { FAULT_SERVICES, type FaultControl } from '../../sandbox/faults.ts';
import { CSTAT } from '../../sandbox/cstat.ts';
import { nfseCode } from '../../../src-shared/tables/nfse-codes.ts';
import { dceCode } from '../../../src-shared/tables/dce-codes.ts';
import { statusRepository } from '../../status/repository.ts';

// The SOAP services and the national NFS-e APIs (NFSeSefinNacional, NFSeParametrosMunicipais).
const serviceList = z.array(z.enum(FAULT_SERVICES as [string, ...string[]])).min(1);
const scope = {
  services: serviceList.optional(),
  times: z.number().int().positive().optional(),
};
const onOff = z.union([z.boolean(), z.null(), z.strictObject(scope)], {
  error: 'true, false, null or {services?, times?} with known services and times >= 1',
});
const probability = z.number().min(0).max(1).optional();
/**
 * A rejection the sandbox's cStat table knows (201-999), or as text a rejection code of the NFS-e table (e.g.
 * "E012") or of the DC-e one (e.g. "225"), as FaultControl.reject takes them.
 */
const rejection = z.union([
  z
    .number()
    .int()
    .refine((c) => c >= 201 && c in CSTAT, { error: 'a rejection cStat of the sandbox table (201-999)' }),
  z.string().refine((c) => nfseCode(c)?.meaning === 'rejected' || dceCode(c)?.meaning === 'rejected', {
    error: 'a rejection code of the NFS-e or DC-e table',
  }),
]);

/** The body of the authority's POST /_sandbox/faults (sandbox/server.ts), validated field by field. */
const faultsBodySchema = z.strictObject({
  clear: z.boolean().optional(),
  online: z.boolean().optional(),
  /** With online false: come back by itself after this many milliseconds. */
  forMs: z.number().positive().optional(),
  timeout: onOff.optional(),
  slow: z
    .union(
      [z.number().min(0), z.literal(false), z.null(), z.strictObject({ ...scope, ms: z.number().min(0) })],
      { error: 'milliseconds >= 0, false, null or {ms, services?, times?}' },
    )
    .optional(),
  paused: z
    .union(
      [
        z.literal(108),
        z.literal(109),
        z.literal(false),
        z.null(),
        z.strictObject({ ...scope, cStat: z.union([z.literal(108), z.literal(109)]) }),
      ],
      { error: '108, 109, false, null or {cStat: 108|109, services?, times?}' },
    )
    .optional(),
  loseResponse: onOff.optional(),
  /** The next note(s) refused with this cStat; NFeAutorizacao4 and once unless scoped otherwise. */
  reject: z
    .union([rejection, z.literal(false), z.null(), z.strictObject({ ...scope, cStat: rejection })], {
      error: 'a rejection cStat, false, null or {cStat, services?, times?}',
    })
    .optional(),
  random: z
    .union([
      z.null(),
      z
        .strictObject({
          seed: z.number().int(),
          refuse: probability,
          timeout: probability,
          slow: probability,
          pause: probability,
          lose: probability,
          slowMs: z.number().min(0).optional(),
          services: serviceList.optional(),
        })
        .refine(
          (r) =>
            [r.refuse, r.timeout, r.slow, r.pause, r.lose].reduce<number>((sum, p) => sum + (p ?? 0), 0) <=
            1 + 1e-9,
          { message: 'the probabilities add up to more than 1' },
        ),
    ])
    .optional(),
});

/** The organization of the company whose certificate carries `cnpj` (a sandbox company; the oldest if two). */
async function organizationOfCnpj(db: ApiDeps['db'], cnpj: string | null): Promise<string | null> {
  if (cnpj === null) return null;
  const row = await db
    .selectFrom('companies')
    .select('organization_id')
    .where('cnpj', '=', cnpj)
    .where('authority', '=', 'sandbox')
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return row?.organization_id ?? null;
}

export function sandboxControlRoutes({ db, hooks }: ApiDeps): Router {
  const router = Router();

  const faultsFor = async (organizationId: string, scopeOfKey: string): Promise<FaultControl> => {
    const faults = hooks.sandboxFaults ?? null;
    // An organization that issues only to SEFAZ has no sandbox to switch, even when others share this service.
    if (faults === null || !(await statusRepository.organizationUsesSandbox(db, organizationId))) {
      throw notFound('Embedded sandbox authority');
    }
    if (scopeOfKey !== 'organization') {
      throw forbidden('Only an organization key can switch the sandbox authority.');
    }
    faults.scopeOfClient ??= (cnpj) => organizationOfCnpj(db, cnpj);
    return faults.forScope(organizationId);
  };

  router.get('/faults', async (_req, res) => {
    const auth = authOf(res);
    res.json((await faultsFor(auth.organizationId, auth.scope)).state());
  });

  router.post('/faults', async (req, res) => {
    const auth = authOf(res);
    const faults = await faultsFor(auth.organizationId, auth.scope);
    const { online, forMs, ...switches } = parseOrThrow(faultsBodySchema, req.body);
    if (forMs !== undefined && online !== false) {
      throw validationError([{ field: 'forMs', error: 'only with "online": false' }]);
    }
    try {
      faults.apply(switches);
    } catch (error) {
      // The schema checks what apply() checks; a rule added there alone still answers 400, not 500.
      if (error instanceof RangeError) throw validationError([{ field: 'body', error: error.message }]);
      throw error;
    }
    // Unlike the authority's own endpoint, this one stays up when the authority goes offline: no forMs needed.
    if (online !== undefined) await faults.setOnline(online, forMs === undefined ? {} : { forMs });
    res.json(faults.state());
  });

  return router;
}
