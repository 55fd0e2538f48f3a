// The registration rules of SEFAZ the service checks before signing: the IE of the emitter (209) and of the
// recipient (210) by the check digits of their UF, and where ISENTO may stand for an IE (MOC 7.0 C17, 805).
import { ieProblem } from '../../../src-shared/ie.ts';
import { EXEMPT_ICMS_CODES, UFS_WITHOUT_ISENTO } from '../../../src-shared/tables/ie-isento.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';
import type { DestModel, EmitModel, ItemModel } from './model.ts';

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
    emit.IE === 'ISENTO' ? 'ISENTO is not accepted for an NF-e/NFC-e emitter' : emitterIeProblem(uf, emit.IE);
  if (problem === null) return null;
  return {
    error: `the company's IE ${emit.IE} is invalid for ${uf}: ${problem}; correct it with PUT /v1/companies/:id (SEFAZ rejects it with cStat 209)`,
    rule: IE_EMITENTE,
  };
}

// A company sells under one IE: its check is made once per UF and IE, not on every note (bounded memory).
const emitterIeChecked = new Map<string, string | null>();

function emitterIeProblem(uf: UfSigla, ie: string): string | null {
  const key = `${uf}:${ie}`;
  const known = emitterIeChecked.get(key);
  if (known !== undefined) return known;
  const problem = ieProblem(uf, ie);
  if (emitterIeChecked.size < 256) emitterIeChecked.set(key, problem);
  return problem;
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

const ISENTO_NAO_PERMITIDO = {
  cStat: '805',
  xMotivo: 'Rejeicao: A SEFAZ do destinatario nao permite Contribuinte Isento de Inscricao Estadual',
};

/** ICMS codes that carry ST on the note (vICMSST) or ST retained earlier (vICMSSTRet): exceptions 1 and 2. */
const ST_CODES: ReadonlySet<string> = new Set(['10', '30', '60', '70', '201', '202', '203', '500']);

/**
 * Rule 805 (MOC E16a-30): a recipient declared isento (indIEDest 2) in a UF that does not accept it, in an
 * internal or interstate operation, unless an item carries ICMS-ST or ST retained earlier, or every item is
 * exempt, immune or untaxed. Counted generously as ST (CST 90/900 with an ST group too), so the service never
 * refuses a note the authority would take.
 */
export function isentoRecipientFault(
  dest: Pick<DestModel, 'indIEDest' | 'enderDest'> | null,
  itens: ReadonlyArray<Pick<ItemModel, 'taxes' | 'detailed'>>,
): RegistrationFault | null {
  const uf = dest?.enderDest?.UF;
  if (dest?.indIEDest !== 2 || uf === undefined || !UFS_WITHOUT_ISENTO.has(uf)) return null;
  const code = (i: Pick<ItemModel, 'taxes'>) => i.taxes.ICMS.CST ?? i.taxes.ICMS.CSOSN ?? '';
  const withSt = itens.some(
    (i) =>
      ST_CODES.has(code(i)) ||
      i.taxes.ICMS.st !== undefined ||
      (i.detailed?.vICMSST !== undefined && Number(i.detailed.vICMSST) > 0),
  );
  if (withSt || (itens.length > 0 && itens.every((i) => EXEMPT_ICMS_CODES.has(code(i))))) return null;
  return {
    error: `${uf} does not accept a recipient exempt from registration (indIEDest 2, IE ISENTO): give its IE (indIEDest 1) or declare it a non-contributor (indIEDest 9) (SEFAZ rejects it with cStat 805)`,
    rule: ISENTO_NAO_PERMITIDO,
  };
}
