// The DC-e as an integrator meets it over /v1/dce and the embedded sandbox authority, end to end: draft, send,
// authorization, the XML route's dceProc checked with xmllint against the DC-e 1.00 XSD and with xmlsec1 (our
// signature on infDCe), both DACEs read back with pdftotext (key, number, parties, total, notices) and zbarimg
// (the Code 128 key, the QR code of the answer), the cancellation registered at once with its procEventoDCe,
// the cancelled DACE, the list filter and the webhooks dce.autorizada and dce.cancelada.
import { afterEach, describe, expect, it } from 'vitest';
import { useHarness } from './harness.ts';
import { checkResponse } from '../contract/openapi-check.ts';
import { openApiDocument } from '../../src-shared/contracts/api-routes.ts';
import { pdfFile, pdfInfo, pdfPng, pdfText, zbar } from '../fixtures/outputs/pdf-tools.ts';
import { xmllint, xmlsecVerifies } from '../fixtures/xml-tools.ts';
import { dcePayload } from '../fixtures/dce-sample.ts';
import type { DceCancelAnswer, DceView, DceXmlAnswer } from '../../src-shared/contracts/dce-view.ts';

const h = useHarness();

// Every answer is also held to the OpenAPI document (status, media type, body), so the two cannot drift.
const doc = openApiDocument('test');
const drift: string[] = [];
afterEach(() => {
  expect(drift.splice(0)).toEqual([]);
});

const call = async (method: string, url: string, json?: unknown) => {
  const res = await h.request(method, url, { key: h.companyKey, ...(json === undefined ? {} : { json }) });
  const contentType = res.headers.get('content-type');
  drift.push(...checkResponse(doc, { method, path: url, status: res.status, contentType, body: res.body }));
  return res;
};

const DCE_ID = 'http://www.portalfiscal.inf.br/dce:infDCe';

/** GET until the queue settled the DC-e (the sandbox answers at once; the wait is bounded). */
async function settle(id: string): Promise<DceView> {
  for (let i = 0; i < 100; i++) {
    // The harness clock stands still: a second per look keeps the key's per-second budget from running out.
    h.clock.advance(1000);
    const res = await call('GET', `/v1/dce/${id}`);
    if (res.status !== 200) throw new Error(`GET /v1/dce/${id}: ${res.status} ${res.text}`);
    const view = res.body as DceView;
    if (view.status !== 'processando') return view;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`DC-e ${id} still processando`);
}

async function pdfOf(url: string): Promise<string> {
  const res = await fetch(url, { headers: { 'X-API-Key': h.companyKey } });
  expect(res.status, url).toBe(200);
  expect(res.headers.get('content-type')).toContain('application/pdf');
  return pdfFile(Buffer.from(await res.arrayBuffer()));
}

async function deliveredEvents(webhookId: string): Promise<string[]> {
  const rows = await h.service.db
    .selectFrom('webhook_deliveries')
    .select(['event'])
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.event);
}

describe('DC-e end to end over /v1/dce', () => {
  it('draft → send → autorizada → XML, DACE A4 and label → cancel → cancelada, with its webhooks', async () => {
    const hook = await call('POST', '/v1/webhooks', {
      url: 'https://loja.example.com.br/hooks/dce',
      eventos: ['dce.*'],
    });
    expect(hook.status, hook.text).toBe(201);
    const webhookId = (hook.body as { id: string }).id;

    const created = await call('POST', '/v1/dce', dcePayload());
    expect(created.status, created.text).toBe(201);
    const draft = created.body as DceView;
    const sent = await call('POST', `/v1/dce/${draft.id}/send`);
    expect(sent.status, sent.text).toBe(202);

    const dce = await settle(draft.id);
    expect(dce, JSON.stringify(dce)).toMatchObject({
      status: 'autorizada',
      cStat: '100',
      chave_acesso: draft.chave_acesso,
      numero: draft.numero,
      valor_total: '20.70',
    });
    // TProt of the DC-e 1.00 schemas: 16 digits (the NF-e's has 15).
    expect(dce.protocolo).toMatch(/^\d{16}$/);
    expect(dce.authorized_at).not.toBeNull();
    expect(dce.qr_code).toBe(draft.qr_code);

    // The XML: the dceProc as the authority's protocol closed it, valid and with our signature intact.
    const xml = await call('GET', `/v1/dce/${dce.id}/xml`);
    expect(xml.headers.get('content-type')).toContain('application/xml');
    expect(xml.text).toContain('<dceProc');
    expect(xml.text).toContain(`<nProt>${dce.protocolo}</nProt>`);
    expect(xmllint(xml.text, 'dceProc')).toBe('valid');
    expect(xmlsecVerifies(xml.text, DCE_ID)).toBe(true);

    // The DACE on A4 and on the 100 × 150 mm label: what they print, and the codes a scanner reads.
    for (const url of [dce.dace_url, dce.dace_etiqueta_url]) {
      const file = await pdfOf(url);
      const text = pdfText(file);
      const flat = text.replace(/\s+/g, '');
      expect(flat, url).toContain(dce.chave_acesso);
      expect(text).toContain('Maria da Silva');
      expect(text).toContain('Joao & Filhos <Casa>');
      expect(text).toMatch(/20,70/);
      expect(text).toContain(String(dce.protocolo));
      expect(text).toContain('SEM VALOR FISCAL');
      expect(text).not.toContain('CANCELADA');
      const png = pdfPng(file, 1, 300);
      expect(zbar(png, 'code128')).toContain(dce.chave_acesso);
      expect(zbar(png, 'qrcode')).toContain(dce.qr_code);
    }
    const label = pdfInfo(await pdfOf(dce.dace_etiqueta_url));
    expect(label.pages).toBe(1);
    // 100 × 150 mm in points (1 mm = 72 / 25.4 pt).
    expect(Math.round(label.width)).toBe(283);
    expect(Math.round(label.height)).toBe(425);

    // The cancellation: registered at once by the sandbox (200), with its procEventoDCe.
    const cancel = await call('POST', `/v1/dce/${dce.id}/cancel`, {
      justificativa: 'Compra desfeita antes da postagem',
    });
    expect(cancel.status, cancel.text).toBe(200);
    const answer = cancel.body as DceCancelAnswer;
    expect(answer.document).toMatchObject({ id: dce.id, status: 'cancelada' });
    expect(answer.document.cancelled_at).not.toBeNull();
    expect(answer.event).toMatchObject({ tpEvento: '110111', status: 'registrada', cStat: '135' });
    expect(answer.event.protocolo).toMatch(/^\d{16}$/);

    const all = await call('GET', `/v1/dce/${dce.id}/xml?formato=json`);
    const xmls = all.body as DceXmlAnswer;
    expect(xmls.proc_xml).toBe(xml.text);
    expect(xmls.eventos).toHaveLength(1);
    expect(xmls.eventos[0]).toMatchObject({ tpEvento: '110111', nSeqEvento: 1 });
    expect(xmllint(xmls.eventos[0]?.xml ?? '', 'procEventoDCe')).toBe('valid');

    expect(pdfText(await pdfOf(dce.dace_url))).toContain('CANCELADA');
    const again = await call('POST', `/v1/dce/${dce.id}/cancel`, {
      justificativa: 'Compra desfeita antes da postagem',
    });
    expect(again.status).toBe(409);

    const cancelled = await call('GET', '/v1/dce?status=cancelada&limit=100');
    expect((cancelled.body as { data: DceView[] }).data.map((d) => d.id)).toContain(dce.id);

    // Deliveries are recorded when queued: both events are there for the subscriber of dce.*.
    for (let i = 0; i < 50 && (await deliveredEvents(webhookId)).length < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await deliveredEvents(webhookId)).toEqual(['dce.autorizada', 'dce.cancelada']);
  });

  it('a rejection keeps the number: erro with cStat, corrected with PUT, sent again, authorized', async () => {
    const fault = await h.request('POST', '/v1/sandbox/faults', { json: { reject: '225' } });
    expect(fault.status, fault.text).toBe(200);
    const created = (await call('POST', '/v1/dce?enviar=true', dcePayload())).body as DceView;
    const rejected = await settle(created.id);
    expect(rejected).toMatchObject({ status: 'erro', cStat: '225', protocolo: null });
    expect((await call('GET', '/v1/dce?status=rejeitada&limit=100')).text).toContain(created.id);
    // Not on the package: the DACE of a rejected DC-e is refused.
    expect((await call('GET', `/v1/dce/${created.id}/dace`)).status).toBe(409);
    const put = await call(
      'PUT',
      `/v1/dce/${created.id}`,
      dcePayload({ informacoesComplementares: 'Revisada' }),
    );
    expect(put.status, put.text).toBe(200);
    const sent = await call('POST', `/v1/dce/${created.id}/send`);
    expect(sent.status, sent.text).toBe(202);
    const dce = await settle(created.id);
    expect(dce).toMatchObject({ status: 'autorizada', numero: created.numero, cStat: '100' });
  });

  it('a cancellation past the 24-hour deadline is 422 with cStat 501 and nothing is sent', async () => {
    const created = (await call('POST', '/v1/dce?enviar=true', dcePayload())).body as DceView;
    const dce = await settle(created.id);
    expect(dce.status).toBe('autorizada');
    h.clock.advance((24 * 60 + 1) * 60 * 1000);
    const late = await call('POST', `/v1/dce/${dce.id}/cancel`, {
      justificativa: 'Compra desfeita depois do prazo',
    });
    expect(late.status, late.text).toBe(422);
    expect(late.body).toMatchObject({ error: 'fiscal_rejection', cStat: '501' });
    const after = (await call('GET', `/v1/dce/${dce.id}`)).body as DceView;
    expect(after.status).toBe('autorizada');
    const xml = (await call('GET', `/v1/dce/${dce.id}/xml?formato=json`)).body as DceXmlAnswer;
    expect(xml.eventos).toEqual([]);
  });

  // Last in the file: it stops the queue's poll, so only the send's own hand-over can settle a DC-e.
  it('send hands the DC-e to the queue at once: authorized without the queue’s poll', async () => {
    await h.service.worker.stop();
    const created = (await call('POST', '/v1/dce', dcePayload())).body as DceView;
    const sent = await call('POST', `/v1/dce/${created.id}/send`);
    expect(sent.status, sent.text).toBe(202);
    expect(await settle(created.id)).toMatchObject({ status: 'autorizada', cStat: '100' });
    const issued = await call('POST', '/v1/dce?enviar=true', dcePayload());
    expect(issued.status, issued.text).toBe(202);
    expect(await settle((issued.body as DceView).id)).toMatchObject({ status: 'autorizada' });
  });
});
