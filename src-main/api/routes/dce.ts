// /v1/dce (the DC-e, content declaration, model 99): create (draft, or queued at once), change, delete, send,
// read, list, XML, DACE (A4 and 100 × 150 mm label) and cancellation. Handlers parse, scope the request to the
// key's company and call the DC-e kind's service; what the authority did is read from the document afterwards.
import { Router, type Request, type Response } from 'express';
import { issueDepsOf, type ApiDeps } from '../context.ts';
import { sendPdf } from '../pdf-answer.ts';
import { dataList, pageLimitQuery, parseQuery } from '../pagination.ts';
import { companyOfRequest, documentOfRequest } from './scoping.ts';
import { cancellationRefused } from '../../errors.ts';
import { documentCompanyOf, idempotency } from '../middleware/idempotency.ts';
import type { DocumentRow } from '../../documents/repository.ts';
import {
  cancelDce,
  createDceDraft,
  dceEventView,
  dceEventXml,
  dceViewOf,
  deleteDce,
  findDce,
  issueDce,
  listDce,
  sendDce,
  updateDce,
} from '../../documents/kinds/dce/service.ts';
import { daceOf } from '../../documents/kinds/dce/dace.ts';
import {
  DCE_MODELO,
  dceCreateQuerySchema,
  dceDaceQuerySchema,
  dceListFilterShape,
  dceXmlQuerySchema,
} from '../../../src-shared/contracts/dce-view.ts';

/** How long POST /v1/dce/:id/cancel waits for the authority before answering 202 (it answers at once). */
export const DCE_WAIT_MS = 10_000;

/**
 * Send and `?enviar=true` answer 202 without waiting, but hand the DC-e to the queue at once rather than at its
 * next poll (up to a second later): the authority authorizes a DC-e synchronously, in one message.
 */
const SEND_NOW_MS = 0;

export function dceRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();
  const idem = { db, clock: deps.clock, logger: deps.logger };

  /** Scheme, host and port of this request: the links of the answers are absolute, as the NFS-e's. */
  const baseOf = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

  /** The DC-e of `:id`: 404 when there is none (or the id is another kind's document), 403 out of reach. */
  const dceOf = async (req: Request, res: Response): Promise<DocumentRow> =>
    documentOfRequest(db, req, res, DCE_MODELO);

  const queuedMessage = (doc: DocumentRow): string =>
    `DC-e ${doc.n_nf} (series ${doc.serie}) queued for the authority; follow it with GET /v1/dce/${doc.id} ` +
    'or the webhooks dce.autorizada / dce.rejeitada.';

  /** A create or send answer: 201 for a draft, 202 once queued (or already settled by the queue). */
  const answerCreatedOrQueued = async (req: Request, res: Response, doc: DocumentRow): Promise<void> => {
    const draft = doc.status === 'rascunho';
    res.status(draft ? 201 : 202).json(
      await dceViewOf(db, doc, {
        base: baseOf(req),
        message: draft
          ? `DC-e draft created with number ${doc.n_nf} (series ${doc.serie}) and key ${doc.chave}; send it with POST /v1/dce/${doc.id}/send.`
          : queuedMessage(doc),
      }),
    );
  };

  router.post(
    '/',
    idempotency(idem, {
      // A retry whose first request died after the DC-e was written: answered from the DC-e as it is now.
      resume: async ({ id }, req, res) => answerCreatedOrQueued(req, res, await findDce({ db }, id)),
    }),
    async (req, res) => {
      const query = parseQuery(req, dceCreateQuerySchema);
      const company = await companyOfRequest(db, req, res);
      const doc =
        query.enviar === 'true'
          ? await issueDce(issueDepsOf(deps), company.id, req.body, SEND_NOW_MS)
          : await createDceDraft(issueDepsOf(deps), company.id, req.body);
      await answerCreatedOrQueued(req, res, doc);
    },
  );

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { page, limit, offset, ...filter } = pageLimitQuery(req, dceListFilterShape);
    const { items, total } = await listDce(db, company.id, filter, { limit, offset }, baseOf(req));
    res.json(dataList(items, total, { page, limit }));
  });

  router.get('/:id', async (req, res) => {
    res.json(await dceViewOf(db, await dceOf(req, res), { base: baseOf(req) }));
  });

  router.put('/:id', async (req, res) => {
    const doc = await dceOf(req, res);
    const updated = await updateDce(issueDepsOf(deps), doc.id, req.body);
    res.json(await dceViewOf(db, updated, { base: baseOf(req) }));
  });

  router.delete('/:id', async (req, res) => {
    const doc = await dceOf(req, res);
    await deleteDce(issueDepsOf(deps), doc.id);
    res.status(204).end();
  });

  router.post(
    '/:id/send',
    idempotency(idem, {
      companyOf: documentCompanyOf(db),
      resume: async ({ id }, req, res) => {
        const doc = await findDce({ db }, id);
        res.status(202).json(await dceViewOf(db, doc, { base: baseOf(req), message: queuedMessage(doc) }));
      },
    }),
    async (req, res) => {
      const doc = await dceOf(req, res);
      const sent = await sendDce(issueDepsOf(deps), doc.id, SEND_NOW_MS);
      res.status(202).json(await dceViewOf(db, sent, { base: baseOf(req), message: queuedMessage(sent) }));
    },
  );

  router.get('/:id/xml', async (req, res) => {
    const { formato } = parseQuery(req, dceXmlQuerySchema);
    const doc = await dceOf(req, res);
    if (formato === 'json') {
      res.json({
        id: doc.id,
        dce_xml: doc.xml,
        proc_xml: doc.proc_xml,
        eventos: await dceEventXml(db, doc.id),
      });
      return;
    }
    // dceProc (DCe + protDCe) once authorized; before that the signed DCe itself.
    res.type('application/xml').send(doc.proc_xml ?? doc.xml);
  });

  router.get('/:id/dace', async (req, res) => {
    const query = parseQuery(req, dceDaceQuerySchema);
    const doc = await dceOf(req, res);
    const formato = query.formato ?? 'a4';
    const { data, hit } = await daceOf({ db, clock: deps.clock }, doc, {
      formato,
      previa: query.previa === 'true',
      regenerate: query.regenerate === 'true',
    });
    const suffix = formato === 'etiqueta' ? 'dace-etiqueta' : 'dace';
    sendPdf(res, data, { filename: `${doc.chave}-${suffix}.pdf`, download: query.download === 'true', hit });
  });

  router.post('/:id/cancel', async (req, res) => {
    const doc = await dceOf(req, res);
    const { document, event } = await cancelDce(issueDepsOf(deps), doc.id, req.body, DCE_WAIT_MS);
    if (event.status === 'rejeitada') {
      const cStat = event.c_stat ?? '';
      const xMotivo = event.x_motivo ?? '';
      throw cancellationRefused('The authority', 'justificativa', cStat, xMotivo);
    }
    const registered = event.status === 'registrada';
    res.status(registered ? 200 : 202).json({
      document: await dceViewOf(db, document, { base: baseOf(req) }),
      event: dceEventView(event),
      ...(registered
        ? {}
        : {
            message: `Cancellation queued for the authority; follow it with GET /v1/dce/${doc.id} or the webhook dce.cancelada.`,
          }),
    });
  });

  return router;
}
