// Starts the whole headless service (database, migrations, sandbox bootstrap, HTTP) and stops it gracefully;
// used by index.ts, the Electron shell and the HTTP tests alike.
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { systemClock, type Clock } from './clock.ts';
import type { ServiceConfig } from './config.ts';
import { migrateToLatest, openDatabase, type Db } from './db/client.ts';
import { lockDataDir } from './db/data-dir-lock.ts';
import { isPostgresUrl } from './db/dialect.ts';
import { backupDatabase, startDailyBackups } from './db/backup.ts';
import { createLogger, type Logger } from './logger.ts';
import { SecretBox, loadMasterKey } from './security/secret-box.ts';
import { RateLimiter } from './api/middleware/rate-limit.ts';
import { answerClientErrors, createApp } from './api/server.ts';
import { StartupGate } from './api/middleware/startup.ts';
import type { ServiceHooks } from './api/context.ts';
import { bootstrapSandbox, type BootstrapResult } from './bootstrap.ts';
import { prepareDataDir } from './data-dir.ts';
import { projectRoot } from './paths.ts';
import { startSandboxAuthority, type SandboxAuthority } from './sandbox/server.ts';
import { activeNcmTable } from './reference/ncm-store.ts';
import { authorityResolver, type AuthorityConnection } from './authority/port.ts';
import { createCteAuthorityPortFor } from './authority/cte/port.ts';
import { createDceAuthorityPortFor } from './authority/dce/port.ts';
import {
  createNfseAuthorityPortFor,
  type NfseAuthorityPort,
  type NfseMunicipalParams,
} from './authority/nfse/port.ts';
import { AuthorityUnavailable, type AuthorityPort } from './outbox/ports.ts';
import { OutboxWorker } from './outbox/worker.ts';
import { followUpsFor } from './documents/kinds/nfce/follow-ups.ts';
// Registers the document kinds (NF-e, NFC-e, CT-e) before anything asks the registry for one.
import './documents/kinds/index.ts';
import { kindOfModelo } from './documents/registry.ts';
import type { KindId } from './documents/kind.ts';
import type { Ambiente } from './db/schema.ts';
import { startWebhookDelivery } from './webhooks/delivery.ts';
import { startDistributionSync } from './received/sync.ts';
import { startAbandonedCheck, type AbandonedCheck } from './documents/abandoned-check.ts';
import { publishDocumentChange } from './webhooks/publisher.ts';
import { PrintWorker, type PrintWorkerOptions } from './printing/worker.ts';
import { autoPrintDocument } from './printing/auto-print.ts';
import { transportFactory, type TransportOptions } from './printing/transports/index.ts';
import { startSandboxPsp, type SandboxPsp } from './sandbox-psp/server.ts';
import { ensureDemoSandboxPix, syncSandboxPixClients, type PixDeps } from './pix/service.ts';
import { respTecRepository } from './companies/resp-tec.ts';
import { setPdfWorkers } from './workers/pdf.ts';

export interface RunningService {
  url: string;
  port: number;
  db: Db;
  secrets: SecretBox;
  /** The embedded sandbox authority (null when no company uses it). */
  sandbox: SandboxAuthority | null;
  /** The embedded sandbox PSP for dynamic PIX (null when no company uses the sandbox authority). */
  sandboxPsp: SandboxPsp | null;
  worker: OutboxWorker;
  /** The daily check for reserved numbers never issued (runOnce for tests and on-demand rounds). */
  abandonedCheck: AbandonedCheck;
  /** The print queue (tick() for tests that drive it by hand). */
  printing: PrintWorker;
  bootstrap: BootstrapResult;
  migrationsApplied: string[];
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  /** How long graceful shutdown waits for in-flight requests before cutting connections. */
  shutdownGraceMs?: number;
  /** Queue polling and authority timeouts (tests shorten them). */
  outbox?: { pollMs?: number; baseBackoffMs?: number; maxBackoffMs?: number; requestTimeoutMs?: number };
  /** Do not start the queue worker (tests that drive it by hand). */
  startWorker?: boolean;
  /**
   * Where sandbox companies send their notes: the embedded authority (default), or one running elsewhere
   * (`npm run sandbox`, or a test that must keep the authority alive while it kills this process).
   */
  sandbox?: 'embedded' | { url: string; caPem: string };
  /** Print queue polling, backoff and printer timeouts (tests shorten them). */
  printing?: Partial<PrintWorkerOptions> & { transports?: TransportOptions };
  /** How long a /v1 request that arrives while the service is starting waits for it (default 30 s). */
  startupWaitMs?: number;
  /**
   * Awaited last, once everything has started and before requests are let through: tests hold the window
   * between listening and being ready open with it, and send requests into it.
   */
  beforeReady?: (starting: { url: string; bootstrap: BootstrapResult }) => Promise<void>;
}

/**
 * Registers the CSC of every sandbox company with the embedded authority, as a taxpayer registers its CSC
 * on the SEFAZ portal, so the authority can check the QR code hash (rejection 464).
 */
export async function syncSandboxCompanies(
  db: Db,
  secrets: SecretBox,
  // Only what registration needs: a benchmark's authority in another process answers these two by message.
  sandbox: { registry: Pick<SandboxAuthority['registry'], 'configureCompany' | 'registerCsrt'> },
): Promise<void> {
  const companies = await db.selectFrom('companies').selectAll().where('authority', '=', 'sandbox').execute();
  for (const c of companies) {
    await sandbox.registry.configureCompany({
      cnpj: c.cnpj,
      csc:
        c.csc_id === null || c.csc_token_enc === null
          ? []
          : [{ id: c.csc_id, token: secrets.openText(c.csc_token_enc) }],
    });
    // The CSRT the company's technical responsible was issued, so the sandbox can check hashCSRT (978).
    const respTec = await respTecRepository.find(db, c.id);
    if (respTec?.id_csrt != null && respTec.csrt_enc !== null) {
      await sandbox.registry.registerCsrt(respTec.cnpj, respTec.id_csrt, secrets.openText(respTec.csrt_enc));
    }
  }
}

/** Stops accepting, and resolves once in-flight requests have been answered or `graceMs` has cut them. */
function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), graceMs).unref();
  });
}

function readVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function uiDir(): string | null {
  const built = path.join(projectRoot, 'src-renderer', 'dist');
  if (fs.existsSync(path.join(built, 'index.html'))) return built;
  const plain = path.join(projectRoot, 'src-renderer', 'public');
  return fs.existsSync(path.join(plain, 'index.html')) ? plain : null;
}

export async function startService(
  config: ServiceConfig,
  options: ServiceOptions = {},
): Promise<RunningService> {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  if (config.workers !== undefined) setPdfWorkers(config.workers);
  // Before anything in the data dir is read or written: a second process must not touch sandbox.json, the
  // master key or the first one's in-flight queue rows (issue 12 item 8).
  const lock = lockDataDir(config.dataDir);
  let secrets: SecretBox;
  let opened: ReturnType<typeof openDatabase>;
  try {
    // An emptied database beside an earlier install's files is refused, never bootstrapped again (issue 12
    // item 2); the data dir and its files are kept to the service's user (item 11).
    const madePrivate = prepareDataDir(config.dataDir, {
      keyFromConfig: config.masterKey !== undefined && config.masterKey !== '',
      postgres: isPostgresUrl(config.databaseUrl),
    });
    if (madePrivate.length > 0)
      logger.warn('data dir files were readable by others: now 0700/0600', { madePrivate });
    secrets = new SecretBox(loadMasterKey(config.dataDir, config.masterKey));
    opened = openDatabase(path.join(config.dataDir, 'balcao.sqlite'), config.databaseUrl, {
      ...(config.databaseTimeoutMs === undefined ? {} : { timeoutMs: config.databaseTimeoutMs }),
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  const { db, close: closeDb } = opened;
  let server: Server | undefined;
  const startup = new StartupGate();
  // What has started so far, stopped (last first) if a later step of the start fails: a failed start leaves
  // no server listening, no worker polling a closed database and no lock held.
  const stopOnFailure: Array<() => unknown> = [];
  try {
    // A database that has data and pending migrations is copied first: a migration that goes wrong on a
    // store's data can then be undone with `npm run cli -- restore`.
    // (A PostgreSQL store, server mode, is backed up by its server's own tools: the migrations run in one
    // transaction there, and a failed one leaves nothing behind.)
    const postgres = isPostgresUrl(config.databaseUrl);
    const { applied } = await migrateToLatest(db, {
      beforePending: async (pending) => {
        if (postgres) return;
        const backup = await backupDatabase(config.dataDir, 'pre-migration', { keep: config.backupKeep });
        logger.info('database backed up before migrating', { file: backup.file, pending });
      },
    });
    const limiter = new RateLimiter(clock);
    const hooks: ServiceHooks = { companyChanged: () => Promise.resolve(), worker: null };
    const app = createApp({
      db,
      clock,
      secrets,
      logger,
      hooks,
      limiter,
      uiDir: uiDir(),
      version: readVersion(),
      startup: { gate: startup, waitMs: options.startupWaitMs ?? 30_000 },
    });
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.port, config.host);
      answerClientErrors(s);
      s.once('listening', () => resolve(s));
      s.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    const hostForUrl = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${hostForUrl}:${port}`;
    const bootstrap = await bootstrapSandbox({ db, clock, secrets }, config.dataDir, `${url}/v1`);
    const sweeper = setInterval(() => limiter.sweep(), 60_000);
    sweeper.unref();
    stopOnFailure.push(() => clearInterval(sweeper));

    const usesSandbox =
      (await db.selectFrom('companies').select('id').where('authority', '=', 'sandbox').limit(1).execute())
        .length > 0;
    const external = options.sandbox === undefined || options.sandbox === 'embedded' ? null : options.sandbox;
    const sandbox =
      usesSandbox && external === null
        ? await startSandboxAuthority({
            dataFile: path.join(config.dataDir, 'sandbox-authority.sqlite'),
            clock,
            // The CSC tokens it registers are sealed under the service's master key, like the service's own.
            secrets,
          })
        : null;
    if (sandbox !== null) {
      stopOnFailure.push(() => sandbox.close());
      // The in-process authority checks NCMs (rule 778) against the table the store imported, if any.
      await activeNcmTable(db);
      await syncSandboxCompanies(db, secrets, sandbox);
      hooks.companyChanged = () => syncSandboxCompanies(db, secrets, sandbox);
      hooks.sandboxFaults = sandbox.faults;
    }
    // The sandbox PSP runs beside the sandbox authority; the demo company gets dynamic PIX with it at once.
    const sandboxPsp = usesSandbox
      ? await startSandboxPsp({
          clock,
          onWebhookError: (to, error) =>
            logger.warn('sandbox PSP webhook failed', { to, error: String(error) }),
        })
      : null;
    if (sandboxPsp !== null) stopOnFailure.push(() => sandboxPsp.close());
    hooks.pix = { sandboxPsp, serviceUrl: url };
    const pixDeps: PixDeps = { db, clock, secrets, logger, runtime: hooks.pix };
    if (sandboxPsp !== null) {
      await syncSandboxPixClients(pixDeps);
      // Fresh or not: a demo company without a PSP gets the sandbox one, unless its owner switched PIX off.
      if (bootstrap.sandbox !== null) await ensureDemoSandboxPix(pixDeps, bootstrap.sandbox.companyId);
    }
    const resolver = authorityResolver({
      db,
      secrets,
      sandbox:
        external ??
        (sandbox === null
          ? null
          : {
              url: sandbox.url,
              caPem: sandbox.caPem,
              // /v1/sandbox/faults switches one organization offline: its connections are refused.
              refuses: (organizationId: string) => sandbox.faults.refuses(organizationId),
            }),
      timeoutMs: options.outbox?.requestTimeoutMs ?? 15_000,
    });
    stopOnFailure.push(() => resolver.close());
    // One CT-e, DC-e and NFS-e port per connection (the connection is rebuilt when the certificate changes).
    const soapPortOf = { cte: createCteAuthorityPortFor, dce: createDceAuthorityPortFor } as const;
    const soapPorts: Record<keyof typeof soapPortOf, WeakMap<AuthorityConnection, AuthorityPort>> = {
      cte: new WeakMap(),
      dce: new WeakMap(),
    };
    const nfsePorts = new WeakMap<AuthorityConnection, NfseAuthorityPort>();
    const nfsePortFor = async (companyId: string, ambiente?: Ambiente): Promise<NfseAuthorityPort> => {
      const connection = await resolver.connection(companyId, ambiente);
      let port = nfsePorts.get(connection);
      if (port === undefined) {
        port = createNfseAuthorityPortFor(connection, {
          now: () => clock.now().getTime(),
          // The sandbox's municipal parameters change whenever its control endpoint says so: never kept.
          ...(connection.sandboxUrl === null ? {} : { municipalCacheMs: 0 }),
        });
        nfsePorts.set(connection, port);
      }
      return port;
    };
    // A company whose authority cannot be reached (the sandbox not running) gets "could not tell", as an
    // unreachable national environment would give; other faults (no certificate) are the caller's to report.
    hooks.nfseMunicipal = (companyId, ambiente): Promise<NfseMunicipalParams> => {
      const reachable = async <T>(
        ask: (p: NfseAuthorityPort) => Promise<T>,
        unknown: (reason: string) => T,
      ) => {
        try {
          return await ask(await nfsePortFor(companyId, ambiente));
        } catch (error) {
          if (error instanceof AuthorityUnavailable) return unknown(error.message);
          throw error;
        }
      };
      return Promise.resolve({
        convenio: (cMun) =>
          reachable(
            (p) => p.convenio(cMun),
            (reason) => ({ aderente: null, mensagem: reason }),
          ),
        aliquota: (cMun, cTribNac, competencia) =>
          reachable(
            (p) => p.aliquota(cMun, cTribNac, competencia),
            (reason) => ({ state: 'unknown' as const, reason }),
          ),
      });
    };
    const authorityFor = async (companyId: string, kind: KindId, ambiente?: Ambiente) => {
      if (kind === 'nfse') return nfsePortFor(companyId, ambiente);
      if (kind !== 'cte' && kind !== 'dce')
        return resolver.resolve(companyId, kind === 'nfce' ? 65 : 55, ambiente);
      const connection = await resolver.connection(companyId, ambiente);
      let port = soapPorts[kind].get(connection);
      if (port === undefined) {
        port = soapPortOf[kind](connection);
        soapPorts[kind].set(connection, port);
      }
      return port;
    };
    const worker: OutboxWorker = new OutboxWorker(
      {
        db,
        clock,
        logger,
        authorityFor,
        followUps: followUpsFor(db, secrets, clock),
        // Webhooks (nfe.autorizada, nfce.contingencia, ...): queued rows, delivered on their own timers.
        // The NFC-e's automatic print is queued the same way; neither ever fails the queue's work.
        onDocumentChanged: (doc) => {
          void publishDocumentChange(db, clock, doc, logger, { baseUrl: url });
          void autoPrintDocument({ db, clock, logger }, doc);
        },
        // The kind's contingency rule switches the company over (NF-e: SVC-AN / SVC-RS) and re-signs the note.
        onUfUnavailable: async (doc, outboxId, reason) => {
          const kind = kindOfModelo(doc.modelo);
          await kind.contingency?.switchOver?.({ db, clock, secrets }, doc, outboxId, reason);
          logger.warn(`${kind.label} switched to contingency`, { companyId: doc.company_id, reason });
        },
      },
      {
        ...(options.outbox?.pollMs === undefined ? {} : { pollMs: options.outbox.pollMs }),
        ...(options.outbox?.baseBackoffMs === undefined
          ? {}
          : { baseBackoffMs: options.outbox.baseBackoffMs }),
        ...(options.outbox?.maxBackoffMs === undefined ? {} : { maxBackoffMs: options.outbox.maxBackoffMs }),
      },
    );
    hooks.worker = worker;
    stopOnFailure.push(() => worker.stop());
    // Notes addressed to the companies (NFeDistribuicaoDFe), respecting the authority's hourly rule (656).
    const distribution = startDistributionSync({
      db,
      clock,
      logger,
      authorityFor: (companyId) => resolver.resolve(companyId, 55),
    });
    stopOnFailure.push(() => distribution.stop());
    const abandonedCheck = startAbandonedCheck({ db, clock, logger });
    stopOnFailure.push(() => abandonedCheck.stop());
    // The daily copy is of the SQLite file; a PostgreSQL store is backed up by its server's tools (pg_dump).
    const backups = postgres
      ? { stop: () => Promise.resolve() }
      : startDailyBackups(config.dataDir, {
          keep: config.backupKeep,
          onBackup: (b) => logger.info('daily database backup', { file: b.file }),
          onError: (error) => logger.error('daily database backup failed', { error: String(error) }),
        });
    stopOnFailure.push(() => backups.stop());
    const recovered = await worker.recover();
    if (recovered > 0)
      logger.warn('queue rows interrupted by the last stop will be consulted before any resend', {
        recovered,
      });
    if (options.startWorker !== false) worker.start();
    const webhooks = await startWebhookDelivery(
      { db, clock, secrets, logger },
      { start: options.startWorker !== false },
    );
    stopOnFailure.push(() => webhooks.stop());
    const { transports: printerTimeouts, ...printOptions } = options.printing ?? {};
    const printing = new PrintWorker(
      { db, clock, logger, transports: transportFactory(printerTimeouts) },
      printOptions,
    );
    stopOnFailure.push(() => printing.stop());
    const interruptedPrints = await printing.recover();
    if (interruptedPrints > 0)
      logger.warn('print jobs interrupted by the last stop go back to the queue', { interruptedPrints });
    if (options.startWorker !== false) printing.start();
    await options.beforeReady?.({ url, bootstrap });
    startup.open();

    const running = server;
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        clearInterval(sweeper);
        await closeServer(running, options.shutdownGraceMs ?? 10_000);
        // After the last request: the queue finishes the send it is in, so its row is not left in flight.
        await worker.stop();
        await distribution.stop();
        await abandonedCheck.stop();
        await backups.stop();
        await webhooks.stop();
        await printing.stop();
        resolver.close();
        await sandbox?.close();
        await sandboxPsp?.close();
        await closeDb();
        lock.release();
      })();
      return closing;
    };
    return {
      url,
      port,
      db,
      secrets,
      sandbox,
      sandboxPsp,
      worker,
      abandonedCheck,
      printing,
      bootstrap,
      migrationsApplied: applied,
      close,
    };
  } catch (error) {
    // Requests held while starting are answered (503) before the server stops listening.
    startup.fail();
    for (const stop of stopOnFailure.reverse()) {
      try {
        await stop();
      } catch {
        // The start's own error is the one to report; a part that also fails to stop is past saving here.
      }
    }
    if (server !== undefined) await closeServer(server, options.shutdownGraceMs ?? 10_000);
    await closeDb();
    lock.release();
    throw error;
  }
}
