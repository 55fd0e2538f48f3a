// /v1/companies/:id/nfse-settings: the provider's tax regime (DPS prest/regTrib) that its NFS-e carry.
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../../validation.ts';
import { companyForAuth } from '../../companies/service.ts';
import { nfseSettingsOf, saveNfseSettings } from '../../documents/kinds/nfse/settings.ts';
import { nfseSettingsSchema } from '../../../src-shared/contracts/nfse-view.ts';

export function nfseSettingsRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();

  router.get('/:id/nfse-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    res.json(await nfseSettingsOf(db, company.id));
  });

  router.put('/:id/nfse-settings', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), req.params['id'] as string);
    // The contract's schema reports every faulty field; the kind's own check (the regime rules) runs in save.
    const input = parseOrThrow(nfseSettingsSchema, req.body ?? {});
    res.json(await saveNfseSettings(db, company.id, input, deps.clock.now().toISOString()));
  });

  return router;
}
