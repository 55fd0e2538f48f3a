// /v1/nfe and /v1/nfce against the running service and its embedded sandbox authority (real HTTPS + mTLS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';

let h: Harness;
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
const nfce = { itens: [item], pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }] };
const nfe = {
  naturezaOperacao: 'Venda de mercadoria',
  customer: SP_CONTRIBUTOR,
  itens: [{ ...item, cfop: '5102' }],
  pagamentos: [{ forma: '15', valor: '7.00' }],
};

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

type Doc = {
  id: string;
  numero: number;
  status: string;
  chave_acesso: string;
  protocolo: string | null;
  itens: unknown[];
  totais: Record<string, string>;
};

async function settle(
  id: string,
  path = '/v1/nfe',
  until = (d: Doc) => d.status !== 'processando',
): Promise<Doc> {
  for (let i = 0; i < 50; i++) {
    await h.service.worker.tick();
    const doc = (await h.request('GET', `${path}/${id}`)).body as Doc;
    if (until(doc)) return doc;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`document ${id} did not settle`);
}

describe('/v1/nfce', () => {
  it('sells: 201 authorized by the sandbox, with key, protocol, items and totals; XML is the nfeProc', async () => {
    const res = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce });
    expect(res.status).toBe(201);
    const doc = res.body as Doc;
    expect(doc.status).toBe('autorizada');
    expect(doc.chave_acesso).toMatch(/^35\d{4}12345678000195650010{5}\d{4}/);
    expect(doc.protocolo).toMatch(/^\d{15}$/);
    expect(doc.itens).toHaveLength(1);
    expect(doc.totais['vNF']).toBe('7.00');
    const xml = await h.request('GET', `/v1/nfce/${doc.id}/xml`);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    expect(
      xml.text.startsWith('<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00"><NFe'),
    ).toBe(true);
    expect(xml.text).toContain(`<nProt>${doc.protocolo ?? ''}</nProt>`);
  });

  it('lists NFC-e in the §4.2 shape with limit/offset', async () => {
    await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce });
    const res = await h.request('GET', `/v1/nfce?companyId=${h.companyId}&limit=1&offset=1`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect((res.body as { items: unknown[] }).items).toHaveLength(1);
  });

  it('reports every payload fault in the caller spelling and reserves no number', async () => {
    const res = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, {
      json: {
        itens: [{ ...item, ncm: '123', valor_unitario: 'x' }],
        pagamentos: [{ metodo: 'escambo', valor: 1 }],
      },
    });
    expect(res.status).toBe(400);
    expect((res.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'itens[0].ncm',
      'itens[0].valor_unitario',
      'pagamentos[0].metodo',
    ]);
    const next = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce });
    expect((next.body as Doc).numero).toBe(3);
  });

  it('an offline sale (authority unreachable) completes in contingency, announces nfce.contingencia, is authorized later', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'http://127.0.0.1:9/hook', events: ['nfce.*'], permitirRedeLocal: true },
    });
    expect(hook.status).toBe(201);
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('the harness runs the embedded sandbox');
    await sandbox.faults.setOnline(false);
    let offline: Doc & { tipo_emissao: number };
    try {
      const res = await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce });
      expect(res.status).toBe(201);
      offline = res.body as Doc & { tipo_emissao: number };
      expect(offline.status).toBe('contingencia');
      expect(offline.tipo_emissao).toBe(9);
      const deliveries = await eventually(
        () =>
          h.service.db
            .selectFrom('webhook_deliveries')
            .select(['event'])
            .where('event', '=', 'nfce.contingencia')
            .execute(),
        (rows) => rows.length > 0,
      );
      expect(deliveries).toHaveLength(1);
    } finally {
      await sandbox.faults.setOnline(true);
    }
    h.clock.advance(10 * 60_000);
    const later = await settle(offline.id, '/v1/nfce', (d) => d.status === 'autorizada');
    expect(later.protocolo).toMatch(/^\d{15}$/);
  });

  it('cancel: short justification 400, within 30 min 202 then cancelada, after 30 min 422 with cStat 501', async () => {
    const sold = (await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce }))
      .body as Doc;
    const short = await h.request('POST', `/v1/nfe/${sold.id}/cancel`, { json: { justificativa: 'curta' } });
    expect(short.status).toBe(400);
    expect((short.body as { details: { field: string }[] }).details[0]?.field).toBe('justificativa');
    const ok = await h.request('POST', `/v1/nfe/${sold.id}/cancel`, {
      json: { justificativa: 'Cliente desistiu da compra no caixa' },
    });
    expect(ok.status).toBe(202);
    const again = await h.request('POST', `/v1/nfe/${sold.id}/cancel`, {
      json: { justificativa: 'Cliente desistiu da compra no caixa' },
    });
    expect(again.status).toBe(409);
    expect(await settle(sold.id, '/v1/nfce', (d) => d.status === 'cancelada')).toMatchObject({
      status: 'cancelada',
    });

    const late = (await h.request('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce }))
      .body as Doc;
    h.clock.advance(31 * 60_000);
    const refused = await h.request('POST', `/v1/nfe/${late.id}/cancel`, {
      json: { justificativa: 'Cliente desistiu da compra no caixa' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'fiscal_rejection', cStat: '501' });
  });
});

describe('/v1/nfe', () => {
  it('draft → PUT keeps the number → send (sync) authorized; every later change is 409 naming the state', async () => {
    const created = await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, { json: nfe });
    expect(created.status).toBe(201);
    const draft = created.body as Doc;
    expect(draft.status).toBe('rascunho');
    const changed = await h.request('PUT', `/v1/nfe/${draft.id}`, {
      json: { ...nfe, itens: [{ ...item, quantidade: 3 }], pagamentos: [{ forma: '15', valor: '10.50' }] },
    });
    expect(changed.status).toBe(200);
    expect((changed.body as Doc).numero).toBe(draft.numero);
    expect((changed.body as Doc).totais['vNF']).toBe('10.50');
    const sent = await h.request('POST', `/v1/nfe/${draft.id}/send?sync=true`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      id: draft.id,
      numero: draft.numero,
      status: 'autorizada',
      protocolo: expect.stringMatching(/^\d{15}$/),
    });
    for (const [method, path] of [
      ['POST', `/v1/nfe/${draft.id}/send`],
      ['PUT', `/v1/nfe/${draft.id}`],
    ] as const) {
      const res = await h.request(method, path, { json: nfe });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        error: 'invalid_state',
        details: [{ field: 'status', error: "current state is 'autorizada'" }],
      });
    }
  });

  it('two concurrent sends of one draft: exactly one is accepted', async () => {
    const draft = (await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, { json: nfe })).body as Doc;
    const [a, b] = await Promise.all([
      h.request('POST', `/v1/nfe/${draft.id}/send`),
      h.request('POST', `/v1/nfe/${draft.id}/send`),
    ]);
    expect([a.status, b.status].sort()).toEqual([202, 409]);
    expect((await settle(draft.id)).status).toBe('autorizada');
  });

  it('lists with status filters (rejeitada is erro) and dates; unknown ids 404, other companies 403', async () => {
    const list = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&status=autorizada&modelo=55`);
    expect(list.status).toBe(200);
    expect((list.body as { total: number; page: number; pageSize: number }).total).toBe(2);
    const rejected = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&status=rejeitada`);
    expect((rejected.body as { total: number }).total).toBe(0);
    const bad = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&status=xyz&data_inicio=2026-13-01`);
    expect((bad.body as { details: { field: string }[] }).details.map((d) => d.field).sort()).toEqual([
      'data_inicio',
      'status',
    ]);
    expect((await h.request('GET', '/v1/nfe/doc_missing')).status).toBe(404);
  });
});

describe('rejection and numbering', () => {
  it('a rejected NF-e shows the authority message, keeps its number through PUT and resend; nfe.rejeitada', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'https://erp.example.com.br/balcao/nfe', events: ['nfe.*'] },
    });
    expect(hook.status).toBe(201);
    const draft = (await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, { json: nfe })).body as Doc;
    // No well-built note is refused by the rules, so the sandbox is told to refuse the next one (228).
    h.service.sandbox!.faults.reject(228);
    const sent = await h.request('POST', `/v1/nfe/${draft.id}/send?sync=true`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ id: draft.id, numero: draft.numero, status: 'erro' });
    const rejected = (await h.request('GET', `/v1/nfe/${draft.id}`)).body as Doc & {
      cStat: string;
      mensagens: { cStat: string; xMotivo: string }[];
    };
    expect(rejected.cStat).toBe('228');
    expect(rejected.mensagens).toContainEqual({ cStat: '228', xMotivo: expect.any(String) as string });
    const listed = await h.request('GET', `/v1/nfe?companyId=${h.companyId}&status=rejeitada`);
    expect((listed.body as { items: { id: string }[] }).items.map((d) => d.id)).toEqual([draft.id]);

    const corrected = await h.request('PUT', `/v1/nfe/${draft.id}`, { json: nfe });
    expect(corrected.status).toBe(200);
    // §3: PUT replaces the data and keeps the state; the note stays `erro` until it is sent again.
    expect(corrected.body).toMatchObject({ numero: draft.numero, status: 'erro' });
    // A later second, so that the two events' created_at differ (the clock is the test's).
    h.clock.advance(1000);
    const resent = await h.request('POST', `/v1/nfe/${draft.id}/send?sync=true`);
    expect(resent.body).toMatchObject({ id: draft.id, numero: draft.numero, status: 'autorizada' });

    // The events are queued once the note's state is written, not before the answer: wait for them.
    const events = await eventually(
      () =>
        h.service.db
          .selectFrom('webhook_deliveries')
          .select(['event', 'payload'])
          .where('webhook_id', '=', (hook.body as { id: string }).id)
          .orderBy('created_at')
          .execute(),
      (rows) => rows.length >= 2,
    );
    expect(events.map((e) => e.event)).toEqual(['nfe.rejeitada', 'nfe.autorizada']);
    expect(JSON.parse(events[0]!.payload)).toMatchObject({ data: { documentId: draft.id, cStat: '228' } });
  });

  it('200 parallel creates get 200 distinct consecutive numbers, from the next number of the series', async () => {
    type Sequences = {
      sequences: { modelo: string; serie: number; environment: string; proximo_numero: number }[];
    };
    const nextOf = async () =>
      (
        (await h.request('GET', `/v1/companies/${h.companyId}/nfe-sequences`)).body as Sequences
      ).sequences.find((s) => s.modelo === '55' && s.serie === 1 && s.environment === 'homologacao')
        ?.proximo_numero;
    const first = await nextOf();
    // A key allows 50 requests a second: five keys let all 200 requests run at once.
    const keys = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => {
        const res = await h.request('POST', '/v1/api-keys', {
          json: { name: `carga-${i}`, scope: 'company', companyId: h.companyId, plan: 'terminal' },
        });
        return (res.body as { key: string }).key;
      }),
    );
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        h.request('POST', `/v1/nfe?companyId=${h.companyId}`, { json: nfe, key: keys[i % 5]! }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array<number>(200).fill(201));
    const numbers = created.map((r) => (r.body as Doc).numero).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 200 }, (_, i) => first! + i));
    expect(await nextOf()).toBe(first! + 200);
  });
});

describe('NFC-e in two steps (create, then send)', () => {
  type Sync = { id: string; numero: number; status: string; protocolo: string | null; tipo_emissao: number };

  it('?rascunho=true reserves the number and signs; send?sync=true is the cashier mode; plain send is 202', async () => {
    const created = await h.request('POST', `/v1/nfce?companyId=${h.companyId}&rascunho=true`, {
      json: nfce,
    });
    expect(created.status).toBe(201);
    const draft = created.body as Doc & { qr_code: string | null };
    expect(draft.status).toBe('rascunho');
    expect(draft.qr_code).toContain(draft.chave_acesso);
    expect(
      (await h.request('POST', `/v1/nfce?companyId=${h.companyId}&rascunho=talvez`, { json: nfce })).status,
    ).toBe(400);

    const sent = await h.request('POST', `/v1/nfce/${draft.id}/send?sync=true`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      id: draft.id,
      numero: draft.numero,
      status: 'autorizada',
      tipo_emissao: 1,
      protocolo: expect.stringMatching(/^\d{15}$/),
      danfe_url: `/v1/nfce/${draft.id}/danfe`,
    });
    const again = await h.request('POST', `/v1/nfce/${draft.id}/send?sync=true`);
    expect(again.status).toBe(409);

    const other = (await h.request('POST', `/v1/nfce?companyId=${h.companyId}&rascunho=true`, { json: nfce }))
      .body as Doc;
    expect(other.numero).toBe(draft.numero + 1);
    const queued = await h.request('POST', `/v1/nfce/${other.id}/send`);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ status: 'processando' });
    expect((await settle(other.id, '/v1/nfce')).status).toBe('autorizada');
  });

  it('with the authority unreachable, the cashier send completes in contingency within the bounded wait', async () => {
    const draft = (await h.request('POST', `/v1/nfce?companyId=${h.companyId}&rascunho=true`, { json: nfce }))
      .body as Doc;
    const sandbox = h.service.sandbox!;
    await sandbox.faults.setOnline(false);
    let sent: Sync;
    try {
      const res = await h.request('POST', `/v1/nfce/${draft.id}/send?sync=true`);
      expect(res.status).toBe(200);
      sent = res.body as Sync;
      expect(sent).toMatchObject({ status: 'contingencia', tipo_emissao: 9 });
      // The same number when the attempt certainly never reached the authority; when that is in doubt the
      // sale takes the next number and the attempt is settled later (substitution or inutilização).
      if (sent.id !== draft.id) {
        const replacement = (await h.request('GET', `/v1/nfce/${sent.id}`)).body as { substitui: string };
        expect(replacement.substitui).toBe(draft.id);
      } else expect(sent.numero).toBe(draft.numero);
    } finally {
      await sandbox.faults.setOnline(true);
    }
    h.clock.advance(10 * 60_000);
    const later = await settle(sent!.id, '/v1/nfce', (d) => d.status === 'autorizada');
    expect(later.numero).toBe(sent!.numero);
  });
});

describe('NF-e cancellation and customers by id', () => {
  it('an NF-e to a stored customer (customerId) cancels within 24 h (nfe.cancelada), not after: 422 cStat 501', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'https://erp.example.com.br/balcao/cancel', events: ['nfe.cancelada'] },
    });
    const customer = await h.request('POST', `/v1/customers?companyId=${h.companyId}`, {
      json: {
        cnpj: '11222333000181',
        xNome: 'Mercado Central Ltda',
        ie: '110042490114',
        email: 'compras@mercadocentral.com.br',
        endereco: { xLgr: 'Rua B', nro: '2', xBairro: 'Centro', cMun: '3550308', uf: 'SP', cep: '01000000' },
      },
    });
    expect(customer.status).toBe(201);
    const { customer: _inline, ...withoutCustomer } = nfe;
    const body = { ...withoutCustomer, customerId: (customer.body as { id: string }).id };
    const authorize = async () => {
      const draft = (await h.request('POST', `/v1/nfe?companyId=${h.companyId}`, { json: body })).body as Doc;
      const sent = await h.request('POST', `/v1/nfe/${draft.id}/send?sync=true`);
      expect(sent.body).toMatchObject({ status: 'autorizada' });
      return draft;
    };
    const justificativa = 'Pedido cancelado pelo cliente antes da entrega';

    const first = await authorize();
    const xml = (await h.request('GET', `/v1/nfe/${first.id}/xml`)).text;
    expect(xml).toContain('<email>compras@mercadocentral.com.br</email>');
    h.clock.advance(23 * 3600_000);
    expect((await h.request('POST', `/v1/nfe/${first.id}/cancel`, { json: { justificativa } })).status).toBe(
      202,
    );
    expect((await settle(first.id, '/v1/nfe', (d) => d.status === 'cancelada')).status).toBe('cancelada');

    const second = await authorize();
    h.clock.advance(25 * 3600_000);
    const late = await h.request('POST', `/v1/nfe/${second.id}/cancel`, { json: { justificativa } });
    expect(late.status).toBe(422);
    expect(late.body).toMatchObject({ error: 'fiscal_rejection', cStat: '501' });
    expect(((await h.request('GET', `/v1/nfe/${second.id}`)).body as Doc).status).toBe('autorizada');

    let events: string[] = [];
    for (let i = 0; i < 50 && events.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      events = (
        await h.service.db
          .selectFrom('webhook_deliveries')
          .select('event')
          .where('webhook_id', '=', (hook.body as { id: string }).id)
          .execute()
      ).map((e) => e.event);
    }
    expect(events).toEqual(['nfe.cancelada']);
  });
});
