// /v1/customers: create (POST), replace (PUT), read and search (GET).
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { dataList, pageLimitQuery } from '../pagination.ts';
import { municipioDetails } from '../../companies/service.ts';
import {
  createCustomer,
  customerInCompanies,
  customerView,
  listCustomers,
  replaceCustomer,
} from '../../customers/service.ts';
import {
  customerCreateSchema,
  customerListQuerySchema,
  customerUpdateSchema,
} from '../../../src-shared/contracts/customers.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';

const addressCheck = (raw: unknown) => municipioDetails(raw, ['endereco', 'cMun']);

export function customerRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { q, ...window } = pageLimitQuery(req, customerListQuerySchema.shape);
    const { items, total } = await listCustomers(db, company.id, q, window);
    res.json(dataList(items, total, window));
  });

  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = parseOrThrow(customerCreateSchema, req.body, [], addressCheck);
    res.status(201).json(await createCustomer(db, clock, company, input));
  });

  router.get('/:id', async (req, res) => {
    const row = await customerInCompanies(db, req.params.id, reachableBy(db, authOf(res)));
    res.json(customerView(row));
  });

  router.put('/:id', async (req, res) => {
    const row = await customerInCompanies(db, req.params.id, reachableBy(db, authOf(res)));
    const input = parseOrThrow(customerUpdateSchema, req.body, [], addressCheck);
    res.json(await replaceCustomer(db, clock, row, input));
  });

  return router;
}
