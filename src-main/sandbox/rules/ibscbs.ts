// Sandbox authority rules on the note's content: IBS/CBS content: rates in force for the date, cClassTrib against its table and the CST.
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { NoteRule } from '../services/authorization.ts';

export const IBSCBS_RULES: readonly NoteRule[] = [];
