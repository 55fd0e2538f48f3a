// /v1/cte (§4.3): create (draft), send, read, list, delete, XML, DACTE, cancel, CC-e, inutilizar and debug.
// Handlers parse, scope the request to the key's company and call the lifecycle with the CT-e kind.
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { issueDepsOf, type ApiDeps } from '../context.ts';
import { sendPdf } from '../pdf-answer.ts';
import { parseOrThrow } from '../../validation.ts';
import { dataList, pageLimitQuery, parseQuery } from '../pagination.ts';
import { companyOfRequest, documentOfRequest } from './scoping.ts';
import { invalidState, notFound } from '../../errors.ts';
import { documentCompanyOf, idempotency } from '../middleware/idempotency.ts';
import { createDraft, deleteDocument, sendDocument } from '../../documents/lifecycle.ts';
import { documentsRepository, type DocumentRow } from '../../documents/repository.ts';
import { cteKind } from '../../documents/kinds/cte/kind.ts';
import { cteDebug, cteViewOf, listCte } from '../../documents/kinds/cte/read.ts';
import { dacteOf } from '../../documents/kinds/cte/dacte.ts';
import { voidCteRange } from '../../documents/kinds/cte/inutilizar.ts';
import { queueEvent } from '../../documents/events.ts';
import { cteEventView } from '../../documents/kinds/cte/view.ts';
import {
  cteCancelRequestSchema,
  cteCceRequestSchema,
  cteListFilterShape,
  cteVoidRequestSchema,
} from '../../../src-shared/contracts/cte-view.ts';
import { printedPdfQuerySchema } from '../../../src-shared/contracts/common.ts';

export function cteRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();
  const idem = { db, clock: deps.clock, logger: deps.logger };

  /** The CT-e of `:id`: 404 when there is none (or the id is another kind's document), 403 out of reach. */
  const cteOf = async (req: Request, res: Response): Promise<DocumentRow> => {
    const doc = await documentOfRequest(db, req, res, cteKind.modelo);
    if (doc.modelo !== cteKind.modelo) throw notFound('CT-e');
    return doc;
  };

  const sendAnswer = (doc: DocumentRow) => ({
    success: true,
    message:
      doc.status === 'processando'
        ? `CT-e ${doc.n_nf} queued for the authority; follow it with GET /v1/cte/${doc.id} or the cte.* webhooks.`
        : `CT-e ${doc.n_nf} is ${doc.status}.`,
  });

  router.post('/', idempotency(idem), async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    if (req.body === undefined) parseOrThrow(z.object({}), undefined);
    const draft = await createDraft(issueDepsOf(deps), cteKind, company.id, req.body);
    res.status(201).json(
      await cteViewOf(db, draft, {
        message: `CT-e draft created with number ${draft.n_nf} (series ${draft.serie}) reserved; send it with POST /v1/cte/${draft.id}/send.`,
      }),
    );
  });

  // Before /:id routes of the same method: `inutilizar` is not an id.
  router.post('/inutilizar', idempotency(idem), async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const request = parseOrThrow(cteVoidRequestSchema, req.body ?? {});
    res.json(await voidCteRange(db, deps.clock, company.id, request));
  });

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { page, limit, offset, ...filter } = pageLimitQuery(req, cteListFilterShape);
    const { items, total } = await listCte(db, company.id, filter, { limit, offset });
    res.json(dataList(items, total, { page, limit }));
  });

  router.get('/:id', async (req, res) => {
    res.json(await cteViewOf(db, await cteOf(req, res)));
  });

  router.delete('/:id', async (req, res) => {
    const doc = await cteOf(req, res);
    await deleteDocument(issueDepsOf(deps), doc.id, cteKind);
    res.status(204).end();
  });

  router.post(
    '/:id/send',
    idempotency(idem, {
      companyOf: documentCompanyOf(db),
      // A retry whose first request died after queueing: answered from the CT-e as it is now.
      resume: async ({ id }, _req, res) => {
        const doc = await cteViewOf(db, await cteOfId(id));
        res.status(202).json({ success: true, message: `CT-e ${doc.numero} is ${doc.status}.` });
      },
    }),
    async (req, res) => {
      const doc = await cteOf(req, res);
      const sent = await sendDocument(issueDepsOf(deps), doc.id, null, cteKind);
      res.status(202).json(sendAnswer(sent));
    },
  );

  const cteOfId = async (id: string): Promise<DocumentRow> => {
    const doc = await documentsRepository.findById(db, id);
    if (doc === undefined || doc.modelo !== cteKind.modelo) throw notFound('CT-e');
    return doc;
  };

  router.get('/:id/xml', async (req, res) => {
    const doc = await cteOf(req, res);
    // cteProc (CTe + protCTe) once authorized; before that the signed CTe itself.
    res.type('application/xml').send(doc.proc_xml ?? doc.xml);
  });

  router.get('/:id/dacte', async (req, res) => {
    const query = parseQuery(req, printedPdfQuerySchema);
    const doc = await cteOf(req, res);
    if (!['autorizada', 'cancelada', 'contingencia'].includes(doc.status)) {
      throw invalidState(doc.status, 'print the DACTE of');
    }
    const { data, hit } = await dacteOf(db, deps.clock, doc, query.regenerate === 'true');
    sendPdf(res, data, { filename: `${doc.chave}-dacte.pdf`, download: query.download === 'true', hit });
  });

  router.post('/:id/cancel', async (req, res) => {
    const doc = await cteOf(req, res);
    const { justificativa } = parseOrThrow(cteCancelRequestSchema, req.body ?? {});
    const { event } = await queueEvent(
      issueDepsOf(deps),
      doc.id,
      'cancel',
      { justificativa },
      {
        expected: cteKind,
        field: 'justificativa',
      },
    );
    res.status(202).json(cteEventView(event));
  });

  router.post('/:id/cce', async (req, res) => {
    const doc = await cteOf(req, res);
    const request = parseOrThrow(cteCceRequestSchema, req.body ?? {});
    const { event } = await queueEvent(issueDepsOf(deps), doc.id, 'correct', request, {
      expected: cteKind,
      field: 'sequencia',
    });
    res.status(202).json(cteEventView(event));
  });

  router.get('/:id/debug', async (req, res) => {
    res.json(await cteDebug(db, await cteOf(req, res)));
  });

  return router;
}
