// The NF-e/NFC-e object the API returns: identification, state, the authority's answer, totals and items
// read back from the signed XML (the document of record), and links to its XML and DANFE.
import { sql } from 'kysely';
import { summaryOf } from './list-summary.ts';
import type { DocumentRow } from './repository.ts';
import type { DocumentView } from '../../src-shared/contracts/documents.ts';
import type { OperatorRef } from '../../src-shared/contracts/operators.ts';

export type { DocumentView };

/**
 * A decimal text of the layout (at most 13 integer and 2 decimal digits, 15 significant digits) as a JSON
 * number: a double holds every such value exactly enough to print back the same decimal, so nothing is
 * computed in binary floating point, only carried.
 */
function decimalNumber(text: string | null | undefined): number {
  return text === null || text === undefined || text === '' ? 0 : Number(text);
}

/**
 * The columns the view reads, all a list selects: never the draft's payload nor the authority's copies, and
 * the XML only for a row without its summary (listXml).
 */
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
  'list_summary',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof DocumentRow)[];

/** The signed XML as a list reads it: only for a row stored without its summary, which is then read from it. */
export const listXml = sql<string | null>`CASE WHEN list_summary IS NULL THEN xml END`.as('xml');

/** A row as the view reads it: its summary, or (a row written without one) its XML. */
export type ViewedDocument = Pick<DocumentRow, (typeof VIEW_COLUMNS)[number]> & { xml?: string | null };

export interface ViewOptions {
  /** A cancellation event of the note is waiting for the authority: the note reads `processando` (§3). */
  cancelPending?: boolean;
  /** What the answer tells the caller (create, PUT, send). */
  message?: string;
  /** The operator who sold it (issue 13), looked up by the caller; null for other software's notes. */
  operador?: OperatorRef | null;
}

export function documentView(
  doc: ViewedDocument,
  basePath: '/v1/nfe' | '/v1/nfce',
  options: ViewOptions = {},
): DocumentView {
  const { totais, itens } = summaryOf(doc);
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
    itens,
    criada_em: doc.created_at,
    atualizada_em: doc.updated_at,
  };
}
