// Identifiers: random RFC 4122 UUIDs (the specification types its ids as UUID); the mapping from the
// prefixed ids of earlier releases lives in src-shared/ids.ts, which the UI uses as well.
import { randomUUID } from 'node:crypto';

export { canonicalId, canonicalIdsIn } from '../src-shared/ids.ts';

export function newId(): string {
  return randomUUID();
}
