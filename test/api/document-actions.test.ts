// CC-e, events, inutilização, devolução and abandoned numbers against the running service and its embedded
// sandbox authority (real HTTPS + mTLS), on a manual clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';
import { SqliteAdapter } from 'kysely';
import { abandonedNumbers } from '../../src-main/documents/abandoned.ts';
import { plansOf } from '../../src-main/db/query-plans.ts';

let h: Harness;

const taxes = { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } };
const item = (codigo: string, cfop: string, quantidade = 2, valor = '3.50') => ({
  codigo,
  descricao: `Produto ${codigo}`,
  ncm: '22011000',
  unidade: 'UN',
  quantidade,
  valor_unitario: valor,
  cfop,
  tributacao: taxes,
});
const customer = SP_CONTRIBUTOR;
const nfe = (itens = [item('A1', '5102')], valor = '7.00') => ({
  naturezaOperacao: 'Venda de mercadoria',
  customer,
  itens,
  pagamentos: [{ forma: '15', valor }],
});
const nfce = {
  itens: [item('C1', '5102')],
  pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }],
};

type Doc = {
  id: string;
  numero: number;
  serie: number;
  status: string;
  chave_acesso: string;
  itens: { nItem: number; cfop: string | null; quantidade: string | null; valor_total: string | null }[];
  totais: Record<string, string>;
};
type Letter = {
  id: string;
  nfeId: string;
  sequencia: number;
  status: string;
  protocolo_cce: string | null;
  cStat: string | null;
  xMotivo: string | null;
  correcao: string;
  registrada_em: string | null;
};
type ErrorBody = { error: string; details: { field: string; error: string }[]; cStat?: string };

beforeAll(async () => {
  // The harness runs on a ManualClock: only h.clock.advance moves time (the abandoned-numbers test does).
  h = await startHarness();
});
afterAll(() => h.stop());

/**
 * Every request moves the manual clock by 25 ms: the rate limiter reads the same clock, and a clock that
 * never moves would keep the per-second budget of the key (50) spent for the whole file.
 */
function req(...args: Parameters<Harness['request']>): ReturnType<Harness['request']> {
  h.clock.advance(25);
  return h.request(...args);
}

async function authorizedNfe(body: unknown = nfe()): Promise<Doc> {
  const draft = (await req('POST', `/v1/nfe?companyId=${h.companyId}`, { json: body })).body as Doc;
  const sent = await req('POST', `/v1/nfe/${draft.id}/send?sync=true`);
  expect(sent.body).toMatchObject({ status: 'autorizada' });
  return (await req('GET', `/v1/nfe/${draft.id}`)).body as Doc;
}

async function draftNfe(): Promise<Doc> {
  const res = await req('POST', `/v1/nfe?companyId=${h.companyId}`, { json: nfe() });
  expect(res.status).toBe(201);
  return res.body as Doc;
}

async function lettersUntil(id: string, done: (items: Letter[]) => boolean): Promise<Letter[]> {
  for (let i = 0; i < 50; i++) {
    await h.service.worker.tick();
    const items = ((await req('GET', `/v1/nfe/${id}/correction-letters`)).body as { items: Letter[] }).items;
    if (done(items)) return items;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the letters of ${id} did not settle`);
}

describe('carta de correção (CC-e)', () => {
  it('numbers letters 1, 2 … automatically; the answer carries the CC-e result (135); both spellings', async () => {
    const hook = (
      await req('POST', `/v1/webhooks?companyId=${h.companyId}`, {
        json: { url: 'https://erp.example.com.br/balcao/cce', eventos: ['nfe.cce'] },
      })
    ).body as { id: string };
    const doc = await authorizedNfe();
    const first = await req('POST', `/v1/nfe/${doc.id}/correction-letter`, {
      json: { correcao: 'Endereco de entrega: Rua B, 2, fundos' },
    });
    // Seed §2.9 CC-e result: the reachable authority registered it within the answer's bounded wait.
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      id: expect.any(String),
      sequencia: 1,
      protocolo_cce: expect.stringMatching(/^\d{15}$/),
      cStat: '135',
      xMotivo: 'Evento registrado e vinculado a NF-e',
      registrada_em: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      nfeId: doc.id,
      status: 'registrada',
      correcao: 'Endereco de entrega: Rua B, 2, fundos',
    });
    const second = await req('POST', `/v1/nfe/${doc.id}/correction-letter`, {
      json: { texto_correcao: 'Informacoes complementares: pedido 4711' },
    });
    expect(second.status).toBe(202);
    expect((second.body as Letter).sequencia).toBe(2);

    const letters = await lettersUntil(doc.id, (items) => items.every((l) => l.status !== 'processando'));
    expect(letters.map((l) => [l.sequencia, l.status, l.cStat])).toEqual([
      [1, 'registrada', '135'],
      [2, 'registrada', '135'],
    ]);
    expect(letters[0]?.xMotivo).toBe('Evento registrado e vinculado a NF-e');

    // Each registered letter is announced once as `nfe.cce` (re-reading the letters queues nothing more).
    // Announcing runs after the queue's change callback, off the request path: poll for it.
    let deliveries: { id: string; event: string }[] = [];
    for (let i = 0; i < 50 && deliveries.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
      await lettersUntil(doc.id, () => true);
      deliveries = (
        (await req('GET', `/v1/webhooks/${hook.id}/deliveries?companyId=${h.companyId}`)).body as {
          data: { id: string; event: string }[];
        }
      ).data;
    }
    expect(deliveries.map((d) => d.event)).toEqual(['nfe.cce', 'nfe.cce']);
    const payloads = await Promise.all(
      deliveries.map(async (d) => {
        const detail = await req(
          'GET',
          `/v1/webhooks/${hook.id}/deliveries/${d.id}?companyId=${h.companyId}`,
        );
        return (JSON.parse((detail.body as { payload: string }).payload) as { data: Record<string, unknown> })
          .data;
      }),
    );
    expect(payloads.map((p) => [p.chave, p.nSeqEvento, p.cStat]).sort()).toEqual([
      [doc.chave_acesso, 1, '135'],
      [doc.chave_acesso, 2, '135'],
    ]);
    expect(payloads.every((p) => typeof p.nProt === 'string' && /^\d{15}$/.test(p.nProt))).toBe(true);
    await req('DELETE', `/v1/webhooks/${hook.id}?companyId=${h.companyId}`);
    expect(letters[0]?.registrada_em).not.toBeNull();
    // The event's protocol comes back from the authority with the retEvento, the same in the list.
    expect(letters[0]?.protocolo_cce).toBe((first.body as Letter).protocolo_cce);

    const events = await req('GET', `/v1/nfe/${doc.id}/events`);
    expect(events.status).toBe(200);
    expect((events.body as { items: unknown[] }).items).toMatchObject([
      { tpEvento: '110110', descricao: 'Carta de Correcao', sequencia: 1, status: 'registrada' },
      { tpEvento: '110110', sequencia: 2, status: 'registrada' },
    ]);
  });

  it('an unreachable authority leaves the letter processando (202, nulls); the queue registers it later', async () => {
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('no embedded sandbox');
    const doc = await authorizedNfe();
    await sandbox.faults.setOnline(false);
    let res;
    try {
      res = await req('POST', `/v1/nfe/${doc.id}/correction-letter`, {
        json: { correcao: 'Volumes: 3 caixas, peso bruto 12 kg' },
      });
    } finally {
      await sandbox.faults.setOnline(true);
    }
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      sequencia: 1,
      status: 'processando',
      protocolo_cce: null,
      cStat: null,
      xMotivo: null,
      registrada_em: null,
    });
    // Past the queue's backoff the letter goes out again and is registered.
    h.clock.advance(10 * 60_000);
    const [letter] = await lettersUntil(doc.id, (items) => items[0]?.status === 'registrada');
    expect(letter).toMatchObject({
      id: (res.body as Letter).id,
      cStat: '135',
      protocolo_cce: expect.stringMatching(/^\d{15}$/),
    });
  });

  it('texts of 14 or 1001 characters are 400 naming the field; none or both spellings too', async () => {
    const doc = await authorizedNfe();
    for (const [json, field] of [
      [{ correcao: 'x'.repeat(14) }, 'correcao'],
      [{ correcao: 'x'.repeat(1001) }, 'correcao'],
      [{ texto_correcao: 'curta demais' }, 'texto_correcao'],
      [{}, 'correcao'],
      [
        { correcao: 'Texto valido de correcao', texto_correcao: 'Texto valido de correcao' },
        'texto_correcao',
      ],
    ] as const) {
      const res = await req('POST', `/v1/nfe/${doc.id}/correction-letter`, { json });
      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).details[0]?.field).toBe(field);
    }
    const list = await req('GET', `/v1/nfe/${doc.id}/correction-letters`);
    expect((list.body as { items: unknown[] }).items).toEqual([]);
  });

  it('GET /events also shows the cancellation the queue sent (adopted from the outbox)', async () => {
    const doc = await authorizedNfe();
    const cancel = await req('POST', `/v1/nfe/${doc.id}/cancel`, {
      json: { justificativa: 'Pedido cancelado pelo cliente' },
    });
    expect(cancel.status).toBe(202);
    for (let i = 0; i < 50; i++) {
      await h.service.worker.tick();
      if (((await req('GET', `/v1/nfe/${doc.id}`)).body as Doc).status === 'cancelada') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const events = await req('GET', `/v1/nfe/${doc.id}/events`);
    expect((events.body as { items: unknown[] }).items).toMatchObject([
      {
        tpEvento: '110111',
        descricao: 'Cancelamento',
        sequencia: 1,
        status: 'registrada',
        cStat: '135',
        detalhes: { justificativa: 'Pedido cancelado pelo cliente' },
      },
    ]);
    const letter = await req('POST', `/v1/nfe/${doc.id}/correction-letter`, {
      json: { correcao: 'Correcao de nota cancelada' },
    });
    expect(letter.status).toBe(409);
  });

  it('an NFC-e is 422 with cStat 784; a draft is 409; the 21st letter is 422 with cStat 594', async () => {
    const sale = (await req('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce })).body as Doc;
    expect(sale.status).toBe('autorizada');
    const onNfce = await req('POST', `/v1/nfe/${sale.id}/correction-letter`, {
      json: { correcao: 'Correcao que nao cabe em NFC-e' },
    });
    expect(onNfce.status).toBe(422);
    expect(onNfce.body).toMatchObject({ error: 'fiscal_rejection', cStat: '784' });

    const draft = await draftNfe();
    const onDraft = await req('POST', `/v1/nfe/${draft.id}/correction-letter`, {
      json: { correcao: 'Correcao de um rascunho' },
    });
    expect(onDraft.status).toBe(409);
    expect(onDraft.body).toMatchObject({ error: 'invalid_state' });

    const doc = await authorizedNfe();
    for (let n = 1; n <= 20; n++) {
      const res = await req('POST', `/v1/nfe/${doc.id}/correction-letter`, {
        json: { correcao: `Correcao numero ${n} do documento` },
      });
      expect((res.body as Letter).sequencia).toBe(n);
    }
    const extra = await req('POST', `/v1/nfe/${doc.id}/correction-letter`, {
      json: { correcao: 'Correcao numero 21 do documento' },
    });
    expect(extra.status).toBe(422);
    expect(extra.body).toMatchObject({ error: 'fiscal_rejection', cStat: '594' });
    expect((await req('GET', '/v1/nfe/doc_missing/events')).status).toBe(404);
  });
});

describe('inutilização', () => {
  type Voided = {
    id: string;
    status: string;
    protocolo: string | null;
    success: boolean;
    cStat: string;
    xMotivo: string;
    modelo: number;
    serie: number;
    numeroInicial: number;
    numeroFinal: number;
    documentos: string[];
  };
  const justificativa = 'Falha no sistema pulou a numeracao';

  it('voids a range in spelling A and B (102); a range ahead of the sequence does not move it', async () => {
    const seqBefore = await req('GET', `/v1/companies/${h.companyId}/nfe-sequences`);
    const nextBefore = (
      seqBefore.body as { sequences: { modelo: string; serie: number; proximo_numero: number }[] }
    ).sequences.find((s) => s.modelo === '55' && s.serie === 1)?.proximo_numero;
    expect(nextBefore).toBeLessThan(500);
    const a = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { modelo: 55, serie: 1, numeroInicial: 500, numeroFinal: 502, justificativa },
    });
    expect(a.status).toBe(200);
    // Seed §2.9 number void result, plus the range it voided.
    expect(a.body).toMatchObject({
      status: 'inutilizada',
      success: true,
      cStat: '102',
      xMotivo: 'Inutilização de número homologado',
      modelo: 55,
      serie: 1,
      numeroInicial: 500,
      numeroFinal: 502,
      protocolo: expect.stringMatching(/^\d{15}$/),
    });
    // Spelling B as the seed writes it: modelo an integer, numero_inicial/numero_final.
    const b = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { modelo: 55, serie: 1, numero_inicial: 510, numero_final: 510, justificativa },
    });
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({
      status: 'inutilizada',
      cStat: '102',
      numeroInicial: 510,
      numeroFinal: 510,
    });
    // Spelling A as the seed writes it: modelo the string "55".
    const a2 = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { modelo: '55', serie: 1, numeroInicial: 505, numeroFinal: 505, justificativa },
    });
    expect(a2.status).toBe(200);
    expect(a2.body).toMatchObject({ status: 'inutilizada', cStat: '102', modelo: 55 });

    const seqs = await req('GET', `/v1/companies/${h.companyId}/nfe-sequences`);
    const nfeSeq = (
      seqs.body as { sequences: { modelo: string; serie: number; proximo_numero: number }[] }
    ).sequences.find((s) => s.modelo === '55' && s.serie === 1);
    // The numbers below 500 are still issued; only the voided ones are stepped over when reached.
    expect(nfeSeq?.proximo_numero).toBe(nextBefore);
    expect((await draftNfe()).numero).toBe(nextBefore);
  });

  it('the same range again is idempotent (563); an overlapping one is 422 (256) and gives the numbers back', async () => {
    const again = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { serie: 1, numeroInicial: 500, numeroFinal: 502, justificativa },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'inutilizada', success: true, cStat: '563' });
    const seq = async () =>
      (
        (await req('GET', `/v1/companies/${h.companyId}/nfe-sequences`)).body as {
          sequences: { modelo: string; serie: number; proximo_numero: number }[];
        }
      ).sequences.find((s) => s.modelo === '55' && s.serie === 1)?.proximo_numero;
    const before = await seq();
    const overlap = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { serie: 1, numeroInicial: before ?? 0, numeroFinal: (before ?? 0) + 5, justificativa },
    });
    expect(overlap.status).toBe(200);
    const refused = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { serie: 1, numeroInicial: (before ?? 0) + 5, numeroFinal: (before ?? 0) + 9, justificativa },
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'fiscal_rejection', cStat: '256' });
    expect(await seq()).toBe((before ?? 0) + 6);
  });

  type Pending = ErrorBody & { message: string; pending?: { id: string; status: string; url: string } };

  /** Follows a kept inutilização until the queue settles it (the background queue may hold it in flight). */
  async function settledVoid(url: string) {
    let settled = await req('GET', url);
    for (let i = 0; i < 50 && (settled.body as Voided).status === 'processando'; i++) {
      await h.service.worker.tick();
      await new Promise((r) => setTimeout(r, 50));
      settled = await req('GET', url);
    }
    return settled;
  }

  it('a paused authority (108) is 502 with the request kept; GET /v1/nfe/inutilizar/:id follows it to 102', async () => {
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('no embedded sandbox');
    sandbox.faults.pause(108, { services: ['NFeInutilizacao4'], times: 1 });
    const res = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { serie: 1, numeroInicial: 900, numeroFinal: 900, justificativa },
    });
    expect(res.status).toBe(502);
    const body = res.body as Pending;
    expect(body).toMatchObject({
      error: 'authority_unavailable',
      details: [],
      pending: { id: expect.any(String), status: 'processando' },
    });
    const pending = body.pending as { id: string; url: string };
    expect(pending.url).toBe(`/v1/nfe/inutilizar/${pending.id}`);
    expect(body.message).toContain(`${pending.id} is kept and will be retried`);
    const before = await req('GET', pending.url);
    expect(before.body).toMatchObject({ id: pending.id, status: 'processando', protocolo: null });

    h.clock.advance(60_000);
    const settled = await settledVoid(pending.url);
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: 'inutilizada', success: true, cStat: '102' });
    expect((settled.body as Voided).protocolo).toMatch(/^\d{15}$/);
    expect((await req('GET', '/v1/nfe/inutilizar/inu_missing')).status).toBe(404);
  });

  it('an unreachable authority is 502; the kept request is homologated once the authority is back', async () => {
    const sandbox = h.service.sandbox;
    if (sandbox === null) throw new Error('no embedded sandbox');
    const draft = await draftNfe();
    await sandbox.faults.setOnline(false);
    let res;
    try {
      res = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
        json: {
          modelo: 55,
          serie: 1,
          numero_inicial: draft.numero,
          numero_final: draft.numero,
          justificativa,
        },
      });
      expect(res.status).toBe(502);
      const pending = (res.body as Pending).pending as { id: string; url: string };
      // While the authority stays away the queue keeps the request (and the draft keeps its number).
      h.clock.advance(10 * 60_000);
      await h.service.worker.tick();
      expect((await req('GET', pending.url)).body).toMatchObject({ status: 'processando' });
      expect(((await req('GET', `/v1/nfe/${draft.id}`)).body as Doc).status).toBe('rascunho');
    } finally {
      await sandbox.faults.setOnline(true);
    }
    const pending = (res.body as Pending).pending as { id: string; url: string };
    h.clock.advance(60 * 60_000);
    const settled = await settledVoid(pending.url);
    expect(settled.body).toMatchObject({
      id: pending.id,
      status: 'inutilizada',
      cStat: '102',
      documentos: [draft.id],
    });
    expect(((await req('GET', `/v1/nfe/${draft.id}`)).body as Doc).status).toBe('inutilizada');
  });

  it('refuses a range holding an authorized number (409 naming the field) and bad fields (400)', async () => {
    const doc = await authorizedNfe();
    const atStart = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { modelo: 55, serie: 1, numeroInicial: doc.numero, numeroFinal: doc.numero + 1, justificativa },
    });
    expect(atStart.status).toBe(409);
    expect((atStart.body as ErrorBody).details[0]).toMatchObject({ field: 'numeroInicial' });
    expect((atStart.body as ErrorBody).details[0]?.error).toContain("'autorizada'");
    const inside = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { modelo: 55, serie: 1, numero_inicial: doc.numero - 1, numero_final: doc.numero, justificativa },
    });
    expect(inside.status).toBe(409);
    expect((inside.body as ErrorBody).details.map((d) => d.field)).toContain('numero_final');

    const bad = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { modelo: 57, serie: 1, numero_inicial: 9, numero_final: 8, justificativa: 'curta' },
    });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).details.map((d) => d.field).sort()).toEqual(['justificativa', 'modelo']);
    const reversed = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { serie: 1, numero_inicial: 9, numero_final: 8, justificativa },
    });
    expect(reversed.status).toBe(400);
    expect((reversed.body as ErrorBody).details[0]?.field).toBe('numero_final');
  });

  it('voids the numbers of drafts that were never sent: the drafts become inutilizada', async () => {
    const d1 = await draftNfe();
    const d2 = await draftNfe();
    expect(d2.numero).toBe(d1.numero + 1);
    const res = await req('POST', `/v1/nfe/inutilizar?companyId=${h.companyId}`, {
      json: { serie: 1, numeroInicial: d1.numero, numeroFinal: d2.numero, justificativa },
    });
    expect(res.status).toBe(200);
    expect((res.body as Voided).documentos.sort()).toEqual([d1.id, d2.id].sort());
    for (const d of [d1, d2]) {
      expect(((await req('GET', `/v1/nfe/${d.id}`)).body as Doc).status).toBe('inutilizada');
    }
    const send = await req('POST', `/v1/nfe/${d1.id}/send`);
    expect(send.status).toBe(409);
  });
});

describe('devolução', () => {
  it('drafts an entrada (tpNF 0, finNFe 4) referencing the sale, with the devolução CFOPs; it is authorized', async () => {
    const sale = await authorizedNfe(nfe([item('A1', '5102'), item('B2', '5405', 1, '10.00')], '17.00'));
    const res = await req('POST', `/v1/nfe/${sale.id}/devolucao`);
    expect(res.status).toBe(201);
    const dev = res.body as Doc;
    expect(dev.status).toBe('rascunho');
    expect(dev.itens.map((i) => [i.cfop, i.quantidade])).toEqual([
      ['1202', '2.00'],
      ['1411', '1.00'],
    ]);
    expect(dev.totais['vNF']).toBe('17.00');
    const xml = (await req('GET', `/v1/nfe/${dev.id}/xml`)).text;
    expect(xml).toContain('<tpNF>0</tpNF>');
    expect(xml).toContain('<finNFe>4</finNFe>');
    expect(xml).toContain(`<NFref><refNFe>${sale.chave_acesso}</refNFe></NFref>`);
    expect(xml).toContain('<tPag>90</tPag>');
    expect(xml).toContain('<CNPJ>11222333000181</CNPJ>');

    const sent = await req('POST', `/v1/nfe/${dev.id}/send?sync=true`);
    expect(sent.body).toMatchObject({ status: 'autorizada' });
  });

  it('returns part of the items; quantities above the sale are 400; a draft original is 409', async () => {
    const sale = await authorizedNfe(
      // The recipient is in the emitter's state: both items are intrastate (6102 would be rule 732).
      nfe([item('A1', '5102', 4, '2.50'), item('B2', '5102', 1, '10.00')], '20.00'),
    );
    const res = await req('POST', `/v1/nfe/${sale.id}/devolucao`, {
      json: { itens: [{ nItem: 1, quantidade: 1 }] },
    });
    expect(res.status).toBe(201);
    const dev = res.body as Doc;
    expect(dev.itens).toMatchObject([{ cfop: '1202', quantidade: '1.00', valor_total: '2.50' }]);
    expect(dev.totais['vNF']).toBe('2.50');

    const over = await req('POST', `/v1/nfe/${sale.id}/devolucao`, {
      json: {
        itens: [
          { n_item: 2, quantidade: '1.5' },
          { nItem: 7, quantidade: 1 },
        ],
      },
    });
    expect(over.status).toBe(400);
    expect((over.body as ErrorBody).details.map((d) => d.field)).toEqual([
      'itens[0].quantidade',
      'itens[1].nItem',
    ]);
    const draft = await draftNfe();
    expect((await req('POST', `/v1/nfe/${draft.id}/devolucao`)).status).toBe(409);
  });

  it('an NFC-e sold to an unidentified consumer cannot become an NF-e de devolução as it is: 422', async () => {
    const sale = (await req('POST', `/v1/nfce/venda?companyId=${h.companyId}`, { json: nfce })).body as Doc;
    const res = await req('POST', `/v1/nfe/${sale.id}/devolucao`);
    expect(res.status).toBe(422);
    expect((res.body as ErrorBody).details.map((d) => d.field)).toContain('customer');
  });

  it('a CFOP without a devolução pair is 422 listing the items', async () => {
    const sale = await authorizedNfe(nfe([item('A1', '5102'), item('G1', '5910', 1, '5.00')], '12.00'));
    const res = await req('POST', `/v1/nfe/${sale.id}/devolucao`);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ error: 'fiscal_rejection' });
    expect((res.body as ErrorBody).details).toEqual([
      { field: 'itens[1].cfop', error: expect.stringContaining('CFOP 5910') as unknown as string },
    ]);
  });
});

describe('abandoned numbers', () => {
  type Listing = {
    total: number;
    items: { id: string; numero: number; status: string }[];
    offer: {
      url: string;
      ranges: { modelo: number; serie: number; numeroInicial: number; numeroFinal: number }[];
    } | null;
  };

  it("reads the company's drafts and refused notes by index, never its every document", async () => {
    // The plan asked is SQLite's (EXPLAIN QUERY PLAN).
    if (!(h.service.db.getExecutor().adapter instanceof SqliteAdapter)) return;
    const plans = await plansOf(h.service.db, (db) => abandonedNumbers(db, h.companyId, new Date()));
    const documents = plans.find((plan) => plan.includes(' documents '));
    expect(documents).toMatch(
      /^SEARCH documents USING INDEX documents_list_modelo_status \(company_id=\? AND modelo=\? AND status=\?\)/,
    );
    expect(documents).not.toContain('TEMP B-TREE');
  });

  it('lists drafts untouched for 24 h with an offer, and voids them', async () => {
    const d1 = await draftNfe();
    const d2 = await draftNfe();
    const fresh0 = await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers`);
    expect((fresh0.body as Listing).items.map((i) => i.id)).not.toContain(d1.id);

    h.clock.advance(25 * 3600_000);
    const recent = await draftNfe();
    const listed = await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers?older_than_hours=24`);
    expect(listed.status).toBe(200);
    const body = listed.body as Listing;
    const ids = body.items.map((i) => i.id);
    expect(ids).toEqual(expect.arrayContaining([d1.id, d2.id]));
    expect(ids).not.toContain(recent.id);
    expect(body.offer?.url).toBe(`/v1/companies/${h.companyId}/abandoned-numbers/void`);
    expect(body.offer?.ranges).toContainEqual(
      expect.objectContaining({ modelo: 55, serie: 1, numeroFinal: d2.numero }),
    );
    expect(
      (await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers?older_than_hours=x`)).status,
    ).toBe(400);

    // The daily check finds the same numbers and its result shows beside the on-demand listing.
    const reports = await h.service.abandonedCheck.runOnce();
    const mine = reports.find((r) => r.companyId === h.companyId);
    expect(mine?.total).toBe(body.total);
    expect(mine?.ranges).toEqual(body.offer?.ranges);
    expect(h.logs.some((line) => line.includes('reserved numbers never issued'))).toBe(true);
    const withDaily = await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers`);
    expect(withDaily.body).toMatchObject({
      verificacao_diaria: { verificada_em: mine?.checkedAt, older_than_hours: 24, total: body.total },
    });

    const voided = await req('POST', `/v1/companies/${h.companyId}/abandoned-numbers/void`, {
      json: { older_than_hours: 24 },
    });
    expect(voided.status).toBe(200);
    const result = voided.body as { voided: number; results: { success: boolean; numeroFinal: number }[] };
    expect(result.results.every((r) => r.success)).toBe(true);
    expect(result.voided).toBe(body.total);
    for (const d of [d1, d2]) {
      expect(((await req('GET', `/v1/nfe/${d.id}`)).body as Doc).status).toBe('inutilizada');
    }
    expect(((await req('GET', `/v1/nfe/${recent.id}`)).body as Doc).status).toBe('rascunho');
    const after = await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers`);
    expect((after.body as Listing).total).toBe(0);
    expect((after.body as Listing).offer).toBeNull();
  });
});
