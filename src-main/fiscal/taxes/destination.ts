// Where an operation goes (idDest, B11): inside the UF, to another UF or abroad. The ICMS rules read it, and
// the NF-e writer puts it in ide, so it lives with the taxes and fiscal/nfe imports it from here.
import type { TaxNoteInput } from './types.ts';

/** 1 internal, 2 interstate, 3 abroad. An NFC-e, or a note without recipient, is always internal. */
export function idDestOf(note: Pick<TaxNoteInput, 'modelo' | 'dest' | 'emit'>): 1 | 2 | 3 {
  if (note.modelo === 65 || note.dest === null) return 1;
  if (note.dest.idEstrangeiro !== undefined) return 3;
  const destUf = note.dest.enderDest?.UF;
  return destUf === undefined || destUf === note.emit.enderEmit.UF ? 1 : 2;
}
