// The HTTP side of /v1/dce and the company's DC-e settings: answers, status codes and error bodies of every
// route (each faulty field at once), another kind's id, the DACE and XML by ?api_key=, Idempotency-Key.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { companyBody, useHarness } from './harness.ts';
import { checkResponse } from '../contract/openapi-check.ts';
import { openApiDocument } from '../../src-shared/contracts/api-routes.ts';
import { dcePayload } from '../fixtures/dce-sample.ts';
import type { DceView } from '../../src-shared/contracts/dce-view.ts';

const h = useHarness();
// The harness clock stands still, so the key's per-second request budget never refills by itself.
beforeEach(() => h.clock.advance(1000));

// Every answer is also held to the OpenAPI document (status, media type, body), so the two cannot drift.
const doc = openApiDocument('test');
const drift: string[] = [];
afterEach(() => {
  expect(drift.splice(0)).toEqual([]);
});

const call = async (method: string, url: string, json?: unknown, headers?: Record<string, string>) => {
  const res = await h.request(method, url, {
    key: h.companyKey,
    ...(json === undefined ? {} : { json }),
    ...(headers ? { headers } : {}),
  });
  const contentType = res.headers.get('content-type');
  drift.push(...checkResponse(doc, { method, path: url, status: res.status, contentType, body: res.body }));
  return res;
};

const fieldsOf = (body: unknown): string[] =>
  ((body as { details?: { field: string }[] }).details ?? []).map((d) => d.field).sort();

describe('/v1/companies/:id/dce-settings', () => {
  it('defaults until saved, then what PUT saved; every faulty field at once', async () => {
    const url = `/v1/companies/${h.companyId}/dce-settings`;
    const defaults = await call('GET', url);
    expect(defaults.status, defaults.text).toBe(200);
    expect(defaults.body).toEqual({ tipo_emitente: 'marketplace', site: null, serie: 1, padrao: true });
    const bad = await call('PUT', url, { tipo_emitente: 'correios', site: 'x', serie: 1000, extra: 1 });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body).toMatchObject({ error: 'validation_error' });
    expect(fieldsOf(bad.body)).toEqual(['body', 'serie', 'site', 'tipo_emitente']);
    expect(bad.text).toContain('extra');
    const saved = await call('PUT', url, { tipo_emitente: 'proprio', site: 'loja.example.com.br', serie: 7 });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toEqual({
      tipo_emitente: 'proprio',
      site: 'loja.example.com.br',
      serie: 7,
      padrao: false,
    });
    expect((await call('GET', url)).body).toEqual(saved.body);
    // Back to the defaults for the tests below (a marketplace with its site, series 1).
    const reset = await call('PUT', url, { site: 'loja.example.com.br' });
    expect(reset.body).toEqual({
      tipo_emitente: 'marketplace',
      site: 'loja.example.com.br',
      serie: 1,
      padrao: false,
    });
  });

  it('another company’s settings are out of reach of a company key', async () => {
    const created = await h.request('POST', '/v1/companies', {
      json: companyBody('11444777000161', { xNome: 'OUTRA LOJA LTDA', crt: 1 }),
    });
    expect(created.status, created.text).toBe(201);
    const other = (created.body as { id: string }).id;
    const res = await call('GET', `/v1/companies/${other}/dce-settings`);
    expect([403, 404]).toContain(res.status);
    expect(res.body).toMatchObject({ error: expect.any(String) as unknown });
  });
});

async function draft(overrides: Record<string, unknown> = {}): Promise<DceView> {
  const res = await call('POST', '/v1/dce', dcePayload(overrides));
  expect(res.status, res.text).toBe(201);
  return res.body as DceView;
}

describe('/v1/dce routes', () => {
  it('POST answers 201 with the draft: number, key, exact total, links and how to send it', async () => {
    const created = await draft();
    expect(created).toMatchObject({
      status: 'rascunho',
      modelo: 99,
      serie: 1,
      tipo_emitente: 'marketplace',
      emitente: { doc: '52998224725', nome: 'Maria da Silva' },
      destinatario: { doc: '11144477735', nome: 'Joao & Filhos <Casa>', uf: 'RJ' },
      itens_count: 2,
      // 2 × 10.10 + 1.5 × 0.33333333 (0.499999995, half-up 0.50) = 20.70.
      valor_total: '20.70',
      modalidade_transporte: 'correios',
      protocolo: null,
      authorized_at: null,
      cancelled_at: null,
    });
    expect(created.chave_acesso).toMatch(/^\d{20}99\d{22}$/);
    expect(created.chave_acesso.slice(22, 34)).toBe(`001${String(created.numero).padStart(9, '0')}`);
    expect(created.qr_code).toContain(`chDCe=${created.chave_acesso}`);
    expect(created.message).toContain(`POST /v1/dce/${created.id}/send`);
    expect(created.dace_url).toBe(`${h.service.url}/v1/dce/${created.id}/dace`);
    expect(created.dace_etiqueta_url).toBe(`${h.service.url}/v1/dce/${created.id}/dace?formato=etiqueta`);
    expect(created.xml_url).toBe(`${h.service.url}/v1/dce/${created.id}/xml`);
    const read = await call('GET', `/v1/dce/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...created, message: undefined });
  });

  it('spelling B is accepted as written', async () => {
    const res = await call('POST', '/v1/dce', {
      tipo_emitente: 'proprio',
      destinatario: {
        cpf_cnpj: '11144477735',
        razao_social: 'Ana Souza',
        endereco: { xLgr: 'Rua A', nro: '1', xBairro: 'Centro', cMun: '3550308', uf: 'SP', cep: '01001000' },
      },
      itens: [{ descricao: 'Devolucao de fone', quantidade: 1, valor_unitario: '89.90', ncm: '85183000' }],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      tipo_emitente: 'proprio',
      destinatario: { doc: '11144477735', nome: 'Ana Souza', uf: 'SP' },
      valor_total: '89.90',
    });
  });

  it('a faulty payload: 400 with every faulty field at once, in the caller’s spelling; no number used', async () => {
    const before = await call('GET', '/v1/dce?limit=1');
    const bad = await call('POST', '/v1/dce', {
      tipoEmitente: 'correios',
      destinatario: { cpf: '123', nome: 'X', endereco: {} },
      itens: [{ descricao: '', quantidade: 0, valorUnitario: 'abc', ncm: '1234' }],
      transporte: { modalidade: 'transportadora' },
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body).toMatchObject({ error: 'validation_error' });
    const fields = fieldsOf(bad.body);
    for (const field of [
      'tipoEmitente',
      'destinatario.cpf',
      'destinatario.nome',
      'itens[0].descricao',
      'itens[0].quantidade',
      'itens[0].valorUnitario',
      'itens[0].ncm',
    ]) {
      expect(fields, field).toContain(field);
    }
    const snake = await call('POST', '/v1/dce', { tipo_emitente: 4, destinatario: {}, itens: [] });
    expect(snake.status).toBe(400);
    expect(fieldsOf(snake.body)).toEqual(expect.arrayContaining(['tipo_emitente', 'itens']));
    const missing = await h.request('POST', '/v1/dce', { key: h.companyKey, body: 'not json' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'validation_error' });
    const after = await call('GET', '/v1/dce?limit=1');
    expect((after.body as { meta: { total: number } }).meta.total).toBe(
      (before.body as { meta: { total: number } }).meta.total,
    );
  });

  it('PUT changes a draft under its number; DELETE removes it (204, then 404)', async () => {
    const created = await draft();
    const put = await call(
      'PUT',
      `/v1/dce/${created.id}`,
      dcePayload({ transporte: { modalidade: 'proprio' } }),
    );
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      id: created.id,
      numero: created.numero,
      modalidade_transporte: 'proprio',
    });
    const badPut = await call('PUT', `/v1/dce/${created.id}`, dcePayload({ itens: [] }));
    expect(badPut.status).toBe(400);
    expect(fieldsOf(badPut.body)).toEqual(['itens']);
    expect((await call('DELETE', `/v1/dce/${created.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/dce/${created.id}`)).status).toBe(404);
  });

  it('a draft has no DACE (409) but prints a preview; its XML is the signed DCe', async () => {
    const created = await draft();
    const dace = await call('GET', `/v1/dce/${created.id}/dace`);
    expect(dace.status, dace.text).toBe(409);
    expect(dace.body).toMatchObject({ error: 'invalid_state' });
    for (const formato of ['a4', 'etiqueta']) {
      const preview = await call('GET', `/v1/dce/${created.id}/dace?previa=true&formato=${formato}`);
      expect(preview.status, preview.text).toBe(200);
      expect(preview.headers.get('content-type')).toContain('application/pdf');
      expect(preview.text.startsWith('%PDF-')).toBe(true);
    }
    const xml = await call('GET', `/v1/dce/${created.id}/xml`);
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    expect(xml.text).toContain(`Id="DCe${created.chave_acesso}"`);
    const json = await call('GET', `/v1/dce/${created.id}/xml?formato=json`);
    expect(json.body).toEqual({ id: created.id, dce_xml: xml.text, proc_xml: null, eventos: [] });
    const bad = await call('GET', `/v1/dce/${created.id}/dace?formato=a5&previa=talvez`);
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(['formato', 'previa']);
    expect((await call('GET', `/v1/dce/${created.id}/xml?formato=pdf`)).status).toBe(400);
  });

  it('a draft cannot be cancelled (409); a short justification is 400 first', async () => {
    const created = await draft();
    const short = await call('POST', `/v1/dce/${created.id}/cancel`, { justificativa: 'curta' });
    expect(short.status).toBe(400);
    expect(fieldsOf(short.body)).toEqual(['justificativa']);
    const cancel = await call('POST', `/v1/dce/${created.id}/cancel`, {
      justificativa: 'Venda desfeita antes do envio',
    });
    expect(cancel.status, cancel.text).toBe(409);
    expect(cancel.body).toMatchObject({ error: 'invalid_state' });
  });

  it('send answers 202 processando; a DC-e on its way is not changed, sent again or deleted', async () => {
    const created = await draft();
    const sent = await call('POST', `/v1/dce/${created.id}/send`);
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body).toMatchObject({ id: created.id, numero: created.numero });
    expect((sent.body as DceView).message).toContain(`GET /v1/dce/${created.id}`);
    // The answer does not wait: processando, unless the sandbox was quicker than the answer.
    expect(['processando', 'autorizada']).toContain((sent.body as DceView).status);
    expect((await call('PUT', `/v1/dce/${created.id}`, dcePayload())).status).toBe(409);
    expect((await call('POST', `/v1/dce/${created.id}/send`)).status).toBe(409);
    expect((await call('DELETE', `/v1/dce/${created.id}`)).status).toBe(409);
  });

  it('?enviar=true creates and queues at once: 202', async () => {
    const res = await call('POST', '/v1/dce?enviar=true', dcePayload());
    expect(res.status, res.text).toBe(202);
    expect((res.body as DceView).status).not.toBe('rascunho');
    expect((await call('POST', '/v1/dce?enviar=talvez', dcePayload())).status).toBe(400);
  });

  it('lists with §4.6 paging and the status, period and q filters; bad filters all at once', async () => {
    // The fixture's recipient under a name no other DC-e of the file carries.
    const dest = dcePayload()['destinatario'] as Record<string, unknown>;
    const named = await draft({ destinatario: { ...dest, nome: 'Beatriz Quintela' } });
    const other = await draft();
    const byName = await call('GET', '/v1/dce?q=quintela&limit=100');
    expect(byName.status, byName.text).toBe(200);
    expect((byName.body as { data: DceView[] }).data.map((d) => d.id)).toEqual([named.id]);
    const byKey = await call('GET', `/v1/dce?q=${other.chave_acesso.slice(20, 44)}`);
    expect((byKey.body as { data: DceView[] }).data.map((d) => d.id)).toEqual([other.id]);
    const drafts = await call('GET', '/v1/dce?status=rascunho&limit=100');
    const ids = (drafts.body as { data: DceView[] }).data.map((d) => d.id);
    expect(ids).toEqual(expect.arrayContaining([named.id, other.id]));
    for (const item of (drafts.body as { data: DceView[] }).data) expect(item.status).toBe('rascunho');
    const page = await call('GET', '/v1/dce?limit=1&page=2');
    expect(page.body).toMatchObject({ meta: { page: 2, limit: 1 } });
    expect((page.body as { data: DceView[] }).data).toHaveLength(1);
    const today = new Date().toISOString().slice(0, 10);
    const period = await call('GET', `/v1/dce?from=${today}&to=${today}&limit=100`);
    expect((period.body as { data: DceView[] }).data.map((d) => d.id)).toContain(other.id);
    const none = await call('GET', '/v1/dce?to=2000-01-01');
    expect((none.body as { meta: { total: number } }).meta.total).toBe(0);
    const bad = await call('GET', '/v1/dce?status=aprovada&from=ontem&limit=500');
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body)).toEqual(['from', 'limit', 'status']);
  });

  it("another kind's document is not found under /v1/dce", async () => {
    const created = await call('POST', '/v1/nfce', {
      itens: [{ codigo: 'A1', descricao: 'Agua', ncm: '22021000', quantidade: 1, valorUnitario: 3.5 }],
      pagamentos: [{ forma: '01', valor: 3.5 }],
    });
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await call('GET', `/v1/dce/${id}`)).status).toBe(404);
    expect((await call('GET', `/v1/dce/${id}/dace`)).status).toBe(404);
    expect((await call('DELETE', `/v1/dce/${id}`)).status).toBe(404);
    expect((await call('GET', '/v1/dce/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('the XML and the DACE open by link with ?api_key=; changing state needs the header', async () => {
    const created = await draft();
    const xml = await fetch(`${created.xml_url}?api_key=${h.companyKey}`);
    expect(xml.status).toBe(200);
    expect(await xml.text()).toContain(created.chave_acesso);
    const dace = await fetch(`${created.dace_url}?api_key=${h.companyKey}&previa=true&download=true`);
    expect(dace.status).toBe(200);
    expect(dace.headers.get('content-disposition')).toBe(
      `attachment; filename="${created.chave_acesso}-dace.pdf"`,
    );
    const send = await fetch(`${h.service.url}/v1/dce/${created.id}/send?api_key=${h.companyKey}`, {
      method: 'POST',
    });
    expect(send.status).toBe(401);
    expect((await fetch(`${h.service.url}/v1/dce?api_key=${h.companyKey}`)).status).toBe(401);
  });

  it('Idempotency-Key: a retry returns the first answer and creates one DC-e', async () => {
    const key = 'dce-retry-0001';
    const first = await call('POST', '/v1/dce', dcePayload(), { 'Idempotency-Key': key });
    expect(first.status, first.text).toBe(201);
    const retry = await call('POST', '/v1/dce', dcePayload(), { 'Idempotency-Key': key });
    expect(retry.status).toBe(201);
    expect((retry.body as DceView).id).toBe((first.body as DceView).id);
    const other = await call('POST', '/v1/dce', dcePayload({ site: 'outra.example.com.br' }), {
      'Idempotency-Key': key,
    });
    expect(other.status).toBe(409);
  });

  it('odd bodies, queries and ids get the error body, never a 500', async () => {
    const created = await draft();
    const bodies: unknown[] = [
      null,
      [],
      'texto',
      42,
      { itens: 'x' },
      { destinatario: [] },
      { a: { b: { c: 1 } } },
    ];
    for (const json of bodies) {
      for (const [method, url] of [
        ['POST', '/v1/dce'],
        ['PUT', `/v1/dce/${created.id}`],
        ['POST', `/v1/dce/${created.id}/cancel`],
        ['PUT', `/v1/companies/${h.companyId}/dce-settings`],
      ] as const) {
        const res = await call(method, url, json);
        expect(res.status, `${method} ${url} ${JSON.stringify(json)}: ${res.text}`).toBeGreaterThanOrEqual(
          400,
        );
        expect(res.status, `${method} ${url} ${JSON.stringify(json)}`).toBeLessThan(500);
        expect(res.body).toMatchObject({
          error: expect.any(String) as unknown,
          details: expect.any(Array) as unknown,
        });
      }
    }
    for (const url of [
      '/v1/dce/nao-e-um-id',
      '/v1/dce/nao-e-um-id/xml',
      '/v1/dce/nao-e-um-id/dace',
      `/v1/dce?status=rascunho&status=erro`,
      `/v1/dce?page=0&offset=-1&q=${'x'.repeat(61)}`,
      `/v1/dce/${created.id}/dace?formato=etiqueta&formato=a4`,
    ]) {
      const res = await call('GET', url);
      expect(res.status, `${url}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, url).toBeLessThan(500);
      expect(res.body).toMatchObject({ error: expect.any(String) as unknown });
    }
  });

  it('the DC-e series is listed with the fiscal sequences under model 99', async () => {
    const created = await draft();
    const res = await call('GET', `/v1/companies/${h.companyId}/nfe-sequences`);
    expect(res.status, res.text).toBe(200);
    const sequences = (res.body as { sequences: { modelo: string; serie: number; last_numero: number }[] })
      .sequences;
    const dce = sequences.find((s) => s.modelo === '99' && s.serie === created.serie);
    expect(dce?.last_numero).toBeGreaterThanOrEqual(created.numero);
  });
});
