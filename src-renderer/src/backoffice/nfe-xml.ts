// Reads back what the NF-e form needs from a draft's signed XML (the document of record): the view of
// GET /v1/nfe/:id has no recipient, payments or references, and PUT replaces the whole content.

export interface DraftContent {
  naturezaOperacao: string;
  /** tpNF: 0 entrada (a devolução), 1 saída. */
  tipoOperacao: 0 | 1;
  finalidade: 1 | 2 | 3 | 4;
  nfeReferenciada: string[];
  destDoc: string | null;
  itens: {
    codigo: string;
    quantidade: string;
    valorUnitario: string;
    valorDesconto: string | null;
    cfop: string;
  }[];
  pagamentos: { forma: string; valor: string }[];
  valorFrete: string | null;
  informacoesAdicionais: string | null;
}

const NS = 'http://www.portalfiscal.inf.br/nfe';

function child(parent: Element | null | undefined, name: string): Element | null {
  if (parent === null || parent === undefined) return null;
  for (const c of Array.from(parent.children)) if (c.localName === name) return c;
  return null;
}

function text(parent: Element | null | undefined, name: string): string | null {
  return child(parent, name)?.textContent ?? null;
}

export function readDraft(xml: string): DraftContent {
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  const inf = doc.getElementsByTagNameNS(NS, 'infNFe')[0];
  if (inf === undefined) throw new Error('XML sem infNFe');
  const ide = child(inf, 'ide');
  const dest = child(inf, 'dest');
  const fin = Number(text(ide, 'finNFe') ?? '1');
  const refs = Array.from(ide?.children ?? [])
    .filter((c) => c.localName === 'NFref')
    .map((r) => text(r, 'refNFe'))
    .filter((k): k is string => k !== null);
  const itens = Array.from(inf.children)
    .filter((c) => c.localName === 'det')
    .map((det) => {
      const prod = child(det, 'prod');
      return {
        codigo: text(prod, 'cProd') ?? '',
        quantidade: text(prod, 'qCom') ?? '1',
        valorUnitario: text(prod, 'vUnCom') ?? '0',
        valorDesconto: text(prod, 'vDesc'),
        cfop: text(prod, 'CFOP') ?? '',
      };
    });
  const pag = child(inf, 'pag');
  const pagamentos = Array.from(pag?.children ?? [])
    .filter((c) => c.localName === 'detPag')
    .map((p) => ({ forma: text(p, 'tPag') ?? '99', valor: text(p, 'vPag') ?? '0.00' }))
    .filter((p) => p.forma !== '90');
  const tot = child(child(inf, 'total'), 'ICMSTot');
  const frete = text(tot, 'vFrete');
  return {
    naturezaOperacao: text(ide, 'natOp') ?? 'VENDA',
    tipoOperacao: text(ide, 'tpNF') === '0' ? 0 : 1,
    finalidade: (fin >= 1 && fin <= 4 ? fin : 1) as DraftContent['finalidade'],
    nfeReferenciada: refs,
    destDoc: text(dest, 'CNPJ') ?? text(dest, 'CPF'),
    itens,
    pagamentos,
    valorFrete: frete === null || frete === '0.00' ? null : frete,
    informacoesAdicionais: text(child(inf, 'infAdic'), 'infCpl'),
  };
}
