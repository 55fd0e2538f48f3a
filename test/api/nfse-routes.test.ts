// The HTTP side of /v1/nfse beyond the lifecycle (nfse-lifecycle.test.ts): drafts by ?rascunho=true, PUT,
// DELETE, the list's filters and aliases, the XML answer's forms, the DANFSe and XML by ?api_key=, the 409s
// before authorization, another kind's id, Idempotency-Key on issue, and the provider's NFS-e settings.
import { describe, expect, it } from 'vitest';
import { useHarness } from './harness.ts';
import { nfseBody, nfseTomadorSemEndereco } from '../fixtures/nfse-sample.ts';

const h = useHarness();

interface Nfse {
  id: string;
  status: string;
  numero: number;
  serie: number;
  numero_nfse: number | null;
  chave_acesso_50: string | null;
  descricao_servico: string;
  valor_servico: number;
  danfse_url: string;
  xml_url: string;
  message?: string;
}

const body = (overrides: Record<string, unknown> = {}) =>
  nfseBody({ tomador: nfseTomadorSemEndereco(), ...overrides });

const call = (method: string, url: string, json?: unknown, headers?: Record<string, string>) =>
  h.request(method, url, {
    key: h.companyKey,
    ...(json === undefined ? {} : { json }),
    ...(headers ? { headers } : {}),
  });

async function draft(overrides: Record<string, unknown> = {}): Promise<Nfse> {
  const res = await call('POST', '/v1/nfse?rascunho=true', body(overrides));
  expect(res.status, res.text).toBe(201);
  return res.body as Nfse;
}

async function issued(): Promise<Nfse> {
  const res = await call('POST', '/v1/nfse', body());
  expect(res.status, res.text).toBe(200);
  return res.body as Nfse;
}

describe('/v1/nfse routes', () => {
  it('a draft: 201 rascunho with how to send it; PUT keeps its number; send authorizes it', async () => {
    const created = await draft();
    expect(created).toMatchObject({ status: 'rascunho', numero_nfse: null, chave_acesso_50: null });
    expect(created.message).toContain(`POST /v1/nfse/${created.id}/send`);
    const put = await call('PUT', `/v1/nfse/${created.id}`, body({ descricao_servico: 'Limpeza de split' }));
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      id: created.id,
      numero: created.numero,
      descricao_servico: 'Limpeza de split',
    });
    const sent = await call('POST', `/v1/nfse/${created.id}/send`);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ id: created.id, status: 'authorized', numero: created.numero });
    // An authorized note is no longer changed, sent or deleted.
    expect((await call('PUT', `/v1/nfse/${created.id}`, body())).status).toBe(409);
    expect((await call('POST', `/v1/nfse/${created.id}/send`)).status).toBe(409);
    expect((await call('DELETE', `/v1/nfse/${created.id}`)).status).toBe(409);
  });

  it('DELETE removes a draft (204, then 404)', async () => {
    const created = await draft();
    expect((await call('DELETE', `/v1/nfse/${created.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/nfse/${created.id}`)).status).toBe(404);
  });

  it('a draft has no note yet: DANFSe and the NFS-e XML are 409; the DPS is there', async () => {
    const created = await draft();
    const danfse = await call('GET', `/v1/nfse/${created.id}/danfse`);
    expect(danfse.status, danfse.text).toBe(409);
    expect((await call('GET', `/v1/nfse/${created.id}/xml?formato=nfse`)).status).toBe(409);
    const xml = await call('GET', `/v1/nfse/${created.id}/xml`);
    expect(xml.status).toBe(200);
    expect(xml.body).toMatchObject({ id: created.id, nfse_xml: null, eventos: [] });
    expect((xml.body as { dps_xml: string }).dps_xml).toContain('<DPS');
    const dps = await call('GET', `/v1/nfse/${created.id}/xml?formato=dps`);
    expect(dps.headers.get('content-type')).toContain('application/xml');
    expect(dps.text).toBe((xml.body as { dps_xml: string }).dps_xml);
    expect((await call('GET', `/v1/nfse/${created.id}/xml?formato=pdf`)).status).toBe(400);
  });

  it('the DANFSe and the XML open by link with ?api_key=; the DANFSe downloads as an attachment', async () => {
    const note = await issued();
    const danfse = await fetch(`${note.danfse_url}?api_key=${h.companyKey}&download=true`);
    expect(danfse.status).toBe(200);
    expect(danfse.headers.get('content-type')).toContain('application/pdf');
    expect(danfse.headers.get('content-disposition')).toBe(
      `attachment; filename="${note.chave_acesso_50}-danfse.pdf"`,
    );
    // Asked for JSON, the same route answers where the PDF is (§4.4 "public URL of the PDF with QR code").
    const links = await fetch(note.danfse_url, {
      headers: { 'X-API-Key': h.companyKey, Accept: 'application/json' },
    });
    expect(links.status).toBe(200);
    expect(await links.json()).toEqual({
      id: note.id,
      danfse_url: note.danfse_url,
      qr_code_url: expect.stringContaining(String(note.chave_acesso_50)) as unknown,
    });
    const xml = await fetch(`${note.xml_url}?api_key=${h.companyKey}&formato=nfse`);
    expect(xml.status).toBe(200);
    expect(await xml.text()).toContain(`<nNFSe>${note.numero_nfse}</nNFSe>`);
    // Changing state needs the header: the query key is not taken there.
    const cancel = await fetch(`${h.service.url}/v1/nfse/${note.id}/cancel?api_key=${h.companyKey}`, {
      method: 'POST',
    });
    expect(cancel.status).toBe(401);
  });

  it('lists with §4.6 paging; status authorized (alias autorizada) and rascunho filter', async () => {
    const note = await issued();
    const created = await draft();
    for (const status of ['authorized', 'autorizada']) {
      const res = await call('GET', `/v1/nfse?status=${status}&limit=100`);
      expect(res.status, res.text).toBe(200);
      const { data, meta } = res.body as { data: Nfse[]; meta: { total: number; limit: number } };
      expect(data.map((n) => n.id)).toContain(note.id);
      expect(data.map((n) => n.id)).not.toContain(created.id);
      for (const item of data) expect(item.status).toBe('authorized');
      expect(meta.limit).toBe(100);
    }
    const drafts = await call('GET', '/v1/nfse?status=rascunho&limit=100');
    expect((drafts.body as { data: Nfse[] }).data.map((n) => n.id)).toContain(created.id);
    const page = await call('GET', '/v1/nfse?limit=1&page=2');
    expect(page.body).toMatchObject({ meta: { page: 2, limit: 1 } });
    expect((page.body as { data: Nfse[] }).data).toHaveLength(1);
    const bad = await call('GET', '/v1/nfse?status=aprovada&from=ontem');
    expect(bad.status).toBe(400);
    expect((bad.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'from',
      'status',
    ]);
  });

  it("another kind's document is not found under /v1/nfse", async () => {
    const nfe = await h.request('GET', '/v1/nfe?limit=1', { key: h.companyKey });
    const created = await call('POST', '/v1/nfce', {
      itens: [{ codigo: 'A1', descricao: 'Agua', ncm: '22021000', quantidade: 1, valorUnitario: 3.5 }],
      pagamentos: [{ forma: '01', valor: 3.5 }],
    });
    expect(nfe.status).toBe(200);
    expect(created.status, created.text).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await call('GET', `/v1/nfse/${id}`)).status).toBe(404);
    expect(
      (await call('POST', `/v1/nfse/${id}/cancel`, { codigo_motivo: 1, justificativa: 'x'.repeat(20) }))
        .status,
    ).toBe(404);
  });

  it('Idempotency-Key: a retry returns the first answer and issues one note', async () => {
    const key = 'nfse-retry-0001';
    const first = await call('POST', '/v1/nfse', body(), { 'Idempotency-Key': key });
    expect(first.status, first.text).toBe(200);
    const retry = await call('POST', '/v1/nfse', body(), { 'Idempotency-Key': key });
    expect(retry.status).toBe(200);
    expect((retry.body as Nfse).id).toBe((first.body as Nfse).id);
    const other = await call('POST', '/v1/nfse', body({ valor_servico: 10 }), { 'Idempotency-Key': key });
    expect(other.status).toBe(409);
  });

  it('the provider settings: defaults from the CRT, then what PUT saved; every faulty field at once', async () => {
    const url = `/v1/companies/${h.companyId}/nfse-settings`;
    const defaults = await call('GET', url);
    expect(defaults.status, defaults.text).toBe(200);
    expect(defaults.body).toMatchObject({ padrao: true });
    const bad = await call('PUT', url, { op_simp_nac: 4, reg_esp_trib: 7 });
    expect(bad.status).toBe(400);
    expect((bad.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'op_simp_nac',
      'reg_esp_trib',
    ]);
    // One schema with every rule: a field-level fault does not hide the regime rule across fields.
    const both = await call('PUT', url, { op_simp_nac: 1, reg_ap_trib_sn: 2, reg_esp_trib: 7 });
    expect(both.status).toBe(400);
    expect((both.body as { details: { field: string; error: string }[] }).details).toEqual([
      { field: 'reg_esp_trib', error: 'must be 0 to 6 or 9' },
      { field: 'reg_ap_trib_sn', error: 'only with op_simp_nac 3 (ME/EPP)' },
    ]);
    const saved = await call('PUT', url, { op_simp_nac: 3, reg_ap_trib_sn: 2, reg_esp_trib: 0 });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toEqual({ op_simp_nac: 3, reg_ap_trib_sn: 2, reg_esp_trib: 0, padrao: false });
    expect((await call('GET', url)).body).toEqual(saved.body);
    // The next DPS carries them.
    const note = await issued();
    const dps = await call('GET', `/v1/nfse/${note.id}/xml?formato=dps`);
    expect(dps.text).toContain('<regApTribSN>2</regApTribSN>');
  });

  it('concurrent POST /substituir on one note: one 201, the others 409, one substitute listed', async () => {
    const old = await issued();
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) =>
        call('POST', `/v1/nfse/${old.id}/substituir`, { valorServico: 100 + n, xMotivo: 'Valor corrigido' }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) {
      expect(refused.body).toMatchObject({ error: 'invalid_state' });
    }
    const created = answers.find((a) => a.status === 201)?.body as Nfse & { substitui_nfse_id: string };
    expect(created.substitui_nfse_id).toBe(old.id);
    const shown = (await call('GET', `/v1/nfse/${old.id}`)).body as { substituida_por_nfse_id: string };
    expect(shown.substituida_por_nfse_id).toBe(created.id);
    const drafts = (await call('GET', '/v1/nfse?status=rascunho&limit=100')).body as { data: Nfse[] };
    const substitutes = drafts.data.filter(
      (d) => (d as Nfse & { substitui_nfse_id: string | null }).substitui_nfse_id === old.id,
    );
    expect(substitutes.map((d) => d.id)).toEqual([created.id]);
  });

  it('the DPS series is listed with the fiscal sequences under the internal model 98', async () => {
    const note = await issued();
    const res = await call('GET', `/v1/companies/${h.companyId}/nfe-sequences`);
    expect(res.status, res.text).toBe(200);
    const sequences = (res.body as { sequences: { modelo: string; serie: number; last_numero: number }[] })
      .sequences;
    const dps = sequences.find((s) => s.modelo === '98' && s.serie === note.serie);
    expect(dps?.last_numero).toBeGreaterThanOrEqual(note.numero);
  });
});
