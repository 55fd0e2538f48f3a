// What the DACE prints, read from a DC-e (layout 1.00, model 99): the signed <DCe> of a draft or the dceProc
// (DCe + protDCe) of an authorized one, through the DC-e reader of fiscal/dce plus the little only the DACE shows.
import { DCE_CODES } from '../../src-shared/tables/dce-codes.ts';
import { DceReadError, readDce, type DceRead, type DceReadProtocol } from '../fiscal/dce/parse.ts';
import { ProcError, textOf } from '../fiscal/proc.ts';
import { OutputParseError } from './model.ts';

export interface DaceModel extends Omit<DceRead, 'supl'> {
  /** The QR code and the consultation address: every DC-e carries them, the DACE prints both. */
  supl: NonNullable<DceRead['supl']>;
  /** infAdic's free texts of the fisco, the marketplace and the Correios (Balcão writes none; others may). */
  infAdFisco: string | null;
  infAdMarketplace: string | null;
  infAdECT: string | null;
  /** `prot` when it authorized the DC-e (DCE_CODES.authorized); null for a draft or a protDCe that refused it. */
  authorization: DceReadProtocol | null;
}

/**
 * Reads a dceProc (DCe + protDCe) or a bare signed DCe into the printable model of the DACE.
 * @throws OutputParseError when the document is not a DC-e or lacks a field the DACE prints.
 */
export function daceModelOf(xmlOrProc: string): DaceModel {
  let read: DceRead;
  try {
    read = readDce(xmlOrProc);
  } catch (error) {
    // ProcError: the text is not well-formed XML where the reader looks for an element.
    if (error instanceof DceReadError || error instanceof ProcError)
      throw new OutputParseError(error.message);
    throw error;
  }
  if (!/^[0-9]{44}$/.test(read.chave)) {
    throw new OutputParseError(`infDCe/@Id 'DCe${read.chave}' is not "DCe" and 44 digits`);
  }
  const mod = textOf(xmlOrProc, 'mod');
  if (mod !== '99') throw new OutputParseError(`ide/mod ${mod ?? '(none)'} is not 99`);
  if (read.supl === null) throw new OutputParseError('the DC-e has no infDCeSupl (QR code)');
  const text = (name: string): string | null => textOf(xmlOrProc, name) ?? null;
  return {
    ...read,
    supl: read.supl,
    infAdFisco: text('infAdFisco'),
    infAdMarketplace: text('infAdMarketplace'),
    infAdECT: text('infAdECT'),
    authorization: read.prot?.cStat === DCE_CODES.authorized.code ? read.prot : null,
  };
}
