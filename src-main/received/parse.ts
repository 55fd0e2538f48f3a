// Reads the documents NFeDistribuicaoDFe hands out (NT 2014.002): the summary resNFe, the whole NF-e
// (nfeProc), and events (procEventoNFe, resEvento). Decided by the document element, not the schema name.
import { XMLParser } from 'fast-xml-parser';
import type { Situacao } from './tables.ts';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  htmlEntities: true,
});

type Node = Record<string, unknown>;
const node = (v: unknown): Node =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Node) : {};
const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const text = (n: Node, name: string): string | null => {
  const v = first(n[name]);
  if (typeof v === 'string') return v;
  const t = node(v)['#text'];
  return typeof t === 'string' ? t : null;
};

export interface ParsedNote {
  kind: 'note';
  chave: string;
  emitenteCnpj: string | null;
  emitenteNome: string | null;
  emitenteIe: string | null;
  tpNf: number | null;
  valor: string | null;
  dhEmi: string | null;
  situacao: Situacao;
  nProt: string | null;
  dhRecbto: string | null;
  /** true for the whole NF-e (nfeProc), false for the summary. */
  completa: boolean;
}

export interface ParsedEvent {
  kind: 'event';
  chave: string;
  tpEvento: string | null;
  nSeqEvento: number | null;
  /** The event cancels the note (110111/110112 registered by the authority). */
  cancels: boolean;
}

export type ParsedDocument = ParsedNote | ParsedEvent | { kind: 'unknown'; root: string };

/** resNFe cSitNFe: 1 authorized, 2 denied, 3 cancelled. */
const SITUACAO_OF_CSIT: Readonly<Record<string, Situacao>> = {
  '1': 'autorizada',
  '2': 'denegada',
  '3': 'cancelada',
};
const DENIED = new Set(['110', '301', '302', '303']);
const REGISTERED = new Set(['135', '136', '155']);
const CHAVE = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/;

const intOrNull = (v: string | null) => (v !== null && /^[0-9]+$/.test(v) ? Number(v) : null);

export function parseDistributed(xml: string): ParsedDocument {
  const doc = node(parser.parse(xml));
  const root = Object.keys(doc).find((k) => k !== '?xml') ?? '';
  const top = node(doc[root]);
  switch (root) {
    case 'resNFe': {
      const chave = text(top, 'chNFe') ?? '';
      if (!CHAVE.test(chave)) return { kind: 'unknown', root };
      return {
        kind: 'note',
        chave,
        emitenteCnpj: text(top, 'CNPJ') ?? text(top, 'CPF'),
        emitenteNome: text(top, 'xNome'),
        emitenteIe: text(top, 'IE'),
        tpNf: intOrNull(text(top, 'tpNF')),
        valor: text(top, 'vNF'),
        dhEmi: text(top, 'dhEmi'),
        situacao: SITUACAO_OF_CSIT[text(top, 'cSitNFe') ?? '1'] ?? 'autorizada',
        nProt: text(top, 'nProt'),
        dhRecbto: text(top, 'dhRecbto'),
        completa: false,
      };
    }
    case 'nfeProc': {
      const inf = node(node(top['NFe'])['infNFe']);
      const prot = node(node(top['protNFe'])['infProt']);
      const id = inf['@_Id'];
      const chave = typeof id === 'string' ? id.replace(/^NFe/, '') : (text(prot, 'chNFe') ?? '');
      if (!CHAVE.test(chave)) return { kind: 'unknown', root };
      const emit = node(inf['emit']);
      const ide = node(inf['ide']);
      const cStat = text(prot, 'cStat') ?? '100';
      return {
        kind: 'note',
        chave,
        emitenteCnpj: text(emit, 'CNPJ') ?? text(emit, 'CPF'),
        emitenteNome: text(emit, 'xNome'),
        emitenteIe: text(emit, 'IE'),
        tpNf: intOrNull(text(ide, 'tpNF')),
        valor: text(node(node(inf['total'])['ICMSTot']), 'vNF'),
        dhEmi: text(ide, 'dhEmi'),
        situacao: DENIED.has(cStat) ? 'denegada' : 'autorizada',
        nProt: text(prot, 'nProt'),
        dhRecbto: text(prot, 'dhRecbto'),
        completa: true,
      };
    }
    case 'procEventoNFe': {
      const inf = node(node(top['evento'])['infEvento']);
      const ret = node(node(top['retEvento'])['infEvento']);
      const chave = text(inf, 'chNFe') ?? '';
      if (!CHAVE.test(chave)) return { kind: 'unknown', root };
      const tpEvento = text(inf, 'tpEvento');
      return {
        kind: 'event',
        chave,
        tpEvento,
        nSeqEvento: intOrNull(text(inf, 'nSeqEvento')),
        cancels: (tpEvento === '110111' || tpEvento === '110112') && REGISTERED.has(text(ret, 'cStat') ?? ''),
      };
    }
    case 'resEvento': {
      const chave = text(top, 'chNFe') ?? '';
      if (!CHAVE.test(chave)) return { kind: 'unknown', root };
      const tpEvento = text(top, 'tpEvento');
      return {
        kind: 'event',
        chave,
        tpEvento,
        nSeqEvento: intOrNull(text(top, 'nSeqEvento')),
        // A summary is only distributed for registered events.
        cancels: tpEvento === '110111' || tpEvento === '110112',
      };
    }
    default:
      return { kind: 'unknown', root };
  }
}
