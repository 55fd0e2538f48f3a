// /v1/api-keys: list, create, rotate, revoke. A company key manages only its company's keys and
// can create only company keys; organization keys manage the whole organization; no key escalates.
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { pageList, pageQuery } from '../pagination.ts';
import {
  assertKeyManageable,
  createApiKeyAs,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
} from '../../api-keys/service.ts';
import { apiKeyCreateSchema, apiKeyRotateSchema } from '../../../src-shared/contracts/api-keys.ts';

export function apiKeyRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const { page, pageSize } = pageQuery(req);
    const { items, total } = await listApiKeys(db, authOf(res), page, pageSize);
    res.json(pageList(items, total, page, pageSize));
  });

  router.post('/', async (req, res) => {
    const input = parseOrThrow(apiKeyCreateSchema, req.body);
    res.status(201).json(await createApiKeyAs(db, clock, authOf(res), input));
  });

  router.get('/:id', async (req, res) => {
    res.json(await getApiKey(db, authOf(res), req.params.id));
  });

  router.post('/:id/rotate', async (req, res) => {
    await assertKeyManageable(db, authOf(res), req.params.id, 'rotate');
    const { graceSeconds } = parseOrThrow(apiKeyRotateSchema, req.body ?? {});
    res.status(201).json(await rotateApiKey(db, clock, req.params.id, graceSeconds));
  });

  router.post('/:id/revoke', async (req, res) => {
    await assertKeyManageable(db, authOf(res), req.params.id, 'revoke');
    res.json(await revokeApiKey(db, clock, req.params.id));
  });

  return router;
}
