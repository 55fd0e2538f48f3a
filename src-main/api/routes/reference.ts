// /v1/reference/ncm and /v1/reference/ibpt: the tables of reference the store imports (the NCM table of rule
// 778, the IBPT rates of the Lei 12.741 line). Mounted before the JSON body parser: the files are read as sent.
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { ApiDeps } from '../context.ts';
import { ApiError, notFound, validationError } from '../errors.ts';
import { companyOfRequest } from './scoping.ts';
import { importNcmFile } from '../../reference/ncm-import.ts';
import { describeActiveNcmTable } from '../../reference/ncm-store.ts';
import { describeIbpt, importIbptTable } from '../../ibpt/store.ts';
import { decodeIbptBytes, parseIbptCsv } from '../../ibpt/table.ts';

/** A whole Siscomex NCM export is about 3 MB and an IBPT table about 2 MB; room for growth. */
export const MAX_REFERENCE_FILE = '32mb';

export function referenceRoutes({ db, clock }: ApiDeps): Router {
  const router = Router();
  const rawFile = express.raw({ type: () => true, limit: MAX_REFERENCE_FILE });
  const fileOf = (req: Request, what: string): Buffer => {
    if (!Buffer.isBuffer(req.body) || req.body.length === 0)
      throw validationError([{ field: 'body', error: `required: the ${what} file as the request body` }]);
    return req.body;
  };
  const tooLarge = (req: Request, res: Response, next: NextFunction) =>
    rawFile(req, res, (e?: unknown) => {
      const type = (e as { type?: string } | undefined)?.type;
      next(
        type === 'entity.too.large'
          ? new ApiError(413, 'payload_too_large', `The file is larger than ${MAX_REFERENCE_FILE}.`, [
              { field: 'body', error: `larger than ${MAX_REFERENCE_FILE}` },
            ])
          : e,
      );
    });

  router.get('/ncm', async (_req, res) => {
    res.json(await describeActiveNcmTable(db));
  });
  router.post('/ncm', tooLarge, async (req, res) => {
    const text = new TextDecoder('utf-8').decode(fileOf(req, 'Siscomex NCM (JSON)'));
    res.status(201).json(await importNcmFile(db, clock, text));
  });

  router.get('/ibpt', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const found = await describeIbpt(db, clock, company.id);
    if (found === undefined) throw notFound('IBPT table of this company');
    res.json(found);
  });
  router.post('/ibpt', tooLarge, async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const parsed = parseIbptCsv(decodeIbptBytes(fileOf(req, 'IBPT (CSV)')));
    if (!parsed.ok) throw validationError(parsed.errors, 'The IBPT table has faulty lines.');
    res.status(201).json(await importIbptTable(db, clock, company.id, company.uf, parsed.file));
  });
  return router;
}
