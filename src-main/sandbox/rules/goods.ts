// Sandbox authority rules on the note's content: NCM of each item against the NCM table, Simples Nacional and Lei 12.741 content.
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { NoteRule } from '../services/authorization.ts';

export const GOODS_RULES: readonly NoteRule[] = [];
