// The port through which SOAP envelopes (and the national NFS-e's REST calls) reach the authority, and its HTTPS
// implementation (mutual TLS with the emitter's A1 certificate, MOC 7.0 §3.1). Failures say whether the request
// may have been received.
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { A1Certificate } from '../fiscal/certificate.ts';
import { soapContentType } from './soap.ts';
import type { AuthorityService } from './types.ts';

export interface AuthorityRequest {
  url: string;
  service: AuthorityService;
  /** The complete SOAP 1.2 envelope (soap.ts wrapRequest), sent as UTF-8. */
  envelope: string;
  /** Time allowed for the answer once the request is on its way (connection established). */
  timeoutMs: number;
}

/** Any complete HTTP answer, whatever its status: SOAP 1.2 faults come with 4xx/5xx, the client reads them. */
export interface AuthorityResponse {
  status: number;
  body: string;
}

export interface AuthorityTransport {
  /** Resolves with every complete HTTP response; rejects with AuthorityUnavailableError when there is none. */
  send(req: AuthorityRequest): Promise<AuthorityResponse>;
}

/** A REST call (the national NFS-e APIs: JSON over HTTPS), with the same mutual TLS as the SOAP sends. */
export interface RestRequest {
  method: 'GET' | 'HEAD' | 'POST';
  url: string;
  /** Sent as given; Content-Length is added for a body. */
  headers?: Record<string, string>;
  /** UTF-8 text (JSON); none for GET and HEAD. */
  body?: string;
  /** Time allowed for the answer once the request is on its way (connection established). */
  timeoutMs: number;
  /** What the call is, for errors and logs (e.g. 'NFSe emitirNfse'). */
  label: string;
}

export interface RestResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as UTF-8 text ('' for HEAD and empty answers). */
  body: string;
}

export interface RestTransport {
  /** Resolves with every complete HTTP response, whatever its status; rejects with AuthorityUnavailableError. */
  request(req: RestRequest): Promise<RestResponse>;
}

export type AuthorityUnavailableKind =
  'refused' | 'dns' | 'connect_timeout' | 'response_timeout' | 'tls' | 'reset' | 'http_status';

/**
 * The authority gave no usable answer. `mayHaveBeenReceived` is what prevents duplicate notes: when true the
 * request bytes may have reached the server (response timeout, connection reset after sending, HTTP 5xx),
 * so a note sent this way must be settled with NFeConsultaProtocolo4 before any resend; when false it
 * certainly did not (refused, DNS, connect timeout, TLS handshake failure, HTTP 4xx) and may be resent.
 */
export class AuthorityUnavailableError extends Error {
  readonly kind: AuthorityUnavailableKind;
  readonly mayHaveBeenReceived: boolean;
  readonly url: string;
  /** The SOAP service, or the label of a REST call (RestRequest.label). */
  readonly service: string;
  /** HTTP status for kind 'http_status'. */
  readonly status: number | undefined;
  /** Node's error code when there was one (ECONNREFUSED, ERR_SSL_..., ...). */
  readonly code: string | undefined;

  constructor(
    init: {
      kind: AuthorityUnavailableKind;
      mayHaveBeenReceived: boolean;
      url: string;
      service: string;
      status?: number;
      code?: string;
      message?: string;
    },
    options?: { cause?: unknown },
  ) {
    super(
      init.message ??
        `${init.service} at ${init.url}: ${init.kind}${init.status === undefined ? '' : ` ${init.status}`}` +
          (init.mayHaveBeenReceived
            ? ' (the request may have been received)'
            : ' (the request was not received)'),
      options,
    );
    this.name = 'AuthorityUnavailableError';
    this.kind = init.kind;
    this.mayHaveBeenReceived = init.mayHaveBeenReceived;
    this.url = init.url;
    this.service = init.service;
    this.status = init.status;
    this.code = init.code;
  }
}

/**
 * An HTTP status that carries no SOAP answer: 5xx may come from a server that got (part of) the request,
 * anything else (3xx, 4xx: not found, forbidden, too many requests) was turned away before processing.
 */
export function httpStatusError(
  status: number,
  url: string,
  service: AuthorityService,
): AuthorityUnavailableError {
  return new AuthorityUnavailableError({
    kind: 'http_status',
    mayHaveBeenReceived: status >= 500,
    status,
    url,
    service,
  });
}

/** How far a request got when it failed. */
export type RequestPhase = 'connecting' | 'handshake' | 'sent';

// OpenSSL/Node certificate verification failures (tls.TLSSocket#authorizationError codes and Node's own).
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Classifies a socket-level error by its code and by how far the request got. TLS alerts count as a
 * handshake failure even after the client finished its side: with TLS 1.3 the server checks the client
 * certificate after that, and refuses before any request byte reaches the application.
 */
export function classifyNetworkError(
  code: string | undefined,
  phase: RequestPhase,
): { kind: Exclude<AuthorityUnavailableKind, 'http_status'>; mayHaveBeenReceived: boolean } {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA') {
    return { kind: 'dns', mayHaveBeenReceived: false };
  }
  if (
    code !== undefined &&
    (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || CERTIFICATE_CODES.has(code))
  ) {
    return { kind: 'tls', mayHaveBeenReceived: false };
  }
  if (phase === 'connecting') {
    if (code === 'ETIMEDOUT') return { kind: 'connect_timeout', mayHaveBeenReceived: false };
    // ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL, ...: no connection, nothing sent.
    return { kind: 'refused', mayHaveBeenReceived: false };
  }
  // The TCP connection was up but TLS never completed: no application data has been sent.
  if (phase === 'handshake') return { kind: 'tls', mayHaveBeenReceived: false };
  return { kind: 'reset', mayHaveBeenReceived: true };
}

export interface HttpsTransportOptions {
  /** The emitter's A1: its key and certificate authenticate the client (mutual TLS). */
  certificate: A1Certificate;
  /**
   * Trusted server CAs (PEM), replacing Node's bundled Mozilla roots. The sandbox authority uses its own
   * self-signed CA; the SEFAZ web services present ICP-Brasil certificates (AC Raiz v5/v10 chains), which
   * are not in Node's store, while a few use public CAs: for real authorities pass the ICP-Brasil roots and
   * intermediates plus `tls.rootCertificates`. Omitted: Node's default store.
   */
  ca?: string | string[];
  /** DNS, TCP connect and TLS handshake together, including waiting for a free socket. Default 10 s. */
  connectTimeoutMs?: number;
  /** Verify the server certificate (default true). Only a test rig may turn this off. */
  rejectUnauthorized?: boolean;
  /** Concurrent connections per host (default 4). */
  maxSockets?: number;
}

export interface HttpsTransport extends AuthorityTransport, RestTransport {
  /** Closes the kept-alive connections; later sends fail. */
  close(): void;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
// Idle kept-alive sockets are dropped after this long, well before typical server idle limits (IIS: 120 s),
// so a request rarely lands on a socket the server is closing (that would look like a reset after sending).
const IDLE_SOCKET_MS = 15_000;

/** Internal reason attached to a request destroyed by one of our timers. */
class TimerExpired extends Error {
  constructor(readonly kind: 'connect_timeout' | 'response_timeout') {
    super(kind);
  }
}

export function httpsTransport(options: HttpsTransportOptions): HttpsTransport {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // One agent per transport: its TLS options (client certificate, trust) apply to every socket it opens.
  const agent = new https.Agent({
    keepAlive: true,
    maxSockets: options.maxSockets ?? 4,
    timeout: IDLE_SOCKET_MS,
    key: options.certificate.privateKeyPem,
    cert: options.certificate.certificatePem,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    rejectUnauthorized: options.rejectUnauthorized ?? true,
    // MOC 7.0 §3.1 / SVRS since 2022: TLS 1.2 or newer.
    minVersion: 'TLSv1.2',
  });
  let closed = false;

  /** One HTTPS exchange over the agent, with the connect and response timers and the failure classification. */
  function exchange(req: {
    method: string;
    url: string;
    label: string;
    headers: Record<string, string>;
    body: Buffer | null;
    timeoutMs: number;
  }): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
    const { url, label: service, timeoutMs } = req;
    const target = URL.canParse(url) ? new URL(url) : undefined;
    if (target?.protocol !== 'https:') {
      return Promise.reject(new TypeError(`authority URLs must be https: ${url}`));
    }
    if (closed) return Promise.reject(new Error('the transport is closed'));
    const body = req.body;

    return new Promise((resolve, reject) => {
      let phase: RequestPhase = 'connecting';
      let settled = false;
      // Set when one of our timers destroyed the request: whatever error follows is that timeout.
      let expired: TimerExpired | undefined;
      const expire = (kind: TimerExpired['kind']) => {
        expired = new TimerExpired(kind);
        request.destroy(expired);
      };
      let connectTimer: NodeJS.Timeout | undefined = setTimeout(
        () => expire('connect_timeout'),
        connectTimeoutMs,
      );
      let responseTimer: NodeJS.Timeout | undefined;

      const clearTimers = () => {
        if (connectTimer !== undefined) clearTimeout(connectTimer);
        if (responseTimer !== undefined) clearTimeout(responseTimer);
        connectTimer = undefined;
        responseTimer = undefined;
      };
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimers();
        reject(toUnavailable(expired ?? error, phase, url, service));
      };
      // From here on the request bytes flow: the answer has timeoutMs to arrive in full.
      const connected = () => {
        if (phase === 'sent') return;
        phase = 'sent';
        if (connectTimer !== undefined) clearTimeout(connectTimer);
        connectTimer = undefined;
        responseTimer = setTimeout(() => expire('response_timeout'), timeoutMs);
      };

      const request = https.request(target, {
        method: req.method,
        agent,
        headers: body === null ? req.headers : { ...req.headers, 'Content-Length': String(body.length) },
      });
      request.on('socket', (socket: Socket) => {
        // A kept-alive socket is already connected and past its handshake.
        if (!socket.connecting) {
          connected();
          return;
        }
        socket.once('connect', () => {
          if (phase === 'connecting') phase = 'handshake';
        });
        socket.once('secureConnect', connected);
      });
      request.on('error', fail);
      request.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          if (settled) return;
          if (!res.complete) {
            fail(Object.assign(new Error('response ended before it was complete'), { code: 'ECONNRESET' }));
            return;
          }
          settled = true;
          clearTimers();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        // 'close' without 'end': the connection died mid-body.
        res.on('close', () => {
          if (!res.complete)
            fail(Object.assign(new Error('connection closed mid-response'), { code: 'ECONNRESET' }));
        });
      });
      if (body === null) request.end();
      else request.end(body);
    });
  }

  async function send(req: AuthorityRequest): Promise<AuthorityResponse> {
    const { status, body } = await exchange({
      method: 'POST',
      url: req.url,
      label: req.service,
      headers: { 'Content-Type': soapContentType(req.service) },
      body: Buffer.from(req.envelope, 'utf8'),
      timeoutMs: req.timeoutMs,
    });
    return { status, body };
  }

  async function request(req: RestRequest): Promise<RestResponse> {
    const answer = await exchange({
      method: req.method,
      url: req.url,
      label: req.label,
      headers: req.headers ?? {},
      body: req.body === undefined ? null : Buffer.from(req.body, 'utf8'),
      timeoutMs: req.timeoutMs,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: answer.status, headers, body: answer.body };
  }

  return {
    send,
    request,
    close() {
      closed = true;
      agent.destroy();
    },
  };
}

function toUnavailable(
  error: unknown,
  phase: RequestPhase,
  url: string,
  service: string,
): AuthorityUnavailableError {
  if (error instanceof TimerExpired) {
    return new AuthorityUnavailableError(
      { kind: error.kind, mayHaveBeenReceived: error.kind === 'response_timeout', url, service },
      { cause: error },
    );
  }
  const code = errorCode(error);
  const { kind, mayHaveBeenReceived } = classifyNetworkError(code, phase);
  const detail = error instanceof Error ? error.message : String(error);
  return new AuthorityUnavailableError(
    {
      kind,
      mayHaveBeenReceived,
      url,
      service,
      ...(code === undefined ? {} : { code }),
      message:
        `${service} at ${url}: ${kind} (${detail})` +
        (mayHaveBeenReceived ? '; the request may have been received' : '; the request was not received'),
    },
    { cause: error },
  );
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
