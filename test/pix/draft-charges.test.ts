// A draft NFC-e holds the PIX charges its payments name: replacing the draft with another charge, or with no
// PIX payment at all, gives the old charge back so another sale can use it (real service, sandbox PSP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../api/harness.ts';
import { createCharge, payCharge, pixItem, pixSale } from './helpers.ts';
import type { PixChargeView } from '../../src-shared/contracts/pix.ts';

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
const sale = (payment: Record<string, unknown>, valor?: string) => pixSale(h, payment, valor);

describe('a draft PUT and its PIX charges', () => {
  it('a draft PUT that switches to another charge or drops the PIX payment releases the old charge', async () => {
    const first = await pay((await charge('12.50')).txid);
    const second = await pay((await charge('12.50')).txid);
    const body = (pagamento: Record<string, unknown>) => ({
      natureza_operacao: 'VENDA',
      itens: [item('12.50')],
      pagamento,
    });
    const draft = await h.request('POST', '/v1/nfce', {
      key: h.companyKey,
      json: body({ metodo: 'pix', valor: '12.50', pix_txid: first.txid }),
    });
    expect(draft.status).toBe(201);
    const id = (draft.body as { id: string }).id;
    const holder = async (txid: string) =>
      ((await h.request('GET', `/v1/pix/charges/${txid}`, { key: h.companyKey })).body as PixChargeView)
        .document_id;
    expect(await holder(first.txid)).toBe(id);

    // Switched to the second charge: the first is free again, the second held by the draft.
    const switched = await h.request('PUT', `/v1/nfce/${id}`, {
      key: h.companyKey,
      json: body({ metodo: 'pix', valor: '12.50', pix_txid: second.txid }),
    });
    expect(switched.status).toBe(200);
    expect(await holder(first.txid)).toBeNull();
    expect(await holder(second.txid)).toBe(id);

    // Paid in cash instead: the second charge is released too.
    const cash = await h.request('PUT', `/v1/nfce/${id}`, {
      key: h.companyKey,
      json: body({ metodo: 'dinheiro', valor: '12.50' }),
    });
    expect(cash.status).toBe(200);
    expect(await holder(second.txid)).toBeNull();

    // Both charges pay other sales now.
    const a = await sale({ metodo: 'pix', valor: '12.50', pix_txid: first.txid });
    expect(a.status).toBe(201);
    const b = await sale({ metodo: 'pix', valor: '12.50', pix_txid: second.txid });
    expect(b.status).toBe(201);
    expect(await holder(second.txid)).toBe((b.body as { id: string }).id);
  });
});
