// GET /v1/companies/:companyId/status: what the cashier's always-visible status bar shows.
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { companyForAuth } from '../../companies/service.ts';
import { companyStatus } from '../../status/service.ts';

export function statusRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();

  router.get('/:companyId/status', async (req, res) => {
    // 403 for a company out of the key's reach, existing or not, as every company route.
    const company = await companyForAuth(db, authOf(res), req.params.companyId);
    res.json(await companyStatus(db, clock, company));
  });

  return router;
}
