// Conformance, specification §7 (errors): the error body, each HTTP status row, and each authority code
// (cStat) the service can meet — produced by the service's own checks or by the sandbox authority.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyBody } from '../api/harness.ts';
import {
  authorizedNfce,
  authorizedNfe,
  cnpjOf,
  cStatsIn,
  createNfce,
  createNfe,
  customerA,
  expectErrorBody,
  expectFieldError,
  expectRejection,
  itemA,
  nfceA,
  nfeA,
  sendAndSettle,
  startContract,
  waitFor,
  type Contract,
  type Doc,
} from './harness.ts';
import { createCteCustomer, ctePayload } from '../api/cte-helpers.ts';
import { companyMunicipio, configureMunicipio, issueNfse, nfsePayload } from './nfse.ts';

let c: Contract;
beforeAll(async () => {
  c = await startContract();
});
afterAll(() => c.stop());

const UNKNOWN_UUID = '7d444840-9dc0-4a3b-9c5a-1f0e2d3c4b5a';

async function faults(json: unknown): Promise<void> {
  const res = await c.call('POST', '/v1/sandbox/faults', { key: c.orgKey, json });
  expect(res.status, res.text).toBe(200);
}

/** The sandbox refuses the next note with `cStat`; the note ends `erro` and carries the code. */
async function authorityRejects(kind: 'nfe' | 'nfce', cStat: number): Promise<Doc> {
  await faults({ reject: cStat });
  const draft = kind === 'nfe' ? await createNfe(c) : await createNfce(c);
  const doc = await sendAndSettle(c, kind, draft.id);
  expect(doc.status, JSON.stringify(doc)).toBe('erro');
  expect(cStatsIn(doc), JSON.stringify(doc)).toContain(cStat);
  return doc;
}

async function setCsc(json: Record<string, string>): Promise<void> {
  const res = await c.call('PUT', '/v1/companies/:id/config', { params: { id: c.companyId }, json });
  expect(res.status, res.text).toBe(200);
}

function bootstrapCsc(): { id: string; token: string } {
  const line = c.h.service.bootstrap.lines.find((l) => l.includes('NFC-e CSC')) ?? '';
  const [, id = '', token = ''] = /id (\d+)\s+token (\S+)/.exec(line) ?? [];
  return { id, token };
}

describe('§7 Error body', () => {
  it('§7 error — string, error kind, e.g. validation_error', async () => {
    const res = await c.call('POST', '/v1/nfe', { json: {} });
    const body = expectErrorBody(res, 400);
    expect(body.error).toBe('validation_error');
  });

  it('§7 message — string, text', async () => {
    const body = expectErrorBody(await c.call('POST', '/v1/nfe', { json: {} }), 400);
    expect(body.message.length).toBeGreaterThan(0);
  });

  it('§7 details — array of {field, error}, every faulty field at once', async () => {
    const res = await c.call('POST', '/v1/nfe', {
      json: nfeA({
        naturezaOperacao: undefined,
        customer: customerA({ cpfCnpj: '123' }),
        itens: [itemA({ ncm: '12', quantidade: undefined })],
        pagamentos: [{ forma: 'troca', valor: 21 }],
      }),
    });
    const body = expectErrorBody(res, 400);
    const fields = body.details.map((d) => d.field);
    for (const field of [
      'naturezaOperacao',
      'customer.cpfCnpj',
      'itens[0].ncm',
      'itens[0].quantidade',
      'pagamentos[0].forma',
    ]) {
      expect(fields, res.text).toContain(field);
    }
  });
});

describe('§7 HTTP statuses', () => {
  it('§7 HTTP 200, 201 — success', async () => {
    const created = await c.call('POST', '/v1/nfe', { json: nfeA() });
    expect(created.status, created.text).toBe(201);
    const read = await c.call('GET', '/v1/nfe/:id', { params: { id: (created.body as Doc).id } });
    expect(read.status).toBe(200);
  });

  it('§7 HTTP 202 — accepted for asynchronous processing', async () => {
    const draft = await createNfe(c);
    const res = await c.call('POST', '/v1/nfe/:id/send', { params: { id: draft.id } });
    expect(res.status, res.text).toBe(202);
    await waitFor(c, '/v1/nfe/:id', draft.id, (d) => d.status !== 'processando');
  });

  it('§7 HTTP 400 — malformed JSON', async () => {
    const res = await c.call('POST', '/v1/nfe', { raw: '{"naturezaOperacao": "Venda",' });
    expectErrorBody(res, 400);
  });

  it('§7 HTTP 400 — invalid parameters', async () => {
    expectFieldError(await c.call('GET', '/v1/nfe', { query: { page: 0 } }), 'page');
    expectFieldError(await c.call('GET', '/v1/nfe', { query: { data_inicio: '01/02/2026' } }), 'data_inicio');
  });

  it('§7 HTTP 401 — key missing, invalid or expired', async () => {
    expectErrorBody(await c.call('GET', '/v1/nfe', { key: null }), 401);
    expectErrorBody(await c.call('GET', '/v1/nfe', { key: 'invalida' }), 401);
  });

  it('§7 HTTP 403 — credential lacks permission for the company resource', async () => {
    const other = await c.call('POST', '/v1/companies', {
      key: c.orgKey,
      json: companyBody(cnpjOf('556677880001'), { xNome: 'EMPRESA VIZINHA LTDA' }),
    });
    expect(other.status, other.text).toBe(201);
    const id = (other.body as { id: string }).id;
    expectErrorBody(await c.call('GET', '/v1/companies/:id/nfe-sequences', { params: { id } }), 403);
  });

  it('§7 HTTP 404 — fiscal document not found', async () => {
    expectErrorBody(await c.call('GET', '/v1/nfe/:id', { params: { id: UNKNOWN_UUID } }), 404);
    expectErrorBody(await c.call('GET', '/v1/nfce/:id', { params: { id: UNKNOWN_UUID } }), 404);
    expectErrorBody(await c.call('POST', '/v1/nfe/:id/send', { params: { id: UNKNOWN_UUID } }), 404);
  });

  it('§7 HTTP 404 — company not found', async () => {
    // With the organization key, which may reach every company of the organization.
    const res = await c.call('GET', '/v1/companies/:id/nfe-sequences', {
      key: c.orgKey,
      params: { id: UNKNOWN_UUID },
    });
    expectErrorBody(res, 404);
  });

  it('§7 HTTP 404 — fiscal resource not found (webhook, customer)', async () => {
    expectErrorBody(
      await c.call('PUT', '/v1/webhooks/:id', { params: { id: UNKNOWN_UUID }, json: { ativo: false } }),
      404,
    );
    const payload = nfeA();
    delete payload['customer'];
    const res = await c.call('POST', '/v1/nfe', { json: { ...payload, customerId: UNKNOWN_UUID } });
    expect([400, 404], res.text).toContain(res.status);
    expectErrorBody(res, res.status);
  });

  it('§7 HTTP 422 — fiscal business rule failure, with cStat', async () => {
    const res = await c.call('POST', '/v1/nfce', {
      json: nfceA({ itens: [itemA({ valorUnitario: 12000 })], pagamentos: [{ forma: '01', valor: 24000 }] }),
    });
    if (res.status === 201) {
      const sent = await c.call('POST', '/v1/nfce/:id/send', { params: { id: (res.body as Doc).id } });
      expectErrorBody(sent, 422);
      expect(cStatsIn(sent.body)).toContain(780);
    } else {
      expectErrorBody(res, 422);
      expect(cStatsIn(res.body)).toContain(780);
    }
  });

  it('§7 HTTP 429 — request limit exceeded; header Retry-After (seconds)', async () => {
    let limited: Awaited<ReturnType<Contract['call']>> | undefined;
    for (let i = 0; i < 200 && limited === undefined; i++) {
      const res = await c.call('GET', '/v1/nfe', { query: { pageSize: 1 }, keep429: true });
      if (res.status === 429) limited = res;
    }
    expect(limited, 'a 429 within 200 requests in the same second').toBeDefined();
    if (limited === undefined) return;
    expectErrorBody(limited, 429);
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/);
    c.h.clock.advance(Number(limited.headers.get('Retry-After')) * 1000);
  });

  it.todo('§7 HTTP 500 — unexpected internal failure (no way to provoke one from outside)');

  it('§7 HTTP 502 — tax authority offline or unstable', async () => {
    await faults({ online: false });
    try {
      const res = await c.call('POST', '/v1/nfe/inutilizar', {
        json: {
          serie: 1,
          numeroInicial: 950,
          numeroFinal: 950,
          justificativa: 'Numeracao pulada por falha no sistema',
          modelo: '55',
        },
      });
      expectErrorBody(res, 502);
    } finally {
      await faults({ online: true });
    }
  });
});

describe('§7 Authority codes — success', () => {
  it('§7 cStat 100 — authorized', async () => {
    const doc = await authorizedNfe(c);
    expect(cStatsIn(doc), JSON.stringify(doc)).toContain(100);
  });

  // The sandbox stamps the issue time when the note is sent and answers 150 only for late notes; nothing in the
  // API makes a note late, so this row cannot be driven from outside.
  it.todo('§7 cStat 150 — authorized after deadline (no way to make a note late from outside)');

  it('§7 cStat 135 — event registered and linked (cancellation, CC-e, manifestation)', async () => {
    const doc = await authorizedNfe(c);
    const letter = await c.call('POST', '/v1/nfe/:id/correction-letter', {
      params: { id: doc.id },
      json: { correcao: 'Corrige a descricao do produto vendido' },
    });
    expect(letter.status, letter.text).toBe(202);
    expect(cStatsIn(letter.body)).toContain(135);
  });

  it('§7 cStat 102 — number void homologated', async () => {
    const res = await c.call('POST', '/v1/nfe/inutilizar', {
      json: {
        serie: 1,
        numeroInicial: 960,
        numeroFinal: 961,
        justificativa: 'Numeracao pulada por falha',
        modelo: '55',
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(cStatsIn(res.body)).toContain(102);
  });
});

describe('§7 Authority codes — NF-e rejections', () => {
  it('§7 cStat 204 — duplicate NF-e: the note is queried before a new one is created', async () => {
    // The authority authorizes but its answer is lost; the retry meets 204 and the service queries the note.
    await faults({ loseResponse: { times: 1, services: ['NFeAutorizacao4'] } });
    const draft = await createNfe(c);
    const doc = await sendAndSettle(c, 'nfe', draft.id);
    expect(doc.status, JSON.stringify(doc)).toBe('autorizada');
    expect(await c.h.service.sandbox?.registry.authorizationCount(String(doc.chave_acesso))).toBe(1);
    // The lost answer is only noticed when the request times out (several seconds of real time).
  }, 60_000);

  it('§7 cStat 539 — duplicate with different access key: no second note for the number', async () => {
    await faults({ reject: 539 });
    const draft = await createNfe(c);
    const doc = await sendAndSettle(c, 'nfe', draft.id);
    // Either the service resolves it (the number holds one authorized note) or the client sees the code.
    if (doc.status === 'autorizada') {
      expect(await c.h.service.sandbox?.registry.authorizationCount(String(doc.chave_acesso))).toBe(1);
    } else {
      expect(doc.status).toBe('erro');
      expect(cStatsIn(doc)).toContain(539);
    }
  });

  it('§7 cStat 696 — non-taxpayer recipient must be final consumer; the service sets indFinal when omitted', async () => {
    // Omitted: the service sets indFinal 1 and the note is authorized.
    const omitted = await authorizedNfe(c, nfeA());
    expect(omitted.status).toBe('autorizada');
    // Given as 0 with a non-taxpayer recipient: the rule applies.
    await expectRejection(c, 'nfe', nfeA({ indFinal: 0 }), 696);
  });

  it('§7 cStat 215 — XML schema failure', async () => {
    await authorityRejects('nfe', 215);
  });

  it('§7 cStat 232 — recipient state registration missing', async () => {
    await authorityRejects('nfe', 232);
  });

  it('§7 cStat 321 — devolution note without referenced document', async () => {
    const devolution = nfeA({ finalidade: 4, tipoOperacao: '0', pagamentos: [{ forma: '90', valor: 0 }] });
    await expectRejection(c, 'nfe', devolution, 321);
  });

  it('§7 cStat 301, 302 — use denied (irregular issuer or recipient)', async () => {
    // "Number cannot be reused, note cannot be cancelled": not an `erro` to correct and resend with the same
    // number, so the note ends `denegada` (documented in docs/api.md), carrying the authority's cStat.
    for (const cStat of [301, 302]) {
      await faults({ reject: cStat });
      const draft = await createNfe(c);
      const doc = await sendAndSettle(c, 'nfe', draft.id);
      expect(doc.status, JSON.stringify(doc)).toBe('denegada');
      expect(cStatsIn(doc), JSON.stringify(doc)).toContain(cStat);
      const resend = await c.call('PUT', '/v1/nfe/:id', { params: { id: draft.id }, json: nfeA() });
      expect(resend.status).toBe(409);
    }
  });
});

describe('§7 Authority codes — NFC-e rejections', () => {
  // The embedded authority registers whatever CSC the company configures (as a taxpayer registers it at
  // SEFAZ), so the CSC rejections come from the sandbox switch: the rows check the code reaches the client.
  it('§7 cStat 462 — no active CSC', async () => {
    await authorityRejects('nfce', 462);
  });

  it('§7 cStat 463 — CSC id differs from the registered one', async () => {
    await authorityRejects('nfce', 463);
  });

  it('§7 cStat 464 — CSC revoked (update the token)', async () => {
    await authorityRejects('nfce', 464);
    // Updating the token (PUT config) is the resolution: the next sale is authorized.
    const csc = bootstrapCsc();
    await setCsc({ id_csc: csc.id, csc_nfce: csc.token });
    expect((await authorizedNfce(c)).status).toBe('autorizada');
  });

  it('§7 cStat 780 — NFC-e total above the anonymous-sale ceiling', async () => {
    const above = nfceA({
      itens: [itemA({ valorUnitario: 6000 })],
      pagamentos: [{ forma: '01', valor: 12000 }],
    });
    await expectRejection(c, 'nfce', above, 780);
    // Identifying the buyer's CPF is the resolution: the note is no longer refused with 780.
    const identified = await c.call('POST', '/v1/nfce', {
      json: { ...above, customer: { cpfCnpj: '52998224725', nome: 'Comprador' } },
    });
    expect(identified.status, identified.text).toBe(201);
  });

  it('§7 cStat 703 — issue time later than authority time', async () => {
    await authorityRejects('nfce', 703);
  });
});

describe('§7 other rejections', () => {
  /** A local rejection of POST /v1/nfse: 422 fiscal_rejection with the code, and no DPS number used. */
  async function nfseRefused(contract: Contract, payload: unknown, code: string): Promise<void> {
    const before = await contract.call('GET', '/v1/nfse', { query: { limit: 1 } });
    const total = (before.body as { meta: { total: number } }).meta.total;
    const res = await contract.call('POST', '/v1/nfse', { json: payload });
    const body = expectErrorBody(res, 422);
    expect(body.error).toBe('fiscal_rejection');
    expect(body.cStat, res.text).toBe(code);
    const after = await contract.call('GET', '/v1/nfse', { query: { limit: 1 } });
    expect((after.body as { meta: { total: number } }).meta.total).toBe(total);
  }

  it('§7 NFS-e E001 — invalid national tax code (6 digits)', async () => {
    await nfseRefused(c, nfsePayload({ codigo_tributacao_nacional: '01010' }), 'E001');
    await nfseRefused(c, nfsePayload({ codigo_tributacao_nacional: '010100' }), 'E001');
    // The correction: a code of the national list is authorized.
    expect((await issueNfse(c, nfsePayload())).status).toBe('authorized');
  });

  it('§7 NFS-e E004 — municipality not part of the national agreement', async () => {
    // A service of its own: the municipal parameters are remembered for an hour once asked.
    const own = await startContract();
    try {
      const cMun = await companyMunicipio(own);
      await configureMunicipio(own, { cMun, aderente: false });
      await nfseRefused(own, nfsePayload(), 'E004');
    } finally {
      await own.stop();
    }
  });

  it('§7 NFS-e E012 — ISS rate differs from municipal registration (below 2% or above 5%)', async () => {
    const cMun = await companyMunicipio(c);
    // The municipality registers 1.50 % for this service: below the 2 % floor.
    await configureMunicipio(c, { cMun, aliquotas: { '140101': '1.50' } });
    await nfseRefused(c, nfsePayload({ codigo_tributacao_nacional: '140101' }), 'E012');
    // It registers 3.00 % for another, while the shop's catalogue gives that service 5.00 %.
    await configureMunicipio(c, { cMun, aliquotas: { '171901': '3.00' } });
    const service = await c.call('POST', '/v1/services', {
      json: {
        codigo: 'CONSULT',
        descricao: 'Consultoria',
        codigoTributacaoNacional: '171901',
        aliquotaIss: '5.00',
      },
    });
    expect(service.status, service.text).toBe(201);
    await nfseRefused(c, nfsePayload({ codigo_tributacao_nacional: '171901' }), 'E012');
  });
  const cteRejections: Array<[string, string, Record<string, unknown>]> = [
    ['512', 'total differs from the sum of componentesValor', { valorTotal: 1250.49 }],
    ['522', 'invalid CFOP (5353 within a state, 6353 between states)', { cfop: '5353' }],
    [
      '529',
      'invalid or nonexistent referenced NF-e key in docsOriginarios',
      { docsOriginarios: ['4'.repeat(44)] },
    ],
  ];
  for (const [code, what, override] of cteRejections) {
    it(`§7 CT-e cStat ${code} — ${what}`, async () => {
      const customerId = await createCteCustomer(c.h, c.companyId);
      const res = await c.call('POST', '/v1/cte', { json: { ...ctePayload(customerId), ...override } });
      const body = expectErrorBody(res, 422);
      expect(body.error).toBe('fiscal_rejection');
      expect(cStatsIn(res.body), res.text).toEqual([Number(code)]);
    });
  }

  it('§7 correction rule — correct with PUT and send again, keeping the number', async () => {
    const rejected = await authorityRejects('nfe', 225);
    const put = await c.call('PUT', '/v1/nfe/:id', { params: { id: rejected.id }, json: nfeA() });
    expect(put.status, put.text).toBe(200);
    const doc = await sendAndSettle(c, 'nfe', rejected.id);
    expect(doc).toMatchObject({ status: 'autorizada', numero: rejected.numero });
  });
});
