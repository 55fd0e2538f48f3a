// /v1/nfe/received: notes addressed to the company (NFeDistribuicaoDFe), their sync and the recipient's
// manifestation. Mounted on /nfe BEFORE the documents router (whose `GET /:id` would take `/received`); it
// only answers its own paths.
import { Router, type Request, type Response } from 'express';
import { issueDepsOf, type ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { ApiError, forbidden, notFound } from '../errors.ts';
import { parseOrThrow } from '../validation.ts';
import { dataList, pageLimitQuery } from '../pagination.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';
import { pageOf } from '../../db/paginate.ts';
import { AuthorityUnavailable } from '../../outbox/ports.ts';
import { receivedDb, type ReceivedNotesTable } from '../../received/tables.ts';
import { distributionAuthority, syncReceived } from '../../received/sync.ts';
import {
  awaitManifestation,
  manifestationResult,
  manifestationsOf,
  manifestReceived,
  refreshManifestations,
} from '../../received/manifest.ts';
import { receivedDetail, receivedView } from '../../received/view.ts';
import {
  manifestRequestSchema as manifestSchema,
  receivedListFilterSchema as listFilterSchema,
} from '../../../src-shared/contracts/requests.ts';

export function receivedRoutes(deps: ApiDeps): Router {
  const { db, clock } = deps;
  const router = Router();

  const receivedDeps = () => {
    const authorityFor = distributionAuthority(db);
    if (authorityFor === undefined) {
      throw new ApiError(503 as number, 'internal_error', 'The distribution service is not running.');
    }
    return { db, clock, logger: deps.logger, authorityFor };
  };

  async function noteFor(req: Request, res: Response): Promise<ReceivedNotesTable> {
    const id = String(req.params['id']);
    const probe = await receivedDb(db)
      .selectFrom('received_notes')
      .select('company_id')
      .where('id', '=', id)
      .executeTakeFirst();
    if (probe === undefined) throw notFound('Received note');
    if (!(await reachableBy(db, authOf(res))(probe.company_id))) throw forbidden();
    await refreshManifestations(db, probe.company_id, clock.now());
    return receivedDb(db)
      .selectFrom('received_notes')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  }

  router.get('/received', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    const { offset, limit, page, ...filter } = pageLimitQuery(req, listFilterSchema.shape);
    await refreshManifestations(db, company.id, clock.now());
    let query = receivedDb(db).selectFrom('received_notes').where('company_id', '=', company.id);
    if (filter.situacao !== undefined) query = query.where('situacao', '=', filter.situacao);
    if (filter.manifestacao === 'sem_manifestacao') query = query.where('manifestacao', 'is', null);
    else if (filter.manifestacao !== undefined) query = query.where('manifestacao', '=', filter.manifestacao);
    if (filter.cnpj_emitente !== undefined) query = query.where('emitente_cnpj', '=', filter.cnpj_emitente);
    if (filter.completa !== undefined)
      query = query.where('completa', '=', filter.completa === 'true' ? 1 : 0);
    if (filter.data_inicio !== undefined) query = query.where('dh_emi', '>=', filter.data_inicio);
    if (filter.data_fim !== undefined) query = query.where('dh_emi', '<', `${filter.data_fim}T99`);
    const { rows, total } = await pageOf(
      query,
      (q) => q.selectAll().orderBy('dh_emi', 'desc').orderBy('id'),
      limit,
      offset,
    );
    res.json(dataList(rows.map(receivedView), total, { page, limit }));
  });

  router.post('/received/sync', async (req, res) => {
    const company = await companyOfRequest(db, req, res);
    try {
      res.json(await syncReceived(receivedDeps(), company.id));
    } catch (error) {
      if (error instanceof AuthorityUnavailable) {
        throw new ApiError(
          502,
          'authority_unavailable',
          `The tax authority did not answer: ${error.message}`,
        );
      }
      throw error;
    }
  });

  router.get('/received/:id', async (req, res) => {
    const note = await noteFor(req, res);
    const events = await receivedDb(db)
      .selectFrom('received_events')
      .selectAll()
      .where('company_id', '=', note.company_id)
      .where('chave', '=', note.chave)
      .orderBy('nsu')
      .execute();
    res.json(receivedDetail(note, await manifestationsOf(db, note.id), events));
  });

  router.get('/received/:id/xml', async (req, res) => {
    res.type('application/xml').send((await noteFor(req, res)).xml);
  });

  router.post('/received/:id/manifest', async (req, res) => {
    const note = await noteFor(req, res);
    const body = parseOrThrow(manifestSchema, req.body);
    const { worker } = issueDepsOf(deps);
    const manifestDeps = { db, clock, secrets: deps.secrets, worker };
    const updated = await manifestReceived(manifestDeps, note, body.tipo, body.justificativa);
    const settled = await awaitManifestation(manifestDeps, updated);
    if (settled.state === 'rejeitada') {
      throw new ApiError(
        422,
        'fiscal_rejection',
        'The authority refused the manifestation.',
        [{ field: 'tipo', error: settled.x_motivo ?? `refused (${settled.c_stat ?? 'no cStat'})` }],
        { cStat: settled.c_stat ?? '', xMotivo: settled.x_motivo ?? '' },
      );
    }
    // Registered: 200 with the event's protocol. Still on its way: 202, the queue goes on.
    res.status(settled.state === 'registrada' ? 200 : 202).json(manifestationResult(updated, settled));
  });

  return router;
}
