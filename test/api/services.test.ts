// The services catalogue (migration 0025, /v1/services): the table and the lookup the NFS-e uses for a
// national tax code's ISS rate, then the HTTP resource with its checks, search, paging and scoping.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src-main/ids.ts';
import { servicesRepository, type ServiceRow } from '../../src-main/catalog/services-repository.ts';
import { startHarness, type Harness } from './harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
}, 60_000);

afterAll(async () => {
  await h?.stop();
});

function row(fields: Partial<ServiceRow> & { codigo: string }): ServiceRow {
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
    await expect(servicesRepository.insert(db, row({ codigo: 'REPO-DUP' }))).rejects.toThrow(/UNIQUE/);
    await expect(
      servicesRepository.insert(db, row({ codigo: 'REPO-BAD', codigo_tributacao_nacional: '1401' })),
    ).rejects.toThrow(/CHECK/);
  });
});
