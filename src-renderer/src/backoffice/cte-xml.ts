// Reads from a CT-e's XML (the document of record, CTe or cteProc) what its page shows beyond the API's view:
// the freight components, the amount to receive, the carried NF-e keys, the vehicle and the observation.
import { child, elements, firstIn, text, type XmlParser } from './xml-dom.ts';

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

/** `parser`: the browser's `new DOMParser()` (passed in, so the module also runs where there is no DOM). */
export function readCteContent(xml: string, parser: XmlParser): CteContent {
  const inf = firstIn(xml, parser, NS, 'infCte');
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
