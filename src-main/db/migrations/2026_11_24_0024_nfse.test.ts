// Migration 0024 on a database with documents made before it: the rebuilt tables keep their rows, indexes and
// references, take the NFS-e's internal model 98, and the NFS-e settings table checks its codes.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  documentRow,
  insertRow,
  migrateTo,
  migrationBefore,
  useScratchDatabase,
  type ScratchDb,
} from './scratch-database.ts';

const stamp = '2026-01-01T00:00:00.000Z';
const scratchDb = useScratchDatabase();

const ORG = '8e9a4b1e-0000-4000-8000-000000000011';
const CMP = '8e9a4b1e-0000-4000-8000-000000000012';
const DOC = '8e9a4b1e-0000-4000-8000-000000000013';

function document(id: string, modelo: number, chave: string, nNf = 7) {
  return documentRow({ id, companyId: CMP, modelo, chave, stamp, nNf, xml: '<CTe/>' });
}

function insertDocument(db: ScratchDb, row: ReturnType<typeof document>) {
  return insertRow(db, 'documents', row);
}

describe('migration 2026_11_24_0024_nfse', () => {
  it('keeps rows, indexes and references, and accepts the internal model 98 where it was refused', async () => {
    const db = scratchDb();
    await migrateTo(db, await migrationBefore('2026_11_24_0024_nfse'));
    await sql`INSERT INTO organizations (id, name, created_at) VALUES (${ORG}, 'Org', ${stamp})`.execute(db);
    await sql`INSERT INTO companies (id, organization_id, cnpj, ie, x_nome, crt, x_lgr, nro, x_bairro, c_mun,
      x_mun, uf, cep, ambiente, authority, nfce_qr_version, created_at, updated_at)
      VALUES (${CMP}, ${ORG}, '11222333000181', '1', 'X', 1, 'R', '1', 'B', '3550308', 'Sao Paulo', 'SP',
      '01000000', 'homologacao', 'sandbox', 2, ${stamp}, ${stamp})`.execute(db);
    await insertDocument(db, document(DOC, 57, '3'.repeat(44)));
    await sql`INSERT INTO outbox (document_id, company_id, kind, message, state, attempts, next_try_at,
      created_at, updated_at) VALUES (${DOC}, ${CMP}, 'autorizacao', '<CTe/>', 'done', 1, ${stamp}, ${stamp},
      ${stamp})`.execute(db);
    const dps = `DPS35503082${'11222333000181'}00001${'1'.padStart(15, '0')}`;
    await expect(insertDocument(db, document('nfse-before', 98, dps))).rejects.toThrow(/CHECK/);

    await migrateTo(db, '2026_11_24_0024_nfse');

    const docs = await sql<{ id: string; modelo: number }>`SELECT id, modelo FROM documents`.execute(db);
    expect(docs.rows).toEqual([{ id: DOC, modelo: 57 }]);
    await insertDocument(db, document('nfse-after', 98, dps));
    await expect(insertDocument(db, document('other', 99, '6'.repeat(44), 8))).rejects.toThrow(/CHECK/);
    await sql`INSERT INTO number_sequences (company_id, modelo, serie, ambiente, next_number, created_at,
      updated_at) VALUES (${CMP}, 98, 1, 'homologacao', 1, ${stamp}, ${stamp})`.execute(db);
    await expect(insertDocument(db, document('dup', 57, '7'.repeat(44)))).rejects.toThrow(/UNIQUE/);
    const indexes = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents' AND sql IS NOT NULL
      ORDER BY name`.execute(db);
    expect(indexes.rows.map((r) => r.name)).toEqual([
      'documents_number',
      'documents_register_session',
      'documents_status',
    ]);
    expect((await sql`PRAGMA foreign_key_check`.execute(db)).rows).toEqual([]);
    expect((await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db)).rows[0]?.foreign_keys).toBe(
      1,
    );

    await sql`INSERT INTO company_nfse_settings (company_id, op_simp_nac, reg_ap_trib_sn, reg_esp_trib,
      updated_at) VALUES (${CMP}, 3, 1, 0, ${stamp})`.execute(db);
    await expect(
      sql`UPDATE company_nfse_settings SET op_simp_nac = 4 WHERE company_id = ${CMP}`.execute(db),
    ).rejects.toThrow(/CHECK/);
    await expect(
      sql`UPDATE company_nfse_settings SET reg_esp_trib = 7 WHERE company_id = ${CMP}`.execute(db),
    ).rejects.toThrow(/CHECK/);
  });
});
