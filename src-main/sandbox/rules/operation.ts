// Sandbox authority rules on the note's content: CFOP against the operation (idDest, tpNF, NFC-e), payments (vTroco) and freight, infRespTec.
// Each rule names the MOC 7.0 rejection it implements; the first finding rejects the note.
import type { NoteRule } from '../services/authorization.ts';

export const OPERATION_RULES: readonly NoteRule[] = [];
