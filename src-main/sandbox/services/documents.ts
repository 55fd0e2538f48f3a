// Documents the sandbox authority hands out after the fact: nfeProc (NFe + protNFe), procEventoNFe (evento +
// retEvento) and the summary resNFe of the distribution service (NT 2014.002, resNFe_v1.01.xsd).
import type { SandboxDatabase } from '../store.ts';
import { esc } from '../xml.ts';

const NFE_NS = 'http://www.portalfiscal.inf.br/nfe';

/** procNFe_v4.00.xsd: the NFe as received and its protocol. */
export function nfeProcXml(note: Pick<SandboxDatabase['notes'], 'xml' | 'prot_xml'>): string {
  return `<nfeProc xmlns="${NFE_NS}" versao="4.00">${note.xml}${note.prot_xml}</nfeProc>`;
}

/** procEventoNFe_v1.00.xsd: the event as received and the authority's retEvento. */
export function procEventoXml(event: Pick<SandboxDatabase['events'], 'xml' | 'ret_xml'>): string {
  return `<procEventoNFe xmlns="${NFE_NS}" versao="1.00">${event.xml}${event.ret_xml}</procEventoNFe>`;
}

/** cSitNFe of resNFe: 1 authorized, 2 denied, 3 cancelled. */
const SITUATION: Record<SandboxDatabase['notes']['status'], string> = {
  autorizada: '1',
  denegada: '2',
  cancelada: '3',
};

export function resNFeXml(note: SandboxDatabase['notes']): string {
  const emitter = note.cnpj.length === 11 ? `<CPF>${note.cnpj}</CPF>` : `<CNPJ>${note.cnpj}</CNPJ>`;
  return (
    `<resNFe xmlns="${NFE_NS}" versao="1.01"><chNFe>${note.chave}</chNFe>${emitter}` +
    `<xNome>${esc(note.x_nome)}</xNome><IE>${esc(note.ie)}</IE><dhEmi>${note.dh_emi}</dhEmi>` +
    `<tpNF>${note.tp_nf}</tpNF><vNF>${note.v_nf}</vNF>${note.dig_val ? `<digVal>${note.dig_val}</digVal>` : ''}` +
    `<dhRecbto>${note.dh_recbto}</dhRecbto><nProt>${note.n_prot}</nProt>` +
    `<cSitNFe>${SITUATION[note.status]}</cSitNFe></resNFe>`
  );
}
