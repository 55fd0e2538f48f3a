// Reads from a DC-e's XML (the signed DCe or its dceProc, the document of record) what the back office needs
// beyond the API's view: the parties with their addresses, the items, the carriage and the extra texts; the
// detail page shows them and the form takes a draft back from them (PUT replaces the whole content).
import { child, elements, firstIn, text, type XmlNode, type XmlParser } from './xml-dom.ts';

const NS = 'http://www.portalfiscal.inf.br/dce';

export interface DceAddress {
  xLgr: string;
  nro: string;
  xCpl: string | null;
  xBairro: string;
  cMun: string;
  xMun: string;
  uf: string;
  cep: string;
  fone: string | null;
  email: string | null;
}

/** emit / dest: one of CNPJ, CPF or idOutros identifies the party. */
export interface DceParty {
  cnpj: string | null;
  cpf: string | null;
  idOutros: string | null;
  nome: string;
  endereco: DceAddress | null;
}

export interface DceItem {
  descricao: string;
  ncm: string;
  /** qCom, vUnCom, vProd as the XML writes them (decimal text). */
  quantidade: string;
  valorUnitario: string;
  valorTotal: string;
  informacoesAdicionais: string | null;
}

export interface DceContent {
  serie: number;
  numero: number;
  dhEmi: string | null;
  /** ide/tpEmit: 0 fisco, 1 marketplace, 2 own system, 3 carrier, 4 Correios. */
  tpEmit: string;
  tpAmb: string;
  emitente: DceParty;
  /** The issuer's group (Marketplace / Transportadora), absent for an own-system DC-e. */
  issuer: { cnpj: string; nome: string; site: string | null } | null;
  destinatario: DceParty;
  itens: DceItem[];
  vDC: string;
  /** transp/modTrans: 0 Correios, 1 own means, 2 carrier. */
  modTrans: string;
  cnpjTransp: string | null;
  informacoesComplementares: string | null;
  /** obsEmit / obsMarketplace, as the issuer type writes them. */
  observacoes: { campo: string; texto: string }[];
  qrCode: string | null;
}

function address(e: XmlNode | null): DceAddress | null {
  if (e === null) return null;
  const t = (name: string) => text(e, name);
  return {
    xLgr: t('xLgr') ?? '',
    nro: t('nro') ?? '',
    xCpl: t('xCpl'),
    xBairro: t('xBairro') ?? '',
    cMun: t('cMun') ?? '',
    xMun: t('xMun') ?? '',
    uf: t('UF') ?? '',
    cep: t('CEP') ?? '',
    fone: t('fone'),
    email: t('email'),
  };
}

function party(e: XmlNode | null, addressTag: string): DceParty {
  return {
    cnpj: text(e, 'CNPJ'),
    cpf: text(e, 'CPF'),
    idOutros: text(e, 'idOutros'),
    nome: text(e, 'xNome') ?? '',
    endereco: address(child(e, addressTag)),
  };
}

/** `parser`: the browser's `new DOMParser()` (passed in, so the module also runs where there is no DOM). */
export function readDceContent(xml: string, parser: XmlParser): DceContent {
  const inf = firstIn(xml, parser, NS, 'infDCe');
  if (inf === undefined) throw new Error('XML sem infDCe');
  const ide = child(inf, 'ide');
  const group = child(inf, 'Marketplace') ?? child(inf, 'Transportadora');
  const transp = child(inf, 'transp');
  const adic = child(inf, 'infAdic');
  const supl = firstIn(xml, parser, NS, 'infDCeSupl');
  return {
    serie: Number(text(ide, 'serie') ?? '0'),
    numero: Number(text(ide, 'nDC') ?? '0'),
    dhEmi: text(ide, 'dhEmi'),
    tpEmit: text(ide, 'tpEmit') ?? '',
    tpAmb: text(ide, 'tpAmb') ?? '',
    emitente: party(child(inf, 'emit'), 'enderEmit'),
    issuer:
      group === null
        ? null
        : { cnpj: text(group, 'CNPJ') ?? '', nome: text(group, 'xNome') ?? '', site: text(group, 'Site') },
    destinatario: party(child(inf, 'dest'), 'enderDest'),
    itens: elements(inf, 'det').map((det) => {
      const prod = child(det, 'prod');
      return {
        descricao: text(prod, 'xProd') ?? '',
        ncm: text(prod, 'NCM') ?? '',
        quantidade: text(prod, 'qCom') ?? '0',
        valorUnitario: text(prod, 'vUnCom') ?? '0',
        valorTotal: text(prod, 'vProd') ?? '0.00',
        informacoesAdicionais: text(det, 'infAdProd'),
      };
    }),
    vDC: text(child(inf, 'total'), 'vDC') ?? '0.00',
    modTrans: text(transp, 'modTrans') ?? '0',
    cnpjTransp: text(transp, 'CNPJTransp'),
    informacoesComplementares: text(adic, 'infCpl'),
    observacoes: [...elements(adic, 'obsEmit'), ...elements(adic, 'obsMarketplace')].map((o) => ({
      campo: o.getAttribute?.('xCampo') ?? '',
      texto: text(o, 'xTexto') ?? '',
    })),
    qrCode: text(supl, 'qrCodDCe'),
  };
}

/** An event of the DC-e (the cancellation, 110111) as its XML holds it: what was asked and, once answered, the answer. */
export interface DceEventContent {
  tpEvento: string;
  nSeqEvento: number;
  descEvento: string;
  xJust: string | null;
  dhEvento: string | null;
  /** retEventoDCe, null while the event waits for the authority (the signed eventoDCe alone). */
  answer: { cStat: string; xMotivo: string; nProt: string | null; dhRegEvento: string | null } | null;
}

/** `xml`: the procEventoDCe of a registered event, or the signed eventoDCe of one not yet answered. */
export function readDceEvent(xml: string, parser: XmlParser): DceEventContent {
  const inf = child(firstIn(xml, parser, NS, 'eventoDCe'), 'infEvento');
  if (inf === null) throw new Error('XML sem eventoDCe');
  const det = child(inf, 'detEvento');
  const ev = det === null ? null : (Array.from(det.childNodes).find((c) => c.nodeType === 1) ?? null);
  const ret = child(firstIn(xml, parser, NS, 'retEventoDCe'), 'infEvento');
  return {
    tpEvento: text(inf, 'tpEvento') ?? '',
    nSeqEvento: Number(text(inf, 'nSeqEvento') ?? '1'),
    descEvento: text(ev, 'descEvento') ?? '',
    xJust: text(ev, 'xJust'),
    dhEvento: text(inf, 'dhEvento'),
    answer:
      ret === null
        ? null
        : {
            cStat: text(ret, 'cStat') ?? '',
            xMotivo: text(ret, 'xMotivo') ?? '',
            nProt: text(ret, 'nProt'),
            dhRegEvento: text(ret, 'dhRegEvento'),
          },
  };
}
