// Migration 0026 on a catalogue made before it: the services keep their rows with no classification (the
// NFS-e's defaults), and the new columns refuse codes of the wrong length.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo, useScratchDatabase } from './scratch-database.ts';

const stamp = '2026-01-01T00:00:00.000Z';
const scratchDb = useScratchDatabase();

const ORG = '8e9a4b1e-0000-4000-8000-000000000021';
const CMP = '8e9a4b1e-0000-4000-8000-000000000022';
const SVC = '8e9a4b1e-0000-4000-8000-000000000023';

describe('migration 2026_11_24_0026_services_ibscbs', () => {
  it('keeps the services with a null classification and checks the codes it stores', async () => {
    const db = scratchDb();
    await migrateTo(db, '2026_11_24_0025_services');
    await sql`INSERT INTO organizations (id, name, created_at) VALUES (${ORG}, 'Org', ${stamp})`.execute(db);
    await sql`INSERT INTO companies (id, organization_id, cnpj, ie, x_nome, crt, x_lgr, nro, x_bairro, c_mun,
      x_mun, uf, cep, ambiente, authority, nfce_qr_version, created_at, updated_at)
      VALUES (${CMP}, ${ORG}, '11222333000181', '1', 'X', 1, 'R', '1', 'B', '3550308', 'Sao Paulo', 'SP',
      '01000000', 'homologacao', 'sandbox', 2, ${stamp}, ${stamp})`.execute(db);
    await sql`INSERT INTO services (id, company_id, codigo, descricao, codigo_tributacao_nacional, aliquota_iss,
      valor, active, created_at, updated_at)
      VALUES (${SVC}, ${CMP}, 'INST', 'Instalação', '140101', '5.00', null, 1, ${stamp}, ${stamp})`.execute(
      db,
    );

    await migrateTo(db, '2026_11_24_0026_services_ibscbs');
    const row = await db
      .selectFrom('services')
      .select(['codigo', 'aliquota_iss', 'ibscbs_cst', 'c_class_trib', 'c_ind_op', 'pis_cofins_cst'])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      codigo: 'INST',
      aliquota_iss: '5.00',
      ibscbs_cst: null,
      c_class_trib: null,
      c_ind_op: null,
      pis_cofins_cst: null,
    });
    const set = (column: string, value: string) =>
      sql`UPDATE services SET ${sql.ref(column)} = ${value} WHERE id = ${SVC}`.execute(db);
    await set('ibscbs_cst', '200');
    await set('c_class_trib', '200029');
    await set('c_ind_op', '030102');
    await set('pis_cofins_cst', '06');
    await expect(set('ibscbs_cst', '20')).rejects.toThrow(/CHECK/);
    await expect(set('c_class_trib', '2000290')).rejects.toThrow(/CHECK/);
    await expect(set('c_ind_op', '0301')).rejects.toThrow(/CHECK/);
    await expect(set('pis_cofins_cst', '6')).rejects.toThrow(/CHECK/);
  });
});
