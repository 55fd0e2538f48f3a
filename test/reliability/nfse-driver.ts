// A service provider's terminal for the NFS-e reliability test: the real service on a data dir against an
// external sandbox authority, issuing NFS-e through POST /v1/nfse (each request with its own Idempotency-Key)
// until the data dir holds `target`; the test kills it at random. After a restart it first repeats the last
// request with its key, which must answer the note that request made instead of making another.
//
// It also writes down, in <data dir>/nfse-requests.log, every request the service makes to the national
// environment (send with the DPS Id read from the body, consult by DPS Id or by key, and whether the TLS
// connection was up, i.e. whether the request may have been received), so the test can check that a DPS is
// never sent again without a consultation when its last send may have arrived. The log only observes:
// https.request is called as before and its request and answer are untouched.
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import zlib from 'node:zlib';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { NFSE_MODELO } from '../../src-main/documents/kinds/nfse/kind.ts';
import { runTerminal } from './terminal.ts';

const dataDir = process.env['DRIVER_DATA_DIR'] ?? '';
const requestLog = path.join(dataDir, 'nfse-requests.log');
const answerLog = path.join(dataDir, 'nfse-answers.log');

/** What a request to the national environment is, from its method and path. */
function operationOf(method: string, pathname: string): { op: string; ref: string } | null {
  const sefin = /^\/nfse\/SefinNacional\/(.+)$/.exec(pathname)?.[1];
  if (sefin === undefined) return pathname.startsWith('/nfse/') ? { op: 'param', ref: '-' } : null;
  const [a, b, c] = sefin.split('/');
  if (a === 'nfse' && b === undefined && method === 'POST') return { op: 'send', ref: '?' };
  if (a === 'dps' && b !== undefined) return { op: 'consult-dps', ref: b };
  if (a === 'nfse' && b !== undefined && c === undefined) return { op: 'consult-nfse', ref: b };
  return { op: 'event', ref: b ?? '-' };
}

/** The DPS Id in a POST /nfse body ({dpsXmlGZipB64}); '?' when it cannot be read. */
function dpsIdOf(body: unknown): string {
  try {
    const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body);
    const { dpsXmlGZipB64 } = JSON.parse(text) as { dpsXmlGZipB64: string };
    const xml = zlib.gunzipSync(Buffer.from(dpsXmlGZipB64, 'base64')).toString('utf8');
    return /<infDPS[^>]*\sId="(DPS\d{42})"/.exec(xml)?.[1] ?? '?';
  } catch {
    return '?';
  }
}

let sequence = 0;
const original = https.request.bind(https) as (...args: unknown[]) => ClientRequest;
function observed(...args: unknown[]): ClientRequest {
  const req = original(...args);
  const target = args[0];
  const url = target instanceof URL ? target : typeof target === 'string' ? new URL(target) : null;
  const method = String((args[1] as { method?: string } | undefined)?.method ?? 'GET');
  const what = url === null ? null : operationOf(method, url.pathname);
  if (what === null) return req;
  const tag = `${process.pid}.${++sequence}`;
  let ref = what.ref;
  const write = (event: string) => fs.appendFileSync(requestLog, `${tag} ${what.op} ${ref} ${event}\n`);
  const end = req.end.bind(req) as (...a: unknown[]) => ClientRequest;
  req.end = ((...a: unknown[]) => {
    if (what.op === 'send') ref = dpsIdOf(a[0]);
    write('start');
    return end(...a);
  }) as typeof req.end;
  req.on('socket', (socket: Socket) => {
    // The request bytes can reach the server only over an established TLS connection.
    if (!socket.connecting) write('connected');
    else socket.once('secureConnect', () => write('connected'));
  });
  req.on('response', (res: IncomingMessage) => write(`status-${res.statusCode ?? 0}`));
  req.on('error', (error: NodeJS.ErrnoException) => write(`error-${error.code ?? error.constructor.name}`));
  return req;
}
(https as { request: unknown }).request = observed;

/** The §2.8 body of the `i`th service (values differ so each request has its own fingerprint). */
function body(i: number) {
  return {
    codigo_tributacao_nacional: '140101',
    descricao_servico: `Manutenção de ar-condicionado split, visita ${i + 1}`,
    valor_servico: Number(`${100 + i}.${String(i % 100).padStart(2, '0')}`),
    iss_retido: i % 4 === 3,
    tomador: {
      cpf_cnpj: '529.982.247-25',
      razao_social: 'Maria da Silva',
      email: 'maria@example.com',
    },
  };
}

await runTerminal(async ({ service, companyId, target }) => {
  const apiKey = service.bootstrap.sandbox?.apiKey;
  if (apiKey === undefined) throw new Error('no sandbox API key in the data dir');

  const notes = () =>
    service.db
      .selectFrom('documents')
      .select(['id', 'n_nf'])
      .where('company_id', '=', companyId)
      .where('modelo', '=', NFSE_MODELO)
      .orderBy('n_nf')
      .execute();

  async function post(i: number): Promise<{ status: number; id: string; state: string }> {
    const res = await fetch(`${service.url}/v1/nfse`, {
      method: 'POST',
      headers: {
        'X-API-Key': apiKey ?? '',
        'Content-Type': 'application/json',
        'Idempotency-Key': `nfse-reliability-${i}`,
      },
      body: JSON.stringify(body(i)),
    });
    const text = await res.text();
    if (res.status !== 200 && res.status !== 202) throw new Error(`POST ${i}: ${res.status} ${text}`);
    const view = JSON.parse(text) as { id: string; status: string };
    return { status: res.status, id: view.id, state: view.status };
  }

  async function cancelOne(): Promise<void> {
    const uncancelled = await service.db
      .withTables<{ document_events: { document_id: string } }>()
      .selectFrom('documents')
      .select('id')
      .where('company_id', '=', companyId)
      .where('modelo', '=', NFSE_MODELO)
      .where('status', '=', 'autorizada')
      .where('id', 'not in', (eb) => eb.selectFrom('document_events').select('document_id'))
      .orderBy('n_nf')
      .executeTakeFirst();
    if (uncancelled === undefined) return;
    const res = await fetch(`${service.url}/v1/nfse/${uncancelled.id}/cancel`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey ?? '', 'Content-Type': 'application/json' },
      body: JSON.stringify({ codigo_motivo: 2, justificativa: 'Servico nao prestado, visita desmarcada' }),
    });
    const text = await res.text();
    if (res.status !== 200 && res.status !== 202) throw new Error(`cancel: ${res.status} ${text}`);
    fs.appendFileSync(answerLog, `cancel ${uncancelled.id} ${res.status}\n`);
    process.stdout.write(`cancel ${uncancelled.id} ${res.status}\n`);
  }

  let made = await notes();
  if (made.length > 0) {
    // The last request may have been cut by the kill: repeated with its key, it answers the note it made.
    const last = made[made.length - 1];
    const again = await post(made.length - 1);
    if (again.id !== last?.id || (await notes()).length !== made.length) {
      throw new Error(`retry of request ${made.length - 1} answered ${again.id}, not ${last?.id ?? '?'}`);
    }
    fs.appendFileSync(answerLog, `retry ${made.length - 1} ${again.status} ${again.id}\n`);
    process.stdout.write(`retry ${made.length - 1} ${again.status} ${again.state}\n`);
  }
  while (made.length < target) {
    const i = made.length;
    const answer = await post(i);
    fs.appendFileSync(answerLog, `new ${i} ${answer.status} ${answer.id}\n`);
    process.stdout.write(`nfse ${i} ${answer.status} ${answer.state}\n`);
    made = await notes();
    if (made.length !== i + 1) throw new Error(`after request ${i} the data dir holds ${made.length} NFS-e`);
    // Every eighth note, a cancellation of the oldest authorized note without one: events meet the same chaos.
    if ((i + 1) % 8 === 0) await cancelOne();
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
});
