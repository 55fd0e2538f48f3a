// /v1/nfe and /v1/nfce: create (draft or the cashier's synchronous sale), change, send, read, XML, list,
// cancel. The state machine lives in documents/state-machine.ts; these handlers only parse and delegate.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { issueDepsOf, type ApiDeps } from '../context.ts';
import { parseOrThrow } from '../validation.ts';
import { offsetList, offsetQuery, pageList, pageQuery, parseQuery } from '../pagination.ts';
import { companyOfRequest, documentOfRequest, NF_MODELOS } from './scoping.ts';
import {
  createDraft,
  sellNfce,
  sendDocument,
  resumeSale,
  sendNfceSale,
  updateDraft,
  type IssueDeps,
  type SaleResult,
  type SaleWait,
} from '../../documents/issue.ts';
import { arrivalOf } from '../middleware/arrival.ts';
import { documentsRepository, type DocumentRow } from '../../documents/repository.ts';
import { outboxRepository } from '../../outbox/repository.ts';
import { ApiError } from '../errors.ts';
import { documentView, listXml, VIEW_COLUMNS, type ViewedDocument } from '../../documents/view.ts';
import { cancelDocument, pendingCancellations } from '../../documents/cancel.ts';
import { statusFilter } from '../../documents/state-machine.ts';
import { nfListPage, type KindListQuery, type NfListFilter } from '../../documents/list.ts';
import { answerNextCursor, cursorAlone, listCursorQuery } from '../list-cursor.ts';
import { publishDocumentEvent } from '../../webhooks/publisher.ts';
import { autoPrintDocument } from '../../printing/auto-print.ts';
import { registerForSale } from './register.ts';
import { withSaleRegister, withSendRegister } from '../../register/sale-context.ts';
import { documentCompanyOf, idempotency } from '../middleware/idempotency.ts';
import { approveSale, recordSale } from '../middleware/operator-sale.ts';
import { operatorOf, recordApproved, requireApproval } from '../middleware/operator.ts';
import { operatorRefsOf } from '../../operators/service.ts';
import {
  cancelRequestSchema as cancelSchema,
  documentCreateQuerySchema as createQuerySchema,
  documentListFilterSchema as listFilterSchema,
} from '../../../src-shared/contracts/requests.ts';

/** How long a synchronous answer waits for the authority before answering with the state it has. */
const SYNC_WAIT_MS = 10_000;
/** The cashier's sale waits less: past this it completes offline (tpEmis 9). */
const SALE_WAIT_MS = 3_000;

export function documentRoutes(deps: ApiDeps, modelo: 55 | 65): Router {
  const { db } = deps;
  const router = Router();
  const basePath = modelo === 55 ? '/v1/nfe' : '/v1/nfce';
  const issueDeps = (): IssueDeps => issueDepsOf(deps);
  const pathOf = (doc: Pick<DocumentRow, 'modelo'>) => (doc.modelo === 65 ? '/v1/nfce' : '/v1/nfe');
  /** The note as the API shows it: `processando` while a cancellation waits for the authority (§3). */
  const view = async (doc: DocumentRow, message?: string) => {
    const cancelPending = (await pendingCancellations(db, [doc.id])).has(doc.id);
    const operador = (await operatorRefsOf(db, [doc])).get(doc.operator_id ?? '') ?? null;
    return documentView(doc, pathOf(doc), {
      cancelPending,
      operador,
      ...(message === undefined ? {} : { message }),
    });
  };
  const views = async (docs: ViewedDocument[]) => {
    const pending = await pendingCancellations(
      db,
      docs.map((d) => d.id),
    );
    const operators = await operatorRefsOf(db, docs);
    return docs.map((doc) =>
      documentView(doc, pathOf(doc), {
        cancelPending: pending.has(doc.id),
        operador: operators.get(doc.operator_id ?? '') ?? null,
      }),
    );
  };
  /** The cashier's bounded wait, counted from the request's arrival (a burst's queue on the server counts). */
  const saleWait = (res: Response): SaleWait => ({
    arrivedAt: arrivalOf(res, deps.clock),
    waitMs: SALE_WAIT_MS,
  });
  const model = modelo === 65 ? 'NFC-e' : 'NF-e';
  const draftMessage = (doc: DocumentRow) =>
    `${model} draft created with number ${doc.n_nf} (series ${doc.serie}) reserved; send it with POST ${basePath}/${doc.id}/send.`;
  // Idempotency-Key: a retried sale or send returns the first answer and never transmits twice.
  // A retry whose first request died with the process is answered from the note the key is linked to.
  const idem = { db, clock: deps.clock, logger: deps.logger };
  const passThrough: RequestHandler = (_req, _res, next) => next();
  const saleIdempotency =
    modelo === 65
      ? idempotency(idem, {
          resume: async ({ id }, _req, res) =>
            answerSale(res, await resumeSale(issueDeps(), id, saleWait(res))),
        })
      : passThrough;
  const sendIdempotency = idempotency(idem, {
    companyOf: documentCompanyOf(db),
    resume: async ({ id }, req, res) => {
      const doc = await documentsRepository.findById(db, id);
      if (doc === undefined) throw new ApiError(404, 'not_found', 'Document not found.');
      const sync = req.query['sync'] === 'true';
      if (sync && doc.modelo === 65) {
        await answerSyncNfce(res, (await resumeSale(issueDeps(), id, saleWait(res))).document);
        return;
      }
      if (sync && doc.status === 'processando') {
        const attempt = (await outboxRepository.openForDocument(db, id)).find(
          (r) => r.kind === 'autorizacao',
        );
        if (attempt !== undefined) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            issueDeps().worker.process(attempt.id),
            new Promise<void>((resolve) => (timer = setTimeout(resolve, SYNC_WAIT_MS))),
          ]);
          clearTimeout(timer);
        }
      }
      await answerSend(res, (await documentsRepository.findById(db, id)) ?? doc, sync);
    },
  });

  // /v1/nfe/:id serves both models (cancel and void go through the NF-e paths); /v1/nfce/:id only NFC-e.
  const documentFor = (req: Request, res: Response): Promise<DocumentRow> =>
    documentOfRequest(db, req, res, modelo === 65 ? 65 : NF_MODELOS);

  /** What `send?sync=true` answers (seed §4.1). */
  const syncAnswer = (sent: DocumentRow) => ({
    id: sent.id,
    numero: sent.n_nf,
    serie: sent.serie,
    status: sent.status,
    chave_acesso: sent.chave,
    protocolo: sent.n_prot,
    autorizada_em: sent.authorized_at,
    danfe_url: `${basePath}/${sent.id}/danfe`,
    xml_url: `${basePath}/${sent.id}/xml`,
  });
  // An offline sale never passes through the queue's settle step: announce nfce.contingencia now
  // (deduplicated per note and state, so an online one announced by the queue is not sent twice).
  const afterSale = (document: DocumentRow) => publishDocumentEvent(db, deps.clock, document, deps.logger);

  // §4.1/§4.2: create is a draft (number reserved, signed); POST /:id/send sends it.
  const answerSale = async (res: Response, result: SaleResult) => {
    await afterSale(result.document);
    res
      .status(201)
      .json(
        await view(
          result.document,
          result.mode === 'online'
            ? `NFC-e ${result.document.n_nf} ${result.document.status}.`
            : `NFC-e ${result.document.n_nf} issued in offline contingency; it is sent when the authority answers.`,
        ),
      );
    // After the answer: the receipt is queued for the default printer when it prints automatically
    // (once per note; never throws, so printing cannot fail the sale).
    void autoPrintDocument({ db, clock: deps.clock, logger: deps.logger }, result.document);
  };
  /** The answer of `send?sync=true` for an NFC-e: the cashier's mode. */
  const answerSyncNfce = async (res: Response, document: DocumentRow) => {
    await afterSale(document);
    res.status(200).json({
      ...syncAnswer(document),
      tipo_emissao: document.tp_emis,
      qr_code: document.qr_code,
    });
    void autoPrintDocument({ db, clock: deps.clock, logger: deps.logger }, document);
  };
  const answerSend = async (res: Response, sent: DocumentRow, sync: boolean) => {
    if (!sync) {
      // A draft sent while offline is issued in contingency at once: announce it like the sale does.
      if (sent.status === 'contingencia') {
        await afterSale(sent);
        void autoPrintDocument({ db, clock: deps.clock, logger: deps.logger }, sent);
      }
      res
        .status(202)
        .json(
          await view(
            sent,
            sent.status === 'contingencia'
              ? `${model} ${sent.n_nf} issued in offline contingency; it is sent when the authority answers.`
              : `${model} ${sent.n_nf} queued for the authority; follow it with GET ${basePath}/${sent.id} or the webhook.`,
          ),
        );
      return;
    }
    res.status(200).json(syncAnswer(sent));
  };

  router.post('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    if (req.body === undefined) parseOrThrow(z.object({}), undefined);
    // `?rascunho=true` was the switch of the two-step NFC-e before drafts became the default; still accepted.
    parseQuery(req, createQuerySchema);
    // An operator's NFC-e needs the open session of its register (issue 13); other software's does not.
    const register = modelo === 65 ? await registerForSale(db, res, company.id) : null;
    // With X-Operator-Token: price changes and discounts beyond the role need a supervisor (issue 13).
    const approved = await approveSale(deps, req, res, company.id);
    const draft = await withSaleRegister(
      { companyId: company.id, sessionId: register?.id ?? null, operatorId: approved?.operatorId ?? null },
      async () =>
        // A devolução written by hand gets the referenced sale's values prorated by the NF-e kind.
        createDraft(issueDeps(), company.id, modelo, req.body),
    );
    await recordSale(deps, approved, draft);
    res.status(201).json(await view(draft, draftMessage(draft)));
  });

  if (modelo === 65) {
    // Balcão's addition: the cashier's one-step sale, issued and sent at once, authorized or in offline
    // contingency within a bounded wait, so a sale is never stopped by the network.
    router.post('/venda', saleIdempotency, async (req, res) => {
      const company = await companyOfRequest(db, req, res);
      if (req.body === undefined) parseOrThrow(z.object({}), undefined);
      const register = await registerForSale(db, res, company.id);
      const approved = await approveSale(deps, req, res, company.id);
      // The note is tied to its session and operator in the transaction that creates it (and a re-issue too).
      const sale = await withSaleRegister(
        { companyId: company.id, sessionId: register?.id ?? null, operatorId: approved?.operatorId ?? null },
        () => sellNfce(issueDeps(), company.id, req.body, saleWait(res)),
      );
      await recordSale(deps, approved, sale.document);
      await answerSale(res, sale);
    });
  }

  router.put('/:id', async (req, res) => {
    const doc = await documentFor(req, res);
    if (req.body === undefined) parseOrThrow(z.object({}), undefined);
    // A devolução's items sent without `impostos` (the back office's form sends quantities) get the referenced
    // sale's values prorated again for their new quantity (the NF-e kind's amendPayload).
    const updated = await updateDraft(issueDeps(), doc.id, req.body);
    res.json(
      await view(
        updated,
        `Data replaced; number ${updated.n_nf} kept. Send it again with POST ${basePath}/${updated.id}/send.`,
      ),
    );
  });

  router.post('/:id/send', sendIdempotency, async (req, res) => {
    const doc = await documentFor(req, res);
    const sync = req.query['sync'] === 'true';
    // A draft of a register closed since is re-tied to its caixa's open session only when an operator of
    // that caixa sends it (issue 13); the operator's register rides along into the send's transaction.
    const current = operatorOf(res);
    const sender = current === null ? null : { companyId: current.operator.company_id, caixa: current.caixa };
    if (sync && doc.modelo === 65) {
      // The cashier's mode: authorized, or issued in offline contingency, within the sale's bounded wait.
      const sent = await withSendRegister(sender, () => sendNfceSale(issueDeps(), doc.id, saleWait(res)));
      await answerSyncNfce(res, sent.document);
      return;
    }
    const sent = await withSendRegister(sender, () =>
      sendDocument(issueDeps(), doc.id, sync ? SYNC_WAIT_MS : null),
    );
    await answerSend(res, sent, sync);
  });

  router.get('/:id', async (req, res) => {
    res.json(await view(await documentFor(req, res)));
  });

  router.get('/:id/xml', async (req, res) => {
    const doc = await documentFor(req, res);
    // nfeProc once authorized; before that the signed NFe itself.
    res.type('application/xml').send(doc.proc_xml ?? doc.xml);
  });

  router.post('/:id/cancel', async (req, res) => {
    const doc = await documentFor(req, res);
    const { justificativa } = parseOrThrow(cancelSchema, req.body ?? {});
    // An operator's cancel: a caixa needs a supervisor; every one is audited once it is queued.
    const approval = await requireApproval(deps, res, req, 'cancelar_venda', { deferAudit: true });
    const cancelling = await cancelDocument(issueDeps(), doc.id, justificativa);
    if (approval !== null)
      await recordApproved(deps, approval, { documentId: doc.id, detalhe: { justificativa } });
    res
      .status(202)
      .json(
        await view(
          cancelling,
          `Cancellation queued; the note reads processando until the authority answers, then cancelada.`,
        ),
      );
  });

  router.get('/', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const query = parseQuery(req, listFilterSchema);
    const listModelo =
      modelo === 65 ? 65 : query.modelo === undefined ? null : (Number(query.modelo) as 55 | 65);
    const filter: NfListFilter = {
      modelos: listModelo === null ? NF_MODELOS : [listModelo],
      statuses: query.status === undefined ? undefined : statusFilter(query.status),
      from: query.data_inicio,
      to: query.data_fim,
    };
    // Only what the view reads: a list never carries the payload or the authority's copies of the XML, and
    // the signed XML only for a row stored without its summary.
    const select = (q: KindListQuery) => q.select(VIEW_COLUMNS).select(listXml);
    // Keyset paging (a Balcão addition): `cursor` starts just after the last row of a previous page.
    const { cursor } = parseQuery(req, listCursorQuery);
    cursorAlone(req.query, cursor);
    if (listModelo === 65) {
      // §4.2: NFC-e lists page by limit/offset.
      const { limit, offset } = offsetQuery(req);
      const window = cursor === undefined ? { limit, offset } : { limit, cursor };
      const found = await nfListPage(db, company.id, filter, window, select);
      answerNextCursor(res, found.next);
      res.json(offsetList(await views(found.rows), found.total, limit, found.offset));
      return;
    }
    const { page, pageSize } = pageQuery(req);
    const window =
      cursor === undefined ? { limit: pageSize, offset: (page - 1) * pageSize } : { limit: pageSize, cursor };
    const found = await nfListPage(db, company.id, filter, window, select);
    answerNextCursor(res, found.next);
    const shown = cursor === undefined ? page : Math.floor(found.offset / pageSize) + 1;
    res.json(pageList(await views(found.rows), found.total, shown, pageSize));
  });

  return router;
}
