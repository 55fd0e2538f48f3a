// Groups C (emit) and E (dest): emitter and recipient, MOC 7.0 annex I.
import { el, group, opt } from '../xml.ts';
import type { NfeModel } from './model.ts';

/** Rule 598: in homologação the recipient's name must be this text. */
export const HOMOLOGACAO_DEST_NAME = 'NF-E EMITIDA EM AMBIENTE DE HOMOLOGACAO - SEM VALOR FISCAL';

interface Address {
  xLgr: string;
  nro: string;
  xCpl: string | null;
  xBairro: string;
  cMun: string;
  xMun: string;
  UF: string;
  CEP: string | null;
  fone: string | null;
}

/** TEnderEmi / TEndereco: the same sequence; CEP is required for the emitter, whose model always has one. */
function addressXml(tag: 'enderEmit' | 'enderDest', a: Address): string {
  return group(
    tag,
    el('xLgr', a.xLgr),
    el('nro', a.nro),
    opt('xCpl', a.xCpl),
    el('xBairro', a.xBairro),
    el('cMun', a.cMun),
    el('xMun', a.xMun),
    el('UF', a.UF),
    opt('CEP', a.CEP),
    el('cPais', '1058'),
    el('xPais', 'BRASIL'),
    opt('fone', a.fone),
  );
}

export function emitXml(model: NfeModel): string {
  const e = model.emit;
  const a = e.enderEmit;
  return group(
    'emit',
    el('CNPJ', e.CNPJ),
    el('xNome', e.xNome),
    opt('xFant', e.xFant),
    addressXml('enderEmit', a),
    el('IE', e.IE),
    opt('IM', e.IM),
    el('CRT', e.CRT),
  );
}

export function destXml(model: NfeModel): string {
  const d = model.dest;
  if (d === null) return '';
  const name = model.tpAmb === 2 && model.modelo === 55 ? HOMOLOGACAO_DEST_NAME : d.xNome;
  const a = d.enderDest;
  const address = a === undefined ? '' : addressXml('enderDest', a);
  return group(
    'dest',
    opt('CNPJ', d.CNPJ),
    opt('CPF', d.CPF),
    opt('idEstrangeiro', d.idEstrangeiro),
    opt('xNome', name),
    address,
    el('indIEDest', d.indIEDest),
    opt('IE', d.IE),
    opt('email', d.email),
  );
}
