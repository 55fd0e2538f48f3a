// The cash drawer wired to each receipt printer (ESC p: which connector pin, how long the pulse) and what a
// print job carries (an NFC-e receipt, a test page, a generic ticket such as a sangria, or a bare drawer kick).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Defaults match the design's profile default: most drawers hang on pin 2 and open with a 100 ms pulse.
  await db.schema
    .alterTable('printers')
    .addColumn('gaveta_ativa', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(1)
        .check(sql`gaveta_ativa in (0, 1)`),
    )
    .execute();
  await db.schema
    .alterTable('printers')
    .addColumn('gaveta_pino', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(2)
        .check(sql`gaveta_pino in (2, 5)`),
    )
    .execute();
  await db.schema
    .alterTable('printers')
    .addColumn('gaveta_pulso_ms', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(100)
        .check(sql`gaveta_pulso_ms between 10 and 500`),
    )
    .execute();
  // A column beside `reason` rather than new reasons: SQLite cannot widen the reason CHECK without
  // rebuilding print_jobs, which other tables may reference by then.
  await db.schema
    .alterTable('print_jobs')
    .addColumn('kind', 'text', (c) =>
      c
        .notNull()
        .defaultTo('receipt')
        .check(sql`kind in ('receipt', 'test', 'ticket', 'drawer')`),
    )
    .execute();
  await sql`update print_jobs set kind = 'test' where reason = 'test'`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('down migrations are not supported');
}
