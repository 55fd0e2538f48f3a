// Migration 0022 on queue rows of the previous release: each row gets its document kind, event type, the
// document a substitution waits for and whether a void covers one number, read once from its message.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../client.ts';
import { migrationProvider } from './index.ts';

const stamp = '2026-11-20T12:00:00.000Z';
const key = (modelo: string, n: number) =>
  `352611123456780001${'99'}${modelo}001${String(n).padStart(9, '0')}1000000010`;

let dir: string | undefined;
let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  close = undefined;
});

async function previousRelease(): Promise<Db> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-0022-'));
  const opened = openDatabase(path.join(dir, 'db.sqlite'));
  close = opened.close;
  const { error } = await new Migrator({ db: opened.db, provider: migrationProvider }).migrateTo(
    '2026_11_24_0021_company_resp_tec',
  );
  if (error !== undefined) throw error;
  // Queue rows and documents only: the company behind them plays no part in what the migration reads.
  await sql`PRAGMA foreign_keys = OFF`.execute(opened.db);
  return opened.db;
}

async function insertDocument(db: Db, id: string, modelo: 55 | 65, n: number, chave: string): Promise<void> {
  await sql`
    INSERT INTO documents (id, company_id, modelo, serie, n_nf, ambiente, tp_emis, chave, status, payload_json,
      xml, digest_value, v_nf, dh_emi, created_at, updated_at)
    VALUES (${id}, 'c1', ${modelo}, 1, ${n}, 'homologacao', 1, ${chave}, 'autorizada', '{}', '<NFe/>', 'x',
      '1.00', ${stamp}, ${stamp}, ${stamp})`.execute(db);
}

async function insertOutbox(
  db: Db,
  documentId: string | null,
  kind: string,
  message: string,
): Promise<number> {
  const result = await sql<{ id: number }>`
    INSERT INTO outbox (document_id, company_id, kind, message, state, attempts, next_try_at, created_at,
      updated_at)
    VALUES (${documentId}, 'c1', ${kind}, ${message}, 'pending', 0, ${stamp}, ${stamp}, ${stamp})
    RETURNING id`.execute(db);
  const row = result.rows[0];
  if (row === undefined) throw new Error('no row inserted');
  return row.id;
}

describe('migration 0022 (outbox operation)', () => {
  it('fills doc_kind, event_type, waits_for_document_id and single_number from the old messages', async () => {
    const db = await previousRelease();
    const attempt = key('65', 1);
    const replacement = key('65', 2);
    const nfe = key('55', 3);
    await insertDocument(db, 'attempt', 65, 1, attempt);
    await insertDocument(db, 'replacement', 65, 2, replacement);
    await insertDocument(db, 'nfe', 55, 3, nfe);
    const ids = {
      authorization: await insertOutbox(db, 'nfe', 'autorizacao', '<NFe><mod>55</mod></NFe>'),
      substitution: await insertOutbox(
        db,
        'attempt',
        'evento',
        `<envEvento><tpEvento>110112</tpEvento><chNFe>${attempt}</chNFe><chNFeRef>${replacement}</chNFeRef></envEvento>`,
      ),
      correction: await insertOutbox(
        db,
        'nfe',
        'evento',
        `<envEvento><tpEvento>110110</tpEvento></envEvento>`,
      ),
      singleVoid: await insertOutbox(
        db,
        null,
        'inutilizacao',
        '<inutNFe><mod>65</mod><serie>1</serie><nNFIni>7</nNFIni><nNFFin>7</nNFFin></inutNFe>',
      ),
      rangeVoid: await insertOutbox(
        db,
        null,
        'inutilizacao',
        '<inutNFe><mod>55</mod><serie>1</serie><nNFIni>7</nNFIni><nNFFin>9</nNFFin></inutNFe>',
      ),
    };

    const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(
      '2026_11_24_0022_outbox_operation',
    );
    if (error !== undefined) throw error;

    const rows = await db
      .selectFrom('outbox')
      .select(['id', 'doc_kind', 'event_type', 'waits_for_document_id', 'single_number'])
      .orderBy('id')
      .execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(ids.authorization)).toMatchObject({
      doc_kind: 'nfe',
      event_type: null,
      waits_for_document_id: null,
      single_number: 0,
    });
    expect(byId.get(ids.substitution)).toMatchObject({
      doc_kind: 'nfce',
      event_type: '110112',
      waits_for_document_id: 'replacement',
    });
    expect(byId.get(ids.correction)).toMatchObject({ doc_kind: 'nfe', event_type: '110110' });
    expect(byId.get(ids.singleVoid)).toMatchObject({ doc_kind: 'nfce', single_number: 1 });
    expect(byId.get(ids.rangeVoid)).toMatchObject({ doc_kind: 'nfe', single_number: 0 });
  });
});
