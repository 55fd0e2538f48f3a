// Where a stored note's bytes go before and after migration 0029 (issue 18, item 0: each note keeps its signed XML
// once), and how long the migration takes to convert a store. For each size a store is written as the code before
// it wrote notes (every row a copy of one real NFC-e sale: its signed XML, its nfeProc and its queue message;
// four in five authorized), measured (file bytes per note after VACUUM), converted by the migration and measured
// again. The conversion's time is printed beside the same run's time to write that store, as a ratio.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { openDatabase, type Db } from '../src-main/db/client.ts';
import { migrationProvider } from '../src-main/db/migrations/index.ts';
import { documentsRepository } from '../src-main/documents/repository.ts';
import { createLogger } from '../src-main/logger.ts';
import { startService } from '../src-main/service.ts';

const SIZES = (process.env['BENCH_SIZES'] ?? '10000,100000').split(',').map(Number);
const BEFORE = '2026_11_24_0028_list_indexes';
const AFTER = '2026_11_24_0029_xml_once';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-xml-once-'));

// One real sale gives the rows every stored note copies.
const service = await startService(
  {
    host: '127.0.0.1',
    port: 0,
    dataDir: path.join(dir, 'service'),
    masterKey: undefined,
    logLevel: 'silent',
  },
  { logger: createLogger('silent') },
);
const sandbox = service.bootstrap.sandbox;
if (sandbox === null) throw new Error('the bench needs the sandbox bootstrap');
const sold = await fetch(`${service.url}/v1/nfce/venda`, {
  method: 'POST',
  headers: { 'X-API-Key': sandbox.apiKey, 'Content-Type': 'application/json' },
  body: JSON.stringify({
    itens: [0, 1, 2].map((n) => ({
      codigo: `P${n}`,
      descricao: `Produto de teste numero ${n}`,
      ncm: '22011000',
      quantidade: 1 + n,
      valorUnitario: 3.9 + n,
    })),
    pagamentos: [{ forma: '01', valor: 50 }],
  }),
});
const saleId = ((await sold.json()) as { id: string }).id;
const template = await documentsRepository.getById(service.db, saleId);
const { id: _outboxId, ...queueRow } = await service.db
  .selectFrom('outbox')
  .selectAll()
  .where('document_id', '=', saleId)
  .executeTakeFirstOrThrow();
await service.close();
if (template.proc_xml === null) throw new Error('the template sale is not authorized');

async function migrateTo(db: Db, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(name);
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}

/** A fixed sequence (mulberry32), so every run writes the same store. */
function sequence(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes `size` notes as the code before migration 0029 did: the proc whole, the message a copy of the XML. */
async function writeOldStore(db: Db, size: number): Promise<void> {
  const random = sequence(18);
  // Only the columns the table had then (the service that sold the template runs every migration).
  const columnsOf = async (table: string) =>
    new Set(
      (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(db)).rows.map(
        (r) => r.name,
      ),
    );
  const pick = (row: Record<string, unknown>, columns: Set<string>) =>
    Object.fromEntries(Object.entries(row).filter(([k]) => columns.has(k)));
  const docColumns = await columnsOf('documents');
  const queueColumns = await columnsOf('outbox');
  const statuses = ['cancelada', 'erro', 'contingencia', 'rascunho'] as const;
  await db.transaction().execute(async (trx) => {
    for (let stored = 0; stored < size;) {
      const docs: Record<string, unknown>[] = [];
      const messages: Record<string, unknown>[] = [];
      for (; stored < size && docs.length < 200; stored++) {
        const status = random() < 0.8 ? 'autorizada' : (statuses[Math.floor(random() * 4)] ?? 'erro');
        const authorized = status === 'autorizada' || status === 'cancelada';
        const id = `note-${String(stored).padStart(8, '0')}`;
        // Each note its own key in its text, so no two rows are the same bytes.
        const xml = template.xml.replaceAll(template.chave, `8${String(stored).padStart(43, '0')}`);
        const prot = (template.prot_xml ?? '').replaceAll(
          template.chave,
          `8${String(stored).padStart(43, '0')}`,
        );
        docs.push(
          pick(
            {
              ...template,
              id,
              n_nf: 100_000 + stored,
              chave: `8${String(stored).padStart(43, '0')}`,
              status,
              xml,
              prot_xml: authorized ? prot : null,
              proc_xml: authorized
                ? `<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">${xml}${prot}</nfeProc>`
                : null,
              n_prot: authorized ? template.n_prot : null,
            },
            docColumns,
          ),
        );
        if (status !== 'rascunho')
          messages.push(pick({ ...queueRow, document_id: id, message: xml }, queueColumns));
      }
      await sql`INSERT INTO documents ${sql.raw(`(${Object.keys(docs[0] ?? {}).join(', ')})`)} VALUES ${sql.join(
        docs.map((d) => sql`(${sql.join(Object.values(d))})`),
      )}`.execute(trx);
      if (messages.length > 0) {
        await sql`INSERT INTO outbox ${sql.raw(`(${Object.keys(messages[0] ?? {}).join(', ')})`)} VALUES ${sql.join(
          messages.map((m) => sql`(${sql.join(Object.values(m))})`),
        )}`.execute(trx);
      }
    }
  });
}

/** The file's bytes per note once compacted, and the average stored length of each XML column. */
async function measure(db: Db, file: string, size: number) {
  await sql`VACUUM`.execute(db);
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db);
  const bytes = fs.statSync(file).size;
  const docs = await sql<Record<string, number>>`SELECT avg(length(xml)) AS xml,
    avg(coalesce(length(proc_xml), 0)) AS proc_xml, avg(coalesce(length(prot_xml), 0)) AS prot_xml,
    avg(length(payload_json)) AS payload_json FROM documents`.execute(db);
  const queue = await sql<{
    message: number;
  }>`SELECT coalesce(sum(length(message)), 0) * 1.0 / ${size} AS message
    FROM outbox`.execute(db);
  return {
    perNote: bytes / size,
    columns: { ...docs.rows[0], 'queue message': queue.rows[0]?.message ?? 0 },
  };
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const columnsText = (c: Record<string, number>) =>
  Object.entries(c)
    .map(([k, v]) => `${k} ${Math.round(v)} B`)
    .join(', ');

console.log(
  '\nmigration 0029 (each note keeps its signed XML once): bytes per stored note and conversion time',
);
for (const size of SIZES) {
  const file = path.join(dir, `store-${size}.sqlite`);
  const { db, close } = openDatabase(file);
  await migrateTo(db, BEFORE);
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  let t = performance.now();
  await writeOldStore(db, size);
  const writeMs = performance.now() - t;
  const before = await measure(db, file, size);

  t = performance.now();
  await migrateTo(db, AFTER);
  const convertMs = performance.now() - t;
  const after = await measure(db, file, size);
  const sample = await documentsRepository.getById(db, 'note-00000000');
  const expected = `<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">${sample.xml}${sample.prot_xml ?? ''}</nfeProc>`;
  if (sample.status === 'autorizada' && sample.proc_xml !== expected)
    throw new Error('a note did not read back');
  await close();
  fs.rmSync(file, { force: true });

  console.log(`${size} notes:`);
  console.log(`  before: ${kib(before.perNote)} per note in the file (${columnsText(before.columns)})`);
  console.log(`  after:  ${kib(after.perNote)} per note in the file (${columnsText(after.columns)})`);
  console.log(`  after / before: ${(after.perNote / before.perNote).toFixed(2)}`);
  console.log(
    `  conversion: ${(convertMs / 1000).toFixed(1)} s (${Math.round(size / (convertMs / 1000))} notes/s), ` +
      `x${(convertMs / writeMs).toFixed(2)} the ${(writeMs / 1000).toFixed(1)} s this run took to write the store`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
