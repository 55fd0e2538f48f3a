// The byte scan that refuses deeply nested JSON before it is parsed.
import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from './json-depth.ts';

const exceeds = (text: string, limit: number) => jsonDepthExceeds(Buffer.from(text, 'utf8'), limit);

describe('jsonDepthExceeds', () => {
  it('counts arrays and objects alike, and only past the limit', () => {
    expect(exceeds('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(exceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(exceeds('[]', 1)).toBe(false);
    expect(exceeds('1', 0)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    expect(exceeds('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(exceeds('{"a":"\\"[[[[","b":"\\\\"}', 1)).toBe(false);
    // After an escaped backslash the quote closes the string: the brackets that follow count.
    expect(exceeds('{"a":"\\\\",' + '"b":[[[1]]]}', 3)).toBe(true);
  });

  it('is not fooled by multi-byte UTF-8 text', () => {
    expect(exceeds(`{"a":"${'ção😀'.repeat(100)}","b":[[1]]}`, 3)).toBe(false);
  });

  it('stops at the first level past the limit on a 10 000-level body', () => {
    expect(exceeds('['.repeat(10_000) + ']'.repeat(10_000), 32)).toBe(true);
  });
});
