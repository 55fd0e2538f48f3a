// Conformance, specification §4 (endpoints): one test per row of §4.1, §4.2, §4.5 and §4.6 — method, path,
// request as written, response status, shape and field names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTestA1 } from '../../src-main/fiscal/certificate.ts';
import { companyBody } from '../api/harness.ts';
import {
  authorizedNfce,
  authorizedNfe,
  cnpjOf,
  createNfce,
  createNfe,
  customerA,
  expectErrorBody,
  expectFieldError,
  expectFields,
  nfeA,
  once,
  sendAndSettle,
  startContract,
  tagOf,
  waitFor,
  xmlOf,
  type Contract,
  type Doc,
  type Res,
  ACCESS_KEY,
} from './harness.ts';
import { createCteCustomer, ctePayload } from '../api/cte-helpers.ts';
import { issueNfse, NFSE_KEY, nfsePayload } from './nfse.ts';
import { dcePayload } from '../fixtures/dce-sample.ts';

let c: Contract;
beforeAll(async () => {
  c = await startContract();
});
afterAll(() => c.stop());

const justificativa = 'Numeracao pulada por falha no sistema';
const authorized = once(() => authorizedNfe(c));
const sale = once(() => authorizedNfce(c));

describe('§4.1 NF-e', () => {
  it('§4.1 POST /v1/nfe — 201; NF-e draft data', async () => {
    const res = await c.call('POST', '/v1/nfe', { json: nfeA() });
    expect(res.status, res.text).toBe(201);
    expectFields(res.body, { id: 'uuid', numero: 'integer', serie: 'integer', status: 'string' });
    expect((res.body as Doc).status).toBe('rascunho');
  });

  it('§4.1 POST /v1/nfe/:id/send — 202 processando; Idempotency-Key prevents duplicate issuing', async () => {
    const draft = await createNfe(c);
    const key = '0b6f3f2e-8a1d-4c55-9a7e-3d2c1b0a9f8e';
    const first = await c.call('POST', '/v1/nfe/:id/send', {
      params: { id: draft.id },
      headers: { 'Idempotency-Key': key },
    });
    expect(first.status, first.text).toBe(202);
    expect((first.body as Doc).status).toBe('processando');
    const retry = await c.call('POST', '/v1/nfe/:id/send', {
      params: { id: draft.id },
      headers: { 'Idempotency-Key': key },
    });
    expect(retry.status, retry.text).toBe(202);
    expect((retry.body as Doc).id).toBe(draft.id);
    const doc = await waitFor(c, '/v1/nfe/:id', draft.id, (d) => d.status !== 'processando');
    expect(doc.status).toBe('autorizada');
    expect(await c.h.service.sandbox?.registry.authorizationCount(String(doc.chave_acesso))).toBe(1);
  });

  it('§4.1 GET /v1/nfe/:id — 200; NF-e object', async () => {
    const doc = await authorized();
    const res = await c.call('GET', '/v1/nfe/:id', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: doc.id, status: 'autorizada', chave_acesso: doc.chave_acesso });
  });

  it('§4.1 PUT /v1/nfe/:id — 200 with the full corrected payload; only for a draft or a note in error', async () => {
    const draft = await createNfe(c);
    const res = await c.call('PUT', '/v1/nfe/:id', {
      params: { id: draft.id },
      json: nfeA({ informacoesAdicionais: 'Corrigido antes do envio' }),
    });
    expect(res.status, res.text).toBe(200);
    const doc = await authorized();
    const refused = await c.call('PUT', '/v1/nfe/:id', { params: { id: doc.id }, json: nfeA() });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expectErrorBody(refused, refused.status);
  });

  it('§4.1 GET /v1/nfe/:id/xml — 200 application/xml, signed and protocoled (nfeProc, protNFe)', async () => {
    const doc = await authorized();
    const res = await c.call('GET', '/v1/nfe/:id/xml', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/xml');
    expect(res.text).toContain('<nfeProc');
    expect(res.text).toContain('<protNFe');
    expect(res.text).toContain('<Signature');
  });

  it('§4.1 GET /v1/nfe/:id/danfe — 200 PDF; optional query api_key', async () => {
    const doc = await authorized();
    const res = await c.call('GET', '/v1/nfe/:id/danfe', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/pdf');
    const browser = await c.call('GET', '/v1/nfe/:id/danfe', {
      params: { id: doc.id },
      query: { api_key: c.key },
      key: null,
    });
    expect(browser.status).toBe(200);
    expect(browser.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('§4.1 POST /v1/nfe/:id/devolucao — 201; inverted CFOPs (5102 → 1202), tipoOperacao 0, finalidade 4, nfeReferenciada', async () => {
    const original = await authorized();
    expect(tagOf(await xmlOf(c, 'nfe', original.id), 'CFOP')).toBe('5102');
    const res = await c.call('POST', '/v1/nfe/:id/devolucao', { params: { id: original.id } });
    expect(res.status, res.text).toBe(201);
    const draft = res.body as Doc;
    const sent = await sendAndSettle(c, 'nfe', draft.id);
    expect(sent.status, JSON.stringify(sent)).toBe('autorizada');
    const xml = await xmlOf(c, 'nfe', draft.id);
    expect(tagOf(xml, 'CFOP')).toBe('1202');
    expect(tagOf(xml, 'tpNF')).toBe('0');
    expect(tagOf(xml, 'finNFe')).toBe('4');
    expect(tagOf(xml, 'refNFe')).toBe(original.chave_acesso);
  });

  it('§4.1 POST /v1/nfe/:id/cancel — {justificativa} min 15 chars; 202 status processando', async () => {
    const doc = await authorizedNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/cancel', {
      params: { id: doc.id },
      json: { justificativa: 'Erro na digitacao do pedido' },
    });
    expect(res.status, res.text).toBe(202);
    expect((res.body as Doc).status).toBe('processando');
  });

  it('§4.1 POST /v1/nfe/:id/correction-letter — {correcao} 15 to 1000 chars; 202 with the CC-e result', async () => {
    const doc = await authorized();
    const res = await c.call('POST', '/v1/nfe/:id/correction-letter', {
      params: { id: doc.id },
      json: { correcao: 'Corrige o bairro do endereco de entrega do destinatario' },
    });
    expect(res.status, res.text).toBe(202);
    expectFields(res.body, {
      id: 'uuid',
      sequencia: 'integer',
      protocolo_cce: 'string',
      cStat: 'any',
      xMotivo: 'string',
      registrada_em: 'iso',
    });
    const next = await c.call('POST', '/v1/nfe/:id/correction-letter', {
      params: { id: doc.id },
      json: { correcao: 'Corrige o complemento do endereco de entrega do destinatario' },
    });
    expect(next.status, next.text).toBe(202);
    expect((next.body as { sequencia: number }).sequencia).toBe(
      (res.body as { sequencia: number }).sequencia + 1,
    );
  });

  it('§4.1 POST /v1/nfe/inutilizar — spelling A and B; 200, synchronous; number void result', async () => {
    const a = await c.call('POST', '/v1/nfe/inutilizar', {
      json: { serie: 1, numeroInicial: 800, numeroFinal: 801, justificativa, modelo: '55' },
    });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toMatchObject({ status: 'inutilizada' });
    expectFields(a.body, { status: 'string', cStat: 'any', xMotivo: 'string', protocolo: 'string' });
    const b = await c.call('POST', '/v1/nfe/inutilizar', {
      json: { modelo: 55, serie: 1, numero_inicial: 810, numero_final: 810, justificativa },
    });
    expect(b.status, b.text).toBe(200);
    expect(b.body).toMatchObject({ status: 'inutilizada' });
  });

  it('§4.1 POST /v1/nfe/batch — {notas: up to 50 NF-e payloads}; 202 with batchId', async () => {
    const res = await c.call('POST', '/v1/nfe/batch', { json: { notas: [nfeA(), nfeA()] } });
    expect(res.status, res.text).toBe(202);
    expectFields(res.body, { batchId: 'uuid' });
  });

  it('§4.1 GET /v1/nfe/batch/:batchId — progress of the batch and status of each note', async () => {
    const created = await c.call('POST', '/v1/nfe/batch', { json: { notas: [nfeA(), nfeA()] } });
    expect(created.status, created.text).toBe(202);
    const batchId = (created.body as { batchId: string }).batchId;
    const res = await c.call('GET', '/v1/nfe/batch/:batchId', { params: { batchId } });
    expect(res.status, res.text).toBe(200);
    const notes = Object.values(res.body as Record<string, unknown>).find(
      (v): v is { status: string }[] => Array.isArray(v) && v.length === 2,
    );
    expect(notes, res.text).toBeDefined();
    for (const note of notes ?? []) expect(typeof note.status).toBe('string');
  });

  it('§4.1 GET /v1/nfe — page, pageSize, status, data_inicio, data_fim, modelo; {items, total, page, pageSize}', async () => {
    // The dates filter on the issuer's own calendar day (dhEmi's date, Brasília time), not UTC's: between
    // 00:00 and 03:00 UTC the two differ.
    const note = (await authorized()) as Doc & { dh_emissao: string };
    const today = note.dh_emissao.slice(0, 10);
    const res = await c.call('GET', '/v1/nfe', {
      query: { page: 1, pageSize: 5, status: 'autorizada', data_inicio: today, data_fim: today, modelo: 55 },
    });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, { items: 'array', total: 'integer', page: 'integer', pageSize: 'integer' });
    expect(res.body).toMatchObject({ page: 1, pageSize: 5 });
    const item = (res.body as { items: unknown[] }).items[0];
    expectFields(item, {
      id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      status: 'string',
      chave_acesso: 'key44',
      total_nota: 'number',
      created_at: 'iso',
    });
    for (const status of ['autorizada', 'cancelada', 'rascunho', 'rejeitada']) {
      const filtered = await c.call('GET', '/v1/nfe', { query: { status } });
      expect(filtered.status, `${status}: ${filtered.text}`).toBe(200);
    }
    const future = await c.call('GET', '/v1/nfe', { query: { data_inicio: '2999-01-01' } });
    expect((future.body as { total: number }).total).toBe(0);
  });

  describe('received notes', () => {
    // A supplier (a second company of the organization) issues an NF-e to the demo company; the sync that
    // brings it is not in the specification (its path is "not shown"), so the service's own route is used.
    const received = once(async () => {
      const supplierCnpj = cnpjOf('998877660001');
      const company = await c.call('POST', '/v1/companies', {
        key: c.orgKey,
        json: companyBody(supplierCnpj, { xNome: 'FORNECEDOR TESTE LTDA', crt: 1 }),
      });
      expect(company.status, company.text).toBe(201);
      const supplierId = (company.body as { id: string }).id;
      const pfx = generateTestA1({ cnpj: supplierCnpj, legalName: 'FORNECEDOR', password: 'pw123456' });
      const upload = await c.call('POST', '/v1/companies/:id/certificate', {
        key: c.orgKey,
        params: { id: supplierId },
        json: { certificate: Buffer.from(pfx).toString('base64'), password: 'pw123456' },
      });
      expect(upload.status, upload.text).toBe(201);
      const supplierKey = await c.call('POST', '/v1/api-keys', {
        key: c.orgKey,
        json: { name: 'fornecedor', scope: 'company', companyId: supplierId, plan: 'terminal' },
      });
      const key = (supplierKey.body as { key: string }).key;
      const demo = customerA({ cpfCnpj: '12345678000195', nome: 'Balcao Demonstracao Ltda' });
      const draft = await c.call('POST', '/v1/nfe', { key, json: nfeA({ customer: demo }) });
      expect(draft.status, draft.text).toBe(201);
      const id = (draft.body as Doc).id;
      await c.call('POST', '/v1/nfe/:id/send', { key, params: { id } });
      for (let i = 0; i < 300; i++) {
        const doc = (await c.call('GET', '/v1/nfe/:id', { key, params: { id } })).body as Doc;
        if (doc.status !== 'processando') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const sync = await c.call('POST', '/v1/nfe/received/sync');
      expect(sync.status, sync.text).toBe(200);
      const list = await c.call('GET', '/v1/nfe/received');
      const body = list.body as { data?: { id: string }[]; items?: { id: string }[] };
      const first = (body.data ?? body.items ?? [])[0];
      expect(first, list.text).toBeDefined();
      return first?.id ?? '';
    });

    it('§4.1 POST /v1/nfe/received/:id/manifest — {tipo, justificativa}; manifestation result', async () => {
      const id = await received();
      const res = await c.call('POST', '/v1/nfe/received/:id/manifest', {
        params: { id },
        json: { tipo: 'ciencia' },
      });
      expect([200, 201, 202], res.text).toContain(res.status);
      expectFields(res.body, { id: 'string', manifest_status: 'string', protocolo: 'any', cStat: 'any' });
      const bad = await c.call('POST', '/v1/nfe/received/:id/manifest', {
        params: { id },
        json: { tipo: 'talvez' },
      });
      expectFieldError(bad, 'tipo');
    });

    it('§2.9 Manifestation result — id, manifest_status (confirmada for confirmacao), protocolo, cStat', async () => {
      const id = await received();
      const res = await c.call('POST', '/v1/nfe/received/:id/manifest', {
        params: { id },
        json: { tipo: 'confirmacao' },
      });
      expect([200, 201, 202], res.text).toContain(res.status);
      expectFields(res.body, { id: 'string', manifest_status: 'string', protocolo: 'string', cStat: 'any' });
      expect(res.body).toMatchObject({ manifest_status: 'confirmada' });
      expect(Number((res.body as { cStat: unknown }).cStat)).toBe(135);
    });

    it('§8 Manifestation justification — min 15 chars, required with nao_realizada', async () => {
      const id = await received();
      expectFieldError(
        await c.call('POST', '/v1/nfe/received/:id/manifest', {
          params: { id },
          json: { tipo: 'nao_realizada' },
        }),
        'justificativa',
      );
      expectFieldError(
        await c.call('POST', '/v1/nfe/received/:id/manifest', {
          params: { id },
          json: { tipo: 'nao_realizada', justificativa: 'curta demais' },
        }),
        'justificativa',
      );
    });
  });
});

describe('§4.2 NFC-e', () => {
  it('§4.2 POST /v1/nfce — 201; draft; reserves the next NFC-e number', async () => {
    const first = await createNfce(c);
    const second = await createNfce(c);
    expect(first.status).toBe('rascunho');
    expect(second.numero).toBe(first.numero + 1);
  });

  it('§4.2 POST /v1/nfce/:id/send — 202; signs, builds the QR code with the company CSC, queues', async () => {
    const draft = await createNfce(c);
    const res = await c.call('POST', '/v1/nfce/:id/send', { params: { id: draft.id } });
    expect(res.status, res.text).toBe(202);
    const doc = await waitFor(c, '/v1/nfce/:id', draft.id, (d) => d.status !== 'processando');
    expect(doc.status).toBe('autorizada');
    expect(await xmlOf(c, 'nfce', draft.id)).toContain('<qrCode>');
  });

  it('§4.2 GET /v1/nfce/:id — 200; status, key, protocol, data, public URLs', async () => {
    const doc = await sale();
    const res = await c.call('GET', '/v1/nfce/:id', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expectFields(res.body, {
      status: 'string',
      chave_acesso: 'key44',
      protocolo: 'string',
      qr_code_url: 'string',
      danfe_url: 'string',
      escpos_url: 'string',
    });
  });

  it('§4.2 GET /v1/nfce/:id/escpos — largura 80|58, format raw|base64|json, cut true|false', async () => {
    const doc = await sale();
    const raw = await c.call('GET', '/v1/nfce/:id/escpos', { params: { id: doc.id } });
    expect(raw.status).toBe(200);
    expect(raw.contentType).toContain('application/octet-stream');
    // GS V: the paper cut, present by default and absent with cut=false.
    expect(raw.bytes.includes(Buffer.from([0x1d, 0x56]))).toBe(true);
    const uncut = await c.call('GET', '/v1/nfce/:id/escpos', {
      params: { id: doc.id },
      query: { cut: false },
    });
    expect(uncut.bytes.includes(Buffer.from([0x1d, 0x56]))).toBe(false);
    const b64 = await c.call('GET', '/v1/nfce/:id/escpos', {
      params: { id: doc.id },
      query: { format: 'base64' },
    });
    expect(b64.status).toBe(200);
    expect(Buffer.from(b64.text.trim(), 'base64').equals(raw.bytes)).toBe(true);
    const json = await c.call('GET', '/v1/nfce/:id/escpos', {
      params: { id: doc.id },
      query: { format: 'json' },
    });
    expect(json.status).toBe(200);
    expect(json.text).toContain(raw.bytes.toString('base64'));
    const narrow = await c.call('GET', '/v1/nfce/:id/escpos', {
      params: { id: doc.id },
      query: { largura: 58, format: 'json' },
    });
    expect(narrow.status).toBe(200);
    expect(narrow.body).toMatchObject({ colunas: 32 });
    expect(json.body).toMatchObject({ colunas: 48 });
    expectFieldError(
      await c.call('GET', '/v1/nfce/:id/escpos', { params: { id: doc.id }, query: { largura: 70 } }),
      'largura',
    );
  });

  it('§4.2 GET /v1/nfce/:id/xml — 200; signed authorized XML', async () => {
    const doc = await sale();
    const res = await c.call('GET', '/v1/nfce/:id/xml', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/xml');
    expect(res.text).toContain('<protNFe');
    expect(res.text).toContain('<Signature');
  });

  it('§4.2 GET /v1/nfce/:id/danfe — 200; PDF', async () => {
    const doc = await sale();
    const res = await c.call('GET', '/v1/nfce/:id/danfe', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/pdf');
  });

  it('§4.2 POST /v1/nfe/:id/cancel — {justificativa}; 202, also used for NFC-e', async () => {
    const doc = await authorizedNfce(c);
    const res = await c.call('POST', '/v1/nfe/:id/cancel', {
      params: { id: doc.id },
      json: { justificativa: 'Consumidor desistiu da compra' },
    });
    expect(res.status, res.text).toBe(202);
    const cancelled = await waitFor(c, '/v1/nfce/:id', doc.id, (d) => d.status === 'cancelada');
    expect(cancelled.status).toBe('cancelada');
  });

  it('§4.2 POST /v1/nfe/inutilizar — as 4.1 with modelo 65; 200', async () => {
    const res = await c.call('POST', '/v1/nfe/inutilizar', {
      json: { modelo: 65, serie: 1, numero_inicial: 900, numero_final: 901, justificativa },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'inutilizada' });
  });

  it('§4.2 GET /v1/nfe?modelo=65 — status, limit (default 20, max 100), offset; {items, total, limit, offset}', async () => {
    await sale();
    await authorizedNfce(c);
    const res = await c.call('GET', '/v1/nfe', { query: { modelo: 65 } });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, { items: 'array', total: 'integer', limit: 'integer', offset: 'integer' });
    expect(res.body).toMatchObject({ limit: 20, offset: 0 });
    const page = await c.call('GET', '/v1/nfe', {
      query: { modelo: 65, status: 'autorizada', limit: 1, offset: 1 },
    });
    expect(page.status, page.text).toBe(200);
    expect(page.body).toMatchObject({ limit: 1, offset: 1 });
    expect((page.body as { items: unknown[] }).items).toHaveLength(1);
  });
});

describe('§4.3 CT-e', () => {
  const cteDraft = async (): Promise<Doc> => {
    const customerId = await createCteCustomer(c.h, c.companyId);
    const res = await c.call('POST', '/v1/cte', { json: ctePayload(customerId) });
    expect(res.status, res.text).toBe(201);
    return res.body as Doc;
  };
  const cteAuthorized = once(async () => {
    const draft = await cteDraft();
    expect((await c.call('POST', '/v1/cte/:id/send', { params: { id: draft.id } })).status).toBe(202);
    const doc = await waitFor(c, '/v1/cte/:id', draft.id, (d) => d.status !== 'processando');
    expect(doc.status).toBe('autorizada');
    return doc;
  });

  it('§4.3 POST /v1/cte — payload of 2.7; draft created', async () => {
    const draft = await cteDraft();
    expectFields(draft, {
      id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      status: 'string',
      created_at: 'iso',
    });
    expect(draft.status).toBe('rascunho');
    expect(draft.chave_acesso).toMatch(ACCESS_KEY);
  });

  it('§4.3 POST /v1/cte/:id/send — no body; {success: boolean, message: string}; queued', async () => {
    const draft = await cteDraft();
    const res = await c.call('POST', '/v1/cte/:id/send', { params: { id: draft.id } });
    expect(res.status, res.text).toBe(202);
    expect(Object.keys(res.body as object).sort()).toEqual(['message', 'success']);
    expectFields(res.body, { success: 'boolean', message: 'string' });
    expect((res.body as { success: boolean }).success).toBe(true);
    expect((await waitFor(c, '/v1/cte/:id', draft.id, (d) => d.status !== 'processando')).status).toBe(
      'autorizada',
    );
  });

  it('§4.3 GET /v1/cte/:id — CT-e object', async () => {
    const doc = await cteAuthorized();
    const res = await c.call('GET', '/v1/cte/:id', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expectFields(res.body, {
      id: 'uuid',
      company_id: 'uuid',
      numero: 'integer',
      serie: 'integer',
      status: 'string',
      chave_acesso: 'string',
      protocolo: 'string',
      valor_total: 'string',
      created_at: 'iso',
    });
    expect(res.body).toMatchObject({
      company_id: c.companyId,
      ambiente: 'homologacao',
      valor_total: '1250.50',
    });
    expect((res.body as { origem: unknown }).origem).toEqual({ uf: 'SP', municipio: 'Campinas' });
  });

  it('§4.3 GET /v1/cte/:id/dacte — download=true adds Content-Disposition: attachment; regenerate=true rebuilds', async () => {
    const doc = await cteAuthorized();
    const plain = await c.call('GET', '/v1/cte/:id/dacte', { params: { id: doc.id } });
    expect(plain.status).toBe(200);
    expect(plain.contentType).toBe('application/pdf');
    expect(plain.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const download = await c.call('GET', '/v1/cte/:id/dacte', {
      params: { id: doc.id },
      query: { download: true },
    });
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="\d{44}-dacte\.pdf"$/);
    const rebuilt = await c.call('GET', '/v1/cte/:id/dacte', {
      params: { id: doc.id },
      query: { regenerate: true },
    });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.headers.get('x-cache')).toBe('MISS');
  });

  it('§4.3 GET /v1/cte/:id/xml — application/xml with CTe and protCTe', async () => {
    const doc = await cteAuthorized();
    const res = await c.call('GET', '/v1/cte/:id/xml', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/xml');
    expect(res.text).toMatch(/<CTe[ >]/);
    expect(res.text).toMatch(/<protCTe[ >]/);
    expect(tagOf(res.text, 'nProt')).toBe(doc.protocolo);
  });

  it('§4.3 POST /v1/cte/:id/cancel — {justificativa} 15 to 255 chars; cancellation event sent', async () => {
    const draft = await cteDraft();
    await c.call('POST', '/v1/cte/:id/send', { params: { id: draft.id } });
    const doc = await waitFor(c, '/v1/cte/:id', draft.id, (d) => d.status === 'autorizada');
    expectFieldError(
      await c.call('POST', '/v1/cte/:id/cancel', {
        params: { id: doc.id },
        json: { justificativa: 'curta' },
      }),
      'justificativa',
    );
    const res = await c.call('POST', '/v1/cte/:id/cancel', {
      params: { id: doc.id },
      json: { justificativa },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ tpEvento: '110111' });
    expect((await waitFor(c, '/v1/cte/:id', doc.id, (d) => d.status === 'cancelada')).status).toBe(
      'cancelada',
    );
  });

  it('§4.3 POST /v1/cte/:id/cce — {correcao or correcoes, sequencia}; CC-e event (tpEvento 110110)', async () => {
    const doc = await cteAuthorized();
    const res = await c.call('POST', '/v1/cte/:id/cce', {
      params: { id: doc.id },
      json: { correcao: 'Entrega no portao 3 do armazem central', sequencia: 1 },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ tpEvento: '110110', sequencia: 1 });
    const structured = await c.call('POST', '/v1/cte/:id/cce', {
      params: { id: doc.id },
      json: {
        correcoes: [{ grupoAlterado: 'ide', campoAlterado: 'natOp', valorAlterado: 'Transporte rodoviario' }],
        sequencia: 2,
      },
    });
    expect(structured.status, structured.text).toBe(202);
    expect(structured.body).toMatchObject({ tpEvento: '110110', sequencia: 2 });
  });

  it('§4.3 POST /v1/cte/inutilizar — {serie, numeroInicial, numeroFinal, justificativa}; range voided, by the 10th of the following month', async () => {
    const draft = await cteDraft();
    const from = draft.numero + 1000;
    const res = await c.call('POST', '/v1/cte/inutilizar', {
      json: { serie: draft.serie, numeroInicial: from, numeroFinal: from + 1, justificativa },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, numeroInicial: from, numeroFinal: from + 1 });
    expect((res.body as { prazo: string }).prazo).toMatch(/^\d{4}-\d{2}-10$/);
  });

  it('§4.3 GET /v1/cte/:id/debug — debug object of 2.7', async () => {
    const doc = await cteAuthorized();
    const res = await c.call('GET', '/v1/cte/:id/debug', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    const debug = res.body as {
      cte: { request_payload: unknown };
      logs: unknown[];
      cce: unknown[];
      xml: object;
      snapshot: object;
    };
    expect(Object.keys(debug).sort()).toEqual(['cce', 'cte', 'logs', 'snapshot', 'xml']);
    expect(debug.cte.request_payload).toMatchObject({ modal: '01', cfop: '6353' });
    expect(debug.logs).toEqual(expect.arrayContaining([expect.objectContaining({ cStat: '100' })]));
  });

  it('§4.3 GET /v1/cte — filters and pagination; list', async () => {
    await cteDraft();
    const res = await c.call('GET', '/v1/cte', { query: { status: 'rascunho', page: 1, limit: 1 } });
    expect(res.status).toBe(200);
    expectFields((res.body as { meta: unknown }).meta, {
      page: 'integer',
      limit: 'integer',
      total: 'integer',
      totalPages: 'integer',
    });
    const { data, meta } = res.body as { data: Doc[]; meta: { limit: number; total: number } };
    expect(data).toHaveLength(1);
    expect(data[0]?.status).toBe('rascunho');
    expect(meta.limit).toBe(1);
  });

  it('§4.3 DELETE /v1/cte/:id — removes a CT-e in draft or pre-transmission error state', async () => {
    const draft = await cteDraft();
    expect((await c.call('DELETE', '/v1/cte/:id', { params: { id: draft.id } })).status).toBe(204);
    expect((await c.call('GET', '/v1/cte/:id', { params: { id: draft.id } })).status).toBe(404);
    expectErrorBody(
      await c.call('DELETE', '/v1/cte/:id', { params: { id: (await cteAuthorized()).id } }),
      409,
    );
  });
});

describe('§4.4 NFS-e', () => {
  const nfse = once(() => issueNfse(c));

  it('§4.4 POST /v1/nfse — 200; creates the DPS, signs, transmits in real time; response of 2.8', async () => {
    const res = await c.call('POST', '/v1/nfse', { json: nfsePayload() });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, {
      id: 'uuid',
      status: 'string',
      numero_nfse: 'integer',
      chave_acesso_50: 'string',
      data_emissao: 'iso',
      valor_total: 'number',
      danfse_url: 'string',
      xml_url: 'string',
      qr_code_url: 'string',
    });
    const doc = res.body as Doc;
    expect(doc.status).toBe('authorized');
    expect(doc.chave_acesso_50).toMatch(NFSE_KEY);
    // When the national environment does not answer, the DPS stays queued (202, how to follow it) and is
    // sent once it is back, never twice.
    await c.call('POST', '/v1/sandbox/faults', { key: c.orgKey, json: { online: false } });
    let queued: Res;
    try {
      queued = await c.call('POST', '/v1/nfse', { json: nfsePayload() });
    } finally {
      await c.call('POST', '/v1/sandbox/faults', { key: c.orgKey, json: { online: true } });
    }
    expect(queued.status, queued.text).toBe(202);
    const pending = queued.body as Doc & { message: string };
    expect(pending.status).toBe('processando');
    expect(pending.message).toContain(`/v1/nfse/${pending.id}`);
    expect(pending.message).toContain('nfse.autorizada');
    // The queue retries after its backoff: the clock is moved a few seconds at a time until it does.
    let moved = 0;
    const later = await waitFor(c, '/v1/nfse/:id', pending.id, (d) => {
      if (d.status !== 'processando') return true;
      c.h.clock.advance(5_000);
      moved += 5_000;
      return false;
    });
    expect(later.status).toBe('authorized');
    expect(moved).toBeLessThan(15 * 60_000);
  });

  it('§4.4 GET /v1/nfse/:id — status, 50-digit national key, protocol', async () => {
    const doc = await nfse();
    const res = await c.call('GET', '/v1/nfse/:id', { params: { id: doc.id } });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, { status: 'string', chave_acesso_50: 'string', protocolo: 'string' });
    expect(res.body).toMatchObject({ status: 'authorized', chave_acesso_50: doc.chave_acesso_50 });
    expect((res.body as Doc).chave_acesso_50).toMatch(NFSE_KEY);
    expectErrorBody(await c.call('GET', '/v1/nfse/:id', { params: { id: (await authorized()).id } }), 404);
  });

  it('§4.4 GET /v1/nfse/:id/danfse — public URL of the PDF with QR code', async () => {
    const doc = await nfse();
    const res = await c.call('GET', '/v1/nfse/:id/danfse', { params: { id: doc.id } });
    expect(res.status).toBe(200);
    expect(res.contentType).toContain('application/pdf');
    expect(res.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // A browser opens the public URL by itself: the key goes in the query.
    const url = new URL(String(doc.danfse_url));
    url.searchParams.set('api_key', c.key);
    const opened = await fetch(url);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toContain('application/pdf');
    expect(String(doc.qr_code_url)).toMatch(/^https:\/\//);
  });

  it('§4.4 GET /v1/nfse/:id/xml — signed XML of the DPS and of the authorized note', async () => {
    const doc = await nfse();
    const res = await c.call('GET', '/v1/nfse/:id/xml', { params: { id: doc.id } });
    expect(res.status, res.text).toBe(200);
    const body = res.body as { dps_xml: string; nfse_xml: string };
    expect(body.dps_xml).toContain('<DPS');
    expect(body.dps_xml).toContain('<Signature');
    expect(body.nfse_xml).toContain('<NFSe');
    expect(body.nfse_xml).toContain(String(doc.chave_acesso_50));
    expect(body.nfse_xml).toContain('<Signature');
    const nfseOnly = await c.call('GET', '/v1/nfse/:id/xml', {
      params: { id: doc.id },
      query: { formato: 'nfse' },
    });
    expect(nfseOnly.contentType).toContain('application/xml');
    expect(nfseOnly.text).toBe(body.nfse_xml);
  });

  it('§4.4 POST /v1/nfse/:id/cancel — {codigo_motivo, justificativa}; cancellation', async () => {
    const doc = await issueNfse(c);
    const res = await c.call('POST', '/v1/nfse/:id/cancel', {
      params: { id: doc.id },
      json: { codigo_motivo: 1, justificativa: 'Erro na emissao da nota de servico' },
    });
    expect([200, 202], res.text).toContain(res.status);
    expectFields(res.body, { id: 'uuid', status: 'string', cancelamento: 'object' });
    const cancelled = await waitFor(c, '/v1/nfse/:id', doc.id, (d) => d.status === 'cancelada');
    expect(cancelled.cancelamento).toMatchObject({ status: 'registrada', codigo_motivo: 1 });
    const xml = await c.call('GET', '/v1/nfse/:id/xml', { params: { id: doc.id } });
    expect((xml.body as { eventos: { tpEvento: string }[] }).eventos.map((e) => e.tpEvento)).toContain(
      '101101',
    );
    // Only an authorized note is cancelled.
    expectErrorBody(
      await c.call('POST', '/v1/nfse/:id/cancel', {
        params: { id: doc.id },
        json: { codigo_motivo: 1, justificativa: 'Erro na emissao da nota de servico' },
      }),
      409,
    );
  });

  it('§4.4 POST /v1/nfse/:id/substituir — body of 2.8; draft of the new note', async () => {
    const doc = await issueNfse(c);
    const res = await c.call('POST', '/v1/nfse/:id/substituir', {
      params: { id: doc.id },
      json: { valorServico: 1200, xMotivo: 'Valor do servico informado errado' },
    });
    expect(res.status, res.text).toBe(201);
    expectFields(res.body, { id: 'uuid', substitui_nfse_id: 'uuid', status: 'string', numero: 'integer' });
    expect(res.body).toMatchObject({ substitui_nfse_id: doc.id, status: 'rascunho', valor_servico: 1200 });
    // A second substitution while the first is pending is refused.
    expectErrorBody(
      await c.call('POST', '/v1/nfse/:id/substituir', { params: { id: doc.id }, json: {} }),
      409,
    );
  });
});

describe('§4.5 Company and webhooks', () => {
  it('§4.5 GET /v1/companies/:id/nfe-sequences — environment homologacao|producao|all; {sequences: [fiscal sequence]}', async () => {
    for (const environment of ['homologacao', 'producao', 'all']) {
      const res = await c.call('GET', '/v1/companies/:id/nfe-sequences', {
        params: { id: c.companyId },
        query: { environment },
      });
      expect(res.status, `${environment}: ${res.text}`).toBe(200);
      const sequences = (res.body as { sequences: { environment: string }[] }).sequences;
      expect(Array.isArray(sequences)).toBe(true);
      if (environment !== 'all') for (const s of sequences) expect(s.environment).toBe(environment);
    }
    expectFieldError(
      await c.call('GET', '/v1/companies/:id/nfe-sequences', {
        params: { id: c.companyId },
        query: { environment: 'teste' },
      }),
      'environment',
    );
  });

  it('§4.5 PUT /v1/companies/:id/config — optional ambiente, csc_nfce, id_csc; {success, message}', async () => {
    const res = await c.call('PUT', '/v1/companies/:id/config', {
      params: { id: c.companyId },
      json: { ambiente: 'homologacao' },
    });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, { success: 'boolean', message: 'string' });
    expect((res.body as { success: boolean }).success).toBe(true);
  });

  it('§4.5 POST /v1/customers — saved customer, referenced by customerId', async () => {
    const res = await c.call('POST', '/v1/customers', { json: customerA({ nome: 'Cliente Salvo' }) });
    expect(res.status, res.text).toBe(201);
    expectFields(res.body, { id: 'uuid' });
    const id = (res.body as { id: string }).id;
    const payload = nfeA();
    delete payload['customer'];
    const doc = await createNfe(c, { ...payload, customerId: id });
    expect(doc.status).toBe('rascunho');
  });

  it('§4.5 POST /v1/webhooks — {url, eventos}; id, url, secret, message', async () => {
    const res = await c.call('POST', '/v1/webhooks', {
      json: { url: 'https://erp.example.com.br/hooks/nfe', eventos: ['nfe.autorizada', 'nfe.cancelada'] },
    });
    expect(res.status, res.text).toBe(201);
    expectFields(res.body, { id: 'uuid', url: 'string', secret: 'string', message: 'string' });
    expect((res.body as { url: string }).url).toBe('https://erp.example.com.br/hooks/nfe');
  });

  it('§4.5 PUT /v1/webhooks/:id — optional url, eventos, ativo; id, url, ativo', async () => {
    const created = await c.call('POST', '/v1/webhooks', {
      json: { url: 'https://erp.example.com.br/hooks/put', eventos: ['nfe.autorizada'] },
    });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { id: string }).id;
    const res = await c.call('PUT', '/v1/webhooks/:id', {
      params: { id },
      json: { url: 'https://erp.example.com.br/hooks/put2', eventos: ['nfe.*'], ativo: false },
    });
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, { id: 'uuid', url: 'string', ativo: 'boolean' });
    expect(res.body).toMatchObject({ id, url: 'https://erp.example.com.br/hooks/put2', ativo: false });
  });

  it('§4.5 POST /v1/webhooks/:id/test-connection — no body; {message, jobId}', async () => {
    const created = await c.call('POST', '/v1/webhooks', {
      json: { url: 'https://erp.example.com.br/hooks/ping', eventos: ['nfe.autorizada'] },
    });
    const id = (created.body as { id: string }).id;
    const res = await c.call('POST', '/v1/webhooks/:id/test-connection', { params: { id } });
    expect([200, 202], res.text).toContain(res.status);
    expectFields(res.body, { message: 'string', jobId: 'string' });
  });

  // "DC-e creation: POST /v1/dce answers 201; its payload and response: not shown": the payload is ours
  // (docs/api.md, DC-e), the answer the draft; the response checker holds it to the OpenAPI document.
  it('§4.5 POST /v1/dce — DC-e creation answers 201', async () => {
    const res = await c.call('POST', '/v1/dce', { json: dcePayload() });
    expect(res.status, res.text).toBe(201);
    expectFields(res.body, { id: 'uuid', numero: 'integer', serie: 'integer', status: 'string' });
    expect(res.body).toMatchObject({ status: 'rascunho', modelo: 99 });
    expect((res.body as { chave_acesso: string }).chave_acesso).toMatch(ACCESS_KEY);
    const bad = await c.call('POST', '/v1/dce', { json: dcePayload({ itens: [] }) });
    expectFieldError(bad, 'itens');
  });
});

describe('§4.6 Pagination (general)', () => {
  // The webhook list: its entries are made with the specification's own payload.
  const webhooks = once(async () => {
    for (const i of [1, 2, 3]) {
      const res = await c.call('POST', '/v1/webhooks', {
        json: { url: `https://erp.example.com.br/hooks/lista-${i}`, eventos: ['nfe.autorizada'] },
      });
      expect(res.status, res.text).toBe(201);
    }
  });

  it('§4.6 general list shape — {data: [...], meta: {page, limit, total, totalPages}}', async () => {
    await webhooks();
    const res = await c.call('GET', '/v1/webhooks');
    expect(res.status, res.text).toBe(200);
    expectFields(res.body, { data: 'array', meta: 'object' });
    expectFields((res.body as { meta: unknown }).meta, {
      page: 'integer',
      limit: 'integer',
      total: 'integer',
      totalPages: 'integer',
    });
  });

  it('§4.6 page — integer, default 1, 1-based', async () => {
    await webhooks();
    const first = await c.call('GET', '/v1/webhooks');
    expect(first.body).toMatchObject({ meta: { page: 1 } });
    const second = await c.call('GET', '/v1/webhooks', { query: { page: 2, limit: 2 } });
    expect(second.status, second.text).toBe(200);
    const body = second.body as {
      data: unknown[];
      meta: { page: number; total: number; totalPages: number };
    };
    expect(body.meta.page).toBe(2);
    expect(body.meta.totalPages).toBe(Math.ceil(body.meta.total / 2));
    expect(body.data).toHaveLength(Math.min(2, body.meta.total - 2));
  });

  it('§4.6 limit — integer, default 20, max 100', async () => {
    await webhooks();
    const res = await c.call('GET', '/v1/webhooks');
    expect(res.body).toMatchObject({ meta: { limit: 20 } });
    const one = await c.call('GET', '/v1/webhooks', { query: { limit: 1 } });
    expect((one.body as { data: unknown[] }).data).toHaveLength(1);
    expectFieldError(await c.call('GET', '/v1/webhooks', { query: { limit: 101 } }), 'limit');
  });

  it('§4.6 offset — integer, default 0, alternative starting offset', async () => {
    await webhooks();
    const all = (await c.call('GET', '/v1/webhooks', { query: { limit: 100 } })).body as {
      data: { id: string }[];
    };
    const res = await c.call('GET', '/v1/webhooks', { query: { offset: 1, limit: 1 } });
    expect(res.status, res.text).toBe(200);
    expect((res.body as { data: { id: string }[] }).data.map((d) => d.id)).toEqual([all.data[1]?.id]);
  });
});
