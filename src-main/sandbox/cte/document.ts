// Reading a CT-e 4.00 as the sandbox authority does: namespace-aware lookups in the CT-e namespace and the
// facts of one CTe the reception rules read, plus the protCTe/retCTe answers it writes.
import type { Element } from '@xmldom/xmldom';
import { CTE_NAMESPACE } from '../../fiscal/schema.ts';
import { protocolXml, type ProtocolFields } from '../answers.ts';
import { at, children, elementTexts, parseXml, rootOf, textAt, withNamespace } from '../xml.ts';

/** The CT-e child at a slash-separated path below `from`, if any. */
export function cteAt(from: Element, path: string): Element | undefined {
  return at(from, path, CTE_NAMESPACE);
}

export function cteText(from: Element, path: string): string | undefined {
  return textAt(from, path, CTE_NAMESPACE);
}

export function cteChildren(parent: Element, name: string): Element[] {
  return children(parent, name, CTE_NAMESPACE);
}

/** The first top-level `<name>` element of `xml`, with the CT-e namespace declared on it. */
export function cteElement(xml: string, name: string): string | undefined {
  const found = elementTexts(xml, name)[0];
  return found === undefined ? undefined : withNamespace(found, CTE_NAMESPACE);
}

/** The facts of one schema-valid CTe that the reception rules read. */
export interface ParsedCte {
  /** The CTe element exactly as received. */
  xml: string;
  chave: string;
  ide: Record<
    | 'cUF'
    | 'cCT'
    | 'CFOP'
    | 'mod'
    | 'serie'
    | 'nCT'
    | 'dhEmi'
    | 'tpEmis'
    | 'cDV'
    | 'tpAmb'
    | 'tpServ'
    | 'UFIni'
    | 'UFFim',
    string
  >;
  /** ide/dhCont and ide/xJust: entry into contingency (tpEmis 7 SVC-RS, 8 SVC-SP), when given. */
  cont: { dhCont: string | undefined; xJust: string | undefined };
  emit: { id: string; idInKey: string; UF: string };
  vTPrest: string;
  vRec: string;
  /** Comp/vComp of vPrest, in order. */
  vComp: string[];
  /** infCTeNorm/infDoc/infNFe/chave, in order (empty when the CT-e carries none). */
  nfeKeys: string[];
  /** The rodo group of infModal with the namespace declared, for the road modal schema; null when absent. */
  rodo: string | null;
  modal: string;
}

export function parseCte(xml: string): ParsedCte {
  const root = rootOf(parseXml(xml));
  const inf = root === undefined ? undefined : cteAt(root, 'infCte');
  if (root === undefined || inf === undefined) throw new Error('not a CTe');
  const t = (path: string) => cteText(inf, path) ?? '';
  const vPrest = cteAt(inf, 'vPrest');
  const infDoc = cteAt(inf, 'infCTeNorm/infDoc');
  const emitCnpj = cteText(inf, 'emit/CNPJ');
  const emitCpf = cteText(inf, 'emit/CPF');
  return {
    xml,
    chave: (inf.getAttribute('Id') ?? '').replace(/^CTe/, ''),
    ide: {
      cUF: t('ide/cUF'),
      cCT: t('ide/cCT'),
      CFOP: t('ide/CFOP'),
      mod: t('ide/mod'),
      serie: t('ide/serie'),
      nCT: t('ide/nCT'),
      dhEmi: t('ide/dhEmi'),
      tpEmis: t('ide/tpEmis'),
      cDV: t('ide/cDV'),
      tpAmb: t('ide/tpAmb'),
      tpServ: t('ide/tpServ'),
      UFIni: t('ide/UFIni'),
      UFFim: t('ide/UFFim'),
    },
    cont: { dhCont: cteText(inf, 'ide/dhCont'), xJust: cteText(inf, 'ide/xJust') },
    emit: {
      id: emitCnpj ?? emitCpf ?? '',
      idInKey: emitCnpj ?? `000${emitCpf ?? ''}`,
      UF: t('emit/enderEmit/UF'),
    },
    vTPrest: t('vPrest/vTPrest'),
    vRec: t('vPrest/vRec'),
    vComp: vPrest === undefined ? [] : cteChildren(vPrest, 'Comp').map((c) => cteText(c, 'vComp') ?? ''),
    nfeKeys: infDoc === undefined ? [] : cteChildren(infDoc, 'infNFe').map((n) => cteText(n, 'chave') ?? ''),
    rodo: cteElement(xml, 'rodo') ?? null,
    modal: t('ide/modal'),
  };
}

export type ProtCteFields = ProtocolFields & { cStat: number };

/** protCTe (TProtCTe): with nProt and digVal when the CT-e was authorized or denied. */
export const protCteXml = (p: ProtCteFields): string =>
  protocolXml({ root: 'protCTe', versao: '4.00', idPrefix: 'CTe', keyName: 'chCTe' }, p);

/** procEventoCTe of a registered event: the event as received and the authority's answer. */
export function procEventoCteXml(event: { xml: string; ret_xml: string }): string {
  return `<procEventoCTe xmlns="${CTE_NAMESPACE}" versao="4.00">${event.xml}${event.ret_xml}</procEventoCTe>`;
}
