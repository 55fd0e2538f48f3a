// The sandbox authority: an HTTPS server with mutual TLS that speaks the NF-e 4.00 and CT-e 4.00 SOAP 1.2 web
// services (POST /ws/<service>), the DC-e 1.00 ones (POST /dce/<service>, see dce/) and the national NFS-e REST
// APIs (/nfse/..., see nfse/http.ts) against its own SQLite state, with fault injection and a small control API.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { randomBytes, timingSafeEqual, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import nodePath from 'node:path';
import { requestWrapper, soapAction, soapFault, unwrapMessage, wrapResponse } from '../authority/soap.ts';
import { isDceService, type AuthorityService } from '../authority/types.ts';
import { systemClock, type Clock } from '../clock.ts';
import { cnpjFromCertificateDer, generateServerIdentity, type ServerIdentity } from './certificates.ts';
import { AUTHORITY_SERVICES, FaultControl } from './faults.ts';
import { SandboxRegistry, serializer, type ExchangeOutcome } from './registry.ts';
import { nfeAutorizacao, nfeRetAutorizacao } from './services/authorization.ts';
import {
  DEFAULT_SETTINGS,
  type SandboxSettings,
  type ServiceAnswer,
  type ServiceContext,
} from './services/common.ts';
import { nfeConsultaProtocolo, nfeStatusServico } from './services/consultation.ts';
import { nfeDistribuicaoDFe } from './services/distribution.ts';
import { nfeRecepcaoEvento } from './services/events.ts';
import { nfeInutilizacao } from './services/inutilization.ts';
import { cteConsulta, cteStatusServico } from './cte/consultation.ts';
import { tripStartedRequest } from './cte/control.ts';
import { cteRecepcaoEvento } from './cte/events.ts';
import { cteRecepcaoSinc } from './cte/reception.ts';
import { dceConsulta, dceStatusServico } from './dce/consultation.ts';
import { dceRecepcaoEvento } from './dce/events.ts';
import { dceAutorizacao } from './dce/reception.ts';
import { openSandboxStore, type SandboxDb } from './store.ts';
import { handleNfseRequest, type ClientCertificate } from './nfse/http.ts';
import { NfseSandboxRegistry } from './nfse/registry.ts';
import type { SecretBox } from '../security/secret-box.ts';

export interface StartSandboxOptions {
  /** SQLite file of the authority's state (created with its directory when missing). */
  dataFile: string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** The authority's clock: dhRecbto, deadlines and emission windows follow it. */
  clock?: Clock;
  /** HTTPS identity; default: generated at first start (RSA-2048, 10 years) and kept in the SQLite file. */
  serverCertificate?: ServerIdentity;
  /**
   * Client certificates accepted: 'any-self-signed' (default) takes any certificate without chain checks
   * (test A1s are self-signed); a list of PEM certificates takes a client certificate that is one of them
   * (pinned self-signed A1s) or was issued by one of them (CAs).
   */
  trustedClientCas?: string[] | 'any-self-signed';
  /** Overrides of the rule parameters (limits, deadlines, environment, asynchronous delay...). */
  settings?: Partial<SandboxSettings>;
  /**
   * Seals the CSC tokens it registers: the embedded authority gets the service's master key; by default a key
   * of its own beside the SQLite file (mode 0600).
   */
  secrets?: SecretBox;
}

export interface SandboxAuthority {
  /** https://127.0.0.1:PORT, without a trailing slash; services live at `${url}/ws/<AuthorityService>`. */
  url: string;
  port: number;
  /** The server certificate (self-signed) clients must trust as their CA. */
  caPem: string;
  faults: FaultControl;
  registry: SandboxRegistry;
  /** The national NFS-e environment under /nfse/ (nfse/): municipal parameters, notes and events. */
  nfse: NfseSandboxRegistry;
  /**
   * The secret every `/_sandbox/*` control request carries in `X-Sandbox-Token`: generated at each start and
   * written (mode 0600) to `controlTokenFile`, so only who can read the data directory switches the faults.
   */
  controlToken: string;
  controlTokenFile: string;
  close(): Promise<void>;
}

/** The control token's file: beside the authority's SQLite file. */
export function controlTokenFileOf(dataFile: string): string {
  return nodePath.join(nodePath.dirname(dataFile), 'sandbox-authority-control.token');
}

function writeControlToken(file: string): string {
  const token = randomBytes(32).toString('base64url');
  fs.mkdirSync(nodePath.dirname(file), { recursive: true });
  // Written fresh each start; 0600 so other local users cannot read it (chmod too: an older file kept its mode).
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return token;
}

type Handler = (message: string, ctx: ServiceContext) => Promise<ServiceAnswer> | ServiceAnswer;

// Partial: a service of the shared list may not be served yet (it then answers as an unknown service).
const HANDLERS: Readonly<Partial<Record<AuthorityService, Handler>>> = {
  NFeAutorizacao4: nfeAutorizacao,
  NFeRetAutorizacao4: nfeRetAutorizacao,
  NFeConsultaProtocolo4: nfeConsultaProtocolo,
  NFeStatusServico4: nfeStatusServico,
  NFeRecepcaoEvento4: nfeRecepcaoEvento,
  NFeInutilizacao4: nfeInutilizacao,
  NFeDistribuicaoDFe: nfeDistribuicaoDFe,
  CTeRecepcaoSincV4: cteRecepcaoSinc,
  CTeConsultaV4: cteConsulta,
  CTeStatusServicoV4: cteStatusServico,
  CTeRecepcaoEventoV4: cteRecepcaoEvento,
  DCeAutorizacao: dceAutorizacao,
  DCeConsulta: dceConsulta,
  DCeStatusServico: dceStatusServico,
  DCeRecepcaoEvento: dceRecepcaoEvento,
};

/** Largest request body read at all; the services reject messages above 500 KB themselves (214). */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

async function loadIdentity(db: SandboxDb, now: Date): Promise<ServerIdentity> {
  const row = await db.selectFrom('server_identity').selectAll().where('id', '=', 1).executeTakeFirst();
  if (row !== undefined) return { keyPem: row.key_pem, certPem: row.cert_pem };
  const identity = generateServerIdentity(now);
  await db
    .insertInto('server_identity')
    .values({ id: 1, key_pem: identity.keyPem, cert_pem: identity.certPem, created_at: now.toISOString() })
    .execute();
  return identity;
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendFault(res: ServerResponse, status: number, code: 'Sender' | 'Receiver', reason: string): void {
  send(res, status, 'application/soap+xml; charset=utf-8', soapFault(code, reason));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
}

export async function startSandboxAuthority(options: StartSandboxOptions): Promise<SandboxAuthority> {
  const clock = options.clock ?? systemClock;
  const host = options.host ?? '127.0.0.1';
  const store = await openSandboxStore(options.dataFile, options.secrets);
  const identity = options.serverCertificate ?? (await loadIdentity(store.db, clock.now()));
  const settings: SandboxSettings = { ...DEFAULT_SETTINGS, ...options.settings };
  const trusted =
    options.trustedClientCas === undefined || options.trustedClientCas === 'any-self-signed'
      ? null
      : options.trustedClientCas.map((pem) => new X509Certificate(pem));
  const serialized = serializer(store.db, clock, settings, store.vault);
  const controlTokenFile = controlTokenFileOf(options.dataFile);
  const controlToken = writeControlToken(controlTokenFile);
  const tokenBytes = Buffer.from(controlToken);
  const carriesToken = (req: IncomingMessage): boolean => {
    const given = req.headers['x-sandbox-token'];
    if (typeof given !== 'string') return false;
    const bytes = Buffer.from(given.trim());
    return bytes.length === tokenBytes.length && timingSafeEqual(bytes, tokenBytes);
  };

  const sockets = new Set<Socket>();
  // requestCert makes the server ask every client for a certificate; rejectUnauthorized false lets
  // self-signed ones through the handshake, and the handler refuses requests that came without one.
  const server = https.createServer(
    {
      key: identity.keyPem,
      cert: identity.certPem,
      requestCert: true,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        sendFault(
          res,
          500,
          'Receiver',
          `Erro interno da autoridade sandbox: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    },
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that gives up mid-handshake is not the server's problem.
  server.on('tlsClientError', () => undefined);

  let port = options.port ?? 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        const address = server.address();
        if (address !== null && typeof address === 'object') port = address.port;
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
    });

  const faults = new FaultControl((online) => (online ? listen() : stopListening()));
  const registry = new SandboxRegistry(store.db, serialized, clock, faults, settings, store.vault);
  const nfse = new NfseSandboxRegistry(store.db, serialized);

  /** Mutual TLS: the request's client certificate, refused when absent or (with a trust list) not trusted. */
  const clientCertificate = (req: IncomingMessage): ClientCertificate => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const raw = (peer as { raw?: Buffer }).raw;
    if (raw === undefined || raw.length === 0) {
      return { ok: false, reason: 'Certificado digital do cliente (TLS) não informado' };
    }
    if (trusted !== null) {
      const cert = new X509Certificate(raw);
      const accepted = trusted.some(
        (ca) =>
          ca.fingerprint256 === cert.fingerprint256 || (cert.checkIssued(ca) && cert.verify(ca.publicKey)),
      );
      if (!accepted)
        return { ok: false, reason: 'Certificado digital do cliente não emitido por uma AC confiável' };
    }
    return { ok: true, cnpj: cnpjFromCertificateDer(raw) };
  };

  const logExchange = (
    service: AuthorityService,
    clientCnpj: string | null,
    cStat: string | null,
    outcome: ExchangeOutcome,
  ) =>
    serialized((db, now) =>
      db
        .insertInto('exchanges')
        .values({ at: now.toISOString(), service, client_cnpj: clientCnpj, c_stat: cStat, outcome })
        .execute(),
    ).catch(() => undefined);

  /**
   * Control API for POS developers (no client certificate needed; the sandbox listens on 127.0.0.1; every
   * request carries the header X-Sandbox-Token with the token of this start, see controlToken):
   * - GET /_sandbox/health: {status, time, faults, settings}.
   * - GET /_sandbox/faults: the fault state. POST /_sandbox/faults with any of
   *   {"clear": true, "timeout": true|null|{services?, times?}, "slow": ms|null|{ms, services?, times?},
   *    "paused": 108|109|null|{cStat, services?, times?}, "loseResponse": true|null|{services?, times?},
   *    "reject": cStat|null|{cStat, services?, times?} (the next note refused with that rejection code; an
   *    NFS-e code such as "E012" or a DC-e code as text such as "225" refuses the next DPS or DC-e),
   *    "random": null|{seed, refuse?, timeout?, slow?, pause?, lose?, slowMs?, services?},
   *    "online": true | false (with "forMs": the endpoint itself goes offline, so the way back is scheduled)}.
   * - POST /_sandbox/companies: {cnpj, csc?: [{id, token, revoked?}], emitterDenied?, recipientDenied?}.
   * - POST /_sandbox/cte/trip-started: {chave, evidence?: 'mdfe' | 'circulacao'}: the trip of that CT-e
   *   started, so its cancellation is refused (528 / 219), as an MDF-e or a checkpoint would tell the authority.
   * - POST /_sandbox/nfse/municipios: {cMun, aderente?, aliquotas?: {cTribNac: "2.50" | null}}: the national
   *   NFS-e's municipal parameters (default: joined, 5.00 % for every service).
   */
  async function handleControl(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    // Any local process could reach this port: the faults (offline, lost answers) are switched only with the
    // token of this start.
    if (!carriesToken(req)) {
      sendJson(res, 401, {
        error: `the control endpoints need the header X-Sandbox-Token with the token in ${controlTokenFile}`,
      });
      return;
    }
    if (path === '/_sandbox/health' && req.method === 'GET') {
      sendJson(res, 200, { status: 'ok', time: clock.now().toISOString(), faults: faults.state(), settings });
      return;
    }
    if (path === '/_sandbox/faults' && (req.method === 'GET' || req.method === 'POST')) {
      if (req.method === 'GET') {
        sendJson(res, 200, faults.state());
        return;
      }
      let body: unknown;
      let online: ReturnType<typeof FaultControl.onlineRequest>;
      try {
        body = JSON.parse((await readBody(req)) ?? '');
        online = FaultControl.onlineRequest(body);
        faults.apply(body);
      } catch (error) {
        sendJson(res, 400, { error: error instanceof Error ? error.message : String(error) });
        return;
      }
      // Answer first: going offline closes this very connection.
      sendJson(res, 200, { ...faults.state(), ...(online === null ? {} : { online: online.online }) });
      if (online !== null) {
        res.on(
          'finish',
          () =>
            void faults.setOnline(online.online, online.forMs === undefined ? {} : { forMs: online.forMs }),
        );
      }
      return;
    }
    if (path === '/_sandbox/companies' && req.method === 'POST') {
      try {
        const body = JSON.parse((await readBody(req)) ?? '') as Parameters<
          SandboxRegistry['configureCompany']
        >[0];
        if (typeof body?.cnpj !== 'string') throw new RangeError('cnpj is required');
        await registry.configureCompany(body);
        sendJson(res, 200, { ok: true });
      } catch (error) {
        sendJson(res, 400, { error: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    if (path === '/_sandbox/cte/trip-started' && req.method === 'POST') {
      try {
        const { chave, evidence } = tripStartedRequest(JSON.parse((await readBody(req)) ?? ''));
        const known = await registry.markCteTripStarted(chave, evidence);
        if (known) sendJson(res, 200, { ok: true, chave, evidence });
        else sendJson(res, 404, { error: `no CT-e ${chave} in this sandbox` });
      } catch (error) {
        sendJson(res, 400, { error: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    if (path === '/_sandbox/nfse/municipios' && req.method === 'POST') {
      try {
        sendJson(res, 200, await nfse.configureMunicipio(JSON.parse((await readBody(req)) ?? '')));
      } catch (error) {
        sendJson(res, 400, { error: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    sendJson(res, 404, { error: `no such control endpoint: ${req.method ?? ''} ${path}` });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://sandbox.invalid').pathname;
    if (path.startsWith('/_sandbox/')) {
      await handleControl(req, res, path);
      return;
    }
    if (path.startsWith('/nfse/')) {
      await handleNfseRequest(req, res, path, {
        db: store.db,
        clock,
        serialized,
        faults,
        settings,
        signer: identity,
        clientCertificate,
        readBody,
      });
      return;
    }
    // The DC-e services live under /dce/ (as at their authorizer), every other SOAP service under /ws/.
    const route = /^\/(ws|dce)\/([A-Za-z0-9]+)\/?$/.exec(path);
    const service = route?.[2] as AuthorityService | undefined;
    const handler = service === undefined ? undefined : HANDLERS[service];
    if (
      service === undefined ||
      !AUTHORITY_SERVICES.includes(service) ||
      handler === undefined ||
      (route?.[1] === 'dce') !== isDceService(service)
    ) {
      sendFault(res, 404, 'Sender', `Serviço inexistente: ${path}`);
      return;
    }
    if (req.method !== 'POST') {
      sendFault(res, 405, 'Sender', `Método ${req.method ?? ''} não suportado: use POST`);
      return;
    }
    // Mutual TLS: IIS-based authorities answer 403 ("client certificate required") at the HTTP level.
    const client = clientCertificate(req);
    if (!client.ok) {
      sendFault(res, 403, 'Sender', client.reason);
      return;
    }
    const clientCnpj = client.cnpj;
    const contentType = req.headers['content-type'] ?? '';
    if (!/application\/soap\+xml/i.test(contentType)) {
      sendFault(res, 415, 'Sender', 'Content-Type deve ser application/soap+xml (SOAP 1.2)');
      return;
    }
    const action = /action\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1];
    if (action !== undefined && action !== soapAction(service)) {
      sendFault(
        res,
        400,
        'Sender',
        `A ação SOAP ${action} não corresponde ao serviço ${service} (${soapAction(service)})`,
      );
      return;
    }

    // The embedding service maps the certificate's CNPJ to its organization, whose own faults apply too.
    const scope = faults.scopeOfClient === null ? null : await faults.scopeOfClient(clientCnpj);
    const decision = faults.decideFor(service, scope);
    if (decision.refuse) {
      req.socket.destroy();
      await logExchange(service, clientCnpj, null, 'refused');
      return;
    }
    if (decision.timeout) {
      // Never answered: the socket stays open until the client gives up or the server closes. Logged
      // first, because the client usually aborts the upload when its own timer fires.
      await logExchange(service, clientCnpj, null, 'timeout');
      req.resume();
      return;
    }
    const body = await readBody(req);
    if (body === null) {
      sendFault(res, 413, 'Sender', 'Mensagem acima do tamanho máximo');
      return;
    }
    const message = unwrapMessage(body, requestWrapper(service));
    if (message === null) {
      sendFault(res, 400, 'Sender', `Envelope SOAP 1.2 sem o elemento ${requestWrapper(service)}`);
      await logExchange(service, clientCnpj, null, 'fault');
      return;
    }
    const answer = await serialized((db, now) =>
      Promise.resolve(
        handler(message, {
          db,
          now,
          clientCnpj,
          settings,
          paused: decision.paused,
          reject: decision.reject,
          dceReject: decision.dceReject,
          vault: store.vault,
        }),
      ),
    );
    if (decision.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.slowMs));
    if (decision.lose) {
      // Processed and committed above; the client never learns it (the field's source of duplicates).
      req.socket.destroy();
      await logExchange(service, clientCnpj, answer.cStat, 'lost');
      return;
    }
    send(res, 200, 'application/soap+xml; charset=utf-8', wrapResponse(service, answer.xml));
    await logExchange(service, clientCnpj, answer.cStat, 'answered');
  }

  await listen();
  const authority: SandboxAuthority = {
    get url() {
      return `https://${host}:${port}`;
    },
    get port() {
      return port;
    },
    caPem: identity.certPem,
    faults,
    registry,
    nfse,
    controlToken,
    controlTokenFile,
    close: async () => {
      faults.dispose();
      await stopListening();
      await serialized(async () => undefined).catch(() => undefined);
      await store.close();
    },
  };
  return authority;
}
