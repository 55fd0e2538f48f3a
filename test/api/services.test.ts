// The services catalogue (migration 0025, /v1/services): the table and the lookup the NFS-e uses for a
// national tax code's ISS rate, then the HTTP resource with its checks, search, paging and scoping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src-main/ids.ts';
import { servicesRepository, type ServiceInsert } from '../../src-main/catalog/services-repository.ts';
import { serviceViewSchema, type ServiceView } from '../../src-shared/contracts/services.ts';
import { dataListSchema } from '../../src-shared/contracts/common.ts';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { companyBody, startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

function row(fields: Partial<ServiceInsert> & { codigo: string }): ServiceInsert {
  const now = '2026-11-24T09:00:00.000Z';
  return {
    id: newId(),
    company_id: h.companyId,
    descricao: `Serviço ${fields.codigo}`,
    codigo_tributacao_nacional: '140101',
    aliquota_iss: null,
    valor: null,
    active: 1,
    created_at: now,
    updated_at: now,
    ...fields,
  };
}

describe('services table', () => {
  it('finds the active service of a national code, preferring one with a rate', async () => {
    const db = h.service.db;
    await servicesRepository.insert(db, row({ codigo: 'REPO-A', codigo_tributacao_nacional: '070201' }));
    await servicesRepository.insert(
      db,
      row({ codigo: 'REPO-B', codigo_tributacao_nacional: '070201', aliquota_iss: '3.50' }),
    );
    await servicesRepository.insert(
      db,
      row({ codigo: 'REPO-C', codigo_tributacao_nacional: '070202', aliquota_iss: '2.00', active: 0 }),
    );
    const found = await servicesRepository.findActiveByNationalCode(db, h.companyId, '070201');
    expect(found?.codigo).toBe('REPO-B');
    expect(found?.aliquota_iss).toBe('3.50');
    // An inactive service is not the catalogue's word any more.
    expect(await servicesRepository.findActiveByNationalCode(db, h.companyId, '070202')).toBeUndefined();
    expect(await servicesRepository.findActiveByNationalCode(db, 'other-company', '070201')).toBeUndefined();
  });

  it('refuses a second service with the same code in a company and a malformed national code', async () => {
    const db = h.service.db;
    await servicesRepository.insert(db, row({ codigo: 'REPO-DUP' }));
    await expect(servicesRepository.insert(db, row({ codigo: 'REPO-DUP' }))).rejects.toThrow(
      // SQLite's words, or PostgreSQL's (BALCAO_TEST_STORE=postgres).
      /UNIQUE|duplicate key value/,
    );
    await expect(
      servicesRepository.insert(db, row({ codigo: 'REPO-BAD', codigo_tributacao_nacional: '1401' })),
    ).rejects.toThrow(/CHECK|violates check constraint/);
  });
});

interface ErrorBody {
  error: string;
  message: string;
  details: { field: string; error: string }[];
}

async function post(json: unknown, status = 201) {
  const res = await h.request('POST', '/v1/services', { key: h.companyKey, json });
  expect(res.status, res.text).toBe(status);
  return res.body;
}

const create = async (json: Record<string, unknown>) =>
  serviceViewSchema.parse(await post(json)) as ServiceView;

async function list(query: string) {
  const res = await h.request('GET', `/v1/services?${query}`, { key: h.companyKey });
  expect(res.status, res.text).toBe(200);
  return dataListSchema(serviceViewSchema).parse(res.body);
}

describe('/v1/services', () => {
  it('creates a service with its national code, ISS rate and price, kept as exact 2-place text', async () => {
    const created = await create({
      codigo: 'INST-AR',
      descricao: 'Instalação de ar-condicionado',
      codigoTributacaoNacional: '140101',
      aliquotaIss: 3,
      valor: '250.5',
    });
    expect(created).toMatchObject({
      companyId: h.companyId,
      codigo: 'INST-AR',
      descricao: 'Instalação de ar-condicionado',
      codigoTributacaoNacional: '140101',
      aliquotaIss: '3.00',
      valor: '250.50',
      ativo: true,
    });
    const read = await h.request('GET', `/v1/services/${created.id}`, { key: h.companyKey });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);
    const stored = await servicesRepository.find(h.service.db, created.id);
    expect(stored?.aliquota_iss).toBe('3.00');
    expect(stored?.valor).toBe('250.50');
  });

  it("without a rate or a price both stay null (the municipality's rate, the price typed on the note)", async () => {
    const created = await create({
      codigo: 'REP-GEL',
      descricao: 'Reparo de geladeira',
      codigoTributacaoNacional: '140102',
    });
    expect(created.aliquotaIss).toBeNull();
    expect(created.valor).toBeNull();
  });

  it("accepts the NFS-e payload's snake_case names for the national code and the rate", async () => {
    const created = await create({
      codigo: 'SNAKE-1',
      descricao: 'Entrega expressa',
      codigo_tributacao_nacional: '160201',
      aliquota_iss: '2.5',
    });
    expect(created.codigoTributacaoNacional).toBe('160201');
    expect(created.aliquotaIss).toBe('2.50');
  });

  it('reports every faulty field at once: national code, rate bounds, price, missing text', async () => {
    const body = (await post(
      { codigo: '', codigoTributacaoNacional: '410101', aliquotaIss: '5.01', valor: '-1', extra: 1 },
      400,
    )) as ErrorBody;
    expect(body.error).toBe('validation_error');
    const fields = body.details.map((d) => d.field).sort();
    expect(fields).toEqual(
      expect.arrayContaining(['aliquotaIss', 'codigo', 'codigoTributacaoNacional', 'descricao', 'valor']),
    );
    expect(body.details.find((d) => d.field === 'codigoTributacaoNacional')?.error).toMatch(/item 41/);
    expect(body.details.find((d) => d.field === 'aliquotaIss')?.error).toMatch(/2\.00 and 5\.00/);
    expect(body.details.some((d) => /extra/.test(d.error) || d.field === 'extra')).toBe(true);
  });

  it('takes 2.00 and 5.00 but not 1.99 nor more than 2 places', async () => {
    const base = { descricao: 'Limite', codigoTributacaoNacional: '170101' };
    expect((await create({ ...base, codigo: 'LIM-2', aliquotaIss: '2.00' })).aliquotaIss).toBe('2.00');
    // Same national code and rate: a second active service may share it.
    expect((await create({ ...base, codigo: 'LIM-2B', aliquotaIss: '2' })).aliquotaIss).toBe('2.00');
    for (const aliquotaIss of ['1.99', '5.001', '0', 'abc', 5.5]) {
      const body = (await post({ ...base, codigo: 'LIM-X', aliquotaIss }, 400)) as ErrorBody;
      expect(body.details.map((d) => d.field)).toEqual(['aliquotaIss']);
    }
    const fine = await create({
      ...base,
      codigo: 'LIM-5',
      codigoTributacaoNacional: '170102',
      aliquotaIss: '5.00',
    });
    expect(fine.aliquotaIss).toBe('5.00');
  });

  it('refuses a taken code and a second rate for one national code among active services (409)', async () => {
    await create({
      codigo: 'DUP-1',
      descricao: 'Pintura',
      codigoTributacaoNacional: '070601',
      aliquotaIss: '4.00',
    });
    const dup = (await post(
      { codigo: 'DUP-1', descricao: 'Outra', codigoTributacaoNacional: '070601' },
      409,
    )) as ErrorBody;
    expect(dup.details).toEqual([{ field: 'codigo', error: 'already used' }]);
    const rate = (await post(
      {
        codigo: 'DUP-2',
        descricao: 'Pintura externa',
        codigoTributacaoNacional: '070601',
        aliquotaIss: '3.00',
      },
      409,
    )) as ErrorBody;
    expect(rate.details[0]?.field).toBe('aliquotaIss');
    expect(rate.message).toMatch(/DUP-1/);
    // Inactive, the other rate does not compete with the active one.
    const inactive = await create({
      codigo: 'DUP-3',
      descricao: 'Pintura antiga',
      codigoTributacaoNacional: '070601',
      aliquotaIss: '3.00',
      ativo: false,
    });
    expect(inactive.ativo).toBe(false);
    const found = await servicesRepository.findActiveByNationalCode(h.service.db, h.companyId, '070601');
    expect(found?.aliquota_iss).toBe('4.00');
  });

  it('replaces with PUT, deactivates with DELETE (kept, code taken) and PUT brings it back', async () => {
    const created = await create({
      codigo: 'MONT-1',
      descricao: 'Montagem de móveis',
      codigoTributacaoNacional: '140601',
    });
    h.clock.advance(1000);
    const put = await h.request('PUT', `/v1/services/${created.id}`, {
      key: h.companyKey,
      json: {
        codigo: 'MONT-1',
        descricao: 'Montagem de móveis planejados',
        codigoTributacaoNacional: '140601',
        aliquotaIss: '2.00',
        valor: 180,
      },
    });
    expect(put.status, put.text).toBe(200);
    const replaced = serviceViewSchema.parse(put.body);
    expect(replaced).toMatchObject({
      descricao: 'Montagem de móveis planejados',
      aliquotaIss: '2.00',
      valor: '180.00',
    });
    expect(replaced.updatedAt > created.updatedAt).toBe(true);
    expect(replaced.createdAt).toBe(created.createdAt);

    const del = await h.request('DELETE', `/v1/services/${created.id}`, { key: h.companyKey });
    expect(del.status, del.text).toBe(200);
    expect(serviceViewSchema.parse(del.body).ativo).toBe(false);
    const again = await h.request('DELETE', `/v1/services/${created.id}`, { key: h.companyKey });
    expect(again.status).toBe(200);
    expect(
      await servicesRepository.findActiveByNationalCode(h.service.db, h.companyId, '140601'),
    ).toBeUndefined();
    await post({ codigo: 'MONT-1', descricao: 'x', codigoTributacaoNacional: '140601' }, 409);

    const back = await h.request('PUT', `/v1/services/${created.id}`, {
      key: h.companyKey,
      json: {
        ...replaced,
        id: undefined,
        companyId: undefined,
        createdAt: undefined,
        updatedAt: undefined,
        ativo: true,
      },
    });
    expect(back.status, back.text).toBe(200);
    expect((back.body as ServiceView).ativo).toBe(true);
  });

  it('lists in the §4.6 shape, searches without accents, filters and pages', async () => {
    await create({ codigo: 'LST-1', descricao: 'Conserto de fogão', codigoTributacaoNacional: '140103' });
    await create({
      codigo: 'LST-2',
      descricao: 'CONSERTO DE FOGAO INDUSTRIAL',
      codigoTributacaoNacional: '140103',
    });
    await create({
      codigo: 'LST-3',
      descricao: 'Conserto antigo',
      codigoTributacaoNacional: '140104',
      ativo: false,
    });
    const fogao = await list('q=fogão');
    expect(fogao.data.map((s) => s.codigo).sort()).toEqual(['LST-1', 'LST-2']);
    expect((await list('q=LST-3')).data.map((s) => s.codigo)).toEqual(['LST-3']);
    expect((await list('codigoTributacaoNacional=140103')).meta.total).toBe(2);
    const active = await list('q=conserto&ativo=true');
    expect(active.data.map((s) => s.codigo).sort()).toEqual(['LST-1', 'LST-2']);
    expect((await list('q=conserto&ativo=false')).data.map((s) => s.codigo)).toEqual(['LST-3']);
    const page1 = await list('q=conserto&limit=2&page=1');
    const page2 = await list('q=conserto&limit=2&page=2');
    expect(page1.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(page2.data).toHaveLength(1);
    expect(new Set([...page1.data, ...page2.data].map((s) => s.codigo)).size).toBe(3);
    const bad = await h.request('GET', '/v1/services?ativo=talvez&codigoTributacaoNacional=12', {
      key: h.companyKey,
    });
    expect(bad.status).toBe(400);
    expect((bad.body as ErrorBody).details.map((d) => d.field).sort()).toEqual([
      'ativo',
      'codigoTributacaoNacional',
    ]);
  });

  it("keeps each company's services to itself: 403 across companies, 404 for an unknown id", async () => {
    const base12 = '410000000016';
    const other = await h.request('POST', '/v1/companies', {
      json: companyBody(base12 + cnpjCheckDigits(base12), {}),
    });
    expect(other.status, other.text).toBe(201);
    const otherId = (other.body as { id: string }).id;
    const theirs = await h.request('POST', `/v1/services?companyId=${otherId}`, {
      json: {
        codigo: 'INST-AR',
        descricao: 'Mesmo código, outra empresa',
        codigoTributacaoNacional: '140101',
      },
    });
    expect(theirs.status, theirs.text).toBe(201);
    const id = (theirs.body as ServiceView).id;
    expect((await h.request('GET', `/v1/services/${id}`, { key: h.companyKey })).status).toBe(403);
    expect((await h.request('DELETE', `/v1/services/${id}`, { key: h.companyKey })).status).toBe(403);
    expect((await list('q=INST-AR')).data.every((s) => s.companyId === h.companyId)).toBe(true);
    expect((await h.request('GET', `/v1/services/${newId()}`, { key: h.companyKey })).status).toBe(404);
  });
});
