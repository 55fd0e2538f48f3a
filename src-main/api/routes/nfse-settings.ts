// /v1/companies/:id/nfse-settings: the provider's tax regime (DPS prest/regTrib) that its NFS-e carry.
import type { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { nfseSettingsOf, saveNfseSettings } from '../../documents/kinds/nfse/settings.ts';
import { kindSettingsRoutes } from './kind-settings.ts';

export function nfseSettingsRoutes(deps: ApiDeps): Router {
  return kindSettingsRoutes(deps, 'nfse-settings', { read: nfseSettingsOf, save: saveNfseSettings });
}
