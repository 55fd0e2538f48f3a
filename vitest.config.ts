import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src-main/**/*.test.ts', 'src-shared/**/*.test.ts', 'test/**/*.test.ts'],
    // The rows reporter prints the conformance counts per section (test/contract) as the last line of the output.
    reporters: ['default', './test/contract/rows-reporter.ts'],
    // One temporary directory per run, removed at its end (test/temp-root.ts).
    globalSetup: ['./test/temp-root.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
