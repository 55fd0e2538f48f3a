// NFC-e QR code version per company: NT 2025.001 lets each UF move from v2 to v3 on its own date.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('companies')
    .addColumn('nfce_qr_version', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(2)
        .check(sql`nfce_qr_version in (2, 3)`),
    )
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
