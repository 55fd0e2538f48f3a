// emit, rem and dest of the CT-e 4.00 (TCTe/infCte). The order of the address tags is TEndeEmi for emit
// (with fone) and TEndereco for rem (enderReme) and dest (enderDest).
import { el, group, opt } from '../xml.ts';
import type { CteAddress, CteEmit, CteParty } from './model.ts';

function addressTags(a: CteAddress): string[] {
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

function partyXml(tag: 'rem' | 'dest', addressTag: 'enderReme' | 'enderDest', p: CteParty): string {
  return group(
    tag,
    p.CNPJ !== undefined ? el('CNPJ', p.CNPJ) : el('CPF', p.CPF ?? ''),
    opt('IE', p.IE),
    el('xNome', p.xNome),
    group(addressTag, ...addressTags(p.ender)),
  );
}

export const remXml = (rem: CteParty): string => partyXml('rem', 'enderReme', rem);
export const destXml = (dest: CteParty): string => partyXml('dest', 'enderDest', dest);
