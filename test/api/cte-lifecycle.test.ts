// §4.3 CT-e through the queue and the embedded sandbox authority: send → autorizada with its protocol, the
// XML with CTe and protCTe, the DACTE (cached, download, regenerate), cancellation (15–255 characters, 168 h),
// the CC-e (correcao/correcoes, sequencia, forbidden fields), the debug object and the cte.* webhooks.
import { describe, expect, it } from 'vitest';
import { eventually, useHarness } from './harness.ts';
import { createCteCustomer, ctePayload } from './cte-helpers.ts';
import { cteDebugSchema, cteEventViewSchema, cteViewSchema } from '../../src-shared/contracts/cte-view.ts';
import type { FiscalErrorBody } from './fiscal-helpers.ts';

const h = useHarness();

type Cte = ReturnType<typeof cteViewSchema.parse>;

async function read(id: string): Promise<Cte> {
  const res = await h.request('GET', `/v1/cte/${id}`, { key: h.companyKey });
  return cteViewSchema.parse(res.body);
}

/** Runs the queue until the CT-e leaves `processando` (or `until` holds). */
async function settle(id: string, until = (c: Cte) => c.status !== 'processando'): Promise<Cte> {
  for (let i = 0; i < 60; i++) {
    await h.service.worker.tick();
    const cte = await read(id);
    if (until(cte)) return cte;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`CT-e ${id} did not settle`);
}

async function draft(overrides: Record<string, unknown> = {}): Promise<Cte> {
  const customerId = await createCteCustomer(h, h.companyId);
  const res = await h.request('POST', '/v1/cte', {
    key: h.companyKey,
    json: ctePayload(customerId, overrides),
  });
  if (res.status !== 201) throw new Error(`draft: ${res.status} ${res.text}`);
  return cteViewSchema.parse(res.body);
}

async function authorized(): Promise<Cte> {
  const created = await draft();
  const sent = await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey });
  if (sent.status !== 202) throw new Error(`send: ${sent.status} ${sent.text}`);
  const cte = await settle(created.id);
  if (cte.status !== 'autorizada') throw new Error(`not authorized: ${JSON.stringify(cte)}`);
  return cte;
}

/** The webhook's deliveries, once there is one: the queue publishes after its commit, not before the answer. */
async function deliveries(
  webhookId: string,
): Promise<Array<{ event: string; data: Record<string, unknown> }>> {
  const rows = await eventually(
    () =>
      h.service.db
        .selectFrom('webhook_deliveries')
        .select(['event', 'payload'])
        .where('webhook_id', '=', webhookId)
        .orderBy('created_at')
        .execute(),
    (found) => found.length > 0,
  );
  return rows.map((r) => ({
    event: r.event,
    data: (JSON.parse(r.payload) as { data: Record<string, unknown> }).data,
  }));
}

describe('POST /v1/cte/:id/send', () => {
  it('202 {success, message}; the queue gets it authorized; the XML carries CTe and protCTe; cte.autorizada', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'https://tms.example.com.br/balcao/cte', events: ['cte.*'] },
    });
    expect(hook.status, hook.text).toBe(201);
    const created = await draft();
    const sent = await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.body).toEqual({ success: true, message: expect.stringContaining('queued') as string });

    const cte = await settle(created.id);
    expect(cte).toMatchObject({ status: 'autorizada', cStat: '100', chave_acesso: created.chave_acesso });
    expect(cte.protocolo).toMatch(/^\d{15}$/);
    expect(cte.authorized_at).not.toBeNull();

    const xml = await h.request('GET', `/v1/cte/${cte.id}/xml`, { key: h.companyKey });
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    expect(xml.text).toContain('<cteProc');
    expect(xml.text).toContain(`<infCte Id="CTe${cte.chave_acesso}"`);
    expect(xml.text).toMatch(
      new RegExp(`<protCTe[^>]*>.*<chCTe>${cte.chave_acesso}</chCTe>.*<nProt>${cte.protocolo}</nProt>`, 's'),
    );

    const events = await deliveries((hook.body as { id: string }).id);
    expect(events.map((e) => e.event)).toEqual(['cte.autorizada']);
    expect(events[0]?.data).toMatchObject({
      documentId: cte.id,
      chave: cte.chave_acesso,
      modelo: 57,
      status: 'autorizada',
    });

    // Sent once: a second send and a deletion are refused by the state.
    const again = await h.request('POST', `/v1/cte/${cte.id}/send`, { key: h.companyKey });
    expect(again.status).toBe(409);
    expect((again.body as FiscalErrorBody).error).toBe('invalid_state');
    const del = await h.request('DELETE', `/v1/cte/${cte.id}`, { key: h.companyKey });
    expect(del.status).toBe(409);
  });
});

describe('GET /v1/cte/:id/dacte', () => {
  it('serves the PDF, cached; download=true is an attachment named by the key; regenerate=true rebuilds', async () => {
    const pending = await draft();
    expect((await h.request('GET', `/v1/cte/${pending.id}/dacte`, { key: h.companyKey })).status).toBe(409);

    const cte = await authorized();
    const first = await h.request('GET', `/v1/cte/${cte.id}/dacte`, { key: h.companyKey });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/pdf');
    expect(first.headers.get('content-disposition')).toBe(`inline; filename="${cte.chave_acesso}-dacte.pdf"`);
    expect(first.headers.get('x-cache')).toBe('MISS');
    expect(first.text.startsWith('%PDF-')).toBe(true);

    const second = await h.request('GET', `/v1/cte/${cte.id}/dacte?download=true`, { key: h.companyKey });
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.headers.get('content-disposition')).toBe(
      `attachment; filename="${cte.chave_acesso}-dacte.pdf"`,
    );
    expect(second.text).toBe(first.text);

    const rebuilt = await h.request('GET', `/v1/cte/${cte.id}/dacte?regenerate=true`, { key: h.companyKey });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.headers.get('x-cache')).toBe('MISS');
    expect(rebuilt.text.startsWith('%PDF-')).toBe(true);
  });
});

describe('POST /v1/cte/:id/cancel', () => {
  it('15–255 characters; 202 with the event; the CT-e ends cancelada and cte.cancelada is published', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'https://tms.example.com.br/balcao/cancel', events: ['cte.cancelada'] },
    });
    const cte = await authorized();
    const short = await h.request('POST', `/v1/cte/${cte.id}/cancel`, {
      key: h.companyKey,
      json: { justificativa: 'curta demais' },
    });
    expect(short.status).toBe(400);
    expect((short.body as FiscalErrorBody).details.map((d) => d.field)).toEqual(['justificativa']);
    const long = await h.request('POST', `/v1/cte/${cte.id}/cancel`, {
      key: h.companyKey,
      json: { justificativa: 'x'.repeat(256) },
    });
    expect(long.status).toBe(400);

    const justificativa = 'Frete contratado em duplicidade pelo tomador';
    const res = await h.request('POST', `/v1/cte/${cte.id}/cancel`, {
      key: h.companyKey,
      json: { justificativa },
    });
    expect(res.status, res.text).toBe(202);
    const event = cteEventViewSchema.parse(res.body);
    expect(event).toMatchObject({
      cte_id: cte.id,
      tpEvento: '110111',
      descricao: 'Cancelamento',
      sequencia: 1,
      status: 'processando',
      detalhes: { justificativa },
    });
    expect((await read(cte.id)).status).toBe('processando');
    const cancelled = await settle(cte.id, (c) => c.status === 'cancelada');
    expect(cancelled.eventos).toEqual([
      expect.objectContaining({
        tpEvento: '110111',
        status: 'registrada',
        protocolo: expect.stringMatching(/^\d{15}$/) as string,
      }),
    ]);
    expect((await deliveries((hook.body as { id: string }).id)).map((e) => e.event)).toEqual([
      'cte.cancelada',
    ]);
    const again = await h.request('POST', `/v1/cte/${cte.id}/cancel`, {
      key: h.companyKey,
      json: { justificativa },
    });
    expect(again.status).toBe(409);
  });

  it('after 168 h from the authorization: 422 with cStat 220, nothing queued', async () => {
    const cte = await authorized();
    h.clock.advance(168 * 3600_000 + 60_000);
    const res = await h.request('POST', `/v1/cte/${cte.id}/cancel`, {
      key: h.companyKey,
      json: { justificativa: 'Frete contratado em duplicidade pelo tomador' },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ error: 'fiscal_rejection', cStat: '220' });
    expect((await read(cte.id)).status).toBe('autorizada');
  });
});

describe('POST /v1/cte/:id/cce', () => {
  it('correcao and correcoes with their sequence; a wrong sequencia is 409; forbidden fields are 422 681', async () => {
    const cte = await authorized();
    const first = await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: { correcao: 'Entrega no portao 3 do armazem', sequencia: 1 },
    });
    expect(first.status, first.text).toBe(202);
    expect(cteEventViewSchema.parse(first.body)).toMatchObject({
      tpEvento: '110110',
      descricao: 'Carta de Correcao',
      sequencia: 1,
      detalhes: {
        correcao: 'Entrega no portao 3 do armazem',
        correcoes: [
          { grupoAlterado: 'compl', campoAlterado: 'xObs', valorAlterado: 'Entrega no portao 3 do armazem' },
        ],
      },
    });
    const afterFirst = await settle(cte.id, (c) => c.eventos.every((e) => e.status !== 'processando'));
    expect(afterFirst.status).toBe('autorizada');
    expect(afterFirst.eventos.map((e) => [e.tpEvento, e.sequencia, e.status])).toEqual([
      ['110110', 1, 'registrada'],
    ]);

    const wrongSeq = await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: { correcao: 'Outra observacao de entrega', sequencia: 5 },
    });
    expect(wrongSeq.status).toBe(409);
    expect((wrongSeq.body as FiscalErrorBody).details).toEqual([
      { field: 'sequencia', error: 'is 5; the next free sequence is 2' },
    ]);

    const structured = await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: {
        correcoes: [{ grupoAlterado: 'ide', campoAlterado: 'natOp', valorAlterado: 'Transporte rodoviario' }],
      },
    });
    expect(structured.status, structured.text).toBe(202);
    expect((structured.body as { sequencia: number }).sequencia).toBe(2);

    const forbidden = await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: {
        correcoes: [
          { grupoAlterado: 'rem', campoAlterado: 'CNPJ', valorAlterado: '11222333000262' },
          { grupoAlterado: 'vPrest', campoAlterado: 'vTPrest', valorAlterado: '1.00' },
          { grupoAlterado: 'ide', campoAlterado: 'dhEmi', valorAlterado: '2026-01-01T00:00:00-03:00' },
        ],
      },
    });
    expect(forbidden.status, forbidden.text).toBe(422);
    expect(forbidden.body).toMatchObject({ error: 'fiscal_rejection', cStat: '681' });
    expect((forbidden.body as FiscalErrorBody).details.map((d) => d.field)).toEqual([
      'correcoes[0].campoAlterado',
      'correcoes[1].campoAlterado',
      'correcoes[2].campoAlterado',
    ]);

    const bad = await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: { correcao: 'curta' },
    });
    expect(bad.status).toBe(400);
    const neither = await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: { sequencia: 1 },
    });
    expect(neither.status).toBe(400);
    expect((neither.body as FiscalErrorBody).details.map((d) => d.field)).toEqual(['correcao']);
  });

  it('a draft takes no CC-e (409)', async () => {
    const pending = await draft();
    const res = await h.request('POST', `/v1/cte/${pending.id}/cce`, {
      key: h.companyKey,
      json: { correcao: 'Entrega no portao 3 do armazem' },
    });
    expect(res.status).toBe(409);
  });
});

describe('GET /v1/cte/:id/debug', () => {
  it('has the request as received, the queue log with cStat/xMotivo, the CC-e, every XML and the rows', async () => {
    const customerId = await createCteCustomer(h, h.companyId);
    const payload = ctePayload(customerId);
    const created = cteViewSchema.parse(
      (await h.request('POST', '/v1/cte', { key: h.companyKey, json: payload })).body,
    );
    const before = cteDebugSchema.parse(
      (await h.request('GET', `/v1/cte/${created.id}/debug`, { key: h.companyKey })).body,
    );
    expect(before.logs).toEqual([]);
    expect(before.xml).toMatchObject({ transmitted: null, protocol: null, proc: null });

    await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey });
    await settle(created.id);
    await h.request('POST', `/v1/cte/${created.id}/cce`, {
      key: h.companyKey,
      json: { correcao: 'Entrega no portao 3 do armazem' },
    });
    await settle(created.id, (c) => c.eventos.every((e) => e.status !== 'processando'));

    const res = await h.request('GET', `/v1/cte/${created.id}/debug`, { key: h.companyKey });
    expect(res.status).toBe(200);
    const debug = cteDebugSchema.parse(res.body);
    expect(debug.cte.request_payload).toEqual(payload);
    expect(debug.cte.status).toBe('autorizada');
    expect(debug.logs.map((l) => [l.operation, l.tpEvento, l.state, l.cStat, l.xMotivo])).toEqual([
      ['autorizacao', null, 'done', '100', 'Autorizado o uso do CT-e'],
      ['evento', '110110', 'done', '135', 'Evento registrado e vinculado a CT-e'],
    ]);
    expect(debug.cce).toEqual([
      expect.objectContaining({ tpEvento: '110110', sequencia: 1, status: 'registrada' }),
    ]);
    expect(debug.xml.signed).toContain('<CTe');
    expect(debug.xml.transmitted).toBe(debug.xml.signed);
    expect(debug.xml.protocol).toContain('<protCTe');
    expect(debug.xml.proc).toContain('<cteProc');
    expect(debug.snapshot.document).toMatchObject({ id: created.id, modelo: 57, status: 'autorizada' });
    expect(debug.snapshot.outbox).toHaveLength(2);
    expect(debug.snapshot.events).toHaveLength(1);
  });
});

describe('SVC contingency', () => {
  it('after two certain failures at the UF the CT-e is re-signed for its SVC under the same number and authorized there', async () => {
    const created = await draft();
    const faults = h.service.sandbox!.faults;
    faults.pause(108, { services: ['CTeRecepcaoSincV4'], times: 2 });
    try {
      expect((await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey })).status).toBe(202);
      let cte = await read(created.id);
      for (let i = 0; i < 60 && cte.status === 'processando'; i++) {
        await h.service.worker.tick();
        h.clock.advance(30_000);
        cte = await read(created.id);
      }
      expect(cte.status, JSON.stringify(cte)).toBe('autorizada');
      expect(cte.numero).toBe(created.numero);
      expect([7, 8]).toContain(cte.tipo_emissao);
      // tpEmis is part of the key: a new key for the same number.
      expect(cte.chave_acesso.slice(34, 35)).toBe(String(cte.tipo_emissao));
      expect(cte.chave_acesso).not.toBe(created.chave_acesso);
      const xml = await h.request('GET', `/v1/cte/${cte.id}/xml`, { key: h.companyKey });
      expect(xml.text).toMatch(/<dhCont>[^<]+<\/dhCont><xJust>SEFAZ SP indisponivel[^<]*<\/xJust>/);
      // The UF's status service answers 107 again: the queue's probe brings the company back to normal.
      let modo = '';
      for (let i = 0; i < 20 && modo !== 'normal'; i++) {
        h.clock.advance(60_000);
        await h.service.worker.tick();
        const status = await h.request('GET', `/v1/companies/${h.companyId}/status`, { key: h.companyKey });
        modo = (status.body as { autoridade: { modo: string } }).autoridade.modo;
      }
      expect(modo).toBe('normal');
      expect((await draft()).tipo_emissao).toBe(1);
    } finally {
      faults.pause(null);
      await h.service.db
        .deleteFrom('contingency_modes')
        .where('company_id', '=', h.companyId)
        .where('modelo', '=', 57)
        .execute();
    }
  });
});

describe('Idempotency-Key', () => {
  it('a retried create answers the first CT-e (one number taken); a retried send queues once', async () => {
    const customerId = await createCteCustomer(h, h.companyId);
    const key = `cte-create-${Date.now()}`;
    const body = ctePayload(customerId);
    const first = await h.request('POST', '/v1/cte', {
      key: h.companyKey,
      json: body,
      headers: { 'Idempotency-Key': key },
    });
    const retry = await h.request('POST', '/v1/cte', {
      key: h.companyKey,
      json: body,
      headers: { 'Idempotency-Key': key },
    });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect((retry.body as Cte).id).toBe((first.body as Cte).id);
    const next = await draft();
    expect(next.numero).toBe((first.body as Cte).numero + 1);
    const other = await h.request('POST', '/v1/cte', {
      key: h.companyKey,
      json: { ...body, natOp: 'Outra natureza' },
      headers: { 'Idempotency-Key': key },
    });
    expect(other.status).toBe(409);

    const id = (first.body as Cte).id;
    const sendKey = `cte-send-${Date.now()}`;
    const sends = [];
    for (let i = 0; i < 2; i++) {
      sends.push(
        await h.request('POST', `/v1/cte/${id}/send`, {
          key: h.companyKey,
          headers: { 'Idempotency-Key': sendKey },
        }),
      );
    }
    expect(sends.map((s) => s.status)).toEqual([202, 202]);
    expect(sends[1]?.body).toEqual(sends[0]?.body);
    const queued = await h.service.db
      .selectFrom('outbox')
      .select('id')
      .where('document_id', '=', id)
      .where('kind', '=', 'autorizacao')
      .execute();
    expect(queued).toHaveLength(1);
    // Leaves no CT-e in the queue for the tests after it (their faults apply to the next message sent).
    expect((await settle(id)).status).toBe('autorizada');
  });
});

describe('rejection', () => {
  it('a CT-e the authority rejects reads erro with cStat/xMotivo and cte.rejeitada; sent again it is authorized under its number', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'https://tms.example.com.br/balcao/rejeitada', events: ['cte.rejeitada'] },
    });
    const created = await draft();
    h.service.sandbox!.faults.reject(212, { services: ['CTeRecepcaoSincV4'] });
    await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey });
    const rejected = await settle(created.id);
    expect(rejected).toMatchObject({ status: 'erro', cStat: '212', protocolo: null });
    expect(rejected.xMotivo).toMatch(/^Rejeição: Data de emissão CT-e posterior/);
    const events = await deliveries((hook.body as { id: string }).id);
    expect(events.map((e) => [e.event, e.data['cStat']])).toEqual([['cte.rejeitada', '212']]);
    const listed = await h.request('GET', '/v1/cte?status=rejeitada&limit=100', { key: h.companyKey });
    expect((listed.body as { data: Cte[] }).data.map((c) => c.id)).toContain(created.id);

    // A rejected CT-e was received by the authority: it is not deleted, it is sent again (same number).
    expect((await h.request('DELETE', `/v1/cte/${created.id}`, { key: h.companyKey })).status).toBe(409);
    expect((await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey })).status).toBe(202);
    const authorized = await settle(created.id);
    expect(authorized).toMatchObject({ status: 'autorizada', numero: created.numero, cStat: '100' });
  });
});

describe('cancellation after the trip started', () => {
  it('is queued (202), refused by the authority (MDF-e on record) and the CT-e stays autorizada with the refusal on its event', async () => {
    const cte = await authorized();
    expect(await h.service.sandbox!.registry.markCteTripStarted(cte.chave_acesso, 'mdfe')).toBe(true);
    const res = await h.request('POST', `/v1/cte/${cte.id}/cancel`, {
      key: h.companyKey,
      json: { justificativa: 'Frete contratado em duplicidade pelo tomador' },
    });
    expect(res.status).toBe(202);
    const after = await settle(cte.id, (c) => c.eventos.every((e) => e.status !== 'processando'));
    expect(after.status).toBe('autorizada');
    expect(after.eventos).toEqual([
      expect.objectContaining({ tpEvento: '110111', status: 'rejeitada', cStat: '528' }),
    ]);
  });
});

describe('CC-e limit', () => {
  it('a 21st CC-e of a CT-e is 422 with cStat 636', async () => {
    const cte = await authorized();
    const stamp = h.clock.now().toISOString();
    // Twenty letters on record (as the queue leaves them), without sending twenty through the authority.
    for (let n = 1; n <= 20; n++) {
      await h.service.db
        .withTables<{
          document_events: {
            id: string;
            document_id: string;
            company_id: string;
            tp_evento: string;
            n_seq: number;
            status: string;
            payload: string;
            xml: string;
            created_at: string;
            updated_at: string;
          };
        }>()
        .insertInto('document_events')
        .values({
          id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
          document_id: cte.id,
          company_id: h.companyId,
          tp_evento: '110110',
          n_seq: n,
          status: 'registrada',
          payload: '{}',
          xml: '<eventoCTe/>',
          created_at: stamp,
          updated_at: stamp,
        })
        .execute();
    }
    const res = await h.request('POST', `/v1/cte/${cte.id}/cce`, {
      key: h.companyKey,
      json: { correcao: 'Entrega no portao 3 do armazem' },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ error: 'fiscal_rejection', cStat: '636' });
    expect((res.body as FiscalErrorBody).details.map((d) => d.field)).toEqual(['sequencia']);
  });
});

describe('denial', () => {
  it('a CT-e whose use the authority denies (301) reads denegada with its protocol and cte.denegada is published', async () => {
    const hook = await h.request('POST', `/v1/webhooks?companyId=${h.companyId}`, {
      json: { url: 'https://tms.example.com.br/balcao/denegada', events: ['cte.*'] },
    });
    const created = await draft();
    const { registry } = h.service.sandbox!;
    const cnpj = created.chave_acesso.slice(6, 20);
    await registry.denyEmitter(cnpj, true);
    try {
      await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey });
      const denied = await settle(created.id);
      expect(denied).toMatchObject({ status: 'denegada', cStat: '301' });
      expect(denied.protocolo).toMatch(/^\d{15}$/);
      const events = await deliveries((hook.body as { id: string }).id);
      expect(events.map((e) => e.event)).toEqual(['cte.denegada']);
      // A denied CT-e is final: no send, no deletion, no cancellation.
      expect((await h.request('POST', `/v1/cte/${created.id}/send`, { key: h.companyKey })).status).toBe(409);
      expect((await h.request('DELETE', `/v1/cte/${created.id}`, { key: h.companyKey })).status).toBe(409);
    } finally {
      await registry.denyEmitter(cnpj, false);
    }
  });
});
