// GET and PUT /v1/companies/:id/<kind>-settings for a kind whose settings service reads the company's settings
// and saves a body it checks itself against the contract's schema (every faulty field at once).
import { Router } from 'express';
import type { Db } from '../../db/client.ts';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { companyForAuth } from '../../companies/service.ts';

export interface KindSettingsService {
  read(db: Db, companyId: string): Promise<unknown>;
  save(db: Db, companyId: string, body: unknown, now: string): Promise<unknown>;
}

/** The two routes under `/:id/${segment}`, answering the settings as the service gives them. */
export function kindSettingsRoutes(deps: ApiDeps, segment: string, service: KindSettingsService): Router {
  const { db } = deps;
  const router = Router();

  router.get(`/:id/${segment}`, async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    res.json(await service.read(db, company.id));
  });

  router.put(`/:id/${segment}`, async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    res.json(await service.save(db, company.id, req.body ?? {}, deps.clock.now().toISOString()));
  });

  return router;
}
