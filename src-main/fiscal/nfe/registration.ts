// The registration rules of SEFAZ the service checks before signing: the IE of the emitter (209) and of the
// recipient (210) by the check digits of their UF, and where ISENTO may stand for an IE (MOC 7.0 C17, E17).
import { ieProblem } from '../../../src-shared/ie.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';
import type { EmitModel } from './model.ts';

export interface RegistrationFault {
  error: string;
  rule: { cStat: string; xMotivo: string };
}

const IE_EMITENTE = { cStat: '209', xMotivo: 'Rejeicao: IE do emitente invalida' };
const IE_DESTINATARIO = { cStat: '210', xMotivo: 'Rejeicao: IE do destinatario invalida' };

/**
 * The company's IE as the note's emitter. ISENTO is written only on the NF-e Avulsa the tax office issues,
 * which Balcão never does; a company saved before the check (or with a typo) is told how to fix it.
 */
export function emitterIeFault(emit: Pick<EmitModel, 'IE' | 'enderEmit'>): RegistrationFault | null {
  const uf = emit.enderEmit.UF;
  const problem =
    emit.IE === 'ISENTO' ? 'ISENTO is not accepted for an NF-e/NFC-e emitter' : ieProblem(uf, emit.IE);
  if (problem === null) return null;
  return {
    error: `the company's IE ${emit.IE} is invalid for ${uf}: ${problem}; correct it with PUT /v1/companies/:id (SEFAZ rejects it with cStat 209)`,
    rule: IE_EMITENTE,
  };
}

/** The recipient's IE against the UF of its address (the UF whose algorithm SEFAZ applies). */
export function recipientIeFault(uf: UfSigla, ie: string): RegistrationFault | null {
  const problem = ieProblem(uf, ie);
  if (problem === null) return null;
  return {
    error: `invalid IE for a recipient in ${uf}: ${problem} (SEFAZ rejects it with cStat 210)`,
    rule: IE_DESTINATARIO,
  };
}
