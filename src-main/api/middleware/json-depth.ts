// Refuses JSON bodies nested deeper than any request of the API needs, before they are parsed: the code that
// walks a payload (ids of a note, the spelling B conversion, zod) recurses, and 10k levels overflow its stack.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.ts';

/**
 * The deepest request of the API (an NF-e item's inline taxes: body → itens → [i] → tributacao → ICMS → …)
 * is under 10 levels; 32 leaves room for any legitimate payload while keeping every walk of it shallow.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * The deepest nesting of arrays and objects in `buf`, stopping as soon as it passes `limit`. Bytes are
 * scanned directly: in UTF-8 no byte of a multi-byte character is ASCII, so brackets and quotes inside
 * strings are told apart by the string state alone. Malformed JSON is left to the parser.
 */
export function jsonDepthExceeds(buf: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const byte = buf[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** `verify` option of express.json: body-parser passes what it throws to the error handler unchanged. */
export function verifyJsonDepth(_req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  if (jsonDepthExceeds(buf, MAX_JSON_DEPTH)) {
    throw new ApiError(400, 'invalid_json', 'The request body is nested too deeply.', [
      { field: 'body', error: `arrays and objects may be nested at most ${MAX_JSON_DEPTH} levels deep` },
    ]);
  }
}
