// Sandbox control is per organization (issue 12 item 5): another organization's key switching the embedded
// authority offline, or planting a rejection, touches only that organization's notes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { createApiKey, createOrganization } from '../../src-main/api-keys/service.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';

const cnpj = (base12: string) => base12 + cnpjCheckDigits(base12);
const sale = {
  itens: [
    {
      codigo: 'A1',
      descricao: 'Agua mineral 500 ml',
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 2,
      valor_unitario: '3.50',
      cfop: '5102',
      tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
    },
  ],
  pagamentos: [{ metodo: 'dinheiro', valor: '10.00' }],
};

let h: Harness;
let intruderKey: string;

beforeAll(async () => {
  h = await startHarness();
  // A second organization on the same service, with a sandbox company of its own.
  const org = await createOrganization(h.service.db, h.clock, 'Outra Rede');
  intruderKey = (
    await createApiKey(h.service.db, h.clock, org.id, {
      name: 'retaguarda',
      scope: 'organization',
      plan: 'standard',
    })
  ).key;
  const created = await h.request('POST', '/v1/companies', {
    key: intruderKey,
    json: companyBody(cnpj('555666770001'), { authority: 'sandbox' }),
  });
  expect(created.status, created.text).toBe(201);
});
afterAll(() => h.stop());

async function sell(): Promise<{ status: string; tipo_emissao: number }> {
  const res = await h.request('POST', '/v1/nfce/venda', { key: h.companyKey, json: sale });
  expect(res.status, res.text).toBe(201);
  return res.body as { status: string; tipo_emissao: number };
}

describe('/v1/sandbox/faults is per organization', () => {
  it("another organization's offline switch does not take this one offline", async () => {
    const off = await h.request('POST', '/v1/sandbox/faults', { key: intruderKey, json: { online: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ online: false });
    try {
      expect((await h.request('GET', '/v1/sandbox/faults', { key: intruderKey })).body).toMatchObject({
        online: false,
      });
      // This organization's view and its sales are untouched.
      expect((await h.request('GET', '/v1/sandbox/faults')).body).toMatchObject({ online: true });
      const note = await sell();
      expect(note).toMatchObject({ status: 'autorizada', tipo_emissao: 1 });
      expect(h.service.sandbox?.faults.online).toBe(true);
    } finally {
      await h.request('POST', '/v1/sandbox/faults', { key: intruderKey, json: { online: true } });
    }
  });

  it("another organization's planted rejection and pause do not reach this organization's notes", async () => {
    const set = await h.request('POST', '/v1/sandbox/faults', {
      key: intruderKey,
      json: { reject: { cStat: 225, times: 5 }, paused: 108 },
    });
    expect(set.status).toBe(200);
    try {
      expect(await sell()).toMatchObject({ status: 'autorizada' });
      expect((await h.request('GET', '/v1/sandbox/faults', { key: intruderKey })).body).toMatchObject({
        reject: { cStat: 225, remaining: 5 },
      });
    } finally {
      await h.request('POST', '/v1/sandbox/faults', { key: intruderKey, json: { clear: true } });
    }
  });

  it("an organization's own offline switch still sends its sales to offline contingency", async () => {
    const off = await h.request('POST', '/v1/sandbox/faults', { json: { online: false } });
    expect(off.status).toBe(200);
    try {
      expect(await sell()).toMatchObject({ status: 'contingencia', tipo_emissao: 9 });
      expect((await h.request('GET', '/v1/sandbox/faults', { key: intruderKey })).body).toMatchObject({
        online: true,
      });
    } finally {
      await h.request('POST', '/v1/sandbox/faults', { json: { online: true } });
    }
  });
});
