// /v1/companies/:id/cte-settings: the carrier's RNTRC and ICMS of the service that its CT-e carry.
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../../validation.ts';
import { companyForAuth } from '../../companies/service.ts';
import { cteSettingsView, putCteSettings } from '../../documents/kinds/cte/settings.ts';
import { cteSettingsSchema } from '../../../src-shared/contracts/cte-view.ts';

export function cteSettingsRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();

  router.get('/:id/cte-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    res.json(await cteSettingsView(db, company.id));
  });

  router.put('/:id/cte-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    const input = parseOrThrow(cteSettingsSchema, req.body ?? {});
    res.json(await putCteSettings(db, company.id, input, deps.clock.now().toISOString()));
  });

  return router;
}
