// The Express application: /healthz, the authenticated /v1 API, the UI's static files, and the error shape.
import fs from 'node:fs';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Express } from 'express';
import type { ApiDeps } from './context.ts';
import { requireApiKey } from './middleware/auth.ts';
import { canonicalLegacyIds } from './middleware/legacy-ids.ts';
import { singleValuedQuery } from './pagination.ts';
import { errorHandler, notFoundHandler } from './middleware/errors.ts';
import { verifyJsonDepth } from './middleware/json-depth.ts';
import type { RateLimiter } from './middleware/rate-limit.ts';
import { randomUUID } from 'node:crypto';
import { companyRoutes } from './routes/companies.ts';
import { customerRoutes } from './routes/customers.ts';
import { fiscalProfileRoutes, productRoutes } from './routes/catalog.ts';
import { serviceRoutes } from './routes/services.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { documentRoutes } from './routes/documents.ts';
import { cteRoutes } from './routes/cte.ts';
import { cteSettingsRoutes } from './routes/cte-settings.ts';
import { nfseRoutes } from './routes/nfse.ts';
import { nfseSettingsRoutes } from './routes/nfse-settings.ts';
import { dceRoutes } from './routes/dce.ts';
import { dceSettingsRoutes } from './routes/dce-settings.ts';
import { documentFileRoutes } from './routes/document-files.ts';
import { batchRoutes } from './routes/batch.ts';
import { receivedRoutes } from './routes/received.ts';
import { documentActionRoutes } from './routes/document-actions.ts';
import { statusRoutes } from './routes/status.ts';
import { sandboxControlRoutes } from './routes/sandbox-control.ts';
import { printerRoutes } from './routes/printers.ts';
import { xmlExportRoutes } from './routes/xml-export.ts';
import { pixRoutes, pixWebhookRoutes } from './routes/pix.ts';
import { operatorRoutes } from './routes/operators.ts';
import { resolveOperator } from './middleware/operator.ts';
import { registerRoutes } from './routes/register.ts';
import { referenceRoutes } from './routes/reference.ts';
import { openApiDocument } from '../../src-shared/contracts/api-routes.ts';
import type { ErrorBody } from '../../src-shared/contracts/errors.ts';
import { stampArrival } from './middleware/arrival.ts';
import { holdUntilStarted, type StartupGate } from './middleware/startup.ts';

export const BODY_LIMIT = '1mb';

/**
 * Node answers requests it cannot parse (a URL or headers over its 16 KiB limit, broken HTTP) itself, with
 * an empty body; this gives them the API's error body. No request or response object exists yet, so the
 * answer is written to the socket directly.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    // As Node's own handler: never write into a response already on its way to the peer.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const [status, body]: [number, ErrorBody] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            {
              error: 'headers_too_large',
              message: 'The request line and headers are larger than the 16 KiB the service accepts.',
              details: [{ field: 'path', error: 'the URL and headers together must stay under 16 KiB' }],
            },
          ]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [
              408,
              { error: 'validation_error', message: 'The request was not received in time.', details: [] },
            ]
          : [400, { error: 'validation_error', message: 'The request is not valid HTTP.', details: [] }];
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
}

export interface AppOptions extends ApiDeps {
  limiter: RateLimiter;
  /** Folder with the built renderer; null when there is none to serve. */
  uiDir: string | null;
  version: string;
  /**
   * Opened once the queue and the workers run (the service listens before they exist); /healthz says
   * `starting` until then and /v1 requests wait for it up to `waitMs`. Absent: the app is ready at once.
   */
  startup?: { gate: StartupGate; waitMs: number };
}

export function createApp(options: AppOptions): Express {
  const { db, clock, limiter, logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // First of all: bounded waits count from here (a request queued behind a burst has already waited).
  app.use(stampArrival(clock));
  app.use((req, res, next) => {
    const requestId = `req_${randomUUID().replaceAll('-', '')}`;
    res.locals['requestId'] = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.debug('request', {
        requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      });
    });
    next();
  });

  const startup = options.startup;
  // 503 while starting, so that a supervisor or a load balancer waits for 'ok' before it sends sales.
  app.get('/healthz', (_req, res) => {
    const state = startup?.gate.state ?? 'ready';
    if (state !== 'ready') res.status(503).setHeader('Retry-After', '1');
    res.json({
      status: state === 'ready' ? 'ok' : state,
      version: options.version,
      time: clock.now().toISOString(),
    });
  });

  // Public like /healthz: integrators and the UI's help read the API's description before having a key.
  let openApi: string | undefined;
  app.get('/v1/openapi.json', (_req, res) => {
    openApi ??= JSON.stringify(openApiDocument(options.version));
    res.type('application/json').send(openApi);
  });

  const v1 = express.Router();
  if (startup !== undefined) v1.use(holdUntilStarted(startup.gate, startup.waitMs));
  // Authentication comes before body parsing: an unauthenticated caller gets 401, never a parse error.
  v1.use(requireApiKey(db, clock, limiter));
  v1.use(singleValuedQuery());
  // Reference tables are files (Latin-1 CSV, multi-megabyte JSON) read as sent, before the JSON parser.
  v1.use('/reference', referenceRoutes(options));
  v1.use(
    express.json({
      limit: BODY_LIMIT,
      type: ['application/json', 'application/*+json'],
      verify: verifyJsonDepth,
    }),
  );
  v1.use(canonicalLegacyIds());
  // X-Operator-Token (issue 13): the person at the register, for the routes that apply operator rules.
  v1.use(resolveOperator(db, clock));
  v1.use('/operators', operatorRoutes(options));
  // /register-sessions/… and /reports/sales: the register's shifts and the back office's sales reports.
  v1.use(registerRoutes(options));
  v1.use('/companies', companyRoutes(options));
  v1.use('/companies', statusRoutes(options));
  v1.use('/companies', cteSettingsRoutes(options));
  v1.use('/companies', nfseSettingsRoutes(options));
  v1.use('/companies', dceSettingsRoutes(options));
  v1.use('/customers', customerRoutes(options));
  v1.use('/fiscal-profiles', fiscalProfileRoutes(options));
  v1.use('/products', productRoutes(options));
  v1.use('/services', serviceRoutes(options));
  v1.use('/api-keys', apiKeyRoutes(options));
  v1.use('/webhooks', webhookRoutes(options));
  v1.use('/sandbox', sandboxControlRoutes(options));
  // Before the documents router: its `GET /:id` would take /nfe/batch/… and /nfe/received.
  v1.use('/nfe', batchRoutes(options));
  v1.use('/nfe', receivedRoutes(options));
  v1.use('/nfe', documentFileRoutes(options, 55));
  v1.use('/nfce', documentFileRoutes(options, 65));
  v1.use('/nfe', documentRoutes(options, 55));
  v1.use('/nfce', documentRoutes(options, 65));
  v1.use('/cte', cteRoutes(options));
  v1.use('/nfse', nfseRoutes(options));
  v1.use('/dce', dceRoutes(options));
  // Mounted on /v1 itself: its routes live under /nfe/… and /companies/:id/abandoned-numbers.
  v1.use(documentActionRoutes(options));
  // Also on /v1 itself: /companies/:id/printers, /nfce/:id/print and /print-jobs.
  v1.use(printerRoutes(options));
  // /companies/:id/xml-export: the month's XML for the accountant.
  v1.use(xmlExportRoutes(options));
  // /companies/:id/pix, /pix/charges/… and /sandbox/pix/… (dynamic PIX).
  v1.use(pixRoutes(options));
  app.use('/v1', v1);
  // The PSP's webhook: no API key (the PSP has none); the secret in the path names the company.
  app.use('/pix-webhook', pixWebhookRoutes(options));

  if (options.uiDir !== null && fs.existsSync(options.uiDir)) {
    app.use(express.static(options.uiDir, { index: 'index.html', maxAge: 0 }));
  }

  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
