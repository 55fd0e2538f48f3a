// Dynamic PIX over HTTP: the company's PSP settings (/v1/companies/:companyId/pix), charges (/v1/pix/charges),
// the embedded sandbox PSP's switches (/v1/sandbox/pix), and the PSP's webhook receiver outside /v1.
import express, { Router, type Request, type Response } from 'express';
import QRCode from 'qrcode';
import type { ApiDeps } from '../context.ts';
import { authOf } from '../middleware/auth.ts';
import { parseOrThrow } from '../validation.ts';
import { ApiError, forbidden, notFound, validationError } from '../errors.ts';
import { companyForAuth } from '../../companies/service.ts';
import { companyOfRequest, reachableBy } from './scoping.ts';
import { idempotency } from '../middleware/idempotency.ts';
import { queueTicketPrint } from '../../printing/service.ts';
import {
  cancelPixCharge,
  chargeOfCompany,
  createPixCharge,
  deletePixConfig,
  getPixConfig,
  pixChargeView,
  receivePixWebhook,
  refreshPixCharge,
  savePixConfig,
  testPixConnection,
  type PixDeps,
  type PixRuntime,
} from '../../pix/service.ts';
import {
  pixChargeCreateSchema,
  pixConfigSchema,
  pixSandboxFaultsSchema,
  pixWebhookBodySchema,
} from '../../../src-shared/contracts/pix.ts';

const NO_RUNTIME: PixRuntime = { sandboxPsp: null, serviceUrl: null };

function pixDepsOf(deps: ApiDeps): PixDeps {
  return {
    db: deps.db,
    clock: deps.clock,
    secrets: deps.secrets,
    logger: deps.logger,
    runtime: deps.hooks.pix ?? NO_RUNTIME,
  };
}

/** R$ 1.234,56 from exact decimal text (no float arithmetic: only the digits are regrouped). */
function brl(text: string): string {
  const [int = '0', frac = '00'] = text.split('.');
  return `R$ ${int.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${frac.padEnd(2, '0')}`;
}

export function pixRoutes(deps: ApiDeps): Router {
  const { db } = deps;
  const router = Router();
  const companyOf = (req: Request<{ companyId: string }>, res: Response) =>
    companyForAuth(db, authOf(res), req.params.companyId);
  const chargeOf = (req: Request<{ txid: string }>, res: Response) =>
    chargeOfCompany(db, req.params.txid, reachableBy(db, authOf(res)));

  router.get('/companies/:companyId/pix', async (req, res) => {
    const company = await companyOf(req, res);
    res.json(await getPixConfig(db, company.id));
  });

  router.put('/companies/:companyId/pix', async (req, res) => {
    const company = await companyOf(req, res);
    const input = parseOrThrow(pixConfigSchema, req.body);
    res.json(await savePixConfig(pixDepsOf(deps), company.id, input));
  });

  // "Testar conexão" in Settings › PIX: a token from the PSP, or the PSP's refusal.
  router.post('/companies/:companyId/pix/test', async (req, res) => {
    const company = await companyOf(req, res);
    res.json(await testPixConnection(pixDepsOf(deps), company.id));
  });

  router.delete('/companies/:companyId/pix', async (req, res) => {
    const company = await companyOf(req, res);
    await deletePixConfig(db, deps.clock, company.id);
    res.status(204).end();
  });

  // A retried charge creation answers the first charge instead of opening a second one at the PSP.
  router.post(
    '/pix/charges',
    idempotency({ db, clock: deps.clock, logger: deps.logger }, {}),
    async (req, res) => {
      const company = await companyOfRequest(db, req, res);
      const input = parseOrThrow(pixChargeCreateSchema, req.body);
      res.status(201).json(await createPixCharge(pixDepsOf(deps), company.id, input));
    },
  );

  router.get('/pix/charges/:txid', async (req, res) => {
    const row = await chargeOf(req, res);
    res.json(pixChargeView(await refreshPixCharge(pixDepsOf(deps), row)));
  });

  router.post('/pix/charges/:txid/cancel', async (req, res) => {
    const row = await chargeOf(req, res);
    res.json(pixChargeView(await cancelPixCharge(pixDepsOf(deps), row)));
  });

  router.get('/pix/charges/:txid/qrcode.png', async (req, res) => {
    const row = await chargeOf(req, res);
    const png = await QRCode.toBuffer(row.pix_copia_e_cola, {
      type: 'png',
      errorCorrectionLevel: 'M',
      margin: 2,
      width: 360,
    });
    res.type('image/png').set('Cache-Control', 'private, no-store').send(png);
  });

  // The QR on paper, for a customer whose phone cannot read the screen.
  router.post('/pix/charges/:txid/print', async (req, res) => {
    const row = await chargeOf(req, res);
    const queued = await queueTicketPrint(
      { db, clock: deps.clock, logger: deps.logger },
      {
        companyId: row.company_id,
        titulo: 'PAGAMENTO PIX',
        linhas: [
          { par: ['Valor', brl(row.valor)] },
          {
            par: [
              'Válido até',
              new Date(row.expires_at).toLocaleTimeString('pt-BR', { timeZone: 'America/Sao_Paulo' }),
            ],
          },
          { separador: true },
          { texto: 'Aponte a câmera do app do seu banco', alinhar: 'centro' },
          { qrcode: row.pix_copia_e_cola },
          { texto: `txid ${row.txid}`, alinhar: 'centro' },
        ],
        abrirGaveta: false,
        kind: 'ticket',
      },
    );
    if (queued === null) {
      throw new ApiError(409, 'sem_impressora', 'Nenhuma impressora configurada para imprimir o QR do PIX.', [
        { field: 'printerId', error: 'the company has no default printer' },
      ]);
    }
    res.status(202).json(queued);
  });

  // --- the embedded sandbox PSP ---
  const sandboxPsp = () => {
    const psp = deps.hooks.pix?.sandboxPsp ?? null;
    if (psp === null) throw notFound('Embedded sandbox PSP');
    return psp;
  };

  router.get('/sandbox/pix/faults', (_req, res) => {
    if (authOf(res).scope !== 'organization')
      throw forbidden('Only an organization key can switch the sandbox PSP.');
    res.json(sandboxPsp().faults.state());
  });

  router.post('/sandbox/pix/faults', async (req, res) => {
    if (authOf(res).scope !== 'organization')
      throw forbidden('Only an organization key can switch the sandbox PSP.');
    const psp = sandboxPsp();
    const { expirar, ...switches } = parseOrThrow(pixSandboxFaultsSchema, req.body);
    if (expirar !== undefined) {
      const row = await chargeOfCompany(db, expirar, reachableBy(db, authOf(res)));
      if (!psp.expire(row.txid))
        throw validationError([{ field: 'expirar', error: 'the sandbox PSP does not know this charge' }]);
    }
    res.json(psp.faults.apply(switches));
  });

  // Any key that reaches the charge may pay it in the sandbox: the cashier's "Simular pagamento" uses its own.
  router.post('/sandbox/pix/charges/:txid/pay', async (req, res) => {
    const row = await chargeOf(req, res);
    const config = await getPixConfig(db, row.company_id).catch(() => null);
    if (config?.provedor !== 'sandbox') throw notFound('Charge on the sandbox PSP');
    const psp = sandboxPsp();
    try {
      await psp.pay(row.txid);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new ApiError(409, 'invalid_state', `The sandbox PSP cannot pay it: ${error.message}.`, [
        { field: 'status', error: error.message },
      ]);
    }
    const fresh = await chargeOfCompany(db, row.txid, () => Promise.resolve(true));
    res.json(pixChargeView(await refreshPixCharge(pixDepsOf(deps), fresh)));
  });

  return router;
}

/** `POST /pix-webhook/:secret/pix`, outside /v1: the PSP has no API key; the secret in the path is the company's. */
export function pixWebhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/:secret/pix', express.json({ limit: '256kb' }), async (req, res) => {
    const body = parseOrThrow(pixWebhookBodySchema, req.body);
    const txids = body.pix.flatMap((p) => (p.txid === undefined ? [] : [p.txid]));
    await receivePixWebhook(pixDepsOf(deps), String(req.params['secret']), txids);
    res.status(200).json({ recebidos: body.pix.length });
  });
  return router;
}
