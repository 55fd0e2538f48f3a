// The PSP client: the only module that talks to a PSP's API Pix (Banco Central standard v2). OAuth2 client
// credentials over mutual TLS with the store's client certificate, the token cached until shortly before it
// expires, 5 s per request, and RFC 7807 problem bodies turned into errors that say what the PSP refused.
import https from 'node:https';
import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { PixStatus } from '../../src-shared/contracts/pix.ts';

export interface PspConnection {
  /** API Pix base, e.g. https://pix.example.com/api/v2 (no trailing slash needed). */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The client certificate (PKCS#12) and its password, for mutual TLS. */
  pfx: Buffer | null;
  passphrase: string | null;
  /** Extra CA to trust (the sandbox PSP's self-signed certificate); null uses the system's. */
  caPem: string | null;
  timeoutMs?: number;
}

export interface PspCobPix {
  endToEndId: string;
  txid?: string;
  valor: string;
  horario?: string;
}

export interface PspCob {
  txid: string;
  status: PixStatus;
  calendario: { criacao: string; expiracao: number };
  location?: string;
  loc?: { location?: string };
  valor: { original: string };
  chave: string;
  pixCopiaECola?: string;
  pix?: PspCobPix[];
}

export type PspErrorKind = 'timeout' | 'unavailable' | 'auth' | 'refused' | 'not_found' | 'invalid_answer';

/**
 * The PSP did not do what was asked. `kind`: `timeout` (no answer within the limit: the request may have been
 * received), `unavailable` (no connection, TLS failure, 5xx), `auth` (credentials or certificate refused),
 * `refused` (a 4xx problem: the PSP refused the request), `not_found`, `invalid_answer`.
 */
export class PspError extends Error {
  constructor(
    readonly kind: PspErrorKind,
    message: string,
    readonly status: number | null = null,
    readonly problem: Record<string, unknown> | null = null,
    /** The PSP's own words (its problem body or OAuth2 error), to show the store as the PSP said them. */
    readonly reason: string | null = null,
  ) {
    super(message);
    this.name = 'PspError';
  }
}

export const DEFAULT_PSP_TIMEOUT_MS = 5000;
/** A token is renewed this long before the PSP says it expires, so no request carries a dying token. */
const TOKEN_MARGIN_MS = 30_000;
const SCOPE = 'cob.write cob.read webhook.write';

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** Per PSP, client and credentials: one token serves every request until it is about to expire. */
const tokenCache = new Map<string, CachedToken>();

function cacheKey(c: PspConnection): string {
  const material = createHash('sha256')
    .update(c.clientSecret)
    .update('\0')
    .update(c.pfx ?? Buffer.alloc(0))
    .digest('hex');
  return `${c.tokenUrl}\n${c.clientId}\n${material}`;
}

/** Forgets every cached token (tests; a changed configuration gets a new key anyway). */
export function clearPspTokens(): void {
  tokenCache.clear();
}

interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** Problem body (RFC 7807) → one readable sentence: title, detail and each violation. */
function problemText(body: Record<string, unknown> | null, status: number): string {
  if (body === null) return `HTTP ${status}`;
  const parts = [body['title'], body['detail']].filter((p): p is string => typeof p === 'string' && p !== '');
  const violations = Array.isArray(body['violacoes'])
    ? (body['violacoes'] as { propriedade?: unknown; razao?: unknown }[]).map(
        (v) => `${String(v.propriedade ?? '?')}: ${String(v.razao ?? '')}`,
      )
    : [];
  const oauth = [body['error'], body['error_description']].filter((p): p is string => typeof p === 'string');
  const text = [...parts, ...violations, ...oauth].join(' — ');
  return text === '' ? `HTTP ${status}` : text;
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export class PspClient {
  private readonly agent: https.Agent;
  private readonly timeoutMs: number;

  constructor(
    private readonly connection: PspConnection,
    private readonly clock: Clock,
  ) {
    this.timeoutMs = connection.timeoutMs ?? DEFAULT_PSP_TIMEOUT_MS;
    this.agent = new https.Agent({
      keepAlive: true,
      ...(connection.pfx === null ? {} : { pfx: connection.pfx, passphrase: connection.passphrase ?? '' }),
      ...(connection.caPem === null ? {} : { ca: connection.caPem }),
      minVersion: 'TLSv1.2',
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private request(
    method: string,
    url: string,
    headers: Record<string, string>,
    body: string | null,
  ): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (error: PspError) => {
        if (settled) return;
        settled = true;
        reject(error);
      };
      const req = https.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            Accept: 'application/json',
            ...headers,
            ...(body === null ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks).toString('utf8'),
            });
          });
          res.on('error', (e) => fail(new PspError('unavailable', `PSP connection lost: ${e.message}`)));
        },
      );
      // One deadline for the whole exchange (connect, TLS, answer): the cashier must not wait longer.
      const timer = setTimeout(() => {
        fail(
          new PspError(
            'timeout',
            `the PSP did not answer within ${this.timeoutMs / 1000} s (${method} ${url})`,
          ),
        );
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        fail(new PspError('unavailable', `could not reach the PSP at ${url}: ${e.code ?? e.message}`));
      });
      if (body !== null) req.write(body);
      req.end();
    });
  }

  private async token(): Promise<string> {
    const cached = tokenCache.get(cacheKey(this.connection));
    if (cached !== undefined && cached.expiresAt > this.clock.now().getTime()) return cached.token;
    return (await this.newToken()).token;
  }

  /**
   * Asks the PSP for a new token whatever is cached: the settings screen's "Testar conexão" must prove the
   * credentials work now, not that they worked when the cached token was issued.
   */
  async checkCredentials(): Promise<{ expiresIn: number; scope: string | null }> {
    const { expiresIn, scope } = await this.newToken();
    return { expiresIn, scope };
  }

  private async newToken(): Promise<{ token: string; expiresIn: number; scope: string | null }> {
    const key = cacheKey(this.connection);
    const basic = Buffer.from(`${this.connection.clientId}:${this.connection.clientSecret}`).toString(
      'base64',
    );
    const answer = await this.request(
      'POST',
      this.connection.tokenUrl,
      { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPE }).toString(),
    );
    const body = parseJson(answer.body);
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      const reason = problemText(body, answer.status);
      throw new PspError('auth', `the PSP refused the credentials: ${reason}`, answer.status, body, reason);
    }
    if (answer.status !== 200) {
      throw new PspError(
        'unavailable',
        `the PSP's token endpoint answered ${problemText(body, answer.status)}`,
        answer.status,
        body,
      );
    }
    const token = body?.['access_token'];
    const expiresIn = body?.['expires_in'];
    if (typeof token !== 'string' || token === '') {
      throw new PspError('invalid_answer', 'the PSP answered the token request without access_token');
    }
    const seconds = typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn : 300;
    // Short-lived tokens are still reused for half their life rather than never.
    const margin = Math.min(TOKEN_MARGIN_MS, (seconds * 1000) / 2);
    tokenCache.set(key, { token, expiresAt: this.clock.now().getTime() + seconds * 1000 - margin });
    const scope = body?.['scope'];
    return { token, expiresIn: seconds, scope: typeof scope === 'string' ? scope : null };
  }

  /** An authenticated API Pix call; a 401 with a cached token drops it and tries once more with a new one. */
  private async call(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    const url = `${this.connection.baseUrl.replace(/\/+$/, '')}${path}`;
    const text = body === undefined ? null : JSON.stringify(body);
    for (let attempt = 0; ; attempt++) {
      const token = await this.token();
      const answer = await this.request(
        method,
        url,
        {
          Authorization: `Bearer ${token}`,
          ...(text === null ? {} : { 'Content-Type': 'application/json' }),
        },
        text,
      );
      const parsed = parseJson(answer.body);
      if (answer.status >= 200 && answer.status < 300) {
        if (parsed === null)
          throw new PspError('invalid_answer', `the PSP answered ${method} ${path} without JSON`);
        return parsed;
      }
      if (answer.status === 401 && attempt === 0) {
        tokenCache.delete(cacheKey(this.connection));
        continue;
      }
      const reason = problemText(parsed, answer.status);
      if (answer.status === 401)
        throw new PspError('auth', `the PSP refused access: ${reason}`, answer.status, parsed);
      if (answer.status === 404)
        throw new PspError('not_found', `the PSP does not know it: ${reason}`, 404, parsed);
      if (answer.status >= 500)
        throw new PspError('unavailable', `the PSP failed: ${reason}`, answer.status, parsed);
      throw new PspError('refused', `the PSP refused it: ${reason}`, answer.status, parsed);
    }
  }

  /** PUT /cob/{txid}: a charge for immediate payment. */
  async createCob(
    txid: string,
    input: { valor: string; chave: string; expiracao: number; solicitacaoPagador?: string },
  ): Promise<PspCob> {
    return asCob(
      await this.call('PUT', `/cob/${encodeURIComponent(txid)}`, {
        calendario: { expiracao: input.expiracao },
        valor: { original: input.valor },
        chave: input.chave,
        ...(input.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: input.solicitacaoPagador }),
      }),
    );
  }

  async getCob(txid: string): Promise<PspCob> {
    return asCob(await this.call('GET', `/cob/${encodeURIComponent(txid)}`, undefined));
  }

  /** PATCH /cob/{txid} with status REMOVIDA_PELO_USUARIO_RECEBEDOR. */
  async removeCob(txid: string): Promise<PspCob> {
    return asCob(
      await this.call('PATCH', `/cob/${encodeURIComponent(txid)}`, {
        status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR',
      }),
    );
  }

  /** PUT /webhook/{chave}: where the PSP posts `{pix:[…]}` (to `${webhookUrl}/pix`). */
  async setWebhook(chave: string, webhookUrl: string): Promise<void> {
    await this.call('PUT', `/webhook/${encodeURIComponent(chave)}`, { webhookUrl });
  }
}

const STATUSES: readonly string[] = [
  'ATIVA',
  'CONCLUIDA',
  'REMOVIDA_PELO_USUARIO_RECEBEDOR',
  'REMOVIDA_PELO_PSP',
];

function asCob(body: Record<string, unknown>): PspCob {
  const status = body['status'];
  const txid = body['txid'];
  const valor = body['valor'] as { original?: unknown } | undefined;
  const calendario = body['calendario'] as { criacao?: unknown; expiracao?: unknown } | undefined;
  if (
    typeof txid !== 'string' ||
    typeof status !== 'string' ||
    !STATUSES.includes(status) ||
    typeof valor?.original !== 'string' ||
    typeof calendario?.criacao !== 'string'
  ) {
    throw new PspError('invalid_answer', 'the PSP answered a cob without txid, status, valor or calendario');
  }
  return {
    ...(body as unknown as PspCob),
    calendario: {
      criacao: calendario.criacao,
      expiracao: typeof calendario.expiracao === 'number' ? calendario.expiracao : 86_400,
    },
  };
}
