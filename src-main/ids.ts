// Identifier generation: random UUIDs with a short type prefix, so a stray id says what it names.
import { randomUUID } from 'node:crypto';

export type IdPrefix = 'org' | 'cmp' | 'key' | 'crt' | 'cus' | 'prd' | 'fpr' | 'req' | 'doc';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}
