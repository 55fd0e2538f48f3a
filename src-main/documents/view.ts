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
  isArray: (name) => name === 'prod',
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

/** The columns the view reads, all a list selects: never the draft's payload nor the authority's copies. */
export const VIEW_COLUMNS = [
  'id',
  'modelo',
  'serie',
  'n_nf',
  'status',
  'ambiente',
  'tp_emis',
  'chave',
  'n_prot',
  'authorized_at',
  'v_nf',
  'dh_emi',
  'c_stat',
  'x_motivo',
  'qr_code',
  'url_chave',
  'replaces',
  'replaced_by',
  'operator_id',
  'xml',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof DocumentRow)[];

export type ViewedDocument = Pick<DocumentRow, (typeof VIEW_COLUMNS)[number]>;

export interface ViewOptions {
  /** A cancellation event of the note is waiting for the authority: the note reads `processando` (§3). */
  cancelPending?: boolean;
  /** What the answer tells the caller (create, PUT, send). */
  message?: string;
  /** The operator who sold it (issue 13), looked up by the caller; null for other software's notes. */
  operador?: OperatorRef | null;
}

/** Every `open`…`close` element of `xml`, whole, in document order. */
function elements(xml: string, open: string, close: string): string[] {
  const found: string[] = [];
  for (let at = xml.indexOf(open); at !== -1; at = xml.indexOf(open, at)) {
    const end = xml.indexOf(close, at);
    if (end === -1) break;
    found.push(xml.slice(at, end + close.length));
    at = end + close.length;
  }
  return found;
}

/**
 * The view reads only the ICMS totals and each item's <prod> (one per <det>, in order) of the signed XML:
 * those elements are cut out and parsed alone, instead of the whole signed document (emitter, payments,
 * signature), which made a list page cost a full XML parse per note.
 */
function totalsAndItems(xml: string): { icmsTot: Node; prods: Node[] } {
  const parts = [
    ...elements(xml, '<ICMSTot>', '</ICMSTot>').slice(0, 1),
    ...elements(xml, '<prod>', '</prod>'),
  ];
  const parsed = obj(obj(parser.parse(`<v>${parts.join('')}</v>`))['v']);
  const prods = Array.isArray(parsed['prod']) ? (parsed['prod'] as unknown[]) : [];
  return { icmsTot: obj(parsed['ICMSTot']), prods: prods.map(obj) };
}

export function documentView(
  doc: ViewedDocument,
  basePath: '/v1/nfe' | '/v1/nfce',
  options: ViewOptions = {},
): DocumentView {
  const { icmsTot, prods } = totalsAndItems(doc.xml);
  const totais: Record<string, string> = {};
  for (const [k, v] of Object.entries(icmsTot)) if (typeof v === 'string') totais[k] = v;
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
    itens: prods.map((prod, i) => ({
      nItem: i + 1,
      codigo: text(prod['cProd']),
      descricao: text(prod['xProd']),
      ncm: text(prod['NCM']),
      cfop: text(prod['CFOP']),
      quantidade: text(prod['qCom']),
      valor_unitario: text(prod['vUnCom']),
      valor_total: text(prod['vProd']),
    })),
    criada_em: doc.created_at,
    atualizada_em: doc.updated_at,
  };
}
