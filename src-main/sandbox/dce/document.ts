// Reading a DC-e 1.00 (model 99) as the sandbox authority does (namespace-aware lookups in the DC-e namespace,
// the facts of one DCe its rules read) and writing its answers: protDCe, retDCe, procEventoDCe, xMotivo.
import type { Element } from '@xmldom/xmldom';
import { DCE_NAMESPACE } from '../../fiscal/schema.ts';
import { DCE_CODES, type DceCodeName } from '../../../src-shared/tables/dce-codes.ts';
import { protocolXml } from '../answers.ts';
import { clampMotivo } from '../cstat.ts';
import { nextSequence, type SandboxTx } from '../store.ts';
import { at, children, elementTexts, esc, parseXml, rootOf, textAt } from '../xml.ts';

export const dceAt = (from: Element, path: string): Element | undefined => at(from, path, DCE_NAMESPACE);
export const dceText = (from: Element, path: string): string | undefined => textAt(from, path, DCE_NAMESPACE);

/** A rule's outcome: the code's name in DCE_CODES and a bracketed detail appended to its text. */
export interface DceFinding {
  code: DceCodeName;
  detail?: string;
}

/** xMotivo of a code, with the detail, kept inside TMotivo (Latin-1, 255 characters). */
export function dceMotivo(f: DceFinding): string {
  const base: string = DCE_CODES[f.code].text;
  return clampMotivo(f.detail === undefined || f.detail === '' ? base : `${base} ${f.detail}`);
}

export const dceCStat = (f: DceFinding): string => DCE_CODES[f.code].code;

/** The issuer groups of infDCe (one of them, or none for the emissor próprio). */
export type DceIssuerGroup = 'Fisco' | 'Marketplace' | 'Transportadora' | 'ECT';
const ISSUER_GROUPS: readonly DceIssuerGroup[] = ['Fisco', 'Marketplace', 'Transportadora', 'ECT'];

/** The facts of one schema-valid DCe that the reception rules read. */
export interface ParsedDce {
  /** The DCe element exactly as received. */
  xml: string;
  chave: string;
  ide: Record<
    | 'cUF'
    | 'cDC'
    | 'mod'
    | 'serie'
    | 'nDC'
    | 'dhEmi'
    | 'tpEmis'
    | 'tpEmit'
    | 'nSiteAutoriz'
    | 'cDV'
    | 'tpAmb',
    string
  >;
  /** emit/CNPJ, or "000" + emit/CPF, or '' for idOutros: what the key carries for an emissor próprio. */
  emitIdInKey: string;
  group: { name: DceIssuerGroup; cnpj: string } | null;
  items: Array<{ qCom: string; vUnCom: string; vProd: string }>;
  vDC: string;
  modTrans: string;
  cnpjTransp: string;
  qrCodDCe: string;
}

export function parseDce(xml: string): ParsedDce {
  const root = rootOf(parseXml(xml));
  const inf = root === undefined ? undefined : dceAt(root, 'infDCe');
  if (root === undefined || inf === undefined) throw new Error('not a DCe');
  const t = (path: string) => dceText(inf, path) ?? '';
  const groupName = ISSUER_GROUPS.find((g) => dceAt(inf, g) !== undefined);
  const emitCnpj = dceText(inf, 'emit/CNPJ');
  const emitCpf = dceText(inf, 'emit/CPF');
  return {
    xml,
    chave: (inf.getAttribute('Id') ?? '').replace(/^DCe/, ''),
    ide: {
      cUF: t('ide/cUF'),
      cDC: t('ide/cDC'),
      mod: t('ide/mod'),
      serie: t('ide/serie'),
      nDC: t('ide/nDC'),
      dhEmi: t('ide/dhEmi'),
      tpEmis: t('ide/tpEmis'),
      tpEmit: t('ide/tpEmit'),
      nSiteAutoriz: t('ide/nSiteAutoriz'),
      cDV: t('ide/cDV'),
      tpAmb: t('ide/tpAmb'),
    },
    emitIdInKey: emitCnpj ?? (emitCpf === undefined ? '' : `000${emitCpf}`),
    group: groupName === undefined ? null : { name: groupName, cnpj: t(`${groupName}/CNPJ`) },
    items: children(inf, 'det', DCE_NAMESPACE).map((det) => ({
      qCom: dceText(det, 'prod/qCom') ?? '',
      vUnCom: dceText(det, 'prod/vUnCom') ?? '',
      vProd: dceText(det, 'prod/vProd') ?? '',
    })),
    vDC: t('total/vDC'),
    modTrans: t('transp/modTrans'),
    cnpjTransp: t('transp/CNPJTransp'),
    qrCodDCe: root === undefined ? '' : (dceText(root, 'infDCeSupl/qrCodDCe') ?? ''),
  };
}

/** The first top-level `<name>` element of `xml`, exactly as written. */
export function dceElement(xml: string, name: string): string | undefined {
  return elementTexts(xml, name)[0];
}

export interface ProtDceFields {
  tpAmb: string;
  verAplic: string;
  chave: string;
  dhRecbto: string;
  nProt?: string;
  digVal?: string;
  finding: DceFinding;
}

/** protDCe (TProtDCe): with its Id, nProt and digVal when the DC-e was authorized. */
export function protDceXml(p: ProtDceFields): string {
  const { finding, ...fields } = p;
  return protocolXml(
    { root: 'protDCe', versao: '1.00', idPrefix: 'DCe', keyName: 'chDCe' },
    { ...fields, cStat: dceCStat(finding), xMotivo: dceMotivo(finding) },
  );
}

/** retDCe (TRetDCe): the answer of DCeAutorizacao, with protDCe once the DC-e itself was judged. */
export function retDceXml(p: {
  tpAmb: string;
  verAplic: string;
  finding: DceFinding;
  cUF: number;
  dhRecbto: string;
  protDCe?: string;
}): string {
  return (
    `<retDCe xmlns="${DCE_NAMESPACE}" versao="1.00"><tpAmb>${p.tpAmb}</tpAmb>` +
    `<verAplic>${esc(p.verAplic)}</verAplic><cStat>${dceCStat(p.finding)}</cStat>` +
    `<xMotivo>${esc(dceMotivo(p.finding))}</xMotivo><cUF>${p.cUF}</cUF><dhRecbto>${p.dhRecbto}</dhRecbto>` +
    `${p.protDCe ?? ''}</retDCe>`
  );
}

/** procEventoDCe of a registered event: the event as received and the authority's answer. */
export function procEventoDceXml(event: { xml: string; ret_xml: string }): string {
  return `<procEventoDCe xmlns="${DCE_NAMESPACE}" versao="1.00">${event.xml}${event.ret_xml}</procEventoDCe>`;
}

/**
 * nProt of the DC-e, TProt of 16 digits (MOC DC-e, Visão Geral v1.0 §4.3.1): authorizer type (1 a UF's SEFAZ,
 * 3 the SVRS), the UF, the 2-digit year, the authorizing site (0) and a 10-digit sequence. Also the Id of
 * retEventoDCe (ID + 16 digits).
 */
export async function nextDceProtocol(db: SandboxTx, cOrgao: number, at: Date): Promise<string> {
  const yy = String(at.getUTCFullYear() % 100).padStart(2, '0');
  const organ = String(cOrgao).padStart(2, '0');
  const seq = await nextSequence(db, `nProtDCe:${organ}:${yy}`);
  return `1${organ}${yy}0${String(seq).padStart(10, '0')}`;
}
