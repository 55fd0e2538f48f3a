// /v1/nfe/batch: up to 50 NF-e issued and queued at once, and their progress. Mounted on /nfe BEFORE the
// documents router, whose `GET /:id` would otherwise take `/batch/...`; it only answers its own paths.
import { Router } from 'express';
import { issueDepsOf, type ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { forbidden, notFound } from '../errors.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';
import type { IssueDeps } from '../../documents/issue.ts';
import { batchProgress, createBatch, findBatch } from '../../documents/batch.ts';
import { idempotency } from '../middleware/idempotency.ts';

export function batchRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();
  const issueDeps = (): IssueDeps => issueDepsOf(deps);

  // A retry whose first request died with the process answers the batch it had created, as the first would.
  const batchIdempotency = idempotency(
    { db, clock: deps.clock, logger: deps.logger },
    {
      links: 'batch',
      resume: async ({ id }, _req, res) => {
        const batch = await findBatch(db, id);
        if (batch === undefined) throw notFound('Batch');
        res.status(202).json({ batchId: batch.id, total: batch.total, status: 'processando' });
      },
    },
  );

  router.post('/batch', batchIdempotency, async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const created = await createBatch(issueDeps(), company.id, req.body);
    res.status(202).json({ batchId: created.batchId, total: created.total, status: 'processando' });
  });

  router.get('/batch/:batchId', async (req, res) => {
    const batch = await findBatch(db, String(req.params['batchId']));
    if (batch === undefined) throw notFound('Batch');
    if (!(await reachableBy(db, authOf(res))(batch.company_id))) throw forbidden();
    res.json(await batchProgress(db, batch));
  });

  return router;
}
