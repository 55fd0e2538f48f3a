// The CSRTs the authority issued to technical responsibles (NT 2018.005): the token, sealed like the CSC,
// by the technical responsible's CNPJ and idCSRT, so hashCSRT can be checked (976/977/978).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('csrts')
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('id_csrt', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('csrts_pk', ['cnpj', 'id_csrt'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
