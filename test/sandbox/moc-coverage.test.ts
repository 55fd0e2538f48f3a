// docs/sandbox-rules.md says which MOC rejections the sandbox enforces; it must say what the code does, and every
// code the sandbox has a text for must be answered by some rule (no text without a rule behind it).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answeredCodes, coverageDocument, DOC, REPO } from './moc-coverage.ts';

/** The sandbox's sources, without the text table itself. */
function sandboxSources(): string {
  const root = path.join(REPO, 'src-main/sandbox');
  const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('cstat.ts'),
  );
  return files.map((f) => fs.readFileSync(path.join(root, f), 'utf8')).join('\n');
}

describe('MOC rejection coverage', () => {
  it('docs/sandbox-rules.md is the one the rule tables give (npm run sandbox:coverage)', () => {
    expect(fs.readFileSync(DOC, 'utf8')).toBe(coverageDocument());
  });

  it('every code with a text is answered somewhere in the sandbox', () => {
    const sources = sandboxSources();
    const unused = [...answeredCodes()].filter((c) => !new RegExp(`\\b${c}\\b`).test(sources));
    expect(unused).toEqual([]);
  });
});
