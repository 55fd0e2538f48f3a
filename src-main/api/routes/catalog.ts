// /v1/fiscal-profiles and /v1/products: CRUD within one company.
import { Router } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { dataList, pageLimitQuery } from '../pagination.ts';
import {
  createProduct,
  createProfile,
  deleteProduct,
  deleteProfile,
  getProductRow,
  getProfileRow,
  listProducts,
  listProfiles,
  productView,
  profileView,
  replaceProduct,
  replaceProfile,
} from '../../catalog/service.ts';
import {
  fiscalProfileCreateSchema,
  productCreateSchema,
  productListQuerySchema,
} from '../../../src-shared/contracts/catalog.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';
import { productNcmCheck } from '../../reference/ncm-store.ts';

export function fiscalProfileRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const window = pageLimitQuery(req);
    const { items, total } = await listProfiles(db, company.id, window);
    res.json(dataList(items, total, window));
  });
  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = parseOrThrow(fiscalProfileCreateSchema, req.body);
    res.status(201).json(await createProfile(db, clock, company.id, input));
  });
  router.get('/:id', async (req, res) => {
    res.json(profileView(await getProfileRow(db, req.params.id, reachableBy(db, authOf(res)))));
  });
  router.put('/:id', async (req, res) => {
    const row = await getProfileRow(db, req.params.id, reachableBy(db, authOf(res)));
    const input = parseOrThrow(fiscalProfileCreateSchema, req.body);
    res.json(await replaceProfile(db, clock, row, input));
  });
  router.delete('/:id', async (req, res) => {
    const row = await getProfileRow(db, req.params.id, reachableBy(db, authOf(res)));
    await deleteProfile(db, row);
    res.status(204).end();
  });
  return router;
}

export function productRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { q, cEAN, ...window } = pageLimitQuery(req, productListQuerySchema.shape);
    const { items, total } = await listProducts(db, company.id, { q, cEAN }, window);
    res.json(dataList(items, total, window));
  });
  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const input = parseOrThrow(productCreateSchema, req.body, [], await productNcmCheck(db));
    res.status(201).json(await createProduct(db, clock, company.id, input));
  });
  router.get('/:id', async (req, res) => {
    res.json(productView(await getProductRow(db, req.params.id, reachableBy(db, authOf(res)))));
  });
  router.put('/:id', async (req, res) => {
    const row = await getProductRow(db, req.params.id, reachableBy(db, authOf(res)));
    const input = parseOrThrow(productCreateSchema, req.body, [], await productNcmCheck(db));
    res.json(await replaceProduct(db, clock, row, input));
  });
  router.delete('/:id', async (req, res) => {
    const row = await getProductRow(db, req.params.id, reachableBy(db, authOf(res)));
    await deleteProduct(db, row);
    res.status(204).end();
  });
  return router;
}
