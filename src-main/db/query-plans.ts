// For tests: the query plan SQLite makes for each statement a piece of code runs, so a test can hold a query
// to its index however the code builds it (the growth of a store shows in plans long before it shows in time).
import { CompiledQuery, type Kysely, type KyselyPlugin, type RootOperationNode } from 'kysely';

type QueryId = Parameters<KyselyPlugin['transformQuery']>[0]['queryId'];

/** Runs `work` on `db`, then returns each statement's EXPLAIN QUERY PLAN, its details joined by ' | '. */
export async function plansOf<D>(
  db: Kysely<D>,
  work: (db: Kysely<D>) => Promise<unknown>,
): Promise<string[]> {
  const statements: { node: RootOperationNode; queryId: QueryId }[] = [];
  const recorder: KyselyPlugin = {
    transformQuery: (args) => {
      statements.push(args);
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  await work(db.withPlugin(recorder));
  const plans: string[] = [];
  for (const { node, queryId } of statements) {
    const compiled = db.getExecutor().compileQuery(node, queryId);
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
    );
    plans.push(plan.rows.map((r) => r.detail).join(' | '));
  }
  return plans;
}
