// Ids of rows made by releases before ids were UUIDs (`doc_<32 hex>`: a type prefix and the UUID's hex
// digits) and the UUIDs those rows carry now; shared so the service and the UI map an old id the same way.

/**
 * The type prefixes rows had before ids were UUIDs. Only these are mapped: a caller's own text that merely
 * looks alike (a search for `sku_<hex>`) is left as sent. `req_` named requests, never a row.
 */
const LEGACY_PREFIX = '(?:org|cmp|key|crt|cus|prd|fpr|doc|evt|bat|rcv|inu|whk|whd|prn|pjb)';
const LEGACY_HEX = '([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})';
const LEGACY_ID = new RegExp(`^${LEGACY_PREFIX}_${LEGACY_HEX}$`);
const LEGACY_ID_IN_TEXT = new RegExp(`\\b${LEGACY_PREFIX}_${LEGACY_HEX}\\b`, 'g');

const dashed = (_m: string, a: string, b: string, c: string, d: string, e: string) =>
  `${a}-${b}-${c}-${d}-${e}`;

/**
 * The id a row has now: an earlier release's `cus_0f3c…` is the UUID `0f3c…-…` since migration 0012 turned
 * every stored id into its dashed form, so links and integrations that kept an old id still resolve.
 * Anything else is returned as given.
 */
export function canonicalId(id: string): string {
  return id.replace(LEGACY_ID, dashed);
}

/** Every earlier-release id inside a text (a path with its query), in its UUID form. */
export function canonicalIdsIn(text: string): string {
  return text.replace(LEGACY_ID_IN_TEXT, dashed);
}
