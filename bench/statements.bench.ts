// Kysely over better-sqlite3 with and without the prepared-statement cache (src-main/db/statement-cache.ts), in
// the same interleaved rounds on one store: the reads and the write a sale makes on its document (the row by id,
// its company, its queue message, an update of the row in a transaction). Last line:
// `statements: cached <n> ops/s, prepared per query <m> ops/s, ratio <r>`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { createLogger } from '../src-main/logger.ts';
import { startService } from '../src-main/service.ts';
import type { Database } from '../src-main/db/schema.ts';
import { openSqlite } from '../src-main/db/client.ts';

const ROUNDS = 5;
const ROUND_MS = 1000;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-bench-statements-'));
const service = await startService(
  { host: '127.0.0.1', port: 0, dataDir, masterKey: undefined, logLevel: 'silent' },
  { logger: createLogger('silent') },
);
const apiKey = service.bootstrap.sandbox?.apiKey ?? '';
const sold = await fetch(`${service.url}/v1/nfce/venda`, {
  method: 'POST',
  headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
  body: JSON.stringify({
    itens: [{ codigo: 'P1', descricao: 'Produto', ncm: '22011000', quantidade: 1, valorUnitario: 3.9 }],
    pagamentos: [{ forma: '01', valor: 10 }],
  }),
});
const { id: documentId } = (await sold.json()) as { id: string };
const file = path.join(dataDir, 'balcao.sqlite');
await service.close();
if (!fs.existsSync(file)) throw new Error(`the store is not at ${file}`);

/** A Kysely on the store keeping `capacity` statements prepared (0: every query prepared anew, as before). */
const open = (capacity: number) => openSqlite<Database>(file, { statementCache: capacity });

async function saleLikeWork(db: Kysely<Database>): Promise<void> {
  const doc = await db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', documentId)
    .executeTakeFirstOrThrow();
  await db.selectFrom('companies').selectAll().where('id', '=', doc.company_id).executeTakeFirstOrThrow();
  await db.selectFrom('outbox').selectAll().where('document_id', '=', documentId).execute();
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('documents')
      .set({ updated_at: doc.updated_at })
      .where('id', '=', documentId)
      .execute();
  });
}

async function rate(db: Kysely<Database>): Promise<number> {
  const end = performance.now() + ROUND_MS;
  const start = performance.now();
  let n = 0;
  while (performance.now() < end) {
    await saleLikeWork(db);
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

const cached = open(400);
const uncached = open(0);
await rate(cached.db);
await rate(uncached.db);
let best = { cached: 0, uncached: 0 };
for (let round = 0; round < ROUNDS; round++) {
  best = {
    cached: Math.max(best.cached, await rate(cached.db)),
    uncached: Math.max(best.uncached, await rate(uncached.db)),
  };
}
await cached.close();
await uncached.close();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(
  `statements: cached ${best.cached.toFixed(0)} ops/s, prepared per query ${best.uncached.toFixed(0)} ops/s, ` +
    `ratio ${(best.cached / best.uncached).toFixed(2)}`,
);
