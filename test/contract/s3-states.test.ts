// Conformance, specification §3 (states and transitions): each row of the NF-e table driven through the
// API as written, and the status values the specification names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedNfce,
  authorizedNfe,
  createNfe,
  expectErrorBody,
  expectFields,
  itemA,
  nfeA,
  sendAndSettle,
  startContract,
  tagOf,
  waitFor,
  xmlOf,
  type Contract,
  type Doc,
} from './harness.ts';
import { createCteCustomer, ctePayload } from '../api/cte-helpers.ts';
import { issueNfse, settledNfse } from './nfse.ts';

let c: Contract;
beforeAll(async () => {
  c = await startContract();
});
afterAll(() => c.stop());

/** The next note is refused by the sandbox authority with `cStat` (a switch beyond the specification). */
async function rejectNext(cStat: number): Promise<void> {
  const res = await c.call('POST', '/v1/sandbox/faults', { key: c.orgKey, json: { reject: cStat } });
  expect(res.status, res.text).toBe(200);
}

async function rejectedNfe(cStat: number): Promise<Doc> {
  await rejectNext(cStat);
  const draft = await createNfe(c);
  return sendAndSettle(c, 'nfe', draft.id);
}

describe('§3 NF-e states and transitions', () => {
  it('§3 (none) → rascunho — POST /v1/nfe with a valid payload: number reserved, taxes computed', async () => {
    const first = await createNfe(c);
    const second = await createNfe(c);
    expect(first.status).toBe('rascunho');
    expectFields(first, { numero: 'integer', total_nota: 'number', icms_total: 'number' });
    expect(second.numero).toBe(first.numero + 1);
    expect(first['total_nota']).toBe(21);
  });

  it('§3 rascunho → processando — POST /v1/nfe/:id/send: queued, signed and sent; answered 202', async () => {
    const draft = await createNfe(c);
    const sent = await c.call('POST', '/v1/nfe/:id/send', { params: { id: draft.id } });
    expect(sent.status, sent.text).toBe(202);
    expect((sent.body as Doc).status).toBe('processando');
    await waitFor(c, '/v1/nfe/:id', draft.id, (d) => d.status !== 'processando');
  });

  it('§3 processando → autorizada — access key and protocol stored; XML and DANFE available', async () => {
    const doc = await authorizedNfe(c);
    expect(doc.chave_acesso).toMatch(/^\d{44}$/);
    expect(typeof doc.protocolo).toBe('string');
    expect(await xmlOf(c, 'nfe', doc.id)).toContain('<protNFe');
    const danfe = await c.call('GET', '/v1/nfe/:id/danfe', { params: { id: doc.id } });
    expect(danfe.status).toBe(200);
    expect(danfe.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('§3 processando → erro — the authority rejects; its error message is stored', async () => {
    const doc = await rejectedNfe(225);
    expect(doc.status).toBe('erro');
    expect(JSON.stringify(doc)).toContain('225');
    expect(JSON.stringify(doc)).toMatch(/Rejei/);
  });

  it('§3 erro or rascunho → same state — PUT /v1/nfe/:id replaces the data, keeps the number; send again', async () => {
    const draft = await createNfe(c);
    const putDraft = await c.call('PUT', '/v1/nfe/:id', {
      params: { id: draft.id },
      json: nfeA({ naturezaOperacao: 'Venda de mercadoria adquirida' }),
    });
    expect(putDraft.status, putDraft.text).toBe(200);
    const afterDraft = await c.call('GET', '/v1/nfe/:id', { params: { id: draft.id } });
    expect(afterDraft.body).toMatchObject({ status: 'rascunho', numero: draft.numero });

    const rejected = await rejectedNfe(225);
    expect(rejected.status).toBe('erro');
    const putError = await c.call('PUT', '/v1/nfe/:id', {
      params: { id: rejected.id },
      json: nfeA({ itens: [itemA({ quantidade: 3 })], pagamentos: [{ forma: '17', valor: 31.5 }] }),
    });
    expect(putError.status, putError.text).toBe(200);
    const afterError = await c.call('GET', '/v1/nfe/:id', { params: { id: rejected.id } });
    expect(afterError.body).toMatchObject({ status: 'erro', numero: rejected.numero, total_nota: 31.5 });
    const resent = await sendAndSettle(c, 'nfe', rejected.id);
    expect(resent).toMatchObject({ status: 'autorizada', numero: rejected.numero });
  });

  it('§3 autorizada → processando — POST /v1/nfe/:id/cancel within the deadline: event queued; answered 202', async () => {
    const doc = await authorizedNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/cancel', {
      params: { id: doc.id },
      json: { justificativa: 'Cliente desistiu da compra' },
    });
    expect(res.status, res.text).toBe(202);
    expect((res.body as Doc).status).toBe('processando');
    const cancelled = await waitFor(c, '/v1/nfe/:id', doc.id, (d) => d.status === 'cancelada');
    expect(cancelled.status).toBe('cancelada');
  });

  it('§3 autorizada → (new note in rascunho) — POST /v1/nfe/:id/devolucao: tipo 0, finalidade 4, reference key', async () => {
    const original = await authorizedNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/devolucao', { params: { id: original.id } });
    expect(res.status, res.text).toBe(201);
    const draft = res.body as Doc;
    expect(draft.status).toBe('rascunho');
    expect(draft.id).not.toBe(original.id);
    const sent = await sendAndSettle(c, 'nfe', draft.id);
    expect(sent.status, JSON.stringify(sent)).toBe('autorizada');
    const xml = await xmlOf(c, 'nfe', draft.id);
    expect(tagOf(xml, 'tpNF')).toBe('0');
    expect(tagOf(xml, 'finNFe')).toBe('4');
    expect(tagOf(xml, 'refNFe')).toBe(original.chave_acesso);
    const still = await c.call('GET', '/v1/nfe/:id', { params: { id: original.id } });
    expect((still.body as Doc).status).toBe('autorizada');
  });

  it('§3 autorizada → autorizada — POST /v1/nfe/:id/correction-letter: event recorded (cStat 135); answered 202', async () => {
    const doc = await authorizedNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/correction-letter', {
      params: { id: doc.id },
      json: { correcao: 'Corrige o numero do pedido informado nas observacoes' },
    });
    expect(res.status, res.text).toBe(202);
    expect(Number((res.body as { cStat: unknown }).cStat)).toBe(135);
    const after = await c.call('GET', '/v1/nfe/:id', { params: { id: doc.id } });
    expect((after.body as Doc).status).toBe('autorizada');
  });
});

describe('§3 status values', () => {
  it('§3 NF-e status values — rascunho, processando, autorizada, erro, cancelada (list filter)', async () => {
    for (const status of ['rascunho', 'processando', 'autorizada', 'erro', 'cancelada']) {
      const res = await c.call('GET', '/v1/nfe', { query: { status } });
      expect(res.status, `${status}: ${res.text}`).toBe(200);
      for (const item of (res.body as { items: Doc[] }).items) expect(item.status).toBe(status);
    }
  });

  it('§3 the list filter also accepts rejeitada — the rejected notes', async () => {
    const rejected = await rejectedNfe(225);
    const res = await c.call('GET', '/v1/nfe', { query: { status: 'rejeitada', pageSize: 100 } });
    expect(res.status, res.text).toBe(200);
    const items = (res.body as { items: Doc[] }).items;
    expect(items.map((i) => i.id)).toContain(rejected.id);
    for (const item of items) expect(item.status).toBe('erro');
  });

  it('§3 NFC-e status values in filters — autorizada, cancelada, erro', async () => {
    const sold = await authorizedNfce(c);
    for (const status of ['autorizada', 'cancelada', 'erro']) {
      const res = await c.call('GET', '/v1/nfe', { query: { modelo: 65, status } });
      expect(res.status, `${status}: ${res.text}`).toBe(200);
      const items = (res.body as { items: Doc[] }).items;
      for (const item of items) expect(item.status).toBe(status);
      if (status === 'autorizada') expect(items.map((i) => i.id)).toContain(sold.id);
    }
  });

  it('§3 CT-e states — autorizada shown; a draft or a pre-transmission error can be deleted', async () => {
    const customerId = await createCteCustomer(c.h, c.companyId);
    const create = async () => {
      const res = await c.call('POST', '/v1/cte', { json: ctePayload(customerId) });
      expect(res.status, res.text).toBe(201);
      return res.body as Doc;
    };
    const draft = await create();
    expect(draft.status).toBe('rascunho');
    expect((await c.call('DELETE', '/v1/cte/:id', { params: { id: draft.id } })).status).toBe(204);
    const sent = await create();
    await c.call('POST', '/v1/cte/:id/send', { params: { id: sent.id } });
    const doc = await waitFor(c, '/v1/cte/:id', sent.id, (d) => d.status !== 'processando');
    expect(doc.status).toBe('autorizada');
    const listed = await c.call('GET', '/v1/cte', { query: { status: 'autorizada', limit: 100 } });
    expect((listed.body as { data: Doc[] }).data.map((d) => d.id)).toContain(doc.id);
    expectErrorBody(await c.call('DELETE', '/v1/cte/:id', { params: { id: doc.id } }), 409);
  });
  it('§3 NFS-e states — authorized and rascunho shown; substitution creates a rascunho', async () => {
    const doc = await issueNfse(c);
    expect(doc.status).toBe('authorized');
    const listed = await c.call('GET', '/v1/nfse', { query: { status: 'authorized', limit: 100 } });
    expect(listed.status, listed.text).toBe(200);
    const data = (listed.body as { data: Doc[] }).data;
    expect(data.map((d) => d.id)).toContain(doc.id);
    for (const item of data) expect(item.status).toBe('authorized');
    const substitute = await c.call('POST', '/v1/nfse/:id/substituir', {
      params: { id: doc.id },
      json: { descricao: 'Desenvolvimento de sistema de estoque e vendas' },
    });
    expect(substitute.status, substitute.text).toBe(201);
    const draft = substitute.body as Doc;
    expect(draft).toMatchObject({ status: 'rascunho', substitui_nfse_id: doc.id });
    const drafts = await c.call('GET', '/v1/nfse', { query: { status: 'rascunho', limit: 100 } });
    expect((drafts.body as { data: Doc[] }).data.map((d) => d.id)).toContain(draft.id);
    // Sending the draft authorizes the substitute and the replaced note leaves `authorized`.
    const sent = await c.call('POST', '/v1/nfse/:id/send', { params: { id: draft.id } });
    expect([200, 202], sent.text).toContain(sent.status);
    expect((await settledNfse(c, draft.id)).status).toBe('authorized');
    const old = await waitFor(c, '/v1/nfse/:id', doc.id, (d) => d.status !== 'authorized');
    expect(old).toMatchObject({ status: 'substituida', substituida_por_nfse_id: draft.id });
  });
});
