// The answer elements the sandbox writes alike for several families: a document's protocol (protNFe, protCTe,
// protDCe) and the answer of a one-event message (retEventoCTe, retEventoDCe); each family names its elements.
import { esc } from './xml.ts';

/** How a family writes its protocol: the element, its versao, the Id's prefix and the key's name. */
export interface ProtocolForm {
  root: 'protNFe' | 'protCTe' | 'protDCe';
  versao: string;
  /** infProt/@Id is this prefix and nProt ("ID" for the NF-e, "CTe", "DCe"). */
  idPrefix: string;
  keyName: 'chNFe' | 'chCTe' | 'chDCe';
}

export interface ProtocolFields {
  tpAmb: string;
  verAplic: string;
  chave: string;
  dhRecbto: string;
  nProt?: string;
  digVal?: string;
  cStat: number | string;
  xMotivo: string;
}

/** A protocol (TProtNFe, TProtCTe, TProtDCe): with its Id, nProt and digVal once the document was decided. */
export function protocolXml(form: ProtocolForm, p: ProtocolFields): string {
  const { root, keyName } = form;
  return (
    `<${root} versao="${form.versao}"><infProt${p.nProt === undefined ? '' : ` Id="${form.idPrefix}${p.nProt}"`}>` +
    `<tpAmb>${p.tpAmb}</tpAmb><verAplic>${esc(p.verAplic)}</verAplic><${keyName}>${p.chave}</${keyName}>` +
    `<dhRecbto>${p.dhRecbto}</dhRecbto>` +
    (p.nProt === undefined ? '' : `<nProt>${p.nProt}</nProt>`) +
    (p.digVal === undefined || p.digVal === '' ? '' : `<digVal>${p.digVal}</digVal>`) +
    `<cStat>${p.cStat}</cStat><xMotivo>${esc(p.xMotivo)}</xMotivo></infProt></${root}>`
  );
}

/** How a family with one event per message writes its answer: the element, namespace, versao, key's name. */
export interface OneEventForm {
  root: 'retEventoCTe' | 'retEventoDCe';
  namespace: string;
  versao: string;
  keyName: 'chCTe' | 'chDCe';
}

export interface OneEventFields {
  tpAmb: string;
  verAplic: string;
  cOrgao: string;
  cStat: number | string;
  xMotivo: string;
  /** The event as read, null when the message could not be read. */
  ev: { chave: string; tpEvento: string; nSeqEvento: string } | null;
  /** Whether ev.chave is a key the answer may repeat (the family's own check). */
  keyKnown: boolean;
  xEvento?: string;
  dhRegEvento: string;
  nProt?: string;
}

/** retEventoCTe / retEventoDCe: what the message held that is well-formed, the outcome, and the protocol. */
export function oneEventAnswerXml(form: OneEventForm, p: OneEventFields): string {
  const { ev } = p;
  const { keyName } = form;
  return (
    `<${form.root} xmlns="${form.namespace}" versao="${form.versao}"><infEvento${p.nProt === undefined ? '' : ` Id="ID${p.nProt}"`}>` +
    `<tpAmb>${p.tpAmb}</tpAmb><verAplic>${esc(p.verAplic)}</verAplic><cOrgao>${p.cOrgao}</cOrgao>` +
    `<cStat>${p.cStat}</cStat><xMotivo>${esc(p.xMotivo)}</xMotivo>` +
    (ev !== null && p.keyKnown ? `<${keyName}>${ev.chave}</${keyName}>` : '') +
    (ev !== null && /^[0-9]{6}$/.test(ev.tpEvento) ? `<tpEvento>${ev.tpEvento}</tpEvento>` : '') +
    (p.xEvento === undefined ? '' : `<xEvento>${esc(p.xEvento)}</xEvento>`) +
    (ev !== null && /^[0-9]{1,3}$/.test(ev.nSeqEvento) ? `<nSeqEvento>${ev.nSeqEvento}</nSeqEvento>` : '') +
    `<dhRegEvento>${p.dhRegEvento}</dhRegEvento>${p.nProt === undefined ? '' : `<nProt>${p.nProt}</nProt>`}` +
    `</infEvento></${form.root}>`
  );
}

/** How a family writes its status answer: the element, namespace and versao. */
export interface StatusForm {
  root: 'retConsStatServ' | 'retConsStatServCTe' | 'retConsStatServDCe';
  namespace: string;
  versao: string;
}

/** retConsStatServ / retConsStatServCTe / retConsStatServDCe; tMed (1 second) only while in service. */
export function statusAnswerXml(
  form: StatusForm,
  p: {
    tpAmb: string;
    verAplic: string;
    cStat: number | string;
    xMotivo: string;
    cUF: number;
    dhRecbto: string;
    inService: boolean;
  },
): string {
  return (
    `<${form.root} xmlns="${form.namespace}" versao="${form.versao}">` +
    `<tpAmb>${p.tpAmb}</tpAmb><verAplic>${esc(p.verAplic)}</verAplic>` +
    `<cStat>${p.cStat}</cStat><xMotivo>${esc(p.xMotivo)}</xMotivo><cUF>${p.cUF}</cUF>` +
    `<dhRecbto>${p.dhRecbto}</dhRecbto>${p.inService ? '<tMed>1</tMed>' : ''}</${form.root}>`
  );
}
