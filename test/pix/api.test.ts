// Dynamic PIX through the /v1 API on a real service with the embedded sandbox PSP: the demo company's PSP
// settings, charges (polling, webhook, cancel, expiry, refusal, timeout) and the sale rules of pix_txid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../api/harness.ts';
import { createCharge, payCharge, pixItem, pixSale } from './helpers.ts';
import { SANDBOX_PSP_CNPJ } from '../../src-main/sandbox-psp/server.ts';
import { pixRepository } from '../../src-main/pix/repository.ts';
import { pixChargesForSale } from '../../src-main/pix/sale.ts';
import { fromDomainError } from '../../src-main/api/errors.ts';
import { DomainError } from '../../src-main/errors.ts';
import { parseBrCode, parseTlv } from '../../src-shared/pix/br-code.ts';
import type { PixChargeView, PixConfigView } from '../../src-shared/contracts/pix.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.stop();
});

const item = pixItem;
const charge = (valor: string) => createCharge(h, valor);
const pay = (txid: string) => payCharge(h, txid);
const sale = (payment: Record<string, unknown>, valor?: string, key?: string) =>
  pixSale(h, payment, valor, key);

describe('PSP settings', () => {
  it('the demo company starts on the sandbox PSP and the view holds no secret', async () => {
    const res = await h.request('GET', `/v1/companies/${h.companyId}/pix`);
    expect(res.status).toBe(200);
    const view = res.body as PixConfigView;
    expect(view).toMatchObject({
      provedor: 'sandbox',
      tem_client_secret: true,
      tem_certificado: true,
      cnpj_psp: SANDBOX_PSP_CNPJ,
      expiracao_segundos: 300,
    });
    expect(Object.keys(view)).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(client_secret|certificado_pfx|senha_certificado)$/)]),
    );
    const row = await pixRepository.config(h.service.db, h.companyId);
    // Sealed at rest, like the A1 certificate.
    expect(row?.client_secret_enc).toMatch(/^v1\./);
    expect(row?.certificado_enc).toMatch(/^v1\./);
  });

  it('a real PSP needs its URL, credentials, certificate and CNPJ, all reported at once', async () => {
    const res = await h.request('PUT', `/v1/companies/${h.companyId}/pix`, {
      json: { provedor: 'psp', chave: 'loja@example.com' },
    });
    expect(res.status).toBe(400);
    const fields = (res.body as { details: { field: string }[] }).details.map((d) => d.field).sort();
    expect(fields).toEqual(['base_url', 'certificado_pfx', 'client_id', 'client_secret', 'cnpj_psp']);
  });
});

describe('charges', () => {
  it('creates a charge whose BR Code points at its location, polls it to CONCLUIDA after the payment', async () => {
    const created = await charge('12.5');
    expect(created).toMatchObject({ status: 'ATIVA', valor: 12.5, pago_em: null, end_to_end_id: null });
    expect(created.txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    const fields = parseBrCode(created.pixCopiaECola);
    expect(parseTlv(fields?.get('26') ?? '')?.get('00')).toBe('br.gov.bcb.pix');
    expect(parseTlv(fields?.get('26') ?? '')?.get('25')).toMatch(/\/qr\/v2\/[0-9a-f]{32}$/);
    expect(Date.parse(created.expira_em) - Date.parse(created.criada_em)).toBe(300_000);

    const png = await h.request('GET', created.qrcode_png_url, { key: h.companyKey });
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');

    const polled = await h.request('GET', `/v1/pix/charges/${created.txid}`, { key: h.companyKey });
    expect((polled.body as PixChargeView).status).toBe('ATIVA');
    const paid = await pay(created.txid);
    expect(paid.status).toBe('CONCLUIDA');
    expect(paid.end_to_end_id).toMatch(/^E\d{8}\d{12}[a-z0-9]{11}$/);
  });

  it('a retried creation with the same Idempotency-Key answers the first charge', async () => {
    const headers = { 'Idempotency-Key': `pix-retry-${Date.now()}` };
    const first = await h.request('POST', '/v1/pix/charges', {
      key: h.companyKey,
      json: { valor: '2.00' },
      headers,
    });
    const again = await h.request('POST', '/v1/pix/charges', {
      key: h.companyKey,
      json: { valor: '2.00' },
      headers,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect((again.body as PixChargeView).txid).toBe((first.body as PixChargeView).txid);
    const other = await h.request('POST', '/v1/pix/charges', {
      key: h.companyKey,
      json: { valor: '3.00' },
      headers,
    });
    expect(other.status).toBe(409);
  });

  it("the PSP's webhook alone settles the row; a wrong secret is 404", async () => {
    const created = await charge('3.00');
    const psp = h.service.sandboxPsp;
    if (psp === null) throw new Error('no sandbox PSP');
    await psp.pay(created.txid); // straight at the PSP: only its webhook tells the service
    const row = await pixRepository.charge(h.service.db, created.txid);
    expect(row?.status).toBe('CONCLUIDA');
    expect(row?.end_to_end_id).toMatch(/^E/);
    const wrong = await fetch(`${h.service.url}/pix-webhook/nao-existe/pix`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ pix: [{ endToEndId: 'E1', txid: created.txid, valor: '3.00' }] }),
    });
    expect(wrong.status).toBe(404);
  });

  it('cancels an active charge (Esc at the counter) and refuses to cancel a paid one', async () => {
    const created = await charge('4.00');
    const cancelled = await h.request('POST', `/v1/pix/charges/${created.txid}/cancel`, {
      key: h.companyKey,
    });
    expect(cancelled.status).toBe(200);
    expect((cancelled.body as PixChargeView).status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
    const late = await h.request('POST', `/v1/sandbox/pix/charges/${created.txid}/pay`, {
      key: h.companyKey,
    });
    expect(late.status).toBe(409);

    const paid = await charge('4.00');
    await pay(paid.txid);
    const refused = await h.request('POST', `/v1/pix/charges/${paid.txid}/cancel`, { key: h.companyKey });
    expect(refused.status).toBe(409);
    expect((refused.body as { error: string }).error).toBe('invalid_state');
  });

  it('an expired charge reads REMOVIDA_PELO_PSP', async () => {
    const created = await charge('5.00');
    const res = await h.request('POST', '/v1/sandbox/pix/faults', { json: { expirar: created.txid } });
    expect(res.status).toBe(200);
    const polled = await h.request('GET', `/v1/pix/charges/${created.txid}`, { key: h.companyKey });
    expect((polled.body as PixChargeView).status).toBe('REMOVIDA_PELO_PSP');
  });

  it('a refusal is 422 psp_rejection and a silent PSP 504 psp_unavailable within 5 s', async () => {
    await h.request('POST', '/v1/sandbox/pix/faults', { json: { recusar_proxima: true } });
    const refused = await h.request('POST', '/v1/pix/charges', {
      key: h.companyKey,
      json: { valor: '1.00' },
    });
    expect(refused.status).toBe(422);
    expect((refused.body as { error: string; message: string }).error).toBe('psp_rejection');
    expect((refused.body as { message: string }).message).toMatch(/recus/);

    await h.request('POST', '/v1/sandbox/pix/faults', { json: { timeout_proxima: true } });
    const started = Date.now();
    const silent = await h.request('POST', '/v1/pix/charges', { key: h.companyKey, json: { valor: '1.00' } });
    expect(silent.status).toBe(504);
    expect((silent.body as { error: string }).error).toBe('psp_unavailable');
    expect(Date.now() - started).toBeLessThan(8000);
  }, 15_000);

  it('switching faults needs the organization key', async () => {
    const res = await h.request('POST', '/v1/sandbox/pix/faults', {
      key: h.companyKey,
      json: { atraso_ms: 0 },
    });
    expect(res.status).toBe(403);
  });
});

describe('a sale paid with pix_txid', () => {
  it('is tPag 17 with the card group of the PSP (tpIntegra 1, CNPJ, cAut = endToEndId), and the charge is used once', async () => {
    const paid = await pay((await charge('12.50')).txid);
    const res = await sale({ metodo: 'pix', valor: '12.50', pix_txid: paid.txid });
    expect(res.status).toBe(201);
    const doc = res.body as { id: string; status: string };
    expect(doc.status).toBe('autorizada');
    const xml = await h.request('GET', `/v1/nfce/${doc.id}/xml`, { key: h.companyKey });
    expect(xml.text).toContain(
      `<detPag><tPag>17</tPag><vPag>12.50</vPag><card><tpIntegra>1</tpIntegra><CNPJ>${SANDBOX_PSP_CNPJ}</CNPJ><cAut>${paid.end_to_end_id}</cAut></card></detPag>`,
    );
    const after = await h.request('GET', `/v1/pix/charges/${paid.txid}`, { key: h.companyKey });
    expect((after.body as PixChargeView).document_id).toBe(doc.id);

    const again = await sale({ metodo: 'pix', valor: '12.50', pix_txid: paid.txid });
    expect(again.status).toBe(409);
    expect((again.body as { details: { field: string }[] }).details[0]?.field).toBe('pagamentos[0].pix_txid');
  });

  it('refuses an unpaid, an unknown, a short-paid charge and a non-PIX forma, naming each field', async () => {
    const active = await charge('12.50');
    const unpaid = await sale({ metodo: 'pix', valor: '12.50', pix_txid: active.txid });
    expect(unpaid.status).toBe(422);
    expect(unpaid.body).toMatchObject({
      error: 'pix_nao_pago',
      details: [{ field: 'pagamentos[0].pix_txid', error: expect.stringMatching(/ATIVA/) as unknown }],
    });

    const unknown = await sale({ forma: '17', valor: '12.50', pix_txid: 'A'.repeat(32) });
    expect(unknown.status).toBe(422);
    expect((unknown.body as { details: { error: string }[] }).details[0]?.error).toMatch(/no PIX charge/);

    const small = await pay((await charge('10.00')).txid);
    const short = await sale({ metodo: 'pix', valor: '12.50', pix_txid: small.txid });
    expect(short.status).toBe(422);
    expect((short.body as { details: { error: string }[] }).details[0]?.error).toMatch(/10,00.*12,50/);

    const cash = await sale({ forma: '01', valor: '12.50', pix_txid: small.txid });
    expect(cash.status).toBe(422);
    expect((cash.body as { details: { field: string }[] }).details.map((d) => d.field)).toContain(
      'pagamentos[0].forma',
    );
  });

  it('another company cannot use the charge', async () => {
    const paid = await pay((await charge('12.50')).txid);
    const other = await h.request('POST', '/v1/companies', {
      json: {
        cnpj: '11444777000161',
        ie: '123456785016',
        xNome: 'OUTRA LOJA LTDA',
        crt: 1,
        endereco: { xLgr: 'Rua A', nro: '1', xBairro: 'Centro', cMun: '3550308', uf: 'SP', cep: '01000000' },
      },
    });
    expect(other.status).toBe(201);
    const otherId = (other.body as { id: string }).id;
    const payload = { pagamentos: [{ metodo: 'pix', valor: '12.50', pix_txid: paid.txid }] };
    const refused = await pixChargesForSale(h.service.db, otherId, payload).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(fromDomainError(refused as DomainError).status).toBe(422);
    expect((refused as DomainError).details).toEqual([
      { field: 'pagamentos[0].pix_txid', error: 'no PIX charge with this txid in the company' },
    ]);
    // The owner passes the same check.
    expect((await pixChargesForSale(h.service.db, h.companyId, payload)).get(paid.txid)?.cnpj).toBe(
      SANDBOX_PSP_CNPJ,
    );
  });

  it('two sales racing for one charge: exactly one is issued, the other is 409 and spends no number', async () => {
    const paid = await pay((await charge('12.50')).txid);
    const payment = { metodo: 'pix', valor: '12.50', pix_txid: paid.txid };
    const [a, b] = await Promise.all([sale(payment), sale(payment)]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const next = await sale({ metodo: 'dinheiro', valor: '12.50' });
    const issued = (a.status === 201 ? a : b).body as { numero: number };
    // The refused sale took no number: the next note follows the issued one.
    expect((next.body as { numero: number }).numero).toBe(issued.numero + 1);
  });

  it('POST /v1/nfce (draft) holds the charge: a second draft with it is 409, the draft itself is sent with it', async () => {
    const paid = await pay((await charge('12.50')).txid);
    const body = {
      natureza_operacao: 'VENDA',
      itens: [item('12.50')],
      pagamento: { metodo: 'pix', valor: '12.50', pix_txid: paid.txid },
    };
    const draft = await h.request('POST', '/v1/nfce', { key: h.companyKey, json: body });
    expect(draft.status).toBe(201);
    const id = (draft.body as { id: string }).id;
    const second = await h.request('POST', '/v1/nfce', { key: h.companyKey, json: body });
    expect(second.status).toBe(409);
    expect((second.body as { details: { field: string }[] }).details[0]?.field).toBe('pagamento.pix_txid');
    // Replacing the draft keeps the charge (same note).
    const replaced = await h.request('PUT', `/v1/nfce/${id}`, { key: h.companyKey, json: body });
    expect(replaced.status).toBe(200);
    const sent = await h.request('POST', `/v1/nfce/${id}/send?sync=true`, { key: h.companyKey });
    expect(sent.status).toBe(200);
    expect((sent.body as { status: string }).status).toBe('autorizada');
    const xml = await h.request('GET', `/v1/nfce/${id}/xml`, { key: h.companyKey });
    expect(xml.text).toContain(`<cAut>${paid.end_to_end_id}</cAut>`);
  });

  it('a PIX payment without pix_txid is issued as before', async () => {
    const res = await sale({ metodo: 'pix', valor: '12.50' });
    expect(res.status).toBe(201);
    const xml = await h.request('GET', `/v1/nfce/${(res.body as { id: string }).id}/xml`, {
      key: h.companyKey,
    });
    expect(xml.text).toContain('<card><tpIntegra>2</tpIntegra></card>');
  });
});
