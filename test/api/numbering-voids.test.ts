// No number left unexplained (issue 12 item 4): an inutilização ahead of the sequence skips only the voided
// numbers, and every number below the series' next one is a document, a void, or listed to be voided.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.ts';
import { SP_CONTRIBUTOR } from './fiscal-helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

/** Every request moves the manual clock a little, so the per-second rate budget refills. */
function req(...args: Parameters<Harness['request']>) {
  h.clock.advance(25);
  const [method, url, options] = args;
  return h.request(method, url, { key: h.companyKey, ...options });
}

const nfe = {
  naturezaOperacao: 'Venda de mercadoria',
  customer: SP_CONTRIBUTOR,
  itens: [
    {
      codigo: 'A1',
      descricao: 'Produto A1',
      ncm: '22011000',
      unidade: 'UN',
      quantidade: 2,
      valor_unitario: '3.50',
      cfop: '5102',
      tributacao: { ICMS: { orig: 0, CSOSN: '102' }, PIS: { CST: '49' }, COFINS: { CST: '49' } },
    },
  ],
  pagamentos: [{ forma: '15', valor: '7.00' }],
};

const justificativa = 'Numeracao pulada por erro de digitacao';

async function draft(): Promise<number> {
  const res = await req('POST', '/v1/nfe', { json: nfe });
  expect(res.status, res.text).toBe(201);
  return (res.body as { numero: number }).numero;
}

async function nextNumber(): Promise<number> {
  const res = await req('GET', `/v1/companies/${h.companyId}/nfe-sequences`);
  const seq = (res.body as { sequences: { modelo: string; serie: number; proximo_numero: number }[] })
    .sequences;
  return seq.find((s) => s.modelo === '55' && s.serie === 1)?.proximo_numero ?? 1;
}

async function voidRange(numeroInicial: number, numeroFinal: number) {
  const res = await req('POST', '/v1/nfe/inutilizar', {
    json: { modelo: '55', serie: 1, numeroInicial, numeroFinal, justificativa },
  });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ status: 'inutilizada', cStat: '102' });
}

type Range = { modelo: number; serie: number; numeroInicial: number; numeroFinal: number };
type Listing = { sem_documento: Range[]; offer: { ranges: Range[] } | null };

/** Each number below the next one: the note holding it, or the homologated void covering it. */
async function explained(): Promise<Map<number, string>> {
  const next = await nextNumber();
  const docs = await h.service.db
    .selectFrom('documents')
    .select(['n_nf', 'status'])
    .where('company_id', '=', h.companyId)
    .where('modelo', '=', 55)
    .where('serie', '=', 1)
    .execute();
  const voids = await h.service.db
    .withTables<{ number_voids: { n_ini: number; n_fin: number; status: string; company_id: string } }>()
    .selectFrom('number_voids')
    .select(['n_ini', 'n_fin'])
    .where('company_id', '=', h.companyId)
    .where('status', '=', 'homologada')
    .execute();
  const why = new Map<number, string>();
  for (let n = 1; n < next; n++) {
    const doc = docs.find((d) => d.n_nf === n);
    const voided = voids.find((v) => v.n_ini <= n && n <= v.n_fin);
    if (doc !== undefined) why.set(n, doc.status);
    else if (voided !== undefined) why.set(n, 'inutilizada');
  }
  return why;
}

describe('inutilização ahead of the sequence', () => {
  it('voiding 5001 while the next number is low moves nothing; numbers before it are still issued', async () => {
    const first = await nextNumber();
    await voidRange(5001, 5001);
    expect(await nextNumber()).toBe(first);
    expect(await draft()).toBe(first);
    expect(await nextNumber()).toBe(first + 1);
    const listing = (await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers`)).body as Listing;
    expect(listing.sem_documento).toEqual([]);
  });

  it('skips only the voided numbers when the sequence reaches them', async () => {
    const n = await nextNumber();
    await voidRange(n + 2, n + 3);
    expect(await nextNumber()).toBe(n);
    expect(await draft()).toBe(n);
    // The number before the voided range is issued, then the sequence steps over the range.
    expect(await draft()).toBe(n + 1);
    expect(await nextNumber()).toBe(n + 4);
    expect(await draft()).toBe(n + 4);
    // Two voided ranges ahead, back to back, are stepped over together.
    await voidRange(n + 7, n + 7);
    await voidRange(n + 8, n + 9);
    expect(await nextNumber()).toBe(n + 5);
    expect(await draft()).toBe(n + 5);
    expect(await draft()).toBe(n + 6);
    expect(await nextNumber()).toBe(n + 10);
    expect(await draft()).toBe(n + 10);
    // A range that holds the next number moves the sequence past it, as before (nothing unvoided is skipped).
    await voidRange(n + 11, n + 12);
    expect(await nextNumber()).toBe(n + 13);

    const why = await explained();
    const next = await nextNumber();
    for (let k = 1; k < next; k++) expect(why.get(k), `number ${k}`).toBeDefined();
    expect([n + 2, n + 3, n + 7, n + 8, n + 9, n + 11, n + 12].map((k) => why.get(k))).toEqual(
      Array(7).fill('inutilizada'),
    );
  });
});

describe('the abandoned-numbers report explains every number', () => {
  it('lists numbers the series passed without a document and voids them with the rest', async () => {
    const next = await nextNumber();
    // What the earlier version did on a void of 5001: the sequence jumped to 5002 over unvoided numbers.
    await h.service.db
      .updateTable('number_sequences')
      .set({ next_number: 5002 })
      .where('company_id', '=', h.companyId)
      .where('modelo', '=', 55)
      .where('serie', '=', 1)
      .execute();
    const listing = (await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers`)).body as Listing;
    expect(listing.sem_documento).toEqual([{ modelo: 55, serie: 1, numeroInicial: next, numeroFinal: 5000 }]);
    expect(listing.offer?.ranges).toContainEqual({
      modelo: 55,
      serie: 1,
      numeroInicial: next,
      numeroFinal: 5000,
    });

    const voided = await req('POST', `/v1/companies/${h.companyId}/abandoned-numbers/void`, { json: {} });
    expect(voided.status).toBe(200);
    const results = (voided.body as { results: (Range & { success: boolean })[] }).results;
    expect(results).toContainEqual(
      expect.objectContaining({ numeroInicial: next, numeroFinal: 5000, success: true }),
    );
    const after = (await req('GET', `/v1/companies/${h.companyId}/abandoned-numbers`)).body as Listing;
    expect(after.sem_documento).toEqual([]);
    const why = await explained();
    for (let k = 1; k < 5002; k++) expect(why.has(k), `number ${k}`).toBe(true);
  });

  it('reports a range that could not be voided with the error body and status the same failure answers alone', async () => {
    const next = await nextNumber();
    await h.service.db
      .updateTable('number_sequences')
      .set({ next_number: next + 2 })
      .where('company_id', '=', h.companyId)
      .where('modelo', '=', 55)
      .where('serie', '=', 1)
      .execute();
    const cert = h.service.db.updateTable('certificates').where('company_id', '=', h.companyId);
    const active = await h.service.db
      .selectFrom('certificates')
      .select('not_after')
      .where('company_id', '=', h.companyId)
      .where('active', '=', 1)
      .executeTakeFirstOrThrow();
    await cert.set({ not_after: '2020-01-01T00:00:00.000Z' }).where('active', '=', 1).execute();
    try {
      const voided = await req('POST', `/v1/companies/${h.companyId}/abandoned-numbers/void`, { json: {} });
      expect(voided.status).toBe(200);
      const results = (voided.body as { results: (Range & { success: boolean; error: unknown })[] }).results;
      expect(results).toContainEqual({
        modelo: 55,
        serie: 1,
        numeroInicial: next,
        numeroFinal: next + 1,
        success: false,
        inutilizacao: null,
        error: {
          status: 422,
          error: 'certificate_invalid',
          message: 'The A1 certificate expired on 2020-01-01T00:00:00.000Z: upload a valid one.',
          details: [{ field: 'certificate', error: 'expired' }],
        },
      });
    } finally {
      await cert.set({ not_after: active.not_after }).where('active', '=', 1).execute();
    }
  });
});
