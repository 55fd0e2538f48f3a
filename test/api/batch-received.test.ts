// POST /v1/nfe/batch, Idempotency-Key, and received notes (NFeDistribuicaoDFe + manifestação) against the
// running service and its embedded sandbox authority (real HTTPS + mTLS).
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { DEMO_CNPJ } from '../../src-main/bootstrap.ts';
import { authorityResolver } from '../../src-main/authority/port.ts';
import { RateLimiter } from '../../src-main/api/middleware/rate-limit.ts';
import { requireApiKey } from '../../src-main/api/middleware/auth.ts';
import { errorHandler, notFoundHandler } from '../../src-main/api/middleware/errors.ts';
import { documentRoutes } from '../../src-main/api/routes/documents.ts';
import type { ApiDeps } from '../../src-main/api/context.ts';
import { documentCompanyOf, idempotency } from '../../src-main/api/middleware/idempotency.ts';
import { distributionAuthority, registerDistributionAuthority } from '../../src-main/received/sync.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';

let h: Harness;
let resolver: ReturnType<typeof authorityResolver> | undefined;

const item = {
  codigo: 'A1',
  descricao: 'Agua mineral 500 ml',
  ncm: '22011000',
  unidade: 'UN',
  quantidade: 2,
  valor_unitario: '3.50',
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
};
const customer = (cnpj: string, nome: string, ie: string) => ({
  cnpj,
  nome,
  ie,
  endereco: {
    logradouro: 'Rua B',
    numero: '2',
    bairro: 'Centro',
    codigoMunicipio: '3550308',
    uf: 'SP',
    cep: '01000000',
  },
});
const nfe = {
  naturezaOperacao: 'Venda de mercadoria',
  customer: customer('11222333000181', 'Mercado Central Ltda', '110042490114'),
  itens: [item],
  pagamentos: [{ forma: '15', valor: '7.00' }],
};
const nfce = { itens: [item], pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }] };

type Progress = {
  batchId: string;
  total: number;
  autorizadas: number;
  rejeitadas: number;
  processando: number;
  status: string;
  notas: { id: string; numero: number; status: string; chave_acesso: string; cStat: string | null }[];
};
type Details = { error: string; details: { field: string; error: string }[] };

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  h = await startHarness();
  const sandbox = h.service.sandbox;
  if (sandbox === null) throw new Error('the harness runs the embedded sandbox');
  // The service registers its resolver once startDistributionSync is wired in service.ts; until then (and
  // in any case without side effects) the test registers one over the same embedded sandbox.
  if (distributionAuthority(h.service.db) === undefined) {
    resolver = authorityResolver({
      db: h.service.db,
      secrets: h.service.secrets,
      sandbox: { url: sandbox.url, caPem: sandbox.caPem },
      timeoutMs: 15_000,
    });
    registerDistributionAuthority(h.service.db, resolver.resolve);
  }
});
afterAll(async () => {
  resolver?.close();
  await h.stop();
});

async function documentCount(): Promise<number> {
  const row = await h.service.db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function nextNfeNumber(): Promise<number> {
  const res = await h.request('GET', `/v1/companies/${h.companyId}/nfe-sequences`);
  const { sequences } = res.body as {
    sequences: { modelo: string; serie: number; proximo_numero: number }[];
  };
  return sequences.find((s) => s.modelo === '55' && s.serie === 1)?.proximo_numero ?? -1;
}

describe('POST /v1/nfe/batch', () => {
  it('queues 2 notes (202) and reports progress until both are authorized', async () => {
    const res = await h.request('POST', `/v1/nfe/batch?companyId=${h.companyId}`, {
      json: {
        notas: [
          nfe,
          { ...nfe, itens: [{ ...item, quantidade: 1 }], pagamentos: [{ forma: '15', valor: '3.50' }] },
        ],
      },
    });
    expect(res.status).toBe(202);
    const { batchId, total, status } = res.body as { batchId: string; total: number; status: string };
    expect({ total, status }).toEqual({ total: 2, status: 'processando' });
    expect(batchId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const first = (await h.request('GET', `/v1/nfe/batch/${batchId}`)).body as Progress;
    expect(first).toMatchObject({ batchId, total: 2, processando: 2, autorizadas: 0, status: 'processando' });
    expect(first.notas.map((n) => n.status)).toEqual(['processando', 'processando']);
    expect(first.notas[1]!.numero).toBe(first.notas[0]!.numero + 1);

    let progress = first;
    for (let i = 0; i < 50 && progress.status !== 'concluido'; i++) {
      await h.service.worker.tick();
      progress = (await h.request('GET', `/v1/nfe/batch/${batchId}`)).body as Progress;
      if (progress.status !== 'concluido') await wait(50);
    }
    expect(progress).toMatchObject({
      total: 2,
      autorizadas: 2,
      rejeitadas: 0,
      processando: 0,
      status: 'concluido',
    });
    for (const nota of progress.notas) {
      expect(nota).toMatchObject({ status: 'autorizada', cStat: '100' });
      expect(await h.service.sandbox!.registry.authorizationCount(nota.chave_acesso)).toBe(1);
    }
    // The batch router is mounted before /nfe/:id: the document routes still answer.
    expect((await h.request('GET', `/v1/nfe/${progress.notas[0]!.id}`)).status).toBe(200);
    expect((await h.request('GET', '/v1/nfe/batch/bat_missing')).status).toBe(404);
  });

  it('51 notes → 400 validation_error on `notas`; nothing is created', async () => {
    const before = await documentCount();
    const res = await h.request('POST', `/v1/nfe/batch?companyId=${h.companyId}`, {
      json: { notas: Array.from({ length: 51 }, () => nfe) },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'validation_error', details: [{ field: 'notas' }] });
    expect(await documentCount()).toBe(before);
  });

  it('one bad note → 400 listing every fault as notas[i]…; no document and no number consumed', async () => {
    const before = await documentCount();
    const number = await nextNfeNumber();
    const res = await h.request('POST', `/v1/nfe/batch?companyId=${h.companyId}`, {
      json: {
        notas: [nfe, { ...nfe, itens: [{ ...item, ncm: '123', valor_unitario: 'x' }] }, nfe],
      },
    });
    expect(res.status).toBe(400);
    const fields = (res.body as Details).details.map((d) => d.field).sort();
    expect(fields).toEqual(['notas[1].itens[0].ncm', 'notas[1].itens[0].valor_unitario']);
    expect(await documentCount()).toBe(before);
    expect(await nextNfeNumber()).toBe(number);
  });

  it('accepts the `nfes` spelling and names it in errors', async () => {
    const res = await h.request('POST', `/v1/nfe/batch?companyId=${h.companyId}`, { json: { nfes: [] } });
    expect(res.status).toBe(400);
    expect((res.body as Details).details[0]?.field).toBe('nfes');
  });

  it('Idempotency-Key: a retry gets the same answer and creates nothing; another body → 409; >255 → 400', async () => {
    const headers = { 'Idempotency-Key': 'lote-2026-0001' };
    const url = `/v1/nfe/batch?companyId=${h.companyId}`;
    const a = await h.request('POST', url, { json: { notas: [nfe] }, headers });
    const count = await documentCount();
    const b = await h.request('POST', url, { json: { notas: [nfe] }, headers });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.text).toBe(a.text);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await documentCount()).toBe(count);

    const other = await h.request('POST', url, { json: { notas: [nfe, nfe] }, headers });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: 'conflict', details: [{ field: 'Idempotency-Key' }] });

    const long = await h.request('POST', url, {
      json: { notas: [nfe] },
      headers: { 'Idempotency-Key': 'k'.repeat(256) },
    });
    expect(long.status).toBe(400);
    expect((long.body as Details).details[0]?.field).toBe('Idempotency-Key');
    expect(await documentCount()).toBe(count);
  });

  it('a refused request (400) is not kept: the corrected retry may reuse its key', async () => {
    const headers = { 'Idempotency-Key': 'lote-corrigido' };
    const url = `/v1/nfe/batch?companyId=${h.companyId}`;
    const bad = await h.request('POST', url, { json: { notas: [{ ...nfe, itens: [] }] }, headers });
    expect(bad.status).toBe(400);
    const good = await h.request('POST', url, { json: { notas: [nfe] }, headers });
    expect(good.status).toBe(202);
  });
});

describe('Idempotency-Key on send and on the NFC-e sale (wired as documents.ts will be)', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const logger = { debug() {}, info() {}, warn() {}, error() {} };
    const deps: ApiDeps = {
      db: h.service.db,
      clock: h.clock,
      secrets: h.service.secrets,
      logger,
      hooks: { companyChanged: () => Promise.resolve(), worker: h.service.worker },
    };
    const idem = { db: deps.db, clock: deps.clock, logger };
    const pass: express.RequestHandler = (_req, _res, next) => next();
    const v1 = express.Router();
    v1.use(requireApiKey(deps.db, deps.clock, new RateLimiter(deps.clock)));
    v1.use(express.json());
    // The same middleware the service applies in front of the real handlers.
    v1.post('/nfe/:id/send', idempotency(idem, { companyOf: documentCompanyOf(deps.db) }), pass);
    v1.post('/nfce/venda', idempotency(idem), pass);
    v1.use('/nfe', documentRoutes(deps, 55));
    v1.use('/nfce', documentRoutes(deps, 65));
    const app = express();
    app.use('/v1', v1);
    app.use(notFoundHandler);
    app.use(errorHandler(logger));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = async (method: string, path: string, json?: unknown, key?: string) => {
    const headers: Record<string, string> = { 'X-API-Key': h.apiKey };
    if (json !== undefined) headers['Content-Type'] = 'application/json';
    if (key !== undefined) headers['Idempotency-Key'] = key;
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    return { status: res.status, text: await res.text() };
  };

  it('two sends with the same key: same answer, one transmission; the key on another note → 409', async () => {
    const draft = JSON.parse((await call('POST', `/v1/nfe?companyId=${h.companyId}`, nfe)).text) as {
      id: string;
      chave_acesso: string;
    };
    const a = await call('POST', `/v1/nfe/${draft.id}/send`, undefined, 'send-1');
    const b = await call('POST', `/v1/nfe/${draft.id}/send`, undefined, 'send-1');
    expect(a.status).toBe(202);
    expect(b).toEqual(a);
    for (let i = 0; i < 20; i++) {
      await h.service.worker.tick();
      const doc = JSON.parse((await call('GET', `/v1/nfe/${draft.id}`)).text) as { status: string };
      if (doc.status === 'autorizada') break;
      await wait(50);
    }
    const again = await call('POST', `/v1/nfe/${draft.id}/send`, undefined, 'send-1');
    expect(again).toEqual(a);
    expect(await h.service.sandbox!.registry.authorizationCount(draft.chave_acesso)).toBe(1);

    const other = JSON.parse((await call('POST', `/v1/nfe?companyId=${h.companyId}`, nfe)).text) as {
      id: string;
    };
    const reused = await call('POST', `/v1/nfe/${other.id}/send`, undefined, 'send-1');
    expect(reused.status).toBe(409);
    expect(JSON.parse(reused.text)).toMatchObject({
      error: 'conflict',
      details: [{ field: 'Idempotency-Key' }],
    });
  });

  it('concurrent sends with one key: both get the first answer (sync), never a second send', async () => {
    const draft = JSON.parse((await call('POST', `/v1/nfe?companyId=${h.companyId}`, nfe)).text) as {
      id: string;
      chave_acesso: string;
    };
    const [a, b] = await Promise.all([
      call('POST', `/v1/nfe/${draft.id}/send?sync=true`, undefined, 'send-concurrent'),
      call('POST', `/v1/nfe/${draft.id}/send?sync=true`, undefined, 'send-concurrent'),
    ]);
    expect(a.status).toBe(200);
    expect(b).toEqual(a);
    expect(JSON.parse(a.text)).toMatchObject({ status: 'autorizada' });
    expect(await h.service.sandbox!.registry.authorizationCount(draft.chave_acesso)).toBe(1);
  });

  it('POST /v1/nfce with a key: a retried sale returns the same NFC-e and issues nothing new', async () => {
    const url = `/v1/nfce/venda?companyId=${h.companyId}`;
    const a = await call('POST', url, nfce, 'venda-0001');
    const count = await documentCount();
    const b = await call('POST', url, nfce, 'venda-0001');
    expect(a.status).toBe(201);
    expect(b).toEqual(a);
    expect(await documentCount()).toBe(count);
    const changed = await call('POST', url, { ...nfce, itens: [{ ...item, quantidade: 1 }] }, 'venda-0001');
    expect(changed.status).toBe(409);
  });
});

describe('/v1/nfe/received', () => {
  const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);
  const supplierCnpj = cnpj('998877660001');
  let supplierId: string;
  let chave: string;
  let receivedId: string;

  it('a second company issues an NF-e addressed to the demo company', async () => {
    const created = await h.request('POST', '/v1/companies', {
      json: companyBody(supplierCnpj, { xNome: 'FORNECEDOR TESTE LTDA', crt: 1 }),
    });
    expect(created.status).toBe(201);
    supplierId = (created.body as { id: string }).id;
    const pfx = generateTestA1({ cnpj: supplierCnpj, legalName: 'FORNECEDOR', password: 'pw123456' });
    const upload = await h.request('POST', `/v1/companies/${supplierId}/certificate`, {
      json: { certificate: Buffer.from(pfx).toString('base64'), password: 'pw123456' },
    });
    expect(upload.status).toBe(201);
    // Registers the company with the embedded sandbox (the service's companyChanged hook).
    const config = await h.request('PUT', `/v1/companies/${supplierId}/config`, {
      json: { csc_nfce: 'ABCDEF0123456789ABCDEF0123456789ABCD', id_csc: '000001' },
    });
    expect(config.status).toBe(200);

    const draft = await h.request('POST', `/v1/nfe?companyId=${supplierId}`, {
      json: { ...nfe, customer: customer(DEMO_CNPJ, 'Balcao Demonstracao Ltda', '111222330446') },
    });
    expect(draft.status).toBe(201);
    const sent = await h.request('POST', `/v1/nfe/${(draft.body as { id: string }).id}/send?sync=true`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ status: 'autorizada' });
    chave = (sent.body as { chave_acesso: string }).chave_acesso;
  });

  it('sync brings the summary (resNFe) of the note', async () => {
    const res = await h.request('POST', `/v1/nfe/received/sync?companyId=${h.companyId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ consultado: true, novas: 1, cStat: '138' });
    const list = await h.request('GET', `/v1/nfe/received?companyId=${h.companyId}`);
    expect(list.status).toBe(200);
    // Seed §4.6 general list shape.
    const body = list.body as { data: Record<string, unknown>[]; meta: Record<string, number> };
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(body.data[0]).toMatchObject({
      chave_acesso: chave,
      emitente: { cnpj: supplierCnpj, nome: 'FORNECEDOR TESTE LTDA' },
      valor_total: '7.00',
      situacao: 'autorizada',
      schema: 'resNFe_v1.01.xsd',
      completa: false,
      manifestacao: null,
    });
    receivedId = body.data[0]!['id'] as string;
    const filtered = await h.request(
      'GET',
      `/v1/nfe/received?companyId=${h.companyId}&manifestacao=ciencia&cnpj_emitente=${supplierCnpj}`,
    );
    expect((filtered.body as { meta: { total: number } }).meta.total).toBe(0);
    // Filters and paging are checked together: every faulty parameter at once.
    const bad = await h.request('GET', `/v1/nfe/received?companyId=${h.companyId}&situacao=x&limit=0`);
    expect((bad.body as Details).details.map((d) => d.field).sort()).toEqual(['limit', 'situacao']);
    // The supplier's own distribution holds nothing addressed to it.
    const supplier = await h.request('GET', `/v1/nfe/received?companyId=${supplierId}`);
    expect((supplier.body as { meta: { total: number } }).meta.total).toBe(0);
  });

  it('manifest: justificativa only for nao_realizada; ciência → 200 with the manifestation result; the next sync brings the procNFe', async () => {
    const missing = await h.request('POST', `/v1/nfe/received/${receivedId}/manifest`, {
      json: { tipo: 'nao_realizada' },
    });
    expect(missing.status).toBe(400);
    expect((missing.body as Details).details[0]?.field).toBe('justificativa');
    const wrong = await h.request('POST', `/v1/nfe/received/${receivedId}/manifest`, {
      json: { tipo: 'talvez' },
    });
    expect((wrong.body as Details).details[0]?.field).toBe('tipo');

    const res = await h.request('POST', `/v1/nfe/received/${receivedId}/manifest`, {
      json: { tipo: 'ciencia' },
    });
    // The reachable authority registers the event within the answer's bounded wait: seed §2.9 result.
    expect(res.status).toBe(200);
    const events = await h.service.sandbox!.registry.events(chave);
    expect(events).toMatchObject([{ tpEvento: '210210', cStat: 135, author: DEMO_CNPJ }]);
    expect(res.body).toEqual({
      id: receivedId,
      manifest_status: 'ciente',
      protocolo: events[0]?.nProt,
      cStat: '135',
      xMotivo: 'Evento registrado e vinculado a NF-e',
      tipo: 'ciencia',
      tpEvento: '210210',
      status: 'registrada',
      chave_acesso: chave,
      criada_em: expect.any(String),
    });
    expect((res.body as { protocolo: string }).protocolo).toMatch(/^\d{15}$/);
    const twice = await h.request('POST', `/v1/nfe/received/${receivedId}/manifest`, {
      json: { tipo: 'ciencia' },
    });
    expect(twice.status).toBe(409);

    const detail = await h.request('GET', `/v1/nfe/received/${receivedId}`);
    expect(detail.body).toMatchObject({
      manifestacao: { tipo: 'ciencia', status: 'registrada' },
      manifestacoes: [{ tipo: 'ciencia', tpEvento: '210210', status: 'registrada', cStat: '135' }],
    });
    // The event's protocol is the one the authority registered it under.
    const [registered] = (detail.body as { manifestacoes: { protocolo: string | null }[] }).manifestacoes;
    expect(registered?.protocolo).toMatch(/^\d{15}$/);
    expect(registered?.protocolo).toBe(events[0]?.nProt);

    const sync = await h.request('POST', `/v1/nfe/received/sync?companyId=${h.companyId}`);
    expect(sync.body).toMatchObject({ consultado: true, cStat: '138', novas: 0, atualizadas: 1 });
    const full = await h.request('GET', `/v1/nfe/received/${receivedId}`);
    expect(full.body).toMatchObject({ schema: 'procNFe_v4.00.xsd', completa: true, situacao: 'autorizada' });
    expect((full.body as { xml: string }).xml).toContain('<nfeProc');
    const xml = await h.request('GET', `/v1/nfe/received/${receivedId}/xml`);
    expect(xml.text).toContain(`<chNFe>${chave}</chNFe>`);
  });

  it('after a 137 the authority is not asked again for an hour (rule 656), and then it is', async () => {
    const distributionCalls = async () =>
      (await h.service.sandbox!.registry.exchanges()).filter((e) => e.service === 'NFeDistribuicaoDFe');
    const empty = await h.request('POST', `/v1/nfe/received/sync?companyId=${h.companyId}`);
    expect(empty.body).toMatchObject({ consultado: true, cStat: '137' });
    const calls = (await distributionCalls()).length;

    const again = await h.request('POST', `/v1/nfe/received/sync?companyId=${h.companyId}`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ consultado: false, consultas: 0 });
    expect((again.body as { proxima_consulta_em: string }).proxima_consulta_em).toBe(
      new Date(h.clock.now().getTime() + 3600_000).toISOString(),
    );
    expect((await distributionCalls()).length).toBe(calls);
    expect((await distributionCalls()).some((e) => e.cStat === '656')).toBe(false);

    h.clock.advance(3600_000 + 1000);
    const later = await h.request('POST', `/v1/nfe/received/sync?companyId=${h.companyId}`);
    expect(later.body).toMatchObject({ consultado: true, cStat: '137' });
    expect((await distributionCalls()).some((e) => e.cStat === '656')).toBe(false);
  });

  it('other companies cannot read or manifest the note; unknown ids 404', async () => {
    expect((await h.request('GET', '/v1/nfe/received/rcv_missing')).status).toBe(404);
    const keyRes = await h.request('POST', '/v1/api-keys', {
      json: { name: 'fornecedor', scope: 'company', companyId: supplierId },
    });
    expect(keyRes.status).toBe(201);
    const key = (keyRes.body as { key: string }).key;
    expect((await h.request('GET', `/v1/nfe/received/${receivedId}`, { key })).status).toBe(403);
    const manifest = await h.request('POST', `/v1/nfe/received/${receivedId}/manifest`, {
      key,
      json: { tipo: 'confirmacao' },
    });
    expect(manifest.status).toBe(403);
  });

  it('a confirmação answers manifest_status confirmada with the event protocol (seed §2.9)', async () => {
    const confirmed = await h.request('POST', `/v1/nfe/received/${receivedId}/manifest`, {
      json: { tipo: 'confirmacao' },
    });
    expect(confirmed.status).toBe(200);
    const events = await h.service.sandbox!.registry.events(chave);
    const event = events.find((e) => e.tpEvento === '210200');
    expect(confirmed.body).toMatchObject({
      id: receivedId,
      manifest_status: 'confirmada',
      tpEvento: '210200',
      status: 'registrada',
      cStat: '135',
      protocolo: event?.nProt,
    });
    expect((confirmed.body as { protocolo: string }).protocolo).toMatch(/^\d{15}$/);
  });
});
