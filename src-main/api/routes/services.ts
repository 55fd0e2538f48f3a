// /v1/services: the services catalogue within one company (the NFS-e's national tax codes and ISS rates).
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { dataList, pageLimitQuery } from '../pagination.ts';
import {
  createService,
  deactivateService,
  getServiceRow,
  listServices,
  replaceService,
  serviceView,
} from '../../catalog/services-service.ts';
import { serviceCreateSchema, serviceListQuerySchema } from '../../../src-shared/contracts/services.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';

export function serviceRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { q, ativo, codigoTributacaoNacional, ...window } = pageLimitQuery(
      req,
      serviceListQuerySchema.shape,
    );
    const { items, total } = await listServices(
      db,
      company.id,
      { q, ativo, codigoTributacaoNacional },
      window,
    );
    res.json(dataList(items, total, window));
  });
  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = parseOrThrow(serviceCreateSchema, req.body);
    res.status(201).json(await createService(db, clock, company.id, input));
  });
  router.get('/:id', async (req, res) => {
    res.json(serviceView(await getServiceRow(db, req.params.id, reachableBy(db, authOf(res)))));
  });
  router.put('/:id', async (req, res) => {
    const row = await getServiceRow(db, req.params.id, reachableBy(db, authOf(res)));
    const input = parseOrThrow(serviceCreateSchema, req.body);
    res.json(await replaceService(db, clock, row, input));
  });
  router.delete('/:id', async (req, res) => {
    const row = await getServiceRow(db, req.params.id, reachableBy(db, authOf(res)));
    res.json(await deactivateService(db, clock, row));
  });
  return router;
}
