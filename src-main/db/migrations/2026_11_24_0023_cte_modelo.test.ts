// Migration 0023 on a database with notes made before it: the rebuilt tables keep every row, index and
// reference, and take model 57 (CT-e) where they refused it.
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

const ORG = '8e9a4b1e-0000-4000-8000-000000000001';
const CMP = '8e9a4b1e-0000-4000-8000-000000000002';
const DOC = '8e9a4b1e-0000-4000-8000-000000000003';

function document(id: string, modelo: number, chave: string) {
  return documentRow({ id, companyId: CMP, modelo, chave, stamp });
}

function insertDocument(db: ScratchDb, row: ReturnType<typeof document>) {
  return insertRow(db, 'documents', row);
}

describe('migration 2026_11_24_0023_cte_modelo', () => {
  it('keeps rows, indexes and references, and accepts model 57 where 55/65 were the only ones', async () => {
    const db = scratchDb();
    await migrateTo(db, await migrationBefore('2026_11_24_0023_cte_modelo'));
    await sql`INSERT INTO organizations (id, name, created_at) VALUES (${ORG}, 'Org', ${stamp})`.execute(db);
    await sql`INSERT INTO companies (id, organization_id, cnpj, ie, x_nome, crt, x_lgr, nro, x_bairro, c_mun,
      x_mun, uf, cep, ambiente, authority, nfce_qr_version, created_at, updated_at)
      VALUES (${CMP}, ${ORG}, '11222333000181', '1', 'X', 1, 'R', '1', 'B', '3550308', 'Sao Paulo', 'SP',
      '01000000', 'homologacao', 'sandbox', 2, ${stamp}, ${stamp})`.execute(db);
    await insertDocument(db, document(DOC, 55, '3'.repeat(44)));
    await sql`INSERT INTO outbox (document_id, company_id, kind, message, state, attempts, next_try_at,
      created_at, updated_at) VALUES (${DOC}, ${CMP}, 'autorizacao', '<NFe/>', 'done', 1, ${stamp}, ${stamp},
      ${stamp})`.execute(db);
    // Refused before the migration.
    await expect(insertDocument(db, document('cte-before', 57, '4'.repeat(44)))).rejects.toThrow(/CHECK/);

    await migrateTo(db, '2026_11_24_0023_cte_modelo');

    const docs = await sql<{ id: string; modelo: number }>`SELECT id, modelo FROM documents`.execute(db);
    expect(docs.rows).toEqual([{ id: DOC, modelo: 55 }]);
    await insertDocument(db, document('cte-after', 57, '5'.repeat(44)));
    await expect(insertDocument(db, document('other', 58, '6'.repeat(44)))).rejects.toThrow(/CHECK/);
    await sql`INSERT INTO number_sequences (company_id, modelo, serie, ambiente, next_number, created_at,
      updated_at) VALUES (${CMP}, 57, 1, 'homologacao', 1, ${stamp}, ${stamp})`.execute(db);
    // The unique number index came back with the table.
    await expect(insertDocument(db, { ...document('dup', 55, '7'.repeat(44)) })).rejects.toThrow(/UNIQUE/);
    const indexes = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents' AND sql IS NOT NULL
      ORDER BY name`.execute(db);
    expect(indexes.rows.map((r) => r.name)).toEqual([
      'documents_number',
      'documents_register_session',
      'documents_status',
    ]);
    // The queue's reference to the note still holds, and foreign keys are enforced again.
    expect((await sql`PRAGMA foreign_key_check`.execute(db)).rows).toEqual([]);
    expect((await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db)).rows[0]?.foreign_keys).toBe(
      1,
    );
    await expect(
      sql`INSERT INTO outbox (document_id, company_id, kind, message, state, attempts, next_try_at, created_at,
        updated_at) VALUES ('missing', ${CMP}, 'autorizacao', 'x', 'pending', 0, ${stamp}, ${stamp}, ${stamp})`.execute(
        db,
      ),
    ).rejects.toThrow(/FOREIGN KEY/);
  });
});
