// Thermal printers and printing, mounted on /v1 itself because the routes span three resources:
//   GET/POST /companies/:companyId/printers, GET/PUT/DELETE /companies/:companyId/printers/:printerId,
//   GET …/:printerId/status (live), POST …/:printerId/test (test page), POST …/:printerId/drawer (open it)
//   POST /nfce/:id/print, POST /nfce/:id/reprint
//   GET /print-jobs, GET /print-jobs/:jobId, POST /print-jobs/:jobId/retry, POST /print-jobs/:jobId/cancel
// Handlers only parse and delegate to src-main/printing/.
import { Router, type Request, type Response } from 'express';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { recordApproved, requireApproval } from '../middleware/operator.ts';
import { parseOrThrow } from '../validation.ts';
import { pageList, pageQuery, parseQuery } from '../pagination.ts';
import { companyOfRequest, documentOfRequest, reachableBy } from './scoping.ts';
import { companyForAuth } from '../../companies/service.ts';
import {
  cancelJob,
  createPrinter,
  deletePrinter,
  jobInCompanies,
  listJobs,
  listPrinters,
  printJobView,
  printerOfCompany,
  printerStatus,
  printerView,
  queueDocumentPrint,
  queueDrawerKick,
  queueTestPage,
  retryJob,
  updatePrinter,
} from '../../printing/service.ts';
import {
  printJobListQuerySchema,
  printRequestSchema,
  printerCreateSchema,
  printerUpdateSchema,
} from '../../../src-shared/contracts/printers.ts';

export function printerRoutes({ db, clock, logger }: Pick<ApiDeps, 'db' | 'clock' | 'logger'>): Router {
  const router = Router();
  const deps = { db, clock, logger };

  const companyOf = (req: Request<{ companyId: string }>, res: Response) =>
    companyForAuth(db, authOf(res), req.params.companyId);
  const printerOf = async (req: Request<{ companyId: string; printerId: string }>, res: Response) => {
    const company = await companyOf(req, res);
    return printerOfCompany(db, company.id, req.params.printerId);
  };
  const jobOf = (req: Request<{ jobId: string }>, res: Response) =>
    jobInCompanies(db, req.params.jobId, reachableBy(db, authOf(res)));

  // --- printer profiles ---------------------------------------------------------------------------

  router.get('/companies/:companyId/printers', async (req, res) => {
    const company = await companyOf(req, res);
    const { page, pageSize } = pageQuery(req);
    const { items, total } = await listPrinters(db, company.id, page, pageSize);
    res.json(pageList(items, total, page, pageSize));
  });

  router.post('/companies/:companyId/printers', async (req, res) => {
    const company = await companyOf(req, res);
    const input = parseOrThrow(printerCreateSchema, req.body);
    res.status(201).json(await createPrinter(deps, company, input));
  });

  router.get('/companies/:companyId/printers/:printerId', async (req, res) => {
    res.json(printerView(await printerOf(req, res)));
  });

  router.put('/companies/:companyId/printers/:printerId', async (req, res) => {
    const printer = await printerOf(req, res);
    const input = parseOrThrow(printerUpdateSchema(printer.tipo), req.body);
    res.json(await updatePrinter(deps, printer, input));
  });

  router.delete('/companies/:companyId/printers/:printerId', async (req, res) => {
    await deletePrinter(deps, await printerOf(req, res));
    res.status(204).end();
  });

  router.get('/companies/:companyId/printers/:printerId/status', async (req, res) => {
    res.json(await printerStatus(deps, await printerOf(req, res)));
  });

  router.post('/companies/:companyId/printers/:printerId/test', async (req, res) => {
    res.status(202).json(await queueTestPage(deps, await printerOf(req, res)));
  });

  router.post('/companies/:companyId/printers/:printerId/drawer', async (req, res) => {
    const printer = await printerOf(req, res);
    // Opening the drawer without a sale is where cash goes missing: a caixa needs a supervisor, and every
    // opening by a person is kept in the audit.
    await requireApproval(deps, res, req, 'abrir_gaveta', {
      audit: true,
      detalhe: { printerId: printer.id },
    });
    res.status(202).json(await queueDrawerKick(deps, printer));
  });

  // --- receipts of issued NFC-e -------------------------------------------------------------------

  for (const [path, reason] of [
    ['/nfce/:id/print', 'print'],
    ['/nfce/:id/reprint', 'reprint'],
  ] as const) {
    router.post(path, async (req, res) => {
      const doc = await documentOfRequest(db, req, res, 65);
      // The body is optional: no body (or {}) prints on the company's default printer.
      const { printerId } = parseOrThrow(printRequestSchema, req.body ?? {});
      // An operator's reprint (issue 13): a caixa needs a supervisor; every one is audited once queued.
      const approval =
        reason === 'reprint'
          ? await requireApproval(deps, res, req, 'reimprimir', { deferAudit: true })
          : null;
      const queued = await queueDocumentPrint(deps, doc, printerId, reason);
      if (approval !== null) await recordApproved(deps, approval, { documentId: doc.id, detalhe: queued });
      res.status(202).json(queued);
    });
  }

  // --- print jobs ---------------------------------------------------------------------------------

  router.get('/print-jobs', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { page, pageSize, ...filters } = parseQuery(req, printJobListQuerySchema);
    const { items, total } = await listJobs(db, company.id, filters, page, pageSize);
    res.json(pageList(items, total, page, pageSize));
  });

  router.get('/print-jobs/:jobId', async (req, res) => {
    res.json(printJobView(await jobOf(req, res)));
  });

  router.post('/print-jobs/:jobId/retry', async (req, res) => {
    res.status(202).json(await retryJob(deps, await jobOf(req, res)));
  });

  router.post('/print-jobs/:jobId/cancel', async (req, res) => {
    res.json(await cancelJob(deps, await jobOf(req, res)));
  });

  return router;
}
