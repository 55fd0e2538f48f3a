// Migration 0030: notes stored before it get the summary their view reads (the same as read from their XML),
// in batches and idempotently; the list counters start equal to a count of the rows and stay equal through
// inserts, status and date changes and deletes, whatever path writes them.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { summaryOfXml } from '../../documents/list-summary.ts';
import { backfillListSummaries } from './2026_11_24_0030_list_summary.ts';
import { KEY_0030 } from './document-counts.ts';
import { expectCountersExact, migrateTo, useScratchDatabase, type ScratchDb } from './scratch-database.ts';

const scratchDb = useScratchDatabase();
/** A store of documents alone: the company they name is not what these tests are about. */
const documentsOnly = async (db: ScratchDb) => {
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
};
const CMP = '8e9a4b1e-0000-4000-8000-000000000300';

const xmlOf = (n: number) =>
  `<NFe><infNFe Id="NFe${n}"><det nItem="1"><prod><cProd>P${n}</cProd><xProd>Item &amp; ${n}</xProd>` +
  `<NCM>22011000</NCM><CFOP>5102</CFOP><qCom>1.0000</qCom><vUnCom>${n}.00</vUnCom><vProd>${n}.00</vProd>` +
  `</prod></det><total><ICMSTot><vICMS>0.00</vICMS><vNF>${n}.00</vNF></ICMSTot></total></infNFe></NFe>`;

async function insert(db: ScratchDb, n: number, modelo: number, status: string, dhEmi: string) {
  await sql`INSERT INTO documents (id, company_id, modelo, serie, n_nf, ambiente, tp_emis, chave, status,
      payload_json, xml, digest_value, v_nf, dh_emi, created_at, updated_at)
    VALUES (${`d${n}`}, ${CMP}, ${modelo}, 1, ${n}, 'homologacao', 1, ${String(n).padStart(44, '0')},
      ${status}, '{}', ${xmlOf(n)}, 'x', ${`${n}.00`}, ${dhEmi}, ${`2026-01-01T00:00:0${n % 10}Z`}, 'x')`.execute(
    db,
  );
}

const countersMatch = (db: ScratchDb) => expectCountersExact(db, KEY_0030);

describe('migration 2026_11_24_0030_list_summary', () => {
  it('summarizes the notes stored before it, as their XML reads, and counts them', async () => {
    const db = scratchDb();
    await migrateTo(db, '2026_11_24_0028_list_indexes');
    await documentsOnly(db);
    for (let n = 1; n <= 7; n++)
      await insert(
        db,
        n,
        n === 7 ? 57 : 65,
        n % 2 === 0 ? 'erro' : 'autorizada',
        `2026-0${n}-01T10:00:00-03:00`,
      );
    await migrateTo(db, '2026_11_24_0030_list_summary');
    const rows = await sql<{ id: string; modelo: number; xml: string; list_summary: string | null }>`
      SELECT id, modelo, xml, list_summary FROM documents ORDER BY n_nf`.execute(db);
    for (const row of rows.rows) {
      if (row.modelo === 57) expect(row.list_summary).toBeNull();
      else expect(JSON.parse(row.list_summary ?? 'null')).toEqual(summaryOfXml(row.xml));
    }
    await countersMatch(db);

    // Interrupted or run again: only rows without a summary are written, by batches of any size.
    await sql`UPDATE documents SET list_summary = NULL WHERE n_nf IN (2, 5)`.execute(db);
    expect(await backfillListSummaries(db, 1)).toBe(2);
    expect(await backfillListSummaries(db)).toBe(0);
  });

  it('keeps the counters exact through inserts, changes of status and date, and deletes', async () => {
    const db = scratchDb();
    await migrateTo(db, '2026_11_24_0030_list_summary');
    await documentsOnly(db);
    for (let n = 1; n <= 5; n++) await insert(db, n, 65, 'rascunho', '2026-03-01T10:00:00-03:00');
    await countersMatch(db);
    await sql`UPDATE documents SET status = 'autorizada' WHERE n_nf <= 3`.execute(db);
    await sql`UPDATE documents SET dh_emi = '2026-03-02T00:10:00-03:00' WHERE n_nf = 1`.execute(db);
    // A write of every column (as a rebuild does) that changes none of the counted ones moves nothing.
    await sql`UPDATE documents SET status = status, dh_emi = dh_emi, modelo = modelo WHERE n_nf = 2`.execute(
      db,
    );
    await sql`DELETE FROM documents WHERE n_nf = 5`.execute(db);
    await countersMatch(db);
  });
});
