// Keyset paging of the NF-e/NFC-e lists (a Balcão addition beside the specification's offset and page): the
// `cursor` parameter and the header that answers the next one.
import { z } from 'zod';

/** The header of a list answer naming the cursor of the page after it; absent on the last page. */
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';

/** An opaque, URL-safe token taken from a previous answer's X-Next-Cursor. */
export const listCursorText = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,400}$/, { error: 'must be the X-Next-Cursor of a previous answer' });

export const listCursorQuerySchema = z.object({ cursor: listCursorText.optional() });
