// The sandbox's rules on a note's content, in the order they run after the message, key, duplicate and
// QR-code rules of services/authorization.ts: one module per family, so each can grow on its own.
import type { NoteRule } from '../services/authorization.ts';
import { DOCUMENTS_RULES } from './documents.ts';
import { GOODS_RULES } from './goods.ts';
import { IBSCBS_RULES } from './ibscbs.ts';
import { ICMS_RULES } from './icms.ts';
import { OPERATION_RULES } from './operation.ts';
import { REGISTRATION_RULES } from './registration.ts';

export const CONTENT_RULES: readonly NoteRule[] = [
  ...OPERATION_RULES,
  ...REGISTRATION_RULES,
  ...GOODS_RULES,
  ...ICMS_RULES,
  ...IBSCBS_RULES,
  ...DOCUMENTS_RULES,
];
