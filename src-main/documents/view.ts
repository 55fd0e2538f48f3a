// The NF-e/NFC-e object the API returns: identification, state, the authority's answer, totals and items
// read back from the signed XML (the document of record), and links to its XML and DANFE.
import { XMLParser } from 'fast-xml-parser';
import type { DocumentRow } from './repository.ts';
import type { DocumentView } from '../../src-shared/contracts/documents.ts';
import type { OperatorRef } from '../../src-shared/contracts/operators.ts';

export type { DocumentView };

const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  isArray: (name) => name === 'det' || name === 'detPag',
});

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (typeof v === 'object' && v !== null ? (v as Node) : {});
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * A decimal text of the layout (at most 13 integer and 2 decimal digits, 15 significant digits) as a JSON
 * number: a double holds every such value exactly enough to print back the same decimal, so nothing is
 * computed in binary floating point, only carried.
 */
function decimalNumber(text: string | null | undefined): number {
  return text === null || text === undefined || text === '' ? 0 : Number(text);
}

export interface ViewOptions {
  /** A cancellation event of the note is waiting for the authority: the note reads `processando` (§3). */
  cancelPending?: boolean;
  /** What the answer tells the caller (create, PUT, send). */
  message?: string;
  /** The operator who sold it (issue 13), looked up by the caller; null for other software's notes. */
  operador?: OperatorRef | null;
}

export function documentView(
  doc: DocumentRow,
  basePath: '/v1/nfe' | '/v1/nfce',
  options: ViewOptions = {},
): DocumentView {
  const root = obj(obj(parser.parse(doc.xml))['NFe']);
  const inf = obj(root['infNFe']);
  const icmsTot = obj(obj(inf['total'])['ICMSTot']);
  const totais: Record<string, string> = {};
  for (const [k, v] of Object.entries(icmsTot)) if (typeof v === 'string') totais[k] = v;
  const dets = Array.isArray(inf['det']) ? (inf['det'] as unknown[]) : [];
  const status = options.cancelPending === true && doc.status === 'autorizada' ? 'processando' : doc.status;
  const nfce =
    doc.modelo === 65
      ? {
          total_cupom: decimalNumber(doc.v_nf),
          qr_code_url: doc.qr_code,
          escpos_url: `${basePath}/${doc.id}/escpos`,
          total: decimalNumber(doc.v_nf),
          emitida_em: doc.dh_emi,
        }
      : {};
  return {
    id: doc.id,
    modelo: doc.modelo,
    serie: doc.serie,
    numero: doc.n_nf,
    status,
    ambiente: doc.ambiente,
    tipo_emissao: doc.tp_emis,
    chave_acesso: doc.chave,
    protocolo: doc.n_prot,
    autorizada_em: doc.authorized_at,
    total_nota: decimalNumber(doc.v_nf),
    icms_total: decimalNumber(totais['vICMS']),
    created_at: doc.created_at,
    danfe_url: `${basePath}/${doc.id}/danfe`,
    xml_url: `${basePath}/${doc.id}/xml`,
    ...nfce,
    ...(options.message === undefined ? {} : { message: options.message }),
    dh_emissao: doc.dh_emi,
    valor_total: doc.v_nf,
    cStat: doc.c_stat,
    xMotivo: doc.x_motivo,
    // The authority's messages when it rejected the note (seed §2.5).
    mensagens:
      doc.status === 'erro' && doc.c_stat !== null
        ? [{ cStat: doc.c_stat, xMotivo: doc.x_motivo ?? '' }]
        : [],
    qr_code: doc.qr_code,
    url_chave: doc.url_chave,
    substitui: doc.replaces,
    substituida_por: doc.replaced_by,
    operador: options.operador ?? null,
    totais,
    itens: dets.map((d, i) => {
      const prod = obj(obj(d)['prod']);
      return {
        nItem: i + 1,
        codigo: text(prod['cProd']),
        descricao: text(prod['xProd']),
        ncm: text(prod['NCM']),
        cfop: text(prod['CFOP']),
        quantidade: text(prod['qCom']),
        valor_unitario: text(prod['vUnCom']),
        valor_total: text(prod['vProd']),
      };
    }),
    criada_em: doc.created_at,
    atualizada_em: doc.updated_at,
  };
}
