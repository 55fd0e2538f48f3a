// Sandbox authority rules on the note's content: Devolução (impostoDevol), cobrança (fat/dup) and transport groups.
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { NoteRule } from '../services/authorization.ts';

export const DOCUMENTS_RULES: readonly NoteRule[] = [];
