// emit, rem, exped, receb and dest of the CT-e 4.00 (TCTe/infCte). The order of the address tags is
// TEndeEmi for emit (with fone) and TEndereco for the others (enderReme, enderExped, enderReceb, enderDest).
import { el, group, opt } from '../xml.ts';
import type { CteAddress, CteEmit, CteParty } from './model.ts';

export function addressTags(a: CteAddress): string[] {
  return [
    el('xLgr', a.xLgr),
    el('nro', a.nro),
    opt('xCpl', a.xCpl),
    el('xBairro', a.xBairro),
    el('cMun', a.cMun),
    el('xMun', a.xMun),
    opt('CEP', a.CEP),
    el('UF', a.UF),
  ];
}

export function emitXml(emit: CteEmit): string {
  return group(
    'emit',
    el('CNPJ', emit.CNPJ),
    el('IE', emit.IE),
    el('xNome', emit.xNome),
    opt('xFant', emit.xFant),
    group('enderEmit', ...addressTags(emit.enderEmit), opt('fone', emit.enderEmit.fone)),
    el('CRT', emit.CRT),
  );
}

type PartyTag = 'rem' | 'exped' | 'receb' | 'dest';
const ADDRESS_TAG = {
  rem: 'enderReme',
  exped: 'enderExped',
  receb: 'enderReceb',
  dest: 'enderDest',
} as const;

function partyXml(tag: PartyTag, p: CteParty): string {
  return group(
    tag,
    p.CNPJ !== undefined ? el('CNPJ', p.CNPJ) : el('CPF', p.CPF ?? ''),
    opt('IE', p.IE),
    el('xNome', p.xNome),
    group(ADDRESS_TAG[tag], ...addressTags(p.ender)),
  );
}

export const remXml = (rem: CteParty): string => partyXml('rem', rem);
export const destXml = (dest: CteParty): string => partyXml('dest', dest);
/** exped and receb are optional groups: nothing is written for null. */
export const expedXml = (exped: CteParty | null): string => (exped === null ? '' : partyXml('exped', exped));
export const recebXml = (receb: CteParty | null): string => (receb === null ? '' : partyXml('receb', receb));
