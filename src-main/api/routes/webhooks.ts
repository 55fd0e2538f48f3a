// /v1/webhooks: subscriptions of the key's company (an organization key names it), secrets shown once,
// test-connection pings, delivery history and redelivery.
import { Router, type Request, type Response } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { dataList, pageLimitQuery } from '../pagination.ts';
import {
  createWebhook,
  deleteWebhook,
  getDelivery,
  listDeliveries,
  listWebhooks,
  redeliver,
  rotateWebhookSecret,
  testConnection,
  updateWebhook,
  urlChecks,
  webhookInCompanies,
  webhookView,
} from '../../webhooks/service.ts';
import {
  deliveryListFilterShape,
  webhookCreateSchema,
  webhookUpdateSchema,
} from '../../../src-shared/contracts/webhooks.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';

/** Needs only the database, the clock and the secret box, so any composition of ApiDeps can mount it. */
export function webhookRoutes({ db, clock, secrets }: Pick<ApiDeps, 'db' | 'clock' | 'secrets'>): Router {
  const router = Router();
  const deps = { db, clock, secrets };
  const webhookOf = (req: Request<{ id: string }>, res: Response) =>
    webhookInCompanies(db, req.params.id, reachableBy(db, authOf(res)));

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const window = pageLimitQuery(req);
    const { items, total } = await listWebhooks(db, company.id, window);
    res.json(dataList(items, total, window));
  });

  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = parseOrThrow(webhookCreateSchema, req.body, [], urlChecks());
    res.status(201).json(await createWebhook(deps, company, input));
  });

  router.get('/:id', async (req, res) => {
    res.json(webhookView(await webhookOf(req, res)));
  });

  router.put('/:id', async (req, res) => {
    const row = await webhookOf(req, res);
    const input = parseOrThrow(webhookUpdateSchema, req.body, [], urlChecks(row));
    res.json(await updateWebhook(deps, row, input));
  });

  router.delete('/:id', async (req, res) => {
    await deleteWebhook(db, await webhookOf(req, res));
    res.status(204).end();
  });

  router.post('/:id/rotate-secret', async (req, res) => {
    res.json(await rotateWebhookSecret(deps, await webhookOf(req, res)));
  });

  router.post('/:id/test-connection', async (req, res) => {
    res.status(202).json(await testConnection(deps, await webhookOf(req, res)));
  });

  router.get('/:id/deliveries', async (req, res) => {
    const row = await webhookOf(req, res);
    const { status, event, ...window } = pageLimitQuery(req, deliveryListFilterShape);
    const { items, total } = await listDeliveries(db, row, { status, event }, window);
    res.json(dataList(items, total, window));
  });

  router.get('/:id/deliveries/:deliveryId', async (req, res) => {
    res.json(await getDelivery(db, await webhookOf(req, res), req.params.deliveryId));
  });

  router.post('/:id/deliveries/:deliveryId/redeliver', async (req, res) => {
    res.status(202).json(await redeliver(deps, await webhookOf(req, res), req.params.deliveryId));
  });

  return router;
}
