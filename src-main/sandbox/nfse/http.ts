// The national NFS-e REST APIs on the sandbox's HTTPS port: routes the paths under /nfse/ (Sefin Nacional,
// ADN Parâmetros Municipais, ADN DANFSe) to their handlers, with the same mutual TLS rule, fault switches and
// exchange log as the SOAP services; the work of each request runs serialized in one transaction.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../clock.ts';
import type { FaultControl, NfseSandboxService } from '../faults.ts';
import type { ExchangeOutcome, Serialized } from '../registry.ts';
import type { SandboxSettings } from '../services/common.ts';
import type { SandboxDb } from '../store.ts';
import { aliquota, convenio } from './parametros.ts';
import type { SandboxSigner } from './nfse-xml.ts';
import {
  consultarDps,
  consultarEvento,
  consultarNfse,
  emitirNfse,
  registrarEvento,
  responseErro,
  type NfseAnswer,
  type NfseContext,
} from './sefin.ts';

/** The client certificate of a request, as the server's TLS layer judged it. */
export type ClientCertificate = { ok: true; cnpj: string | null } | { ok: false; reason: string };

export interface NfseHttpDeps {
  db: SandboxDb;
  clock: Clock;
  serialized: Serialized;
  faults: FaultControl;
  settings: SandboxSettings;
  signer: SandboxSigner;
  clientCertificate(req: IncomingMessage): ClientCertificate;
  readBody(req: IncomingMessage): Promise<string | null>;
}

type Work = (body: string, ctx: NfseContext) => Promise<NfseAnswer>;

interface Route {
  service: NfseSandboxService | null;
  method: 'GET' | 'HEAD' | 'POST';
  work: Work;
}

const SEFIN = '/nfse/SefinNacional';
const PARAMETROS = '/nfse/parametrizacao';
const DANFSE = '/nfse/danfse';

/** The operation a method and path name, or why none does (404 path, 405 method). */
function route(method: string, path: string): Route | 'no-path' | 'no-method' {
  const seg = (base: string) => (path.startsWith(`${base}/`) ? path.slice(base.length + 1).split('/') : null);
  const sefin = seg(SEFIN);
  const candidates: Route[] = [];
  if (sefin !== null) {
    const [a, b, c, d, e, ...rest] = sefin.map(decodeURIComponent);
    if (rest.length > 0) return 'no-path';
    if (a === 'nfse' && b === undefined) {
      candidates.push({ service: 'NFSeSefinNacional', method: 'POST', work: emitirNfse });
    } else if (a === 'nfse' && b !== undefined && c === undefined) {
      candidates.push({
        service: 'NFSeSefinNacional',
        method: 'GET',
        work: (_b, ctx) => consultarNfse(b, ctx),
      });
    } else if (a === 'nfse' && b !== undefined && c === 'eventos' && d === undefined) {
      candidates.push({
        service: 'NFSeSefinNacional',
        method: 'POST',
        work: (body, ctx) => registrarEvento(b, body, ctx),
      });
    } else if (a === 'nfse' && b !== undefined && c === 'eventos' && d !== undefined && e !== undefined) {
      candidates.push({
        service: 'NFSeSefinNacional',
        method: 'GET',
        work: (_b, ctx) => consultarEvento(b, d, e, ctx),
      });
    } else if (a === 'dps' && b !== undefined && c === undefined) {
      candidates.push(
        { service: 'NFSeSefinNacional', method: 'GET', work: (_b, ctx) => consultarDps(b, ctx, false) },
        { service: 'NFSeSefinNacional', method: 'HEAD', work: (_b, ctx) => consultarDps(b, ctx, true) },
      );
    }
  }
  const parametros = seg(PARAMETROS)?.map(decodeURIComponent) ?? null;
  if (parametros !== null) {
    const [cMun, b, c, d, ...rest] = parametros;
    if (cMun !== undefined && b === 'convenio' && c === undefined) {
      candidates.push({
        service: 'NFSeParametrosMunicipais',
        method: 'GET',
        work: (_b, ctx) => convenio(cMun, ctx),
      });
    } else if (
      cMun !== undefined &&
      b !== undefined &&
      c !== undefined &&
      d === 'aliquota' &&
      rest.length === 0
    ) {
      candidates.push({
        service: 'NFSeParametrosMunicipais',
        method: 'GET',
        work: (_b, ctx) => aliquota(cMun, b, c, ctx),
      });
    }
  }
  const danfse = seg(DANFSE);
  if (danfse !== null && danfse.length === 1) {
    // The DANFSe is rendered locally from the authorized XML (docs/nfse.md): the sandbox does not draw one.
    candidates.push({
      service: null,
      method: 'GET',
      work: (_b, ctx) =>
        Promise.resolve(
          responseErro(
            ctx,
            501,
            'O sandbox não gera o DANFSe: use o DANFSe renderizado localmente a partir do XML.',
          ),
        ),
    });
  }
  if (candidates.length === 0) return 'no-path';
  return candidates.find((r) => r.method === method) ?? 'no-method';
}

function sendJson(res: ServerResponse, status: number, body: unknown, head = false): void {
  if (res.headersSent || res.destroyed) return;
  const text = body === null ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(head ? undefined : text);
}

export async function handleNfseRequest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: NfseHttpDeps,
): Promise<void> {
  const method = req.method ?? 'GET';
  const head = method === 'HEAD';
  const base = { now: deps.clock.now(), settings: deps.settings };
  const found = route(method, path);
  if (found === 'no-path') {
    sendJson(res, 404, responseErro(base, 404, `Recurso inexistente: ${path}`).body, head);
    return;
  }
  if (found === 'no-method') {
    sendJson(res, 405, responseErro(base, 405, `Método ${method} não suportado em ${path}`).body, head);
    return;
  }
  // Mutual TLS, as for the SOAP services: no client certificate, no answer but 403.
  const client = deps.clientCertificate(req);
  if (!client.ok) {
    sendJson(res, 403, responseErro(base, 403, client.reason).body, head);
    return;
  }
  const service = found.service;
  const log = (code: string | null, outcome: ExchangeOutcome) =>
    service === null
      ? Promise.resolve()
      : deps
          .serialized((db, now) =>
            db
              .insertInto('exchanges')
              .values({ at: now.toISOString(), service, client_cnpj: client.cnpj, c_stat: code, outcome })
              .execute(),
          )
          .then(
            () => undefined,
            () => undefined,
          );

  const scope =
    service === null || deps.faults.scopeOfClient === null
      ? null
      : await deps.faults.scopeOfClient(client.cnpj);
  const decision =
    service === null
      ? { refuse: false, timeout: false, paused: null, slowMs: 0, lose: false, nfseReject: null }
      : deps.faults.decideFor(service, scope);
  if (decision.refuse) {
    req.socket.destroy();
    await log(null, 'refused');
    return;
  }
  if (decision.timeout) {
    // Never answered; logged first because the client usually gives up before anything else happens.
    await log(null, 'timeout');
    req.resume();
    return;
  }
  if (method === 'POST' && !/application\/json/i.test(req.headers['content-type'] ?? '')) {
    sendJson(res, 415, responseErro(base, 415, 'Content-Type deve ser application/json').body);
    await log('415', 'fault');
    return;
  }
  const body = method === 'POST' ? await deps.readBody(req) : '';
  if (body === null) {
    sendJson(res, 413, responseErro(base, 413, 'Mensagem acima do tamanho máximo').body);
    await log('413', 'fault');
    return;
  }
  if (decision.paused !== null) {
    // A paused service: the national APIs have no 108/109, they answer 503 until it is back.
    sendJson(res, 503, responseErro(base, 503, 'Serviço paralisado momentaneamente').body, head);
    await log('503', 'answered');
    return;
  }
  const answer = await deps.serialized((db, now) =>
    found.work(body, {
      db,
      now,
      clientCnpj: client.cnpj,
      settings: deps.settings,
      signer: deps.signer,
      reject: decision.nfseReject,
    }),
  );
  if (decision.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.slowMs));
  if (decision.lose) {
    // Processed and committed above; the client never learns it (the field's source of duplicates).
    req.socket.destroy();
    await log(answer.code, 'lost');
    return;
  }
  sendJson(res, answer.status, answer.body, head);
  await log(answer.code, 'answered');
}
