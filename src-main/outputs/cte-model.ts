// The printable view of a CT-e (model 57): what the DACTE draws, read from a signed CTe or a cteProc
// (CTe + protCTe). Every value stays text exactly as signed; the DACTE formats it for print.
import {
  OutputParseError,
  attribute,
  child,
  children,
  choice,
  ibsCbsOf,
  isNode,
  required,
  streetAddressOf,
  text,
  xmlTreeReader,
  type Node,
  type OutputIbsCbs,
  type OutputStreetAddress,
} from './model.ts';

// Elements that may repeat in a CTe (TCTe, cteTiposBasico_v4.00.xsd); read as arrays even when single.
const REPEATED = new Set([
  'Comp',
  'infQ',
  'infNF',
  'infNFe',
  'infOutros',
  'ObsCont',
  'ObsFisco',
  'protCTe',
  'occ',
  'veicNovos',
  'dup',
]);
const readTree = xmlTreeReader(REPEATED);

export type CteOutputAddress = OutputStreetAddress;

/** emit, rem, exped, receb, dest or the toma4 taker: identity, IE and address as written. */
export interface CteOutputParty {
  CNPJ: string | null;
  CPF: string | null;
  IE: string | null;
  xNome: string;
  xFant: string | null;
  fone: string | null;
  address: CteOutputAddress | null;
}

/** The ICMS group of the service (ICMS00, ICMS20, ICMS45, ICMS60, ICMS90, ICMSOutraUF, ICMSSN). */
export interface CteOutputIcms {
  group: string;
  CST: string | null;
  vBC: string | null;
  pICMS: string | null;
  vICMS: string | null;
  pRedBC: string | null;
  vICMSSTRet: string | null;
  indSN: string | null;
}

/** imp/IBSCBS of the tax reform (NT 2025.001 CT-e RTC, TTribCTe): one group for the whole service, read as the
 * NF-e item's. */
export type CteOutputIbsCbs = OutputIbsCbs;

/** A document carried (infDoc): an NF-e by key, a paper NF by series/number, or another document. */
export type CteOutputCarriedDoc =
  | { tipo: 'NF-e'; chave: string }
  | { tipo: 'NF'; serie: string; nDoc: string; mod: string | null; vNF: string | null }
  | { tipo: 'Outros'; tpDoc: string; descOutros: string | null; nDoc: string | null };

/** toma (ide/toma3/toma or ide/toma4/toma): 0 remetente, 1 expedidor, 2 recebedor, 3 destinatário, 4 outros. */
export type CteToma = '0' | '1' | '2' | '3' | '4';

export interface CteOutputDocument {
  modelo: '57';
  /** 44 characters from infCte/@Id (positions 7-18 may be letters with the alphanumeric CNPJ). */
  chave: string;
  versao: string;
  tpAmb: '1' | '2';
  tpEmis: string;
  dhCont: string | null;
  xJust: string | null;
  cUF: string;
  CFOP: string;
  natOp: string;
  serie: string;
  nCT: string;
  dhEmi: string;
  tpImp: string | null;
  /** 0 normal, 1 complementar, 3 substituto (TFinCTe). */
  tpCTe: string;
  /** 0 normal, 1 subcontratação, 2 redespacho, 3 redespacho intermediário, 4 multimodal vinculado. */
  tpServ: string;
  /** 01 rodoviário, 02 aéreo, 03 aquaviário, 04 ferroviário, 05 dutoviário, 06 multimodal. */
  modal: string;
  cMunIni: string;
  xMunIni: string;
  UFIni: string;
  cMunFim: string;
  xMunFim: string;
  UFFim: string;
  toma: CteToma;
  emit: CteOutputParty & { IEST: string | null; CRT: string | null };
  rem: CteOutputParty | null;
  exped: CteOutputParty | null;
  receb: CteOutputParty | null;
  dest: CteOutputParty | null;
  /** The taker resolved from `toma`: one of the parties above, or the toma4 group. */
  tomador: CteOutputParty | null;
  vPrest: { vTPrest: string; vRec: string; Comp: Array<{ xNome: string; vComp: string }> };
  icms: CteOutputIcms | null;
  ibsCbs: CteOutputIbsCbs | null;
  /** imp/vTotDFe: total of the document with IBS/CBS, null when absent. */
  vTotDFe: string | null;
  vTotTrib: string | null;
  infAdFisco: string | null;
  infCarga: {
    vCarga: string | null;
    proPred: string;
    xOutCat: string | null;
    infQ: Array<{ cUnid: string; tpMed: string; qCarga: string }>;
  } | null;
  docs: CteOutputCarriedDoc[];
  /** Road modal (infModal/rodo): RNTRC of the carrier. */
  rodo: { RNTRC: string } | null;
  /** Expected delivery date: compl/Entrega/comData/dProg (4.00) or rodo/dPrev (layouts before 4.00). */
  dPrev: string | null;
  compl: {
    xCaracAd: string | null;
    xCaracSer: string | null;
    xObs: string | null;
    ObsCont: Array<{ xCampo: string; xTexto: string }>;
    ObsFisco: Array<{ xCampo: string; xTexto: string }>;
  };
  qrCodCTe: string | null;
  /** null for a CT-e without protocol (contingency or not yet authorized). */
  protocol: { nProt: string | null; dhRecbto: string; cStat: string | null; xMotivo: string | null } | null;
}

function partyOf(n: Node | null, enderTag: string, where: string): CteOutputParty | null {
  if (n === null) return null;
  const ender = child(n, enderTag);
  return {
    CNPJ: text(n, 'CNPJ'),
    CPF: text(n, 'CPF'),
    IE: text(n, 'IE'),
    xNome: required(n, 'xNome', where),
    xFant: text(n, 'xFant'),
    // The emitter's phone sits inside enderEmit (TEndeEmi); the other parties carry it beside the address.
    fone: text(n, 'fone') ?? text(ender, 'fone'),
    address: streetAddressOf(ender, `${where}/${enderTag}`),
  };
}

function icmsOf(imp: Node | null): CteOutputIcms | null {
  const group = choice(child(imp, 'ICMS'));
  if (group === null) return null;
  const g = group.node;
  return {
    group: group.name,
    CST: text(g, 'CST'),
    vBC: text(g, 'vBC') ?? text(g, 'vBCOutraUF'),
    pICMS: text(g, 'pICMS') ?? text(g, 'pICMSOutraUF'),
    vICMS: text(g, 'vICMS') ?? text(g, 'vICMSOutraUF'),
    pRedBC: text(g, 'pRedBC') ?? text(g, 'pRedBCOutraUF'),
    vICMSSTRet: text(g, 'vICMSSTRet'),
    indSN: text(g, 'indSN'),
  };
}

function docsOf(infDoc: Node | null): CteOutputCarriedDoc[] {
  const docs: CteOutputCarriedDoc[] = [];
  for (const nf of children(infDoc, 'infNF')) {
    docs.push({
      tipo: 'NF',
      serie: required(nf, 'serie', 'infDoc/infNF'),
      nDoc: required(nf, 'nDoc', 'infDoc/infNF'),
      mod: text(nf, 'mod'),
      vNF: text(nf, 'vNF'),
    });
  }
  for (const nfe of children(infDoc, 'infNFe')) {
    docs.push({ tipo: 'NF-e', chave: required(nfe, 'chave', 'infDoc/infNFe') });
  }
  for (const other of children(infDoc, 'infOutros')) {
    docs.push({
      tipo: 'Outros',
      tpDoc: required(other, 'tpDoc', 'infDoc/infOutros'),
      descOutros: text(other, 'descOutros'),
      nDoc: text(other, 'nDoc'),
    });
  }
  return docs;
}

function obsOf(compl: Node | null, name: string): Array<{ xCampo: string; xTexto: string }> {
  return children(compl, name).map((o) => ({
    xCampo: attribute(o, 'xCampo') ?? '',
    xTexto: text(o, 'xTexto') ?? '',
  }));
}

/** Finds the CTe element and its protCTe whatever holds them (cteProc, a bare CTe, an envelope). */
function locate(root: Node): { cte: Node | null; prot: Node | null } {
  const proc = child(root, 'cteProc');
  if (proc !== null) return { cte: child(proc, 'CTe'), prot: child(proc, 'protCTe') };
  const cte = child(root, 'CTe');
  if (cte !== null) return { cte, prot: null };
  for (const v of Object.values(root)) {
    const first: unknown = Array.isArray(v) ? v[0] : v;
    if (isNode(first)) {
      const found = locate(first);
      if (found.cte !== null) return found;
    }
  }
  return { cte: null, prot: null };
}

const TOMA = new Set(['0', '1', '2', '3', '4']);

/**
 * Reads a `cteProc` (CTe + protCTe) or a bare signed `CTe` into the printable model.
 * @throws OutputParseError when the document is not a CT-e or lacks a field the DACTE needs.
 */
export function parseCteOutput(xml: string): CteOutputDocument {
  const { cte, prot } = locate(readTree(xml));
  const infCte = child(cte, 'infCte');
  if (infCte === null) throw new OutputParseError('no CTe/infCte element');

  const id = attribute(infCte, 'Id') ?? '';
  const chave = id.replace(/^CTe/, '');
  if (!/^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/.test(chave))
    throw new OutputParseError(`infCte/@Id '${id}' is not an access key`);

  const ide = child(infCte, 'ide');
  const mod = required(ide, 'mod', 'ide');
  if (mod !== '57') throw new OutputParseError(`ide/mod ${mod} is not 57`);
  const tpAmb = required(ide, 'tpAmb', 'ide');
  if (tpAmb !== '1' && tpAmb !== '2') throw new OutputParseError(`ide/tpAmb ${tpAmb} is neither 1 nor 2`);
  const toma4 = child(ide, 'toma4');
  const toma = text(toma4, 'toma') ?? text(child(ide, 'toma3'), 'toma') ?? text(child(ide, 'toma03'), 'toma');
  if (toma === null || !TOMA.has(toma)) throw new OutputParseError(`ide/toma '${toma ?? ''}' is not 0-4`);

  const emitNode = child(infCte, 'emit');
  const emit = partyOf(emitNode, 'enderEmit', 'emit');
  if (emit === null) throw new OutputParseError('emit is missing');
  const rem = partyOf(child(infCte, 'rem'), 'enderReme', 'rem');
  const exped = partyOf(child(infCte, 'exped'), 'enderExped', 'exped');
  const receb = partyOf(child(infCte, 'receb'), 'enderReceb', 'receb');
  const dest = partyOf(child(infCte, 'dest'), 'enderDest', 'dest');
  const byToma: Record<CteToma, CteOutputParty | null> = {
    '0': rem,
    '1': exped,
    '2': receb,
    '3': dest,
    '4': partyOf(toma4, 'enderToma', 'toma4'),
  };

  const vPrest = child(infCte, 'vPrest');
  const imp = child(infCte, 'imp');
  const compl = child(infCte, 'compl');
  const norm = child(infCte, 'infCTeNorm');
  const carga = child(norm, 'infCarga');
  const rodo = child(child(norm, 'infModal'), 'rodo');
  const infProt = child(prot, 'infProt');

  return {
    modelo: '57',
    chave,
    versao: attribute(infCte, 'versao') ?? '',
    tpAmb,
    tpEmis: required(ide, 'tpEmis', 'ide'),
    dhCont: text(ide, 'dhCont'),
    xJust: text(ide, 'xJust'),
    cUF: required(ide, 'cUF', 'ide'),
    CFOP: required(ide, 'CFOP', 'ide'),
    natOp: required(ide, 'natOp', 'ide'),
    serie: required(ide, 'serie', 'ide'),
    nCT: required(ide, 'nCT', 'ide'),
    dhEmi: required(ide, 'dhEmi', 'ide'),
    tpImp: text(ide, 'tpImp'),
    tpCTe: required(ide, 'tpCTe', 'ide'),
    tpServ: required(ide, 'tpServ', 'ide'),
    modal: required(ide, 'modal', 'ide'),
    cMunIni: required(ide, 'cMunIni', 'ide'),
    xMunIni: required(ide, 'xMunIni', 'ide'),
    UFIni: required(ide, 'UFIni', 'ide'),
    cMunFim: required(ide, 'cMunFim', 'ide'),
    xMunFim: required(ide, 'xMunFim', 'ide'),
    UFFim: required(ide, 'UFFim', 'ide'),
    toma: toma as CteToma,
    emit: { ...emit, IEST: text(emitNode, 'IEST'), CRT: text(emitNode, 'CRT') },
    rem,
    exped,
    receb,
    dest,
    tomador: byToma[toma as CteToma],
    vPrest: {
      vTPrest: required(vPrest, 'vTPrest', 'vPrest'),
      vRec: required(vPrest, 'vRec', 'vPrest'),
      Comp: children(vPrest, 'Comp').map((c) => ({
        xNome: required(c, 'xNome', 'vPrest/Comp'),
        vComp: required(c, 'vComp', 'vPrest/Comp'),
      })),
    },
    icms: icmsOf(imp),
    ibsCbs: ibsCbsOf(imp, 'imp/IBSCBS'),
    vTotDFe: text(imp, 'vTotDFe'),
    vTotTrib: text(imp, 'vTotTrib'),
    infAdFisco: text(imp, 'infAdFisco'),
    infCarga:
      carga === null
        ? null
        : {
            vCarga: text(carga, 'vCarga'),
            proPred: required(carga, 'proPred', 'infCarga'),
            xOutCat: text(carga, 'xOutCat'),
            infQ: children(carga, 'infQ').map((q) => ({
              cUnid: required(q, 'cUnid', 'infCarga/infQ'),
              tpMed: required(q, 'tpMed', 'infCarga/infQ'),
              qCarga: required(q, 'qCarga', 'infCarga/infQ'),
            })),
          },
    docs: docsOf(child(norm, 'infDoc')),
    rodo: rodo === null ? null : { RNTRC: required(rodo, 'RNTRC', 'infModal/rodo') },
    dPrev: text(child(child(compl, 'Entrega'), 'comData'), 'dProg') ?? text(rodo, 'dPrev'),
    compl: {
      xCaracAd: text(compl, 'xCaracAd'),
      xCaracSer: text(compl, 'xCaracSer'),
      xObs: text(compl, 'xObs'),
      ObsCont: obsOf(compl, 'ObsCont'),
      ObsFisco: obsOf(compl, 'ObsFisco'),
    },
    qrCodCTe: text(child(cte, 'infCTeSupl'), 'qrCodCTe'),
    protocol:
      infProt === null
        ? null
        : {
            nProt: text(infProt, 'nProt'),
            dhRecbto: required(infProt, 'dhRecbto', 'protCTe/infProt'),
            cStat: text(infProt, 'cStat'),
            xMotivo: text(infProt, 'xMotivo'),
          },
  };
}
