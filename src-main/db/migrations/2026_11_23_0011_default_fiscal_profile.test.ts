// Migration 0011 on a database with companies made before it: each gets its CRT's default fiscal profile.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../client.ts';
import { migrationProvider } from './index.ts';
import { fiscalProfileCreateSchema } from '../../../src-shared/contracts/catalog.ts';
import { DEFAULT_FISCAL_PROFILES } from '../../../src-shared/tables/default-fiscal-profiles.ts';

const stamp = '2026-01-01T00:00:00.000Z';
let opened: OpenedDatabase | undefined;
let dir: string | undefined;

afterEach(async () => {
  await opened?.close();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  opened = undefined;
  dir = undefined;
});

async function migrateTo(db: OpenedDatabase['db'], name: string) {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}

function company(id: string, cnpj: string, crt: number, uf: string, cMun: string) {
  return {
    id,
    organization_id: 'org_old',
    cnpj,
    ie: '111222333444',
    im: null,
    x_nome: `Empresa ${id}`,
    x_fant: null,
    crt,
    x_lgr: 'Rua A',
    nro: '1',
    x_cpl: null,
    x_bairro: 'Centro',
    c_mun: cMun,
    x_mun: 'X',
    uf,
    cep: '01000000',
    fone: null,
    email: null,
    ambiente: 'homologacao' as const,
    authority: 'sandbox' as const,
    csc_id: null,
    csc_token_enc: null,
    nfce_qr_version: 2,
    created_at: stamp,
    updated_at: stamp,
  };
}

describe('migration 2026_11_23_0011_default_fiscal_profile', () => {
  it('gives every existing company a default profile from its CRT and UF, keeping the owner’s profiles', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-migration-'));
    opened = openDatabase(path.join(dir, 'balcao.sqlite'));
    const { db } = opened;
    await migrateTo(db, '2026_11_22_0010_company_logos');
    await db.insertInto('organizations').values({ id: 'org_old', name: 'Old', created_at: stamp }).execute();
    await db
      .insertInto('companies')
      .values([
        company('cmp_sn', '11222333000181', 1, 'SP', '3550308'),
        company('cmp_sub', '11444777000161', 2, 'MG', '3106200'),
        company('cmp_normal', '19131243000197', 3, 'RJ', '3304557'),
      ])
      .execute();
    // An owner's profile that already bears the default's name: it keeps the name and its content.
    const ownersTaxes = JSON.stringify({
      ICMS: { orig: 0, CST: '41' },
      PIS: { CST: '07' },
      COFINS: { CST: '07' },
    });
    await db
      .insertInto('fiscal_profiles')
      .values({
        id: 'fpr_owner',
        company_id: 'cmp_normal',
        name: DEFAULT_FISCAL_PROFILES.normal.name,
        cfop: '5405',
        taxes_json: ownersTaxes,
        created_at: stamp,
        updated_at: stamp,
      })
      .execute();

    await migrateTo(db, '2026_11_23_0011_default_fiscal_profile');

    const rows = await db
      .selectFrom('companies')
      .innerJoin('fiscal_profiles', 'fiscal_profiles.id', 'companies.default_fiscal_profile_id')
      .select([
        'companies.id as companyId',
        'fiscal_profiles.id as profileId',
        'fiscal_profiles.company_id as profileCompany',
        'fiscal_profiles.name',
        'fiscal_profiles.cfop',
        'fiscal_profiles.taxes_json',
      ])
      .orderBy('companies.id')
      .execute();
    expect(rows.map((r) => r.companyId)).toEqual(['cmp_normal', 'cmp_sn', 'cmp_sub']);
    const byCompany = new Map(rows.map((r) => [r.companyId, r]));
    for (const r of rows) {
      expect(r.profileCompany).toBe(r.companyId);
      expect(r.profileId).not.toBe('fpr_owner');
      expect(r.cfop).toBe('5102');
      // What the API will read back must pass the same schema a profile created through it passes.
      expect(
        fiscalProfileCreateSchema.safeParse({ name: r.name, CFOP: r.cfop, taxes: JSON.parse(r.taxes_json) })
          .success,
      ).toBe(true);
    }

    expect(byCompany.get('cmp_sn')?.name).toBe(DEFAULT_FISCAL_PROFILES.simples.name);
    expect(JSON.parse(byCompany.get('cmp_sn')?.taxes_json ?? '')).toEqual({
      ICMS: { orig: 0, CSOSN: '102' },
      PIS: { CST: '49' },
      COFINS: { CST: '49' },
    });
    expect(JSON.parse(byCompany.get('cmp_sub')?.taxes_json ?? '')).toEqual({
      ICMS: { orig: 0, CST: '00', modBC: 3, pICMS: '18.00' },
      PIS: { CST: '49' },
      COFINS: { CST: '49' },
    });
    expect(byCompany.get('cmp_normal')?.name).toBe(`${DEFAULT_FISCAL_PROFILES.normal.name} (2)`);
    expect(JSON.parse(byCompany.get('cmp_normal')?.taxes_json ?? '')).toEqual({
      ICMS: { orig: 0, CST: '00', modBC: 3, pICMS: '20.00' },
      PIS: { CST: '01', pPIS: '1.65' },
      COFINS: { CST: '01', pCOFINS: '7.60' },
      IBSCBS: { CST: '000', cClassTrib: '000001' },
    });
    const owner = await db
      .selectFrom('fiscal_profiles')
      .selectAll()
      .where('id', '=', 'fpr_owner')
      .executeTakeFirstOrThrow();
    expect(owner.name).toBe(DEFAULT_FISCAL_PROFILES.normal.name);
    expect(owner.taxes_json).toBe(ownersTaxes);
  });
});
