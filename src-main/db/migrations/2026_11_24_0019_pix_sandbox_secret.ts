// The client_secret the embedded sandbox PSP issued is kept apart from the one the store typed in its settings,
// so the sandbox refuses a mistyped secret as a bank would (and still does after a restart). Sandbox configs
// saved before this issued the secret they store.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pix_configs').addColumn('sandbox_secret_enc', 'text').execute();
  await sql`UPDATE pix_configs SET sandbox_secret_enc = client_secret_enc WHERE provedor = 'sandbox'`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
