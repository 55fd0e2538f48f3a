// Migration 0027 on a database with documents made before it: the rebuilt tables keep their rows, indexes and
// references, take the DC-e's model 99, and the DC-e settings table checks its codes and defaults.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  documentRow,
  insertRow,
  migrateTo,
  migrationBefore,
  useScratchDatabase,
} from './scratch-database.ts';

const stamp = '2026-01-01T00:00:00.000Z';
const scratchDb = useScratchDatabase();

const ORG = '8e9a4b1e-0000-4000-8000-000000000021';
const CMP = '8e9a4b1e-0000-4000-8000-000000000022';
const DOC = '8e9a4b1e-0000-4000-8000-000000000023';

const document = (id: string, modelo: number, chave: string, nNf = 7) =>
  documentRow({ id, companyId: CMP, modelo, chave, stamp, nNf, xml: '<DCe/>' });

describe('migration 2026_11_24_0027_dce', () => {
  it('keeps rows, indexes and references, and accepts model 99 where it was refused', async () => {
    const db = scratchDb();
    await migrateTo(db, await migrationBefore('2026_11_24_0027_dce'));
    await sql`INSERT INTO organizations (id, name, created_at) VALUES (${ORG}, 'Org', ${stamp})`.execute(db);
    await sql`INSERT INTO companies (id, organization_id, cnpj, ie, x_nome, crt, x_lgr, nro, x_bairro, c_mun,
      x_mun, uf, cep, ambiente, authority, nfce_qr_version, created_at, updated_at)
      VALUES (${CMP}, ${ORG}, '11222333000181', '1', 'X', 1, 'R', '1', 'B', '3550308', 'Sao Paulo', 'SP',
      '01000000', 'homologacao', 'sandbox', 2, ${stamp}, ${stamp})`.execute(db);
    await insertRow(db, 'documents', document(DOC, 98, 'DPS'.padEnd(45, '1')));
    await sql`INSERT INTO outbox (document_id, company_id, kind, message, state, attempts, next_try_at,
      created_at, updated_at) VALUES (${DOC}, ${CMP}, 'autorizacao', '<DPS/>', 'done', 1, ${stamp}, ${stamp},
      ${stamp})`.execute(db);
    const dceKey = '35261111222333000181990010000000011100000011';
    await expect(insertRow(db, 'documents', document('dce-before', 99, dceKey))).rejects.toThrow(/CHECK/);
    await expect(sql`SELECT 1 FROM company_dce_settings`.execute(db)).rejects.toThrow(/no such table/);

    await migrateTo(db, '2026_11_24_0027_dce');

    const docs = await sql<{ id: string; modelo: number }>`SELECT id, modelo FROM documents`.execute(db);
    expect(docs.rows).toEqual([{ id: DOC, modelo: 98 }]);
    await insertRow(db, 'documents', document('dce-after', 99, dceKey, 1));
    await expect(insertRow(db, 'documents', document('other', 58, '6'.repeat(44), 8))).rejects.toThrow(
      /CHECK/,
    );
    await sql`INSERT INTO number_sequences (company_id, modelo, serie, ambiente, next_number, created_at,
      updated_at) VALUES (${CMP}, 99, 1, 'homologacao', 2, ${stamp}, ${stamp})`.execute(db);
    // The unique number index came back with the rebuild: model 99, series 1, number 1 is taken.
    await expect(insertRow(db, 'documents', document('dup', 99, '7'.repeat(44), 1))).rejects.toThrow(
      /UNIQUE/,
    );
    const indexes = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents' AND sql IS NOT NULL
      ORDER BY name`.execute(db);
    expect(indexes.rows.map((r) => r.name)).toEqual([
      'documents_number',
      'documents_register_session',
      'documents_status',
    ]);
    const outbox = await sql<{ document_id: string }>`SELECT document_id FROM outbox`.execute(db);
    expect(outbox.rows).toEqual([{ document_id: DOC }]);
    expect((await sql`PRAGMA foreign_key_check`.execute(db)).rows).toEqual([]);
    expect((await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db)).rows[0]?.foreign_keys).toBe(
      1,
    );

    await sql`INSERT INTO company_dce_settings (company_id, updated_at) VALUES (${CMP}, ${stamp})`.execute(
      db,
    );
    const settings = await sql`SELECT tp_emit, site, serie FROM company_dce_settings`.execute(db);
    expect(settings.rows).toEqual([{ tp_emit: 1, site: null, serie: 1 }]);
    await expect(
      sql`UPDATE company_dce_settings SET tp_emit = 4 WHERE company_id = ${CMP}`.execute(db),
    ).rejects.toThrow(/CHECK/);
    await expect(
      sql`UPDATE company_dce_settings SET serie = 1000 WHERE company_id = ${CMP}`.execute(db),
    ).rejects.toThrow(/CHECK/);
    await sql`DELETE FROM outbox`.execute(db);
    await sql`DELETE FROM documents`.execute(db);
    await sql`DELETE FROM number_sequences`.execute(db);
    await sql`DELETE FROM companies WHERE id = ${CMP}`.execute(db);
    expect((await sql`SELECT * FROM company_dce_settings`.execute(db)).rows).toEqual([]);
  });
});
