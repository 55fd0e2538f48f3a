// §4.3 CT-e over real HTTP against the embedded sandbox authority: drafts (number reserved from the company's
// CT-e series), the §2.7 object, the §2.7 contract and the rules 512/522/529 before signing, the §4.6 list
// with its filters, and the deletion of what never reached the authority.
import { describe, expect, it } from 'vitest';
import { companyBody, useHarness } from './harness.ts';
import { createCteCustomer, ctePayload, nfeKey } from './cte-helpers.ts';
import { cteViewSchema } from '../../src-shared/contracts/cte-view.ts';
import { cnpjSequence, uploadTestA1, type FiscalErrorBody } from './fiscal-helpers.ts';

const h = useHarness();

type Cte = ReturnType<typeof cteViewSchema.parse>;
type List = { data: Cte[]; meta: { page: number; limit: number; total: number; totalPages: number } };

/** The key with its check digit changed: 44 digits, but not a valid key. */
const wrongCheckDigit = (key: string) => key.slice(0, 43) + String((Number(key.slice(43)) + 1) % 10);

async function customer(): Promise<string> {
  return createCteCustomer(h, h.companyId);
}

/** A draft of the sample CT-e in the harness's company. */
async function newDraft(): Promise<Cte> {
  const res = await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(await customer()) });
  return res.body as Cte;
}

describe('POST /v1/cte (draft)', () => {
  it('answers 201 with the §2.7 CT-e object: number and series reserved, model 57 key, rascunho', async () => {
    const customerId = await customer();
    const res = await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(customerId) });
    expect(res.status, res.text).toBe(201);
    const cte = cteViewSchema.parse(res.body);
    expect(cte).toMatchObject({
      company_id: h.companyId,
      serie: 1,
      status: 'rascunho',
      protocolo: null,
      valor_total: '1250.50',
      origem: { uf: 'SP', municipio: 'Campinas' },
      destino: { uf: 'MG', municipio: 'Belo Horizonte' },
      ambiente: 'homologacao',
      modal: '01',
      cfop: '6353',
      toma: '0',
      remetente: { nome: 'Industria Modelo Ltda', cpfCnpj: '11222333000181' },
      destinatario: { nome: 'Comercio e Filhos ME', cpfCnpj: '52998224725' },
      dacte_url: `/v1/cte/${cte.id}/dacte`,
      xml_url: `/v1/cte/${cte.id}/xml`,
      eventos: [],
    });
    expect(cte.chave_acesso).toMatch(/^35\d{4}\d{14}57001\d{9}1\d{9}$/);
    expect(Number(cte.chave_acesso.slice(25, 34))).toBe(cte.numero);
    expect(new Date(cte.created_at).toISOString()).toBe(cte.created_at);
    expect(cte.message).toContain(`POST /v1/cte/${cte.id}/send`);

    // The next draft takes the next number of the CT-e series (its own sequence, not the NF-e's).
    const next = await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(customerId) });
    expect((next.body as Cte).numero).toBe(cte.numero + 1);
    const sequences = await h.request('GET', `/v1/companies/${h.companyId}/nfe-sequences`, {
      key: h.companyKey,
    });
    expect((sequences.body as { sequences: unknown[] }).sequences).toContainEqual({
      modelo: '57',
      serie: 1,
      last_numero: cte.numero + 1,
      proximo_numero: cte.numero + 2,
      environment: 'homologacao',
    });

    const read = await h.request('GET', `/v1/cte/${cte.id}`, { key: h.companyKey });
    expect(read.status).toBe(200);
    expect(cteViewSchema.parse(read.body)).toEqual({ ...cte, message: undefined });

    const xml = await h.request('GET', `/v1/cte/${cte.id}/xml`, { key: h.companyKey });
    expect(xml.headers.get('content-type')).toContain('application/xml');
    expect(xml.text).toContain(`<infCte Id="CTe${cte.chave_acesso}" versao="4.00">`);
    expect(xml.text).toContain('<Signature');
  });

  it('fills the taker from the customer: IE and address omitted in the payload come from customerId', async () => {
    const customerId = await customer();
    const {
      ie: _ie,
      endereco: _endereco,
      ...bare
    } = ctePayload(customerId)['remetente'] as Record<string, unknown>;
    const res = await h.request('POST', '/v1/cte', {
      key: h.companyKey,
      json: ctePayload(customerId, { remetente: bare }),
    });
    expect(res.status, res.text).toBe(201);
    const xml = await h.request('GET', `/v1/cte/${(res.body as Cte).id}/xml`, { key: h.companyKey });
    expect(xml.text).toMatch(/<rem><CNPJ>11222333000181<\/CNPJ><IE>111222330446<\/IE>/);
    expect(xml.text).toContain('<xLgr>Rua das Fabricas</xLgr>');
  });

  it('400 names every field that breaks the §2.7 contract, and an unknown customerId', async () => {
    const res = await h.request('POST', '/v1/cte', {
      key: h.companyKey,
      json: ctePayload('6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', { modal: '9', componentesValor: [] }),
    });
    expect(res.status).toBe(400);
    const body = res.body as FiscalErrorBody;
    expect(body.error).toBe('validation_error');
    expect(body.details.map((d) => d.field).sort()).toEqual(['componentesValor', 'customerId', 'modal']);

    const unknown = await h.request('POST', '/v1/cte', {
      key: h.companyKey,
      json: ctePayload('6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'),
    });
    expect(unknown.status).toBe(400);
    expect((unknown.body as FiscalErrorBody).details).toEqual([
      { field: 'customerId', error: 'no customer with this id in the company' },
    ]);
  });

  it('422 fiscal_rejection with the cStat for 512, 522 and 529, and no number is consumed', async () => {
    const customerId = await customer();
    const before = await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(customerId) });
    const numero = (before.body as Cte).numero;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ valorTotal: 1250.49 }, '512', 'valorTotal'],
      [{ cfop: '5353' }, '522', 'cfop'],
      [{ docsOriginarios: [wrongCheckDigit(nfeKey(5))] }, '529', 'docsOriginarios[0]'],
      [{ docsOriginarios: [] }, '529', 'docsOriginarios'],
    ];
    for (const [override, cStat, field] of cases) {
      const res = await h.request('POST', '/v1/cte', {
        key: h.companyKey,
        json: ctePayload(customerId, override),
      });
      expect(res.status, `${cStat}: ${res.text}`).toBe(422);
      const body = res.body as FiscalErrorBody;
      expect(body).toMatchObject({ error: 'fiscal_rejection', cStat });
      expect(body.xMotivo).toMatch(/^Rejeição/);
      expect(body.details.map((d) => d.field)).toContain(field);
    }
    const after = await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(customerId) });
    expect((after.body as Cte).numero).toBe(numero + 1);
  });
});

describe('GET /v1/cte (§4.6 list)', () => {
  it('pages with {data, meta} and filters by status and created_at', async () => {
    const customerId = await customer();
    const start = new Date(h.clock.now().getTime() + 3600_000);
    h.clock.set(start);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.request('POST', '/v1/cte', { key: h.companyKey, json: ctePayload(customerId) });
      ids.push((res.body as Cte).id);
      h.clock.advance(1000);
    }
    const from = start.toISOString();
    const page = await h.request('GET', `/v1/cte?from=${from}&limit=2`, { key: h.companyKey });
    expect(page.status, page.text).toBe(200);
    const list = page.body as List;
    expect(list.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(list.data.map((c) => c.id)).toEqual([ids[2], ids[1]]);
    const second = (await h.request('GET', `/v1/cte?from=${from}&limit=2&page=2`, { key: h.companyKey }))
      .body as List;
    expect(second.data.map((c) => c.id)).toEqual([ids[0]]);

    const to = new Date(start.getTime() + 1500).toISOString();
    const window = (await h.request('GET', `/v1/cte?from=${from}&to=${to}`, { key: h.companyKey }))
      .body as List;
    expect(window.data.map((c) => c.id)).toEqual([ids[1], ids[0]]);

    const none = (await h.request('GET', `/v1/cte?from=${from}&status=autorizada`, { key: h.companyKey }))
      .body as List;
    expect(none.meta.total).toBe(0);
    const drafts = (await h.request('GET', `/v1/cte?from=${from}&status=rascunho`, { key: h.companyKey }))
      .body as List;
    expect(drafts.meta.total).toBe(3);

    const bad = await h.request('GET', '/v1/cte?status=x&limit=500&from=ontem', { key: h.companyKey });
    expect(bad.status).toBe(400);
    expect((bad.body as FiscalErrorBody).details.map((d) => d.field).sort()).toEqual([
      'from',
      'limit',
      'status',
    ]);
  });

  it('lists only CT-e: an NF-e of the company is neither listed nor readable under /v1/cte', async () => {
    const all = (await h.request('GET', '/v1/cte?limit=100', { key: h.companyKey })).body as List;
    expect(all.data.every((c) => c.chave_acesso.slice(20, 22) === '57')).toBe(true);
    const nfce = await h.request('POST', '/v1/nfce', {
      key: h.companyKey,
      json: {
        itens: [
          {
            codigo: 'A1',
            descricao: 'Agua',
            ncm: '22011000',
            quantidade: 1,
            valorUnitario: '5.00',
            cfop: '5102',
            tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
          },
        ],
        pagamentos: [{ forma: '01', valor: '5.00' }],
      },
    });
    expect(nfce.status, nfce.text).toBe(201);
    const id = (nfce.body as { id: string }).id;
    expect((await h.request('GET', `/v1/cte/${id}`, { key: h.companyKey })).status).toBe(404);
    expect((await h.request('DELETE', `/v1/cte/${id}`, { key: h.companyKey })).status).toBe(404);
  });

  it('the NF-e routes neither list nor serve a CT-e', async () => {
    const cte = await newDraft();
    for (const path of ['', '/xml', '/danfe', '/events', '/correction-letters']) {
      const res = await h.request('GET', `/v1/nfe/${cte.id}${path}`, { key: h.companyKey });
      expect(res.status, `/v1/nfe/:id${path}`).toBe(404);
    }
    const send = await h.request('POST', `/v1/nfe/${cte.id}/send`, { key: h.companyKey });
    expect(send.status).toBe(404);
    const list = (await h.request('GET', '/v1/nfe?pageSize=100', { key: h.companyKey })).body as {
      items: { id: string; modelo: number }[];
    };
    expect(list.items.map((d) => d.modelo).filter((m) => m !== 55 && m !== 65)).toEqual([]);
    expect((await h.request('GET', `/v1/cte/${cte.id}`, { key: h.companyKey })).status).toBe(200);
  });
});

describe('DELETE /v1/cte/:id', () => {
  it('removes a draft (204, then 404) and refuses a CT-e that is not a draft (409)', async () => {
    const draft = await newDraft();
    const del = await h.request('DELETE', `/v1/cte/${draft.id}`, { key: h.companyKey });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await h.request('GET', `/v1/cte/${draft.id}`, { key: h.companyKey })).status).toBe(404);
  });
});

describe('POST /v1/cte/inutilizar', () => {
  it('records a range of unused numbers (the CT-e 4.00 authorities have no such service), steps numbering over it and reminds the 10th of the next month', async () => {
    const last = await newDraft();
    h.clock.set(new Date('2026-12-15T15:00:00Z'));
    const justificativa = 'Numeracao pulada por falha no sistema emissor';
    const res = await h.request('POST', '/v1/cte/inutilizar', {
      key: h.companyKey,
      json: { serie: 1, numeroInicial: last.numero + 1, numeroFinal: last.numero + 2, justificativa },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      status: 'inutilizada',
      modelo: 57,
      serie: 1,
      numeroInicial: last.numero + 1,
      numeroFinal: last.numero + 2,
      transmitida: false,
      protocolo: null,
      prazo: '2027-01-10',
    });
    expect((res.body as { message: string }).message).toMatch(/no inutilização service/);
    expect((res.body as { message: string }).message).toContain('2027-01-10');
    // The recorded CT-e range is not an NF-e inutilização: the NF-e route does not serve it.
    const voidId = (res.body as { id: string }).id;
    expect((await h.request('GET', `/v1/nfe/inutilizar/${voidId}`, { key: h.companyKey })).status).toBe(404);

    const next = await newDraft();
    expect(next.numero).toBe(last.numero + 3);

    // A range holding a CT-e, or one already void, is refused naming the numbers.
    const holding = await h.request('POST', '/v1/cte/inutilizar', {
      key: h.companyKey,
      json: { serie: 1, numeroInicial: next.numero, numeroFinal: next.numero, justificativa },
    });
    expect(holding.status).toBe(409);
    expect((holding.body as FiscalErrorBody).details).toEqual([
      { field: 'numeroInicial', error: `CT-e ${next.numero} is rascunho` },
    ]);
    const again = await h.request('POST', '/v1/cte/inutilizar', {
      key: h.companyKey,
      json: { serie: 1, numeroInicial: last.numero + 2, numeroFinal: last.numero + 2, justificativa },
    });
    expect(again.status).toBe(409);
  });

  it('400 for a short justification, a reversed range and missing fields, all at once', async () => {
    const res = await h.request('POST', '/v1/cte/inutilizar', {
      key: h.companyKey,
      json: { numeroInicial: 10, numeroFinal: 5, justificativa: 'curta' },
    });
    expect(res.status).toBe(400);
    expect((res.body as FiscalErrorBody).details.map((d) => d.field).sort()).toEqual([
      'justificativa',
      'serie',
    ]);
    const reversed = await h.request('POST', '/v1/cte/inutilizar', {
      key: h.companyKey,
      json: { serie: 1, numeroInicial: 10, numeroFinal: 5, justificativa: 'Numeracao pulada por falha' },
    });
    expect(reversed.status).toBe(400);
    expect((reversed.body as FiscalErrorBody).details).toEqual([
      { field: 'numeroFinal', error: 'must not be below numeroInicial' },
    ]);
  });
});

describe('PUT /v1/companies/:id/cte-settings', () => {
  it('a regime-normal carrier sets its RNTRC and ICMS; its CT-e carry them (before: the missing ICMS is named)', async () => {
    const cnpj = cnpjSequence('57570057')();
    const created = await h.request('POST', '/v1/companies', { json: companyBody(cnpj) });
    expect(created.status, created.text).toBe(201);
    const companyId = (created.body as { id: string }).id;
    expect((await uploadTestA1(h, companyId, cnpj)).status).toBe(201);
    const customerId = await createCteCustomer(h, companyId);

    const defaults = await h.request('GET', `/v1/companies/${companyId}/cte-settings`);
    expect(defaults.body).toEqual({ rntrc: 'ISENTO', icms: null, padrao: true });
    const unset = await h.request('POST', `/v1/cte?companyId=${companyId}`, { json: ctePayload(customerId) });
    expect(unset.status).toBe(400);
    expect((unset.body as FiscalErrorBody).details).toEqual([
      { field: 'icms', error: 'the ICMS situation of the service is not configured' },
    ]);

    const bad = await h.request('PUT', `/v1/companies/${companyId}/cte-settings`, {
      json: { rntrc: '123', icms: { cst: '00' } },
    });
    expect(bad.status).toBe(400);
    expect((bad.body as FiscalErrorBody).details.map((d) => d.field).sort()).toEqual([
      'icms.aliquota',
      'rntrc',
    ]);
    const put = await h.request('PUT', `/v1/companies/${companyId}/cte-settings`, {
      json: { rntrc: '12345678', icms: { cst: '00', aliquota: '12.00' } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toEqual({ rntrc: '12345678', icms: { cst: '00', aliquota: '12.00' }, padrao: false });

    const cte = await h.request('POST', `/v1/cte?companyId=${companyId}`, { json: ctePayload(customerId) });
    expect(cte.status, cte.text).toBe(201);
    const xml = await h.request('GET', `/v1/cte/${(cte.body as Cte).id}/xml`);
    expect(xml.text).toContain(
      '<ICMS00><CST>00</CST><vBC>1250.50</vBC><pICMS>12.00</pICMS><vICMS>150.06</vICMS></ICMS00>',
    );
    expect(xml.text).toContain('<rodo><RNTRC>12345678</RNTRC></rodo>');

    // Another company's key reaches neither the settings nor the CT-e.
    expect(
      (await h.request('GET', `/v1/companies/${companyId}/cte-settings`, { key: h.companyKey })).status,
    ).toBe(403);
    expect((await h.request('GET', `/v1/cte/${(cte.body as Cte).id}`, { key: h.companyKey })).status).toBe(
      403,
    );
  });
});
