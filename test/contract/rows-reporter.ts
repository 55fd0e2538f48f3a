// Vitest reporter of the conformance suite: counts, per section of the specification, the rows (tests named
// "§<section>…") that passed, and prints the count as the very last line of the run's output.
import type { Reporter, TestModule } from 'vitest/node';

/** "§2.1 A naturezaOperacao — required" → 2. */
export function sectionOf(name: string): number | undefined {
  const match = /^§(\d+)/.exec(name.trim());
  return match === null ? undefined : Number(match[1]);
}

export interface RowCount {
  section: number;
  covered: number;
  total: number;
}

export function countRows(rows: ReadonlyArray<{ name: string; passed: boolean }>): RowCount[] {
  const bySection = new Map<number, RowCount>();
  for (const row of rows) {
    const section = sectionOf(row.name);
    if (section === undefined) continue;
    const count = bySection.get(section) ?? { section, covered: 0, total: 0 };
    count.total += 1;
    if (row.passed) count.covered += 1;
    bySection.set(section, count);
  }
  return [...bySection.values()].sort((a, b) => a.section - b.section);
}

export function rowsLine(counts: ReadonlyArray<RowCount>): string {
  const covered = counts.reduce((sum, c) => sum + c.covered, 0);
  const total = counts.reduce((sum, c) => sum + c.total, 0);
  const parts = counts.map((c) => `§${c.section} ${c.covered}/${c.total}`);
  return `contract rows: ${[...parts, `total ${covered}/${total}`].join(' · ')}`;
}

export default class RowsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows: { name: string; passed: boolean }[] = [];
    for (const module of testModules) {
      if (!module.moduleId.replaceAll('\\', '/').includes('/test/contract/')) continue;
      for (const test of module.children.allTests()) {
        // Todo, skipped and failed rows all count as not covered.
        rows.push({ name: test.name, passed: test.result().state === 'passed' });
      }
    }
    const counts = countRows(rows);
    if (counts.length === 0) return;
    // The default reporter writes its summary in the same hook; printing after it keeps this line last.
    setImmediate(() => process.stdout.write(`${rowsLine(counts)}\n`));
  }
}
