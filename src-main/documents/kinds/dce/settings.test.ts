// The company's DC-e settings: defaults without a row, every faulty field reported at once, saved and read
// back as GET shows them, and a second save replacing the first.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../errors.ts';
import { migrateTo, useScratchDatabase } from '../../../db/migrations/scratch-database.ts';
import { DEFAULT_DCE_SETTINGS, dceSettingsOf, saveDceSettings } from './settings.ts';

const scratchDb = useScratchDatabase();
const stamp = '2026-11-24T13:00:00.000Z';
const ORG = '8e9a4b1e-0000-4000-8000-000000000031';
const CMP = '8e9a4b1e-0000-4000-8000-000000000032';

async function withCompany() {
  const db = scratchDb();
  await migrateTo(db, '2026_11_24_0027_dce');
  await sql`INSERT INTO organizations (id, name, created_at) VALUES (${ORG}, 'Org', ${stamp})`.execute(db);
  await sql`INSERT INTO companies (id, organization_id, cnpj, ie, x_nome, crt, x_lgr, nro, x_bairro, c_mun,
    x_mun, uf, cep, ambiente, authority, nfce_qr_version, created_at, updated_at)
    VALUES (${CMP}, ${ORG}, '11222333000181', '1', 'X', 1, 'R', '1', 'B', '3550308', 'Sao Paulo', 'SP',
    '01000000', 'homologacao', 'sandbox', 2, ${stamp}, ${stamp})`.execute(db);
  return db;
}

describe('DC-e settings', () => {
  it('gives the defaults until saved, then what was saved', async () => {
    const db = await withCompany();
    expect(await dceSettingsOf(db, CMP)).toEqual(DEFAULT_DCE_SETTINGS);
    expect(DEFAULT_DCE_SETTINGS).toEqual({
      tipo_emitente: 'marketplace',
      site: null,
      serie: 1,
      padrao: true,
    });

    const saved = await saveDceSettings(
      db,
      CMP,
      { tipo_emitente: 'transportadora', site: ' loja.example.com.br ', serie: 7 },
      stamp,
    );
    expect(saved).toEqual({
      tipo_emitente: 'transportadora',
      site: 'loja.example.com.br',
      serie: 7,
      padrao: false,
    });
    const row = await sql`SELECT tp_emit, site, serie FROM company_dce_settings`.execute(db);
    expect(row.rows).toEqual([{ tp_emit: 3, site: 'loja.example.com.br', serie: 7 }]);

    // Omitted fields take their defaults: PUT replaces the settings, it does not merge them.
    expect(await saveDceSettings(db, CMP, { tipo_emitente: 'proprio' }, stamp)).toEqual({
      tipo_emitente: 'proprio',
      site: null,
      serie: 1,
      padrao: false,
    });
  });

  it('reports every faulty field at once and stores nothing', async () => {
    const db = await withCompany();
    const error = await saveDceSettings(db, CMP, {
      tipo_emitente: 'correios',
      site: 'x',
      serie: 1000,
      extra: 1,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    const details = (error as DomainError).details;
    expect(details.map((d) => d.field).sort()).toEqual(['body', 'serie', 'site', 'tipo_emitente']);
    // An unknown key is reported on the body, naming the key.
    expect(details.find((d) => d.field === 'body')?.error).toContain('extra');
    expect(await dceSettingsOf(db, CMP)).toEqual(DEFAULT_DCE_SETTINGS);
  });
});
