// Sandbox authority rules on the note's content: ICMS content: DIFAL (ICMSUFDest), FCP, desoneração, CST 60, ST values.
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { NoteRule } from '../services/authorization.ts';

export const ICMS_RULES: readonly NoteRule[] = [];
