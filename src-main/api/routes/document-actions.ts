// Actions on issued notes and on the numbering, mounted on /v1 itself because they span two resources:
//   POST /nfe/:id/correction-letter, GET /nfe/:id/correction-letters, GET /nfe/:id/events  (CC-e, events)
//   POST /nfe/inutilizar, GET /nfe/inutilizar/:id                                            (inutilização)
//   POST /nfe/:id/devolucao                                                                  (devolução draft)
//   GET  /companies/:id/abandoned-numbers, POST /companies/:id/abandoned-numbers/void
// Handlers only parse and delegate to src-main/documents/.
import { Router, type Request, type Response } from 'express';
import { issueDepsOf, type ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { ApiError, forbidden, fromDomainError, notFound, validationError } from '../errors.ts';
import { parseOrThrow } from '../validation.ts';
import { parseQuery } from '../pagination.ts';
import { companyOfRequest, documentOfRequest, reachableBy, NF_MODELOS } from './scoping.ts';
import { companyForAuth } from '../../companies/service.ts';
import type { IssueDeps } from '../../documents/issue.ts';
import type { DocumentRow } from '../../documents/repository.ts';
import { documentView } from '../../documents/view.ts';
import {
  awaitEvent,
  correctionLetterView,
  eventView,
  issueCorrectionLetter,
  listEvents,
  TP_CCE,
} from '../../documents/events-service.ts';
import {
  findVoid,
  SPELLING_A,
  voidNumbers,
  voidQueueError,
  voidView,
  type VoidFieldNames,
  type VoidRequest,
} from '../../documents/inutilizar.ts';
import { createDevolucao, devolucaoRequestSchema } from '../../documents/kinds/nfe/devolucao.ts';
import {
  abandonedNumbers,
  mergeRanges,
  numbersWithoutDocument,
  rangesOf,
  voidAbandoned,
  ABANDONED_JUSTIFICATION,
} from '../../documents/abandoned.ts';
import { ABANDONED_AFTER_HOURS, lastAbandonedCheck } from '../../documents/abandoned-check.ts';
import { toSpellingA } from '../../fiscal/nfe/normalize.ts';
import {
  abandonedQuerySchema as abandonedQuery,
  abandonedVoidRequestSchema as abandonedVoidSchema,
  correctionRequestSchema as correctionSchema,
  voidRequestSchemaA as voidSchemaA,
  voidRequestSchemaB as voidSchemaB,
} from '../../../src-shared/contracts/requests.ts';

const SPELLING_B: VoidFieldNames = {
  ...SPELLING_A,
  numeroInicial: 'numero_inicial',
  numeroFinal: 'numero_final',
};

const DEFAULT_ABANDONED_HOURS = ABANDONED_AFTER_HOURS;

export function documentActionRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();
  const issueDeps = (): IssueDeps => issueDepsOf(deps);

  /** The note of `:id`, 404 when it exists nowhere, 403 when the key cannot reach its company. */
  const documentFor = (req: Request, res: Response): Promise<DocumentRow> =>
    documentOfRequest(db, req, res, NF_MODELOS);

  // --- carta de correção and events ---------------------------------------------------------------

  router.post('/nfe/:id/correction-letter', async (req, res) => {
    const doc = await documentFor(req, res);
    const body = parseOrThrow(correctionSchema, req.body);
    if (body.correcao !== undefined && body.texto_correcao !== undefined) {
      throw validationError([
        { field: 'texto_correcao', error: 'give only one of correcao and texto_correcao' },
      ]);
    }
    const field = body.correcao !== undefined ? 'correcao' : 'texto_correcao';
    const text = body.correcao ?? body.texto_correcao;
    if (text === undefined) throw validationError([{ field: 'correcao', error: 'required' }]);
    const deps = issueDeps();
    const letter = await awaitEvent(deps, await issueCorrectionLetter(deps, doc.id, text, field));
    if (letter.status === 'rejeitada') {
      throw new ApiError(
        422,
        'fiscal_rejection',
        'The authority refused the correction letter.',
        [{ field, error: letter.x_motivo ?? `refused (${letter.c_stat ?? 'no cStat'})` }],
        { cStat: letter.c_stat ?? '', xMotivo: letter.x_motivo ?? '' },
      );
    }
    // Seed §3/§4.1: 202 whether the authority already registered it (135, with its protocol) or not yet.
    res.status(202).json(correctionLetterView(letter));
  });

  router.get('/nfe/:id/correction-letters', async (req, res) => {
    const doc = await documentFor(req, res);
    const rows = await listEvents(db, doc.id, TP_CCE);
    res.json({ items: rows.map(correctionLetterView) });
  });

  router.get('/nfe/:id/events', async (req, res) => {
    const doc = await documentFor(req, res);
    const rows = await listEvents(db, doc.id);
    res.json({ items: rows.map(eventView) });
  });

  // --- inutilização -------------------------------------------------------------------------------

  router.post('/nfe/inutilizar', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const raw: unknown = req.body;
    const spellingB =
      typeof raw === 'object' && raw !== null && ('numero_inicial' in raw || 'numero_final' in raw);
    let request: VoidRequest;
    if (spellingB) {
      const b = parseOrThrow(voidSchemaB, raw);
      request = {
        modelo: b.modelo,
        serie: b.serie,
        numeroInicial: b.numero_inicial,
        numeroFinal: b.numero_final,
        justificativa: b.justificativa,
      };
    } else {
      request = parseOrThrow(voidSchemaA, raw);
    }
    const row = await voidNumbers(issueDeps(), company.id, request, spellingB ? SPELLING_B : SPELLING_A);
    const view = await voidView(db, row);
    if (row.status === 'rejeitada') {
      throw new ApiError(
        422,
        'fiscal_rejection',
        'The authority refused the inutilização.',
        [{ field: spellingB ? 'numero_inicial' : 'numeroInicial', error: view.xMotivo ?? 'refused' }],
        { cStat: view.cStat ?? '', xMotivo: view.xMotivo ?? '' },
      );
    }
    if (row.status === 'processando') {
      // Seed §4.1 makes this call synchronous; an authority that did not answer within the wait is
      // §7's 502. The request is not lost: the queue keeps sending it, and the body says where to follow it.
      const url = `/v1/nfe/inutilizar/${row.id}`;
      const cause = await voidQueueError(db, row);
      throw new ApiError(
        502,
        'authority_unavailable',
        `The tax authority did not answer the inutilização${cause === null ? '' : ` (${cause})`}. ` +
          `The request ${row.id} is kept and will be retried automatically; follow it at GET ${url}.`,
        [],
        { pending: { id: row.id, status: 'processando', url } },
      );
    }
    res.status(200).json(view);
  });

  // An inutilização answered 502 (kept, still on its way) is followed here until the queue settles it.
  router.get('/nfe/inutilizar/:id', async (req, res) => {
    const row = await findVoid(db, String(req.params['id']));
    // A CT-e range (recorded locally, see /v1/cte/inutilizar) is not an NF-e inutilização.
    if (row === undefined || !NF_MODELOS.includes(row.modelo)) throw notFound('Inutilização');
    if (!(await reachableBy(db, authOf(res))(row.company_id))) throw forbidden();
    res.json(await voidView(db, row));
  });

  // --- devolução ----------------------------------------------------------------------------------

  router.post('/nfe/:id/devolucao', async (req, res) => {
    const doc = await documentFor(req, res);
    const raw: unknown = req.body ?? {};
    const request = parseOrThrow(devolucaoRequestSchema, toSpellingA(raw));
    const draft = await createDevolucao(issueDeps(), doc.id, request);
    res.status(201).json(documentView(draft, '/v1/nfe'));
  });

  // --- abandoned numbers --------------------------------------------------------------------------

  router.get('/companies/:id/abandoned-numbers', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), String(req.params['id']));
    const query = parseQuery(req, abandonedQuery);
    const olderThanHours = query.older_than_hours ?? query.olderThanHours ?? DEFAULT_ABANDONED_HOURS;
    const cutoff = new Date(deps.clock.now().getTime() - olderThanHours * 3600_000);
    const numbers = await abandonedNumbers(db, company.id, cutoff);
    // Numbers the series passed that no document holds and no void covers: listed so every number is explained.
    const withoutDocument = await numbersWithoutDocument(db, company.id);
    const ranges = mergeRanges(rangesOf(numbers), withoutDocument);
    const daily = lastAbandonedCheck(db, company.id);
    res.json({
      older_than_hours: olderThanHours,
      cutoff: cutoff.toISOString(),
      total: numbers.length,
      // What the daily check found last time it ran (it also runs shortly after each start).
      verificacao_diaria:
        daily === null
          ? null
          : { verificada_em: daily.checkedAt, older_than_hours: daily.olderThanHours, total: daily.total },
      items: numbers.map((n) => ({
        id: n.documentId,
        modelo: n.modelo,
        serie: n.serie,
        numero: n.numero,
        status: n.status,
        ambiente: n.ambiente,
        criada_em: n.criada_em,
        atualizada_em: n.atualizada_em,
      })),
      sem_documento: withoutDocument,
      offer:
        ranges.length === 0
          ? null
          : {
              message:
                'These numbers were reserved but never issued: void them (inutilização) so the series has no gaps.',
              method: 'POST',
              url: `/v1/companies/${company.id}/abandoned-numbers/void`,
              body: { older_than_hours: olderThanHours, justificativa: ABANDONED_JUSTIFICATION },
              ranges,
            },
    });
  });

  router.post('/companies/:id/abandoned-numbers/void', async (req, res) => {
    const company = await companyForAuth(db, authOf(res), String(req.params['id']));
    const body = parseOrThrow(abandonedVoidSchema, req.body ?? {});
    const olderThanHours = body.older_than_hours ?? body.olderThanHours ?? DEFAULT_ABANDONED_HOURS;
    const cutoff = new Date(deps.clock.now().getTime() - olderThanHours * 3600_000);
    const results = await voidAbandoned(issueDeps(), company.id, cutoff, body.justificativa);
    res.json({
      older_than_hours: olderThanHours,
      cutoff: cutoff.toISOString(),
      voided: results.reduce((n, r) => n + (r.inutilizacao?.documentos.length ?? 0), 0),
      // A range that failed says why as an error body with the status the same failure answers alone.
      results: results.map((r) => ({
        ...r,
        error: r.error === null ? null : { status: fromDomainError(r.error).status, ...r.error.toBody() },
      })),
    });
  });

  return router;
}
