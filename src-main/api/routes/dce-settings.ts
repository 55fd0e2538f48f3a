// /v1/companies/:id/dce-settings: the defaults of the company's DC-e (issuer type, marketplace site, series).
import type { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { dceSettingsOf, saveDceSettings } from '../../documents/kinds/dce/settings.ts';
import { kindSettingsRoutes } from './kind-settings.ts';

export function dceSettingsRoutes(deps: ApiDeps): Router {
  return kindSettingsRoutes(deps, 'dce-settings', { read: dceSettingsOf, save: saveDceSettings });
}
