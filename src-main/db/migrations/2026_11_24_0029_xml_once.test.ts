// Migration 0029 on a store written by the code before it: each authorized copy that rebuilds exactly from the
// signed XML and the protocol is reduced to its opening tag, every other copy stays whole, authorization rows
// holding their document's XML reference it; every note reads back byte for byte as before. A conversion
// stopped between batches resumes where it stopped, and running it again changes nothing.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { documentsRepository } from '../../documents/repository.ts';
import { convertXmlOnce } from './2026_11_24_0029_xml_once.ts';
import { documentRow, insertRow, migrateTo, useScratchDatabase, type ScratchDb } from './scratch-database.ts';

const stamp = '2026-01-01T00:00:00.000Z';
const scratchDb = useScratchDatabase();
const ORG = '8e9a4b1e-0000-4000-8000-000000000291';
const CMP = '8e9a4b1e-0000-4000-8000-000000000292';
const NS = 'http://www.portalfiscal.inf.br/nfe';

const signed = (n: number) =>
  `<NFe xmlns="${NS}"><infNFe Id="NFe${n}" versao="4.00"><ide><nNF>${n}</nNF></ide></infNFe>` +
  `<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignatureValue>c2ln</SignatureValue></Signature></NFe>`;
const prot = (n: number) =>
  `<protNFe versao="4.00"><infProt><chNFe>${n}</chNFe><nProt>1${n}</nProt><cStat>100</cStat></infProt></protNFe>`;
const nfeProc = (xml: string, protXml: string) =>
  `<nfeProc xmlns="${NS}" versao="4.00">${xml}${protXml}</nfeProc>`;

/** The rows an older version wrote: the proc as the third copy, each authorization message a second one. */
const notes: { id: string; xml: string; prot: string | null; proc: string | null; compact: string | null }[] =
  [
    // NF-e / NFC-e / CT-e / DC-e shape: the proc is its opening tag, the signed XML, the protocol, the closing tag.
    ...[1, 2, 3, 4, 5].map((n) => ({
      id: `doc-${n}`,
      xml: signed(n),
      prot: prot(n),
      proc: nfeProc(signed(n), prot(n)),
      compact: `<nfeProc xmlns="${NS}" versao="4.00">`,
    })),
    // NFS-e shape: the authorized copy is the protocol (the note the national environment returns) itself.
    {
      id: 'nfse',
      xml: '<DPS/>',
      prot: '<NFSe><infNFSe/></NFSe>',
      proc: '<NFSe><infNFSe/></NFSe>',
      compact: '',
    },
    // Odd rows keep their copy: whitespace between the parts, an XML declaration, the protocol cut differently
    // from the one stored, a proc that holds another XML, a proc with no protocol column.
    {
      id: 'odd-space',
      xml: signed(6),
      prot: prot(6),
      proc: `<nfeProc xmlns="${NS}" versao="4.00">${signed(6)}\n${prot(6)}</nfeProc>`,
      compact: null,
    },
    {
      id: 'odd-declaration',
      xml: signed(7),
      prot: prot(7),
      proc: `<?xml version="1.0" encoding="UTF-8"?>${nfeProc(signed(7), prot(7))}`,
      compact: null,
    },
    {
      id: 'odd-protocol',
      xml: signed(8),
      prot: `<retEnviNFe>${prot(8)}</retEnviNFe>`,
      proc: nfeProc(signed(8), prot(8)),
      compact: null,
    },
    { id: 'odd-xml', xml: signed(9), prot: prot(9), proc: nfeProc(signed(99), prot(9)), compact: null },
    { id: 'odd-no-prot', xml: signed(10), prot: null, proc: nfeProc(signed(10), prot(10)), compact: null },
    // A draft: nothing to convert.
    { id: 'draft', xml: signed(11), prot: null, proc: null, compact: null },
  ];

async function oldStore(db: ScratchDb): Promise<void> {
  await migrateTo(db, '2026_11_24_0028_list_indexes');
  await sql`INSERT INTO organizations (id, name, created_at) VALUES (${ORG}, 'Org', ${stamp})`.execute(db);
  await sql`INSERT INTO companies (id, organization_id, cnpj, ie, x_nome, crt, x_lgr, nro, x_bairro, c_mun,
    x_mun, uf, cep, ambiente, authority, nfce_qr_version, created_at, updated_at)
    VALUES (${CMP}, ${ORG}, '11222333000181', '1', 'X', 1, 'R', '1', 'B', '3550308', 'Sao Paulo', 'SP',
    '01000000', 'homologacao', 'sandbox', 2, ${stamp}, ${stamp})`.execute(db);
  for (const [i, note] of notes.entries()) {
    const chave = String(i + 1).padStart(44, '0');
    await insertRow(db, 'documents', {
      ...documentRow({ id: note.id, companyId: CMP, modelo: 55, chave, stamp, nNf: i + 1, xml: note.xml }),
      prot_xml: note.prot,
      proc_xml: note.proc,
    });
    await queue(db, note.id, 'autorizacao', note.xml);
  }
  // An authorization that sent an XML replaced since (a rejected note, corrected and re-signed) and an event.
  await queue(db, 'doc-1', 'autorizacao', signed(100));
  await queue(db, 'doc-2', 'evento', '<evento/>');
}

const queue = (db: ScratchDb, documentId: string, kind: string, message: string) =>
  sql`INSERT INTO outbox (document_id, company_id, kind, message, state, attempts, next_try_at, created_at,
    updated_at) VALUES (${documentId}, ${CMP}, ${kind}, ${message}, 'done', 1, ${stamp}, ${stamp}, ${stamp})`.execute(
    db,
  );

const storedRows = async (db: ScratchDb) =>
  (
    await sql<{ id: string; proc_xml: string | null; proc_open: string | null }>`
      SELECT id, proc_xml, proc_open FROM documents ORDER BY id`.execute(db)
  ).rows;

const messages = async (db: ScratchDb) =>
  (
    await sql<{ document_id: string; kind: string; message: string }>`
      SELECT document_id, kind, message FROM outbox ORDER BY id`.execute(db)
  ).rows;

/** What the store holds once converted: compact where the rebuild is exact, whole elsewhere. */
const expectedRows = () =>
  notes
    .map((n) => ({
      id: n.id,
      proc_xml: n.compact === null ? n.proc : null,
      proc_open: n.compact,
    }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));

async function expectConverted(db: ScratchDb): Promise<void> {
  expect(await storedRows(db)).toEqual(expectedRows());
  expect(await messages(db)).toEqual([
    ...notes.map((n) => ({ document_id: n.id, kind: 'autorizacao', message: '' })),
    { document_id: 'doc-1', kind: 'autorizacao', message: signed(100) },
    { document_id: 'doc-2', kind: 'evento', message: '<evento/>' },
  ]);
  // Every note reads back as the older version stored it, byte for byte.
  for (const note of notes) {
    const row = await documentsRepository.getById(db, note.id);
    expect(row.proc_xml, note.id).toBe(note.proc);
    expect(row.xml, note.id).toBe(note.xml);
    expect('proc_open' in row).toBe(false);
  }
}

describe('migration 2026_11_24_0029_xml_once', () => {
  it('keeps each copy once where it rebuilds exactly, whole where it does not, and reads the same bytes', async () => {
    const db = scratchDb();
    await oldStore(db);
    await migrateTo(db, '2026_11_24_0029_xml_once');
    await expectConverted(db);
  });

  it('resumes a conversion stopped between batches, and a second run changes nothing', async () => {
    const db = scratchDb();
    await oldStore(db);
    // Stopped after the column and two batches of two documents: the rest is as the old code wrote it.
    await db.schema.alterTable('documents').addColumn('proc_open', 'text').execute();
    expect(await convertXmlOnce(db, { batch: 2, limit: 2 })).toEqual({ documents: 4, kept: 0, messages: 0 });
    const partly = await storedRows(db);
    expect(partly.filter((r) => r.proc_open !== null)).toHaveLength(4);
    for (const note of notes) {
      expect((await documentsRepository.getById(db, note.id)).proc_xml).toBe(note.proc);
    }

    // The next start runs the migration again from the top: the column exists, the batches go on.
    await migrateTo(db, '2026_11_24_0029_xml_once');
    await expectConverted(db);
    expect(await convertXmlOnce(db)).toEqual({ documents: 0, kept: 4, messages: 0 });
    await expectConverted(db);
  });

  it('down writes every copy back whole', async () => {
    const db = scratchDb();
    await oldStore(db);
    const before = { docs: await sql`SELECT id, proc_xml FROM documents ORDER BY id`.execute(db) };
    const queued = await messages(db);
    await migrateTo(db, '2026_11_24_0029_xml_once');
    await migrateTo(db, '2026_11_24_0028_list_indexes');
    expect((await sql`SELECT id, proc_xml FROM documents ORDER BY id`.execute(db)).rows).toEqual(
      before.docs.rows,
    );
    expect(await messages(db)).toEqual(queued);
  });
});
