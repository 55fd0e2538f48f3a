// The DC-e kind on the shared lifecycle, through its service, against the real service: real SQLite in a temp
// dir, real signing, the real queue and the embedded sandbox authority over mutual TLS. A draft numbered, keyed,
// signed and schema-valid; every fault of a body at once in the caller's spelling with no number consumed; the
// company's DC-e settings as defaults; change, deletion, send and authorization (dceProc), a lost answer found
// again by consulting (one authorization only), a rejection kept in `erro` and sent again under its number,
// the cancellation 110111 with its deadline, and the dce.* webhooks.
import { strFromU8, unzipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../../errors.ts';
import { validateXml } from '../../../fiscal/schema.ts';
import { webhookId } from '../../../webhooks/repository.ts';
import { DCE_CANCEL_DEADLINE_HOURS, DCE_CODES } from '../../../../src-shared/tables/dce-codes.ts';
import { useHarness } from '../../../../test/api/harness.ts';
import { DCE_BODY_TOTAL, dceBody, dceBodyB } from '../../../../test/fixtures/dce-body.ts';
import { rejectionOf } from '../../../../test/fixtures/rejection.ts';
import { deliveryOf } from '../../../../test/fixtures/webhook-deliveries.ts';
import { xmllint, xmlsecVerifies } from '../../../../test/fixtures/xml-tools.ts';
import type { LifecycleDeps } from '../../lifecycle.ts';
import { documentsRepository, type DocumentRow } from '../../repository.ts';
import { dceKind } from './kind.ts';
import {
  cancelDce,
  createDceDraft,
  dceViewOf,
  deleteDce,
  issueDce,
  listDce,
  sendDce,
  updateDce,
} from './service.ts';
import { saveDceSettings } from './settings.ts';

const h = useHarness();
const WAIT = 10_000;
const DCE_ID = 'http://www.portalfiscal.inf.br/dce:infDCe';

const deps = (): LifecycleDeps => ({
  db: h.service.db,
  clock: h.clock,
  secrets: h.service.secrets,
  worker: h.service.worker,
});

const sandbox = () => {
  if (h.service.sandbox === null) throw new Error('the harness runs the embedded sandbox');
  return h.service.sandbox;
};

afterEach(async () => {
  sandbox().faults.clear();
  await saveDceSettings(h.service.db, h.companyId, {});
});

const reload = (doc: Pick<DocumentRow, 'id'>) => documentsRepository.getById(h.service.db, doc.id);

/** The number the next DC-e of series `serie` would take (1 before the first). */
async function nextNumber(serie = 1): Promise<number> {
  const row = await h.service.db
    .selectFrom('number_sequences')
    .select('next_number')
    .where('company_id', '=', h.companyId)
    .where('modelo', '=', dceKind.modelo)
    .where('serie', '=', serie)
    .executeTakeFirst();
  return row?.next_number ?? 1;
}

/** Runs the queue (moving the clock past its backoff) until `until` holds: by default, out of `processando`. */
async function settle(
  doc: Pick<DocumentRow, 'id'>,
  until = (row: DocumentRow) => row.status !== 'processando',
): Promise<DocumentRow> {
  for (let i = 0; i < 60; i++) {
    h.clock.advance(3_000);
    await h.service.worker.tick();
    const row = await reload(doc);
    if (until(row)) return row;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`DC-e ${doc.id} did not settle`);
}

/** The files of the month's XML export (GET /v1/companies/:id/xml-export), by name. */
async function monthExport(mes: string): Promise<Map<string, string>> {
  const res = await fetch(`${h.service.url}/v1/companies/${h.companyId}/xml-export?mes=${mes}`, {
    headers: { 'X-API-Key': h.apiKey },
  });
  expect(res.status).toBe(200);
  const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
  return new Map(Object.entries(entries).map(([name, bytes]) => [name, strFromU8(bytes)]));
}

let subscribed = false;
async function subscribe(): Promise<void> {
  if (subscribed) return;
  subscribed = true;
  const now = h.clock.now().toISOString();
  await h.service.db
    .insertInto('webhooks')
    .values({
      id: webhookId(),
      company_id: h.companyId,
      url: 'https://hooks.example.com/dce',
      events_json: JSON.stringify(['dce.*']),
      ativo: 1,
      descricao: null,
      permitir_rede_local: 0,
      secret_enc: h.service.secrets.seal('whsec_test'),
      secret_rotated_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

describe('DC-e drafts', () => {
  it('reserves the number, writes the key and stores the signed, schema-valid DCe', async () => {
    const before = await nextNumber();
    const doc = await createDceDraft(deps(), h.companyId, dceBody());
    expect(doc).toMatchObject({ status: 'rascunho', modelo: 99, serie: 1, n_nf: before, tp_emis: 1 });
    expect(doc.v_nf).toBe(DCE_BODY_TOTAL);
    expect(await nextNumber()).toBe(before + 1);
    // cUF AAMM CNPJ mod serie nDC tpEmis tpEmit nSiteAutoriz cDC cDV
    expect(doc.chave).toMatch(/^\d{44}$/);
    expect(doc.chave.slice(20, 22)).toBe('99');
    expect(doc.chave.slice(22, 25)).toBe('001');
    expect(Number(doc.chave.slice(25, 34))).toBe(before);
    expect(doc.chave.slice(34, 37)).toBe('110');
    expect(doc.xml).toContain(`Id="DCe${doc.chave}"`);
    expect(xmllint(doc.xml, 'dce')).toBe('valid');
    expect(xmlsecVerifies(doc.xml, DCE_ID)).toBe(true);
    expect(doc.qr_code).toBe(`${doc.qr_code?.split('?')[0]}?chDCe=${doc.chave}&tpAmb=2`);

    const view = await dceViewOf(h.service.db, doc);
    expect(view).toMatchObject({
      id: doc.id,
      status: 'rascunho',
      modelo: 99,
      numero: before,
      chave_acesso: doc.chave,
      tipo_emitente: 'marketplace',
      emitente: { doc: '52998224725', nome: 'Maria Vendedora' },
      destinatario: { doc: '11222333000181', nome: 'Loja Destino Ltda', municipio: 'Curitiba', uf: 'PR' },
      itens_count: 2,
      valor_total: DCE_BODY_TOTAL,
      modalidade_transporte: 'correios',
      protocolo: null,
      dace_url: `/v1/dce/${doc.id}/dace`,
      dace_etiqueta_url: `/v1/dce/${doc.id}/dace?formato=etiqueta`,
      xml_url: `/v1/dce/${doc.id}/xml`,
    });
  });

  it('shows the DC-e series among the company’s fiscal sequences as model 99', async () => {
    const doc = await createDceDraft(deps(), h.companyId, dceBody());
    const res = await h.request('GET', `/v1/companies/${h.companyId}/nfe-sequences`);
    expect(res.status).toBe(200);
    const rows = (res.body as { sequences: { modelo: string; serie: number; last_numero: number }[] })
      .sequences;
    expect(rows).toContainEqual(
      expect.objectContaining({ modelo: '99', serie: doc.serie, last_numero: doc.n_nf }),
    );
  });

  it('takes spelling B as written, into the same DC-e', async () => {
    const a = await createDceDraft(deps(), h.companyId, dceBody());
    const b = await createDceDraft(deps(), h.companyId, dceBodyB());
    expect(b.v_nf).toBe(DCE_BODY_TOTAL);
    const [viewA, viewB] = [await dceViewOf(h.service.db, a), await dceViewOf(h.service.db, b)];
    const same = (v: typeof viewA) => ({
      tipo_emitente: v.tipo_emitente,
      emitente: v.emitente,
      destinatario: v.destinatario,
      itens_count: v.itens_count,
      valor_total: v.valor_total,
      modalidade_transporte: v.modalidade_transporte,
    });
    expect(same(viewB)).toEqual(same(viewA));
  });

  it('reports every fault of a body at once, in the caller’s spelling, and consumes no number', async () => {
    const before = await nextNumber();
    const body = dceBodyB({
      tipo_emitente: 1,
      site: undefined,
      itens: [{ descricao: '', quantidade: 0, valor_unitario: 1 }],
      transporte: { modalidade: 2 },
    });
    const error = await rejectionOf(createDceDraft(deps(), h.companyId, body), DomainError);
    expect(error.code).toBe('validation_error');
    const fields = error.details.map((d) => d.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'site',
        'itens[0].descricao',
        'itens[0].quantidade',
        'transporte.cnpj_transportadora',
      ]),
    );
    expect(await nextNumber()).toBe(before);
  });

  it('takes the issuer type, site and series of the company’s DC-e settings when the body names none', async () => {
    await saveDceSettings(h.service.db, h.companyId, {
      tipo_emitente: 'proprio',
      serie: 7,
    });
    const body = dceBody({ tipoEmitente: undefined, site: undefined, emitente: undefined });
    const doc = await createDceDraft(deps(), h.companyId, body);
    expect(doc.serie).toBe(7);
    expect(doc.chave.slice(22, 25)).toBe('007');
    // tpEmit 2: the company itself is the declarant (emit), with no issuer group.
    expect(doc.chave.slice(35, 36)).toBe('2');
    const company = await h.service.db
      .selectFrom('companies')
      .select('cnpj')
      .where('id', '=', h.companyId)
      .executeTakeFirstOrThrow();
    const view = await dceViewOf(h.service.db, doc);
    expect(view.tipo_emitente).toBe('proprio');
    expect(view.emitente.doc).toBe(company.cnpj);
    expect(doc.xml).not.toContain('<Marketplace>');

    await saveDceSettings(h.service.db, h.companyId, {
      tipo_emitente: 'marketplace',
      site: 'minhaloja.example',
    });
    const withSite = await createDceDraft(deps(), h.companyId, dceBody({ site: undefined }));
    expect(withSite.xml).toContain('<Site>minhaloja.example</Site>');

    // The draft keeps what the settings gave it: re-signed when sent later (stale), it is the same declaration.
    h.clock.advance(10 * 60_000);
    const sent = await settle(await sendDce(deps(), doc.id));
    expect(sent).toMatchObject({ status: 'autorizada', serie: 7, n_nf: doc.n_nf });
    expect(sent.dh_emi).not.toBe(doc.dh_emi);
    expect(sent.chave.slice(35, 36)).toBe('2');
    expect((await dceViewOf(h.service.db, sent)).tipo_emitente).toBe('proprio');
  });

  it('changes a draft under its own number and key prefix, deletes it, and refuses another kind’s id', async () => {
    const doc = await createDceDraft(deps(), h.companyId, dceBody());
    const changed = await updateDce(
      deps(),
      doc.id,
      dceBody({ itens: [{ descricao: 'Tênis usado', quantidade: '3', valorUnitario: '19.99' }] }),
    );
    expect(changed).toMatchObject({ id: doc.id, status: 'rascunho', n_nf: doc.n_nf, serie: doc.serie });
    expect(changed.v_nf).toBe('59.97');
    expect(changed.chave.slice(0, 35)).toBe(doc.chave.slice(0, 35));
    expect(validateXml(changed.xml, 'dce').valid).toBe(true);

    await deleteDce(deps(), doc.id);
    expect(await documentsRepository.findById(h.service.db, doc.id)).toBeUndefined();
    const missing = await rejectionOf(updateDce(deps(), doc.id, dceBody()), DomainError);
    expect(missing.code).toBe('not_found');
  });

  it('lists with the status, period and search filters', async () => {
    const a = await createDceDraft(
      deps(),
      h.companyId,
      dceBody({ destinatario: { ...(dceBody()['destinatario'] as object), nome: 'Zebra Comércio' } }),
    );
    const byName = await listDce(h.service.db, h.companyId, { q: 'zebra' }, { limit: 50, offset: 0 });
    expect(byName.items.map((v) => v.id)).toEqual([a.id]);
    const byKey = await listDce(
      h.service.db,
      h.companyId,
      { q: a.chave.slice(20, 40) },
      { limit: 50, offset: 0 },
    );
    expect(byKey.items.map((v) => v.id)).toEqual([a.id]);
    const byNumber = await listDce(
      h.service.db,
      h.companyId,
      { q: String(a.n_nf), status: 'rascunho' },
      { limit: 50, offset: 0 },
    );
    expect(byNumber.items.map((v) => v.id)).toContain(a.id);
    const b = await createDceDraft(
      deps(),
      h.companyId,
      dceBodyB({ destinatario: { ...(dceBodyB()['destinatario'] as object), razao_social: 'Zebra Filial' } }),
    );
    const both = await listDce(h.service.db, h.companyId, { q: 'Zebra' }, { limit: 50, offset: 0 });
    expect(both.items.map((v) => v.id).sort()).toEqual([a.id, b.id].sort());
    expect(both.total).toBe(2);
    const none = await listDce(
      h.service.db,
      h.companyId,
      { q: 'zebra', status: 'autorizada' },
      { limit: 50, offset: 0 },
    );
    expect(none).toEqual({ items: [], total: 0 });
  });
});

describe('DC-e at the authority', () => {
  it('sends a draft, is authorized with its dceProc, and announces dce.autorizada', async () => {
    await subscribe();
    const draft = await createDceDraft(deps(), h.companyId, dceBody());
    const queued = await sendDce(deps(), draft.id);
    expect(queued.status).toBe('processando');
    const doc = await settle(draft);
    expect(doc).toMatchObject({ status: 'autorizada', c_stat: DCE_CODES.authorized.code, n_nf: draft.n_nf });
    expect(doc.n_prot).toMatch(/^\d{16}$/);
    expect(doc.proc_xml).not.toBeNull();
    expect(xmllint(doc.proc_xml ?? '', 'dceProc')).toBe('valid');
    expect(doc.proc_xml).toContain(doc.xml);
    const view = await dceViewOf(h.service.db, doc);
    expect(view).toMatchObject({ status: 'autorizada', protocolo: doc.n_prot, cStat: '100' });
    const data = await deliveryOf(h.service.db, 'dce.autorizada', doc.id);
    expect(data).toMatchObject({ id: doc.id, status: 'autorizada', chave_acesso: doc.chave });
    // A sent DC-e is no draft any more.
    expect((await rejectionOf(updateDce(deps(), doc.id, dceBody()), DomainError)).code).toBe('invalid_state');
    expect((await rejectionOf(deleteDce(deps(), doc.id), DomainError)).code).toBe('invalid_state');
    expect((await rejectionOf(sendDce(deps(), doc.id), DomainError)).code).toBe('invalid_state');
  });

  it('finds a DC-e whose answer was lost by consulting it, authorized once', async () => {
    sandbox().faults.loseResponse({ services: ['DCeAutorizacao'], times: 1 });
    const doc = await issueDce(deps(), h.companyId, dceBody());
    expect(doc.status).toBe('processando');
    const settled = await settle(doc);
    expect(settled.status).toBe('autorizada');
    const rows = await h.service.db
      .selectFrom('outbox')
      .select(['state', 'attempts'])
      .where('document_id', '=', doc.id)
      .execute();
    // One transmission: the second step was the consultation, never a second send.
    expect(rows).toEqual([{ state: 'done', attempts: 1 }]);
  });

  it('keeps a rejection in erro and sends it again under the same number', async () => {
    sandbox().faults.reject(DCE_CODES.dceSchema.code);
    const doc = await issueDce(deps(), h.companyId, dceBody(), WAIT);
    const rejected = await settle(doc);
    expect(rejected).toMatchObject({ status: 'erro', c_stat: DCE_CODES.dceSchema.code });
    expect(await deliveryOf(h.service.db, 'dce.rejeitada', doc.id)).toBeDefined();
    const again = await sendDce(deps(), doc.id, WAIT);
    const settled = await settle(again);
    expect(settled).toMatchObject({ status: 'autorizada', n_nf: doc.n_nf, serie: doc.serie });
  });

  it('cancels an authorized DC-e (110111), once, and announces dce.cancelada', async () => {
    await subscribe();
    const doc = await settle(await issueDce(deps(), h.companyId, dceBody()));
    expect(doc.status).toBe('autorizada');
    const short = await rejectionOf(cancelDce(deps(), doc.id, { justificativa: 'curta' }, WAIT), DomainError);
    expect(short.code).toBe('validation_error');
    expect(short.details.map((d) => d.field)).toEqual(['justificativa']);

    const { document, event } = await cancelDce(
      deps(),
      doc.id,
      { justificativa: 'Pedido desfeito pelo comprador antes do envio' },
      WAIT,
    );
    expect(event).toMatchObject({ tp_evento: '110111', n_seq: 1, status: 'registrada', c_stat: '135' });
    expect(document.status).toBe('cancelada');
    expect(xmllint(event.proc_xml ?? '', 'procEventoDCe')).toBe('valid');
    expect(xmlsecVerifies(event.xml, 'http://www.portalfiscal.inf.br/dce:infEvento')).toBe(true);
    const view = await dceViewOf(h.service.db, document);
    expect(view.status).toBe('cancelada');
    expect(view.cancelled_at).toBe(event.registered_at);
    expect(await deliveryOf(h.service.db, 'dce.cancelada', doc.id)).toMatchObject({ status: 'cancelada' });

    const again = await rejectionOf(
      cancelDce(deps(), doc.id, { justificativa: 'Pedido desfeito pelo comprador antes do envio' }, WAIT),
      DomainError,
    );
    expect(again.code).toBe('invalid_state');

    // The accountant's monthly package keeps the dceProc and the cancellation's procEventoDCe, byte for byte.
    const files = await monthExport(doc.dh_emi.slice(0, 7));
    expect(files.get(`DCe/${doc.chave}-procDCe.xml`)).toBe(doc.proc_xml);
    expect(files.get(`Eventos/${doc.chave}-110111-01-procEventoDCe.xml`)).toBe(event.proc_xml);
  });

  it('answers a cancellation the authority has not registered yet as processando, then settles it', async () => {
    const doc = await settle(await issueDce(deps(), h.companyId, dceBody()));
    sandbox().faults.pause(108, { services: ['DCeRecepcaoEvento'] });
    const { document, event } = await cancelDce(
      deps(),
      doc.id,
      { justificativa: 'Cliente desistiu da compra antes da postagem' },
      WAIT,
    );
    expect(event.status).toBe('processando');
    expect(document.status).toBe('autorizada');
    expect((await dceViewOf(h.service.db, document)).status).toBe('processando');
    sandbox().faults.clear();
    const cancelled = await settle({ id: doc.id }, (row) => row.status === 'cancelada');
    const view = await dceViewOf(h.service.db, cancelled);
    expect(view.status).toBe('cancelada');
    expect(view.cancelled_at).not.toBeNull();
  });

  it(`refuses a cancellation past ${DCE_CANCEL_DEADLINE_HOURS} hours with cStat 501, queueing nothing`, async () => {
    const doc = await settle(await issueDce(deps(), h.companyId, dceBody()));
    expect(doc.status).toBe('autorizada');
    h.clock.advance((DCE_CANCEL_DEADLINE_HOURS + 1) * 3600_000);
    const late = await rejectionOf(
      cancelDce(deps(), doc.id, { justificativa: 'Pedido desfeito pelo comprador antes do envio' }, WAIT),
      DomainError,
    );
    expect(late.code).toBe('fiscal_rejection');
    expect(late.extra).toMatchObject({ cStat: DCE_CODES.cancelDeadline.code });
    const events = await h.service.db
      .selectFrom('outbox')
      .select('id')
      .where('document_id', '=', doc.id)
      .where('kind', '=', 'evento')
      .execute();
    expect(events).toEqual([]);
    expect((await reload(doc)).status).toBe('autorizada');
  });
});
