// /v1/nfse (§4.4): issue (DPS signed and sent at once, answered within a bounded wait), drafts and their
// changes, read, list, XML, DANFSe, cancellation and substitution. Handlers parse, scope the request to the
// key's company and call the NFS-e kind's service; the answer's status says what the national environment did.
import { Router, type Request, type Response } from 'express';
import { serviceStarting } from '../errors.ts';
import { issueDepsOf, type ApiDeps } from '../context.ts';
import { sendPdf } from '../pdf-answer.ts';
import { dataList, pageLimitQuery, parseQuery } from '../pagination.ts';
import { companyOfRequest, documentOfRequest } from './scoping.ts';
import { cancellationRefused, DomainError, invalidState, notFound } from '../../errors.ts';
import { documentCompanyOf, idempotency } from '../middleware/idempotency.ts';
import type { DocumentRow } from '../../documents/repository.ts';
import type { Ambiente } from '../../db/schema.ts';
import { documentsRepository } from '../../documents/repository.ts';
import { NFSE_MODELO } from '../../documents/kinds/nfse/kind.ts';
import {
  cancelNfse,
  createNfseDraft,
  deleteNfse,
  issueNfse,
  sendNfse,
  substituteNfse,
  updateNfse,
  type NfseDeps,
} from '../../documents/kinds/nfse/service.ts';
import { danfseOf, nfseXmlOf } from '../../documents/kinds/nfse/danfse.ts';
import { listNfse, nfseEventXml, nfseViewOf } from '../../documents/kinds/nfse/view.ts';
import {
  nfseCreateQuerySchema,
  nfseListFilterShape,
  nfseXmlQuerySchema,
} from '../../../src-shared/contracts/nfse-view.ts';
import { printedPdfQuerySchema } from '../../../src-shared/contracts/common.ts';

/**
 * How long POST /v1/nfse, send and cancel wait for the national environment before answering 202 (§4.4 says
 * the note is transmitted in real time; when it is slow, the DPS stays queued and the answer says how to follow).
 */
export const NFSE_WAIT_MS = 10_000;

export function nfseRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();
  const idem = { db, clock: deps.clock, logger: deps.logger };

  const nfseDeps = (): NfseDeps => {
    const municipal = deps.hooks.nfseMunicipal;
    if (municipal === undefined) throw serviceStarting('The transmission queue is starting.');
    return {
      ...issueDepsOf(deps),
      municipal: (companyId: string, ambiente?: Ambiente) => municipal(companyId, ambiente),
    };
  };

  /** Scheme, host and port of this request: the links of the answers are absolute (§2.8 public URLs). */
  const baseOf = (req: Request): string => `${req.protocol}://${req.get('host') ?? 'localhost'}`;

  /** The NFS-e of `:id`: 404 when there is none (or the id is another kind's document), 403 out of reach. */
  const nfseOf = async (req: Request, res: Response): Promise<DocumentRow> =>
    documentOfRequest(db, req, res, NFSE_MODELO);

  const nfseOfId = async (id: string): Promise<DocumentRow> => {
    const doc = await documentsRepository.findById(db, id);
    if (doc === undefined || doc.modelo !== NFSE_MODELO) throw notFound('NFS-e');
    return doc;
  };

  /**
   * What a transmission answers once its wait is over: 200 authorized; 422 `fiscal_rejection` when the
   * national environment refused it (the note is kept in `erro`, named in `document`, to be corrected with
   * PUT and sent again); 202 while it is still on its way.
   */
  const answerTransmitted = async (req: Request, res: Response, doc: DocumentRow): Promise<void> => {
    const base = baseOf(req);
    if (doc.status === 'erro') {
      const cStat = doc.c_stat ?? '';
      const xMotivo = doc.x_motivo ?? '';
      throw new DomainError(
        'fiscal_rejection',
        `The national environment rejected the NFS-e${cStat === '' ? '' : ` (${cStat})`}: ${xMotivo}. ` +
          `Correct it with PUT /v1/nfse/${doc.id} and send it again with POST /v1/nfse/${doc.id}/send.`,
        [{ field: 'body', error: cStat === '' ? xMotivo : `${cStat} ${xMotivo}` }],
        {
          extra: {
            cStat,
            xMotivo,
            document: { id: doc.id, status: doc.status, url: `${base}/v1/nfse/${doc.id}` },
          },
        },
      );
    }
    if (doc.status === 'autorizada') {
      res.status(200).json(await nfseViewOf(db, doc, { base }));
      return;
    }
    res.status(202).json(
      await nfseViewOf(db, doc, {
        base,
        message:
          `NFS-e (DPS ${doc.n_nf}, series ${doc.serie}) queued for the national environment, which did not answer in time; ` +
          `it is sent by the queue (never twice: the DPS is looked up first). Follow it with GET /v1/nfse/${doc.id} ` +
          'or the webhook nfse.autorizada (nfse.rejeitada when refused).',
      }),
    );
  };

  router.post(
    '/',
    idempotency(idem, {
      // A retry whose first request died after the DPS was queued: answered from the note as it is now.
      resume: async ({ id }, req, res) => answerTransmitted(req, res, await nfseOfId(id)),
    }),
    async (req, res) => {
      const query = parseQuery(req, nfseCreateQuerySchema);
      const company = await companyOfRequest(db, req, res);
      if (query.rascunho === 'true') {
        const draft = await createNfseDraft(nfseDeps(), company.id, req.body ?? {});
        res.status(201).json(
          await nfseViewOf(db, draft, {
            base: baseOf(req),
            message: `NFS-e draft created with DPS number ${draft.n_nf} (series ${draft.serie}); send it with POST /v1/nfse/${draft.id}/send.`,
          }),
        );
        return;
      }
      const doc = await issueNfse(nfseDeps(), company.id, req.body ?? {}, NFSE_WAIT_MS);
      await answerTransmitted(req, res, doc);
    },
  );

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { page, limit, offset, ...filter } = pageLimitQuery(req, nfseListFilterShape);
    const { items, total } = await listNfse(db, company.id, filter, { limit, offset }, baseOf(req));
    res.json(dataList(items, total, { page, limit }));
  });

  router.get('/:id', async (req, res) => {
    res.json(await nfseViewOf(db, await nfseOf(req, res), { base: baseOf(req) }));
  });

  router.put('/:id', async (req, res) => {
    const doc = await nfseOf(req, res);
    const updated = await updateNfse(nfseDeps(), doc.id, req.body ?? {});
    res.json(await nfseViewOf(db, updated, { base: baseOf(req) }));
  });

  router.delete('/:id', async (req, res) => {
    const doc = await nfseOf(req, res);
    await deleteNfse(nfseDeps(), doc.id);
    res.status(204).end();
  });

  router.post(
    '/:id/send',
    idempotency(idem, {
      companyOf: documentCompanyOf(db),
      resume: async ({ id }, req, res) => answerTransmitted(req, res, await nfseOfId(id)),
    }),
    async (req, res) => {
      const doc = await nfseOf(req, res);
      await answerTransmitted(req, res, await sendNfse(nfseDeps(), doc.id, NFSE_WAIT_MS));
    },
  );

  router.get('/:id/xml', async (req, res) => {
    const { formato } = parseQuery(req, nfseXmlQuerySchema);
    const doc = await nfseOf(req, res);
    const { dps, nfse } = nfseXmlOf(doc);
    if (formato === 'dps') {
      res.type('application/xml').send(dps);
      return;
    }
    if (formato === 'nfse') {
      if (nfse === null) throw invalidState(doc.status, 'read the authorized NFS-e XML of');
      res.type('application/xml').send(nfse);
      return;
    }
    res.json({ id: doc.id, dps_xml: dps, nfse_xml: nfse, eventos: await nfseEventXml(db, doc.id) });
  });

  router.get('/:id/danfse', async (req, res) => {
    const query = parseQuery(req, printedPdfQuerySchema);
    const doc = await nfseOf(req, res);
    // §4.4 answers "the public URL of the PDF": a client that asks for JSON gets the links, anything else the PDF.
    if (req.accepts(['application/pdf', 'application/json']) === 'application/json') {
      const view = await nfseViewOf(db, doc, { base: baseOf(req) });
      if (view.chave_acesso_50 === null) throw invalidState(doc.status, 'print the DANFSe of');
      res.json({ id: view.id, danfse_url: view.danfse_url, qr_code_url: view.qr_code_url });
      return;
    }
    const pdf = await danfseOf({ db, clock: deps.clock }, doc, { regenerate: query.regenerate === 'true' });
    sendPdf(res, pdf, { filename: `${doc.chave}-danfse.pdf`, download: query.download === 'true' });
  });

  router.post('/:id/cancel', async (req, res) => {
    const doc = await nfseOf(req, res);
    const { event } = await cancelNfse(nfseDeps(), doc.id, req.body ?? {}, NFSE_WAIT_MS);
    const after = await nfseOfId(doc.id);
    const view = await nfseViewOf(db, after, { base: baseOf(req) });
    if (event.status === 'rejeitada' || view.cancelamento?.status === 'rejeitada') {
      const cStat = view.cancelamento?.cStat ?? '';
      const xMotivo = view.cancelamento?.xMotivo ?? '';
      throw cancellationRefused('The national environment', 'codigo_motivo', cStat, xMotivo);
    }
    const registered = view.cancelamento?.status === 'registrada';
    res.status(registered ? 200 : 202).json({
      id: view.id,
      status: view.status,
      cancelamento: view.cancelamento,
      ...(registered
        ? {}
        : {
            message: `Cancellation queued for the national environment; follow it with GET /v1/nfse/${doc.id} or the webhook nfse.cancelada.`,
          }),
    });
  });

  router.post('/:id/substituir', async (req, res) => {
    const doc = await nfseOf(req, res);
    const created = await substituteNfse(nfseDeps(), doc.id, req.body ?? {});
    res.status(201).json(
      await nfseViewOf(db, created, {
        base: baseOf(req),
        message:
          created.status === 'rascunho'
            ? `Substitute NFS-e draft created (DPS ${created.n_nf}); send it with POST /v1/nfse/${created.id}/send. Once authorized, NFS-e ${doc.id} becomes substituida.`
            : `Substitute NFS-e queued (DPS ${created.n_nf}); once authorized, NFS-e ${doc.id} becomes substituida. Follow it with GET /v1/nfse/${created.id}.`,
      }),
    );
  });

  return router;
}
