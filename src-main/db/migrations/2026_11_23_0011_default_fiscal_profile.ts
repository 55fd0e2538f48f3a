// The company's default fiscal profile (simple mode: items with neither fiscalProfileId nor inline taxes
// are taxed by it): a nullable column, and a profile made from its CRT for every company that predates it.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { defaultFiscalProfile } from '../../../src-shared/tables/default-fiscal-profiles.ts';

// The shapes this migration reads and writes, frozen here so later schema changes cannot alter it.
interface MigrationDb {
  companies: { id: string; crt: number; uf: string; default_fiscal_profile_id: string | null };
  fiscal_profiles: {
    id: string;
    company_id: string;
    name: string;
    cfop: string;
    taxes_json: string;
    created_at: string;
    updated_at: string;
  };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // Kysely runs SQLite migrations outside a transaction: the column and the backfill commit together, so a
  // stop half-way leaves the migration to run again from the start. (On PostgreSQL, server mode, the migrator
  // already runs the migrations in a transaction, which this one joins.)
  const work = async (trx: Kysely<unknown>): Promise<void> => {
    await trx.schema
      .alterTable('companies')
      .addColumn('default_fiscal_profile_id', 'text', (c) => c.references('fiscal_profiles.id'))
      .execute();
    await backfill(trx as unknown as Kysely<MigrationDb>);
  };
  await (db.isTransaction ? work(db) : db.transaction().execute(work));
}

async function backfill(db: Kysely<MigrationDb>): Promise<void> {
  const companies = await db
    .selectFrom('companies')
    .select(['id', 'crt', 'uf'])
    .where('default_fiscal_profile_id', 'is', null)
    .execute();
  const now = new Date().toISOString();
  for (const company of companies) {
    const profile = defaultFiscalProfile(company.crt, company.uf);
    const taken = new Set(
      (
        await db.selectFrom('fiscal_profiles').select('name').where('company_id', '=', company.id).execute()
      ).map((r) => r.name),
    );
    // Profile names are unique per company: an owner's own profile of the same name keeps its name.
    let name = profile.name;
    for (let n = 2; taken.has(name); n += 1) name = `${profile.name} (${n})`;
    // The id format of the rows this migration sits among (a later migration may rewrite ids wholesale).
    const id = randomUUID();
    await db
      .insertInto('fiscal_profiles')
      .values({
        id,
        company_id: company.id,
        name,
        cfop: profile.CFOP,
        taxes_json: JSON.stringify(profile.taxes),
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .updateTable('companies')
      .set({ default_fiscal_profile_id: id })
      .where('id', '=', company.id)
      .execute();
  }
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
