// The PIX API tests' shared steps on a running service with the sandbox PSP: the coffee item they sell, a
// charge made and paid at the PSP, and an NFC-e sale paid with a given payment.
import { expect } from 'vitest';
import type { Harness } from '../api/harness.ts';
import type { PixChargeView } from '../../src-shared/contracts/pix.ts';

export const pixItem = (valor: string) => ({
  codigo: 'P1',
  descricao: 'Cafe 500 g',
  ncm: '09012100',
  unidade: 'UN',
  quantidade: 1,
  valor_unitario: valor,
  cfop: '5102',
  tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
});

export async function createCharge(h: Harness, valor: string): Promise<PixChargeView> {
  const res = await h.request('POST', '/v1/pix/charges', { key: h.companyKey, json: { valor } });
  expect(res.status).toBe(201);
  return res.body as PixChargeView;
}

/** The payer pays the charge at the sandbox PSP. */
export async function payCharge(h: Harness, txid: string): Promise<PixChargeView> {
  const res = await h.request('POST', `/v1/sandbox/pix/charges/${txid}/pay`, { key: h.companyKey });
  expect(res.status).toBe(200);
  return res.body as PixChargeView;
}

/** One item of `valor` sold with `payment`, under the company key unless another is given. */
export const pixSale = (h: Harness, payment: Record<string, unknown>, valor = '12.50', key = h.companyKey) =>
  h.request('POST', '/v1/nfce/venda', {
    key,
    json: { natureza_operacao: 'VENDA', itens: [pixItem(valor)], pagamentos: [payment] },
  });
