// Reads from a CT-e's XML (the document of record, CTe or cteProc) what its page shows beyond the API's view:
// the freight components, the amount to receive, the carried NF-e keys, the vehicle and the observation.

export interface CteContent {
  /** vPrest/Comp: name and value as decimal text ("1000.00"). */
  componentes: { nome: string; valor: string }[];
  vTPrest: string | null;
  vRec: string | null;
  /** infDoc/infNFe/chave, in the CT-e's order. */
  chaves: string[];
  /** compl/ObsCont xCampo "placa", "uf", "renavam" (CT-e 4.00's road modal has no vehicle group). */
  veiculo: { placa: string; uf: string | null; renavam: string | null } | null;
  observacoes: string | null;
}

const NS = 'http://www.portalfiscal.inf.br/cte';

/** What is used of a DOM: the browser's DOMParser and the one tests bring agree on these members. */
interface XmlNode {
  nodeType: number;
  localName: string | null;
  textContent: string | null;
  childNodes: ArrayLike<XmlNode>;
  getAttribute?(name: string): string | null;
}
interface XmlDocument {
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<XmlNode>;
}
export interface XmlParser {
  parseFromString(xml: string, type: 'application/xml'): unknown;
}

function elements(parent: XmlNode | null | undefined, name: string): XmlNode[] {
  if (parent === null || parent === undefined) return [];
  return Array.from(parent.childNodes).filter((c) => c.nodeType === 1 && c.localName === name);
}

function child(parent: XmlNode | null | undefined, name: string): XmlNode | null {
  return elements(parent, name)[0] ?? null;
}

function text(parent: XmlNode | null | undefined, name: string): string | null {
  return child(parent, name)?.textContent ?? null;
}

/** `parser`: the browser's `new DOMParser()` (passed in, so the module also runs where there is no DOM). */
export function readCteContent(xml: string, parser: XmlParser): CteContent {
  const doc = parser.parseFromString(xml, 'application/xml') as XmlDocument;
  const inf = doc.getElementsByTagNameNS(NS, 'infCte')[0];
  if (inf === undefined) throw new Error('XML sem infCte');
  const prest = child(inf, 'vPrest');
  const norm = child(inf, 'infCTeNorm');
  const compl = child(inf, 'compl');
  const obs = new Map<string, string>();
  for (const o of elements(compl, 'ObsCont')) {
    const campo = o.getAttribute?.('xCampo') ?? null;
    if (campo !== null) obs.set(campo, text(o, 'xTexto') ?? '');
  }
  const placa = obs.get('placa');
  return {
    componentes: elements(prest, 'Comp').map((c) => ({
      nome: text(c, 'xNome') ?? '',
      valor: text(c, 'vComp') ?? '0.00',
    })),
    vTPrest: text(prest, 'vTPrest'),
    vRec: text(prest, 'vRec'),
    chaves: elements(child(norm, 'infDoc'), 'infNFe')
      .map((n) => text(n, 'chave'))
      .filter((k): k is string => k !== null),
    veiculo:
      placa === undefined ? null : { placa, uf: obs.get('uf') ?? null, renavam: obs.get('renavam') ?? null },
    observacoes: text(compl, 'xObs'),
  };
}
