// The keyset cursor of the NF-e/NFC-e lists on the wire: base64url of the last row's creation instant and id
// and the position of the row after it, opaque to clients; a cursor that does not decode is a 400.
import type { Response } from 'express';
import { z } from 'zod';
import type { ListCursor } from '../documents/list.ts';
import { listCursorText, NEXT_CURSOR_HEADER } from '../../src-shared/contracts/list-cursor.ts';
import { validationError } from './errors.ts';

const BAD = 'must be the X-Next-Cursor of a previous answer';

const decoded = z.tuple([z.string().min(1).max(40), z.string().min(1).max(64), z.number().int().min(0)]);

export function encodeListCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id, cursor.offset])).toString('base64url');
}

/** The `cursor` query parameter, decoded; anything but a cursor this service wrote is a validation fault. */
export const listCursorParam = listCursorText.transform((text, ctx): ListCursor => {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const parsed = decoded.safeParse(value);
  if (!parsed.success) {
    ctx.addIssue({ code: 'custom', message: BAD });
    return z.NEVER;
  }
  const [createdAt, id, offset] = parsed.data;
  return { createdAt, id, offset };
});

/** `?cursor=`, parsed alone (the list's filters and window are parsed by their own schemas). */
export const listCursorQuery = z.object({ cursor: listCursorParam.optional() });

/**
 * A cursor says where the page starts: with `offset` or `page` beside it the request names two starts, which is
 * refused rather than one of them silently ignored.
 */
export function cursorAlone(query: Record<string, unknown>, cursor: ListCursor | undefined): void {
  if (cursor === undefined) return;
  const clashing = ['offset', 'page'].filter((name) => query[name] !== undefined);
  if (clashing.length > 0)
    throw validationError(
      clashing.map((field) => ({ field, error: 'cannot be given with cursor' })),
      'Invalid query parameters.',
    );
}

/** Names the next page's cursor in the answer's header, when a page follows. */
export function answerNextCursor(res: Response, next: ListCursor | null): void {
  if (next !== null) res.setHeader(NEXT_CURSOR_HEADER, encodeListCursor(next));
}
