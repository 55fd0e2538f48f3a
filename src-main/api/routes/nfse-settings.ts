// /v1/companies/:id/nfse-settings: the provider's tax regime (DPS prest/regTrib) that its NFS-e carry.
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { companyForAuth } from '../../companies/service.ts';
import { nfseSettingsOf, saveNfseSettings } from '../../documents/kinds/nfse/settings.ts';

export function nfseSettingsRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();

  router.get('/:id/nfse-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    res.json(await nfseSettingsOf(db, company.id));
  });

  router.put('/:id/nfse-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    // The save checks the body against the contract's schema (every faulty field at once).
    res.json(await saveNfseSettings(db, company.id, req.body ?? {}, deps.clock.now().toISOString()));
  });

  return router;
}
