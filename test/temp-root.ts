// Vitest global setup: every temporary file of a test run (data dirs, sandbox stores, PDFs, browser profiles,
// PostgreSQL clusters) lands under one directory of the run's own, removed when the run ends. Tests and what
// they start take os.tmpdir(), which reads TMPDIR; the workers are started after this and inherit it. Before,
// every run left its directories behind (2,749 of them, 2.2 GB, on one machine after a few runs).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function setup(): () => void {
  const previous = process.env['TMPDIR'];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'balcao-test-run-'));
  // Others may pass through (not list): the PostgreSQL clusters run as the postgres user in directories of
  // their own under it, each still made 0700 by mkdtemp.
  fs.chmodSync(root, 0o711);
  process.env['TMPDIR'] = root;
  return () => {
    if (previous === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = previous;
    try {
      fs.rmSync(root, { recursive: true, force: true });
    } catch (error) {
      // Something still mounted there (a test stopped before its umount) must not fail a run that passed.
      process.stderr.write(`temporary directory ${root} left behind: ${String(error)}\n`);
    }
  };
}
