// Identifiers: random RFC 4122 UUIDs (the specification types its ids as UUID), and the mapping from the
// prefixed ids of earlier releases (`doc_<32 hex>`, the same UUID without dashes) to them.
import { randomUUID } from 'node:crypto';

export function newId(): string {
  return randomUUID();
}

/** An id of a release before ids were UUIDs: a three-letter type prefix and the UUID's 32 hex digits. */
const LEGACY_ID = /^[a-z]{3}_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/;
/** The same, inside a text (stored JSON answers and payloads). */
export const LEGACY_ID_IN_TEXT =
  /\b[a-z]{3}_([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})\b/g;

const dashed = (_m: string, a: string, b: string, c: string, d: string, e: string) =>
  `${a}-${b}-${c}-${d}-${e}`;

/**
 * The id a row has now: an earlier release's `cus_0f3c…` is the UUID `0f3c…-…` since migration 0012 turned
 * every stored id into its dashed form, so links and integrations that kept an old id still resolve.
 */
export function canonicalId(id: string): string {
  return id.replace(LEGACY_ID, dashed);
}

/** Every earlier-release id inside a text, in its UUID form. */
export function canonicalIdsIn(text: string): string {
  return text.replace(LEGACY_ID_IN_TEXT, dashed);
}
