// The part of an NF-e/NFC-e view that comes from its signed XML (the ICMS totals and each item's <prod>),
// written as a small JSON text beside the XML whenever the XML is written, so a list never parses XML.
import { xmlTreeReader } from '../outputs/model.ts';

// The reader of the printed outputs: DOM-free for XML as we write it (about 20x faster here than fast-xml-parser,
// which it falls back to with the same options); numeric character references decoded.
const readTree = xmlTreeReader(new Set(['prod']));

type Node = Record<string, unknown>;
const obj = (v: unknown): Node => (typeof v === 'object' && v !== null ? (v as Node) : {});
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** One item of the note as the view shows it. */
export interface SummaryItem {
  nItem: number;
  codigo: string | null;
  descricao: string | null;
  ncm: string | null;
  cfop: string | null;
  quantidade: string | null;
  valor_unitario: string | null;
  valor_total: string | null;
}

/** What the view reads from the signed XML: the ICMSTot fields as written, and the items in order. */
export interface ListSummary {
  totais: Record<string, string>;
  itens: SummaryItem[];
}

/** The models whose rows carry a summary (the NF-e/NFC-e view); other kinds draw their views otherwise. */
export const SUMMARIZED_MODELOS: readonly number[] = [55, 65];

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
 * Reads the ICMS totals and each item's <prod> (one per <det>, in order) of the signed XML: those elements
 * are cut out and parsed alone, instead of the whole signed document (emitter, payments, signature).
 */
export function summaryOfXml(xml: string): ListSummary {
  const parts = [
    ...elements(xml, '<ICMSTot>', '</ICMSTot>').slice(0, 1),
    ...elements(xml, '<prod>', '</prod>'),
  ];
  const parsed = obj(readTree(`<v>${parts.join('')}</v>`)['v']);
  const prods = Array.isArray(parsed['prod']) ? (parsed['prod'] as unknown[]).map(obj) : [];
  const totais: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj(parsed['ICMSTot']))) if (typeof v === 'string') totais[k] = v;
  return {
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
  };
}

/** The summary column's text for a row of `modelo` written with `xml`; null for kinds that keep none. */
export function listSummaryColumn(modelo: number, xml: string): string | null {
  return SUMMARIZED_MODELOS.includes(modelo) ? JSON.stringify(summaryOfXml(xml)) : null;
}

/** The row's summary: its column when written, otherwise read from its XML (a row stored before it). */
export function summaryOf(row: { list_summary?: string | null; xml?: string | null }): ListSummary {
  if (row.list_summary !== null && row.list_summary !== undefined)
    return JSON.parse(row.list_summary) as ListSummary;
  return summaryOfXml(row.xml ?? '');
}
