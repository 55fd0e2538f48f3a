// The sandbox PSP: an HTTPS server with mutual TLS that plays the Banco Central "API Pix" v2 for charges
// (OAuth2 client credentials, PUT/GET/PATCH /cob/{txid}, PUT /webhook/{chave}, the payer's location), with
// simulated payments and faults, so dynamic PIX runs and is tested without a bank. State is kept in memory:
// a restart forgets its charges, as a sandbox may (the service keeps its own rows).
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { systemClock, type Clock } from '../clock.ts';
import { generateServerIdentity } from '../sandbox/certificates.ts';
import { dynamicBrCode } from '../../src-shared/pix/br-code.ts';
import { TXID_PATTERN, type PixSandboxFaults, type PixStatus } from '../../src-shared/contracts/pix.ts';

/** A valid CNPJ the sandbox PSP presents as its own (the NFC-e's card group names it). */
export const SANDBOX_PSP_CNPJ = '11222333000181';
/** ISPB of the sandbox PSP in the endToEndId (8 digits, as a participant's would be). */
const SANDBOX_ISPB = '99999999';
const MAX_BODY_BYTES = 64 * 1024;
const API_PREFIX = '/api/v2';

export interface SandboxPspClient {
  clientId: string;
  clientSecret: string;
  /** SHA-256 fingerprint of the client certificate (Node's `fingerprint256`, "AB:CD:…"). */
  certFingerprint256: string;
  /** Recebedor shown in the BR Code (fields 59/60). */
  merchantName: string;
  merchantCity: string;
}

export interface SandboxCobPix {
  endToEndId: string;
  txid: string;
  valor: string;
  horario: string;
}

/** A cob as API Pix v2 answers it. */
export interface SandboxCob {
  calendario: { criacao: string; expiracao: number };
  txid: string;
  revisao: number;
  loc: { id: number; location: string; tipoCob: 'cob' };
  location: string;
  status: PixStatus;
  valor: { original: string };
  chave: string;
  solicitacaoPagador?: string;
  pixCopiaECola: string;
  pix?: SandboxCobPix[];
}

interface StoredCob extends SandboxCob {
  clientId: string;
  locPath: string;
}

export interface StartSandboxPspOptions {
  clock?: Clock;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Lifetime of the access tokens it issues (default 3600 s). */
  tokenTtlSeconds?: number;
  /** Told when a webhook delivery fails (the service logs it). */
  onWebhookError?: (url: string, error: unknown) => void;
}

export interface SandboxPsp {
  /** https://127.0.0.1:PORT */
  url: string;
  /** API Pix base URL: `${url}/api/v2`. */
  apiUrl: string;
  tokenUrl: string;
  /** The self-signed server certificate clients trust as their CA. */
  caPem: string;
  cnpj: string;
  registerClient(client: SandboxPspClient): void;
  /** Pays an active charge as a payer's bank would, then calls the receiver's webhook (awaited, 5 s at most). */
  pay(txid: string): Promise<SandboxCob>;
  /** Ends a charge's validity now (fault `expirar`). */
  expire(txid: string): boolean;
  find(txid: string): SandboxCob | undefined;
  faults: { state(): PixSandboxFaults; apply(change: Partial<PixSandboxFaults>): PixSandboxFaults };
  /** Access tokens issued since start (tests check the client reuses its token). */
  tokensIssued(): number;
  close(): Promise<void>;
}

interface Problem {
  status: number;
  type: string;
  title: string;
  detail: string;
  violacoes?: { razao: string; propriedade: string }[];
}

class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
  }
}

/** API Pix v2 error types live under this namespace (the specification's "type" URIs). */
const problem = (
  status: number,
  kind: string,
  title: string,
  detail: string,
  violacoes?: Problem['violacoes'],
) =>
  new ProblemError({
    status,
    type: `https://pix.bcb.gov.br/api/v2/error/${kind}`,
    title,
    detail,
    ...(violacoes === undefined ? {} : { violacoes }),
  });

const MONEY = /^\d{1,10}\.\d{2}$/;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES)
        reject(problem(413, 'RequisicaoInvalida', 'Requisição inválida.', 'Corpo grande demais.'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': `${type}; charset=utf-8`,
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw problem(400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo não é JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw problem(400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo deve ser um objeto JSON.');
  return value as Record<string, unknown>;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** An endToEndId as the SPI writes it: E + ISPB (8) + yyyyMMddHHmm + 11 alphanumerics = 32 characters. */
function endToEndId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const tail = [...randomBytes(11)].map((b) => alphabet[b % alphabet.length]).join('');
  return `E${SANDBOX_ISPB}${stamp}${tail}`;
}

export async function startSandboxPsp(options: StartSandboxPspOptions = {}): Promise<SandboxPsp> {
  const clock = options.clock ?? systemClock;
  const host = options.host ?? '127.0.0.1';
  const tokenTtl = options.tokenTtlSeconds ?? 3600;
  // TLS checks validity against real time, whatever clock the charges follow.
  const identity = generateServerIdentity();
  const clients = new Map<string, SandboxPspClient>();
  const tokens = new Map<string, { clientId: string; fingerprint: string; expiresAt: number }>();
  const cobs = new Map<string, StoredCob>();
  /** Webhook URL per client and chave. */
  const webhooks = new Map<string, string>();
  let issued = 0;
  let nextLoc = 1;
  const faults: PixSandboxFaults = { recusar_proxima: false, atraso_ms: 0, timeout_proxima: false };
  let url = '';

  const expired = (cob: StoredCob): boolean =>
    clock.now().getTime() > Date.parse(cob.calendario.criacao) + cob.calendario.expiracao * 1000;

  /** The cob as answered now: an active charge past its expiracao is removed by the PSP. */
  const current = (cob: StoredCob): StoredCob => {
    if (cob.status === 'ATIVA' && expired(cob)) cob.status = 'REMOVIDA_PELO_PSP';
    return cob;
  };
  const publicCob = (cob: StoredCob): SandboxCob => {
    const { clientId: _c, locPath: _l, ...rest } = current(cob);
    return rest;
  };

  const authenticate = (req: IncomingMessage, fingerprint: string): SandboxPspClient => {
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    const token = bearer === undefined ? undefined : tokens.get(bearer);
    if (token === undefined || token.expiresAt <= clock.now().getTime()) {
      throw problem(401, 'AcessoNegado', 'Acesso negado.', 'Token de acesso ausente, inválido ou expirado.');
    }
    // RFC 8705: the token is bound to the certificate it was issued to.
    if (token.fingerprint !== fingerprint) {
      throw problem(401, 'AcessoNegado', 'Acesso negado.', 'O token foi emitido para outro certificado.');
    }
    const client = clients.get(token.clientId);
    if (client === undefined) throw problem(401, 'AcessoNegado', 'Acesso negado.', 'Cliente desconhecido.');
    return client;
  };

  const issueToken = async (req: IncomingMessage, res: ServerResponse, fingerprint: string) => {
    const body = new URLSearchParams(await readBody(req));
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const [id, ...secretParts] =
      basic === undefined ? [] : Buffer.from(basic, 'base64').toString('utf8').split(':');
    const client = id === undefined ? undefined : clients.get(id);
    if (body.get('grant_type') !== 'client_credentials') {
      sendJson(res, 400, { error: 'unsupported_grant_type' });
      return;
    }
    if (client === undefined || !sameText(secretParts.join(':'), client.clientSecret)) {
      sendJson(res, 401, {
        error: 'invalid_client',
        error_description: 'client_id ou client_secret inválido',
      });
      return;
    }
    if (client.certFingerprint256 !== fingerprint) {
      sendJson(res, 401, {
        error: 'invalid_client',
        error_description: 'certificado do cliente não registrado',
      });
      return;
    }
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, {
      clientId: client.clientId,
      fingerprint,
      expiresAt: clock.now().getTime() + tokenTtl * 1000,
    });
    issued += 1;
    sendJson(res, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: tokenTtl,
      scope: body.get('scope') ?? 'cob.write cob.read webhook.write',
    });
  };

  const cobOf = (client: SandboxPspClient, txid: string): StoredCob => {
    const cob = cobs.get(txid);
    if (cob === undefined || cob.clientId !== client.clientId)
      throw problem(
        404,
        'CobNaoEncontrado',
        'Cobrança não encontrada.',
        `Nenhuma cobrança com o txid ${txid}.`,
      );
    return cob;
  };

  const putCob = (client: SandboxPspClient, txid: string, body: Record<string, unknown>): StoredCob => {
    const violacoes: { razao: string; propriedade: string }[] = [];
    if (!TXID_PATTERN.test(txid))
      violacoes.push({ razao: 'txid deve ter de 26 a 35 caracteres [a-zA-Z0-9]', propriedade: 'txid' });
    const calendario = body['calendario'] as { expiracao?: unknown } | undefined;
    const expiracao = calendario?.expiracao ?? 86_400;
    if (typeof expiracao !== 'number' || !Number.isInteger(expiracao) || expiracao <= 0)
      violacoes.push({ razao: 'deve ser um inteiro positivo', propriedade: 'calendario.expiracao' });
    const original = (body['valor'] as { original?: unknown } | undefined)?.original;
    if (typeof original !== 'string' || !MONEY.test(original) || /^0+\.00$/.test(original))
      violacoes.push({
        razao: 'deve ser um valor positivo com duas casas, ex. 12.50',
        propriedade: 'valor.original',
      });
    const chave = body['chave'];
    if (typeof chave !== 'string' || chave.trim() === '' || chave.length > 77)
      violacoes.push({ razao: 'chave DICT obrigatória', propriedade: 'chave' });
    const solicitacao = body['solicitacaoPagador'];
    if (solicitacao !== undefined && (typeof solicitacao !== 'string' || solicitacao.length > 140))
      violacoes.push({ razao: 'até 140 caracteres', propriedade: 'solicitacaoPagador' });
    if (violacoes.length > 0)
      throw problem(
        400,
        'CobOperacaoInvalida',
        'Cobrança inválida.',
        'A requisição que busca alterar ou criar uma cobrança para pagamento imediato não respeita o schema ou está semanticamente errada.',
        violacoes,
      );
    if (cobs.has(txid))
      throw problem(
        409,
        'CobOperacaoInvalida',
        'Cobrança inválida.',
        `Já existe uma cobrança com o txid ${txid}.`,
      );
    if (faults.recusar_proxima) {
      faults.recusar_proxima = false;
      throw problem(
        403,
        'CobOperacaoInvalida',
        'Cobrança recusada.',
        'O PSP recusou a cobrança (falha simulada do sandbox).',
      );
    }
    const locId = nextLoc++;
    const locPath = randomBytes(16).toString('hex');
    const location = `${url.replace(/^https:\/\//, '')}/qr/v2/${locPath}`;
    const cob: StoredCob = {
      calendario: { criacao: clock.now().toISOString(), expiracao: expiracao as number },
      txid,
      revisao: 0,
      loc: { id: locId, location, tipoCob: 'cob' },
      location,
      status: 'ATIVA',
      valor: { original: original as string },
      chave: chave as string,
      ...(typeof solicitacao === 'string' ? { solicitacaoPagador: solicitacao } : {}),
      pixCopiaECola: dynamicBrCode({
        location,
        merchantName: client.merchantName,
        merchantCity: client.merchantCity,
      }),
      clientId: client.clientId,
      locPath,
    };
    cobs.set(txid, cob);
    return cob;
  };

  const patchCob = (client: SandboxPspClient, txid: string, body: Record<string, unknown>): StoredCob => {
    const cob = current(cobOf(client, txid));
    if (body['status'] !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR')
      throw problem(
        400,
        'CobOperacaoInvalida',
        'Cobrança inválida.',
        'Só a remoção (status REMOVIDA_PELO_USUARIO_RECEBEDOR) é aceita.',
        [{ razao: 'valor não permitido', propriedade: 'status' }],
      );
    if (cob.status !== 'ATIVA')
      throw problem(
        400,
        'CobOperacaoInvalida',
        'Cobrança inválida.',
        `A cobrança está ${cob.status} e não pode ser removida.`,
      );
    cob.status = 'REMOVIDA_PELO_USUARIO_RECEBEDOR';
    cob.revisao += 1;
    return cob;
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://psp.invalid').pathname;
    // The payer's app reads the location without a client certificate.
    const loc = /^\/qr\/v2\/([0-9a-f]{32})$/.exec(path)?.[1];
    if (req.method === 'GET' && loc !== undefined) {
      const cob = [...cobs.values()].find((c) => c.locPath === loc);
      if (cob === undefined)
        throw problem(
          404,
          'LocNaoEncontrado',
          'Location não encontrada.',
          'Nenhuma cobrança nesta location.',
        );
      sendJson(res, 200, publicCob(cob));
      return;
    }
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    const fingerprint = peer.fingerprint256;
    if (fingerprint === undefined || fingerprint === '') {
      throw problem(
        401,
        'AcessoNegado',
        'Acesso negado.',
        'A API Pix exige o certificado do cliente (mTLS).',
      );
    }
    if (req.method === 'POST' && path === '/oauth/token') {
      await issueToken(req, res, fingerprint);
      return;
    }
    if (!path.startsWith(`${API_PREFIX}/`))
      throw problem(404, 'NaoEncontrado', 'Não encontrado.', `Nada em ${path}.`);
    const client = authenticate(req, fingerprint);
    const rest = path.slice(API_PREFIX.length);
    const cobTxid = /^\/cob\/([^/]+)$/.exec(rest)?.[1];
    if (cobTxid !== undefined) {
      const txid = decodeURIComponent(cobTxid);
      if (req.method === 'PUT') {
        sendJson(res, 201, publicCob(putCob(client, txid, jsonObject(await readBody(req)))));
        return;
      }
      if (req.method === 'GET') {
        sendJson(res, 200, publicCob(cobOf(client, txid)));
        return;
      }
      if (req.method === 'PATCH') {
        sendJson(res, 200, publicCob(patchCob(client, txid, jsonObject(await readBody(req)))));
        return;
      }
    }
    const chave = /^\/webhook\/([^/]+)$/.exec(rest)?.[1];
    if (chave !== undefined && req.method === 'PUT') {
      const body = jsonObject(await readBody(req));
      const webhookUrl = body['webhookUrl'];
      if (typeof webhookUrl !== 'string' || !/^https?:\/\//.test(webhookUrl))
        throw problem(400, 'WebhookOperacaoInvalida', 'Webhook inválido.', 'webhookUrl deve ser uma URL.', [
          { razao: 'URL obrigatória', propriedade: 'webhookUrl' },
        ]);
      const key = decodeURIComponent(chave);
      webhooks.set(`${client.clientId}\n${key}`, webhookUrl);
      sendJson(res, 200, { webhookUrl, chave: key, criacao: clock.now().toISOString() });
      return;
    }
    throw problem(404, 'NaoEncontrado', 'Não encontrado.', `Nada em ${req.method ?? ''} ${path}.`);
  };

  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  const server = https.createServer(
    {
      key: identity.keyPem,
      cert: identity.certPem,
      requestCert: true,
      // Client certificates are self-signed test ones: they are pinned by fingerprint per client instead.
      rejectUnauthorized: false,
      minVersion: 'TLSv1.2',
    },
    (req, res) => {
      if (faults.timeout_proxima) {
        // Never answered: the client's own timeout must end the wait.
        faults.timeout_proxima = false;
        held.add(res);
        req.resume();
        return;
      }
      const delay = faults.atraso_ms;
      const run = async () => {
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        await route(req, res);
      };
      run().catch((error: unknown) => {
        const p =
          error instanceof ProblemError
            ? error.problem
            : {
                status: 500,
                type: 'https://pix.bcb.gov.br/api/v2/error/ErroInterno',
                title: 'Erro interno.',
                detail: String(error),
              };
        sendJson(res, p.status, p, 'application/problem+json');
      });
    },
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  url = `https://${host}:${port}`;

  const deliver = async (cob: StoredCob, pix: SandboxCobPix): Promise<void> => {
    const target = webhooks.get(`${cob.clientId}\n${cob.chave}`);
    if (target === undefined) return;
    const to = `${target.replace(/\/+$/, '')}/pix`;
    try {
      const answer = await fetch(to, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ pix: [pix] }),
        signal: AbortSignal.timeout(5000),
      });
      await answer.arrayBuffer();
      if (!answer.ok) options.onWebhookError?.(to, new Error(`HTTP ${answer.status}`));
    } catch (error) {
      options.onWebhookError?.(to, error);
    }
  };

  return {
    url,
    apiUrl: `${url}${API_PREFIX}`,
    tokenUrl: `${url}/oauth/token`,
    caPem: identity.certPem,
    cnpj: SANDBOX_PSP_CNPJ,
    registerClient(client) {
      clients.set(client.clientId, client);
    },
    async pay(txid) {
      const stored = cobs.get(txid);
      if (stored === undefined) throw new RangeError(`no charge ${txid}`);
      const cob = current(stored);
      if (cob.status !== 'ATIVA') throw new RangeError(`charge ${txid} is ${cob.status}`);
      const now = clock.now();
      const pix = {
        endToEndId: endToEndId(now),
        txid,
        valor: cob.valor.original,
        horario: now.toISOString(),
      };
      cob.status = 'CONCLUIDA';
      cob.pix = [pix];
      await deliver(cob, pix);
      return publicCob(cob);
    },
    expire(txid) {
      const cob = cobs.get(txid);
      if (cob === undefined) return false;
      cob.calendario.expiracao = 0;
      cob.calendario.criacao = new Date(clock.now().getTime() - 1000).toISOString();
      current(cob);
      return true;
    },
    find(txid) {
      const cob = cobs.get(txid);
      return cob === undefined ? undefined : publicCob(cob);
    },
    faults: {
      state: () => ({ ...faults }),
      apply(change) {
        Object.assign(faults, change);
        return { ...faults };
      },
    },
    tokensIssued: () => issued,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        held.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
