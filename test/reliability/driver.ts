// A cashier terminal for the reliability test: runs the real service on a data dir against an external
// sandbox authority and sells NFC-e until the data dir holds `target` sales; the test kills it at random.
import { sellNfce } from '../../src-main/documents/issue.ts';
import { runTerminal, sale } from './terminal.ts';

await runTerminal(async ({ service, companyId, deps, target }) => {
  async function salesSoFar(): Promise<number> {
    // A sale is one original attempt; contingency re-issues point back to it with `replaces`.
    const row = await service.db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('replaces', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  let done = await salesSoFar();
  while (done < target) {
    const result = await sellNfce(deps, companyId, sale(done, 1 + (done % 3)), 300);
    done += 1;
    process.stdout.write(`sale ${done} ${result.mode} ${result.document.status}\n`);
    // A cashier's pace: the queue transmits between sales, under the same faults.
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
});
