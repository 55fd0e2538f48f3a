// Server mode: numbering is gapless and unique by its own row lock, without the store's global write lock.
// Two plain Kysely instances on the database (PostgresDialect, no advisory lock per transaction) reserve
// numbers of one series in many concurrent transactions, some of which roll back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeOnPostgres } from '../api/harness.ts';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src-main/db/schema.ts';
import { documentsRepository } from '../../src-main/documents/repository.ts';
import { startCluster, type Cluster } from './instances.ts';

describeOnPostgres('server mode: numbering', () => {
  let cluster: Cluster;
  const plain: Kysely<Database>[] = [];

  beforeAll(async () => {
    cluster = await startCluster(1, { startWorker: false });
    for (let i = 0; i < 2; i++) {
      const pool = new pg.Pool({
        connectionString: cluster.url,
        max: 16,
        // bigint (SQLite's INTEGER) as a number, as the product's pool reads it.
        types: {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            oid === pg.types.builtins.INT8
              ? (text: string) => Number(text)
              : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
        },
      });
      plain.push(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }));
    }
  });
  afterAll(async () => {
    for (const db of plain) await db.destroy();
    await cluster.stop();
  });

  class RolledBack extends Error {}

  describe('reserveNumber on PostgreSQL without the global write lock', () => {
    it('hands out 1..N once each across two instances, a new series created by racing transactions', async () => {
      const now = new Date().toISOString();
      const companyId = cluster.companyId;
      // A series nobody used yet: its first row is inserted by whichever transaction gets there first.
      const serie = 77;
      const committed: number[] = [];
      let rolledBack = 0;
      const runs = Array.from({ length: 60 }, (_, i) =>
        plain[i % 2]!.transaction()
          .execute(async (trx) => {
            const numero = await documentsRepository.reserveNumber(
              trx,
              companyId,
              65,
              serie,
              'homologacao',
              now,
            );
            // The note's work inside the transaction, while others wait on the series row.
            await new Promise((r) => setTimeout(r, (i * 7) % 15));
            if (i % 6 === 5) throw new RolledBack();
            return numero;
          })
          .then(
            (numero) => committed.push(numero),
            (error: unknown) => {
              if (!(error instanceof RolledBack)) throw error;
              rolledBack++;
            },
          ),
      );
      await Promise.all(runs);
      expect(rolledBack).toBe(10);
      expect([...committed].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      const row = await plain[0]!
        .selectFrom('number_sequences')
        .select('next_number')
        .where('company_id', '=', companyId)
        .where('serie', '=', serie)
        .executeTakeFirstOrThrow();
      expect(row.next_number).toBe(51);
    });
  });
});
