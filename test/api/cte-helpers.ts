// Shared pieces of the CT-e API tests: the sample §2.7 payload of the fixtures with real-shaped carried NF-e
// keys, and the customer its `customerId` names.
import { bothFormsOfCarriedNfe, CTE_REMETENTE, ctePayload as samplePayload } from '../fixtures/cte-sample.ts';
import type { Harness } from './harness.ts';

export { CTE_REMETENTE as REMETENTE, supplierNfeKey as nfeKey } from '../fixtures/cte-sample.ts';

const customers = new Map<string, Promise<string>>();

/** The taker as a saved customer (the sender here, toma 0), created once per company. */
export function createCteCustomer(h: Harness, companyId: string): Promise<string> {
  const key = `${h.service.url} ${companyId}`;
  let id = customers.get(key);
  if (id === undefined) {
    id = saveCustomer(h, companyId);
    customers.set(key, id);
  }
  return id;
}

async function saveCustomer(h: Harness, companyId: string): Promise<string> {
  const res = await h.request('POST', `/v1/customers?companyId=${companyId}`, {
    json: {
      cnpj: '11222333000181',
      xNome: 'Industria Modelo Ltda',
      ie: '111222330446',
      endereco: CTE_REMETENTE.endereco,
    },
  });
  if (res.status !== 201) throw new Error(`customer: ${res.status} ${res.text}`);
  return (res.body as { id: string }).id;
}

/** The sample §2.7 payload carrying two NF-e, its taker the saved customer `customerId`. */
export function ctePayload(
  customerId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return samplePayload({ customerId, docsOriginarios: bothFormsOfCarriedNfe(), ...overrides });
}
