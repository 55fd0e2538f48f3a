// /v1/companies/:id/dce-settings: the defaults of the company's DC-e (issuer type, marketplace site, series).
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { companyForAuth } from '../../companies/service.ts';
import { dceSettingsOf, saveDceSettings } from '../../documents/kinds/dce/settings.ts';

export function dceSettingsRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();

  router.get('/:id/dce-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    res.json(await dceSettingsOf(db, company.id));
  });

  router.put('/:id/dce-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    // The save checks the body against the contract's schema (every faulty field at once).
    res.json(await saveDceSettings(db, company.id, req.body ?? {}, deps.clock.now().toISOString()));
  });

  return router;
}
