// The conformance reporter's counting: rows are tests named "§<section>…", covered only when they passed.
import { describe, expect, it } from 'vitest';
import { countRows, rowsLine, sectionOf } from './rows-reporter.ts';

describe('rows reporter', () => {
  it('reads the section from the start of a test name', () => {
    expect(sectionOf('§2.1 A naturezaOperacao — required')).toBe(2);
    expect(sectionOf('§7 HTTP 404 — company not found')).toBe(7);
    expect(sectionOf('§12 future section')).toBe(12);
    expect(sectionOf('lists NFC-e in the §4.2 shape')).toBeUndefined();
  });

  it('counts passed rows per section; failed, todo and skipped rows are not covered', () => {
    const counts = countRows([
      { name: '§4.1 POST /v1/nfe — 201', passed: true },
      { name: '§2.1 A serie — default 1', passed: true },
      { name: '§2.7 modal — CT-e/NFS-e/DC-e issue', passed: false },
      { name: '§4.2 GET /v1/nfce/:id — 200', passed: false },
      { name: 'a helper test without a section', passed: true },
    ]);
    expect(counts).toEqual([
      { section: 2, covered: 1, total: 2 },
      { section: 4, covered: 1, total: 2 },
    ]);
    expect(rowsLine(counts)).toBe('contract rows: §2 1/2 · §4 1/2 · total 2/4');
  });
});
