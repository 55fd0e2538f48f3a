// The printable view of an NF-e/NFC-e (authorized nfeProc, contingency NFe without protocol, or cancelled):
// one typed model read from the XML that DANFE, DANFCe and ESC/POS receipts all print from.
import { XMLParser } from 'fast-xml-parser';
import { fastXmlTree } from './fast-tree.ts';

// Elements that may repeat in an NFe; read as arrays even when single.
const REPEATED = new Set([
  'det',
  'detPag',
  'dup',
  'vol',
  'lacres',
  'NFref',
  'obsCont',
  'obsFisco',
  'protNFe',
]);
const readTree = xmlTreeReader(REPEATED);
const readTreeSlow = xmlTreeReader(REPEATED, { fast: false });

export type Modelo = '55' | '65';
export type TpAmb = '1' | '2';

/** An address as written (TEndereco of the NF-e, TEndereco of the CT-e): the CT-e's has no phone. */
export interface OutputStreetAddress {
  xLgr: string;
  nro: string;
  xCpl: string | null;
  xBairro: string;
  cMun: string;
  xMun: string;
  UF: string;
  CEP: string | null;
  cPais: string | null;
  xPais: string | null;
}

export interface OutputAddress extends OutputStreetAddress {
  fone: string | null;
}

export interface OutputEmit {
  CNPJ: string | null;
  CPF: string | null;
  xNome: string;
  xFant: string | null;
  IE: string | null;
  IEST: string | null;
  IM: string | null;
  CRT: string;
  address: OutputAddress;
}

export interface OutputDest {
  CNPJ: string | null;
  CPF: string | null;
  idEstrangeiro: string | null;
  xNome: string | null;
  IE: string | null;
  indIEDest: string | null;
  email: string | null;
  address: OutputAddress | null;
}

/** The one ICMS group of an item (ICMS00, ICMSSN102 ...): CST for regime normal, CSOSN for Simples. */
export interface OutputIcms {
  group: string;
  orig: string | null;
  CST: string | null;
  CSOSN: string | null;
  vBC: string | null;
  pICMS: string | null;
  vICMS: string | null;
  vBCST: string | null;
  pICMSST: string | null;
  vICMSST: string | null;
  vFCP: string | null;
  vFCPST: string | null;
}

/** IBS/CBS of the tax reform (NT 2025.002, group UB): present from 2026 on. */
export interface OutputIbsCbs {
  CST: string;
  cClassTrib: string | null;
  vBC: string | null;
  pIBSUF: string | null;
  vIBSUF: string | null;
  pIBSMun: string | null;
  vIBSMun: string | null;
  vIBS: string | null;
  pCBS: string | null;
  vCBS: string | null;
}

export interface OutputItem {
  nItem: string;
  cProd: string;
  cEAN: string | null;
  xProd: string;
  NCM: string;
  CEST: string | null;
  CFOP: string;
  uCom: string;
  qCom: string;
  vUnCom: string;
  vProd: string;
  vDesc: string | null;
  vFrete: string | null;
  vSeg: string | null;
  vOutro: string | null;
  vTotTrib: string | null;
  icms: OutputIcms | null;
  /** CST of IPITrib/IPINT. */
  ipiCST: string | null;
  vBCIPI: string | null;
  pIPI: string | null;
  vIPI: string | null;
  ibsCbs: OutputIbsCbs | null;
  infAdProd: string | null;
}

/** ICMSTot (group W02): the required fields as text, the optional ones null when absent. */
export interface OutputIcmsTot {
  vBC: string;
  vICMS: string;
  vICMSDeson: string;
  vFCPUFDest: string | null;
  vICMSUFDest: string | null;
  vICMSUFRemet: string | null;
  vFCP: string;
  vBCST: string;
  vST: string;
  vFCPST: string;
  vFCPSTRet: string;
  qBCMono: string | null;
  vICMSMono: string | null;
  qBCMonoReten: string | null;
  vICMSMonoReten: string | null;
  qBCMonoRet: string | null;
  vICMSMonoRet: string | null;
  vProd: string;
  vFrete: string;
  vSeg: string;
  vDesc: string;
  vII: string;
  vIPI: string;
  vIPIDevol: string;
  vPIS: string;
  vCOFINS: string;
  vOutro: string;
  vNF: string;
  vTotTrib: string | null;
}

export interface OutputIbsCbsTot {
  vBCIBSCBS: string | null;
  vIBS: string | null;
  vIBSUF: string | null;
  vIBSMun: string | null;
  vCBS: string | null;
}

export interface OutputTotals {
  ICMSTot: OutputIcmsTot;
  IBSCBSTot: OutputIbsCbsTot | null;
  /** vNFTot (total including IBS/CBS when the UF asks for it), null when absent. */
  vNFTot: string | null;
}

export interface OutputTransp {
  modFrete: string;
  transporta: {
    CNPJ: string | null;
    CPF: string | null;
    xNome: string | null;
    IE: string | null;
    xEnder: string | null;
    xMun: string | null;
    UF: string | null;
  } | null;
  veicTransp: { placa: string; UF: string | null; RNTC: string | null } | null;
  vol: Array<{
    qVol: string | null;
    esp: string | null;
    marca: string | null;
    nVol: string | null;
    pesoL: string | null;
    pesoB: string | null;
  }>;
}

export interface OutputCobr {
  fat: { nFat: string | null; vOrig: string | null; vDesc: string | null; vLiq: string | null } | null;
  dup: Array<{ nDup: string | null; dVenc: string | null; vDup: string }>;
}

export interface OutputCard {
  tpIntegra: string | null;
  CNPJ: string | null;
  tBand: string | null;
  cAut: string | null;
}

export interface OutputDetPag {
  indPag: string | null;
  tPag: string;
  xPag: string | null;
  vPag: string;
  card: OutputCard | null;
}

export interface OutputPag {
  detPag: OutputDetPag[];
  vTroco: string | null;
}

export interface OutputProtocol {
  nProt: string | null;
  dhRecbto: string;
  cStat: string;
  xMotivo: string;
  digVal: string | null;
}

export interface OutputDocument {
  modelo: Modelo;
  /** 44 characters from infNFe/@Id (positions 7-18 may be letters with the alphanumeric CNPJ). */
  chave: string;
  versao: string;
  tpAmb: TpAmb;
  tpEmis: string;
  /** Contingency entry time and reason (tpEmis ≠ 1), null otherwise. */
  dhCont: string | null;
  xJust: string | null;
  cUF: string;
  nNF: string;
  serie: string;
  dhEmi: string;
  dhSaiEnt: string | null;
  natOp: string;
  /** 0 entrada, 1 saída. */
  tpNF: string;
  idDest: string | null;
  tpImp: string | null;
  finNFe: string | null;
  indFinal: string | null;
  indPres: string | null;
  emit: OutputEmit;
  dest: OutputDest | null;
  items: OutputItem[];
  totals: OutputTotals;
  transp: OutputTransp | null;
  cobr: OutputCobr | null;
  pag: OutputPag | null;
  infAdic: { infAdFisco: string | null; infCpl: string | null } | null;
  infNFeSupl: { qrCode: string; urlChave: string | null } | null;
  /** null for a note without protocol (offline contingency, or not yet authorized). */
  protocol: OutputProtocol | null;
  cancelled: boolean;
}

export class OutputParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputParseError';
  }
}

// The reading helpers are shared with the CT-e's printable model (cte-model.ts).
export type Node = Record<string, unknown>;

/**
 * A reader of signed XML into a tree of text: "0012" and "10.50" stay as signed, and the elements in `repeated`
 * are arrays even when single. htmlEntities also decodes numeric references such as &#xD;, which the C14N writer
 * (src-main/fiscal/xml.ts) emits. `fast: false` skips the DOM-free reader (fast-tree.ts), for the tests that
 * hold the two to the same tree.
 * @throws OutputParseError (from the returned function) when the text is not a well-formed XML document.
 */
export function xmlTreeReader(
  repeated: ReadonlySet<string>,
  options: { fast?: boolean } = {},
): (xml: string) => Node {
  const fastFirst = options.fast ?? true;
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    htmlEntities: true,
    isArray: (name) => repeated.has(name),
  });
  return (xml) => {
    // The notes we write take the DOM-free reader (same tree, ~10x faster); anything else fast-xml-parser.
    const fast = fastFirst ? fastXmlTree(xml, repeated) : null;
    if (fast !== null) return fast;
    let parsed: unknown;
    try {
      parsed = parser.parse(xml);
    } catch (error) {
      throw new OutputParseError(`not well-formed XML: ${(error as Error).message}`);
    }
    if (!isNode(parsed)) throw new OutputParseError('not an XML document');
    return parsed;
  };
}

export function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function child(n: Node | null, name: string): Node | null {
  if (n === null) return null;
  const v = n[name];
  const first: unknown = Array.isArray(v) ? v[0] : v;
  return isNode(first) ? first : null;
}

export function children(n: Node | null, name: string): Node[] {
  if (n === null) return [];
  const v = n[name];
  const list: unknown[] = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return list.filter(isNode);
}

export function text(n: Node | null, name: string): string | null {
  if (n === null) return null;
  const v = n[name];
  const first: unknown = Array.isArray(v) ? v[0] : v;
  if (typeof first === 'string') return first;
  if (isNode(first) && typeof first['#text'] === 'string') return first['#text'];
  return null;
}

export function required(n: Node | null, name: string, where: string): string {
  const v = text(n, name);
  if (v === null) throw new OutputParseError(`${where}/${name} is missing`);
  return v;
}

export function attribute(n: Node | null, name: string): string | null {
  const v = n?.[`@_${name}`];
  return typeof v === 'string' ? v : null;
}

/** The single element child of a choice group (ICMS → ICMS00, IPI → IPITrib ...). */
export function choice(n: Node | null): { name: string; node: Node } | null {
  if (n === null) return null;
  for (const [name, v] of Object.entries(n)) {
    if (name.startsWith('@_') || name === '#text') continue;
    const first: unknown = Array.isArray(v) ? v[0] : v;
    if (isNode(first)) return { name, node: first };
  }
  return null;
}

export function streetAddressOf(n: Node | null, where: string): OutputStreetAddress | null {
  if (n === null) return null;
  return {
    xLgr: required(n, 'xLgr', where),
    nro: required(n, 'nro', where),
    xCpl: text(n, 'xCpl'),
    xBairro: required(n, 'xBairro', where),
    cMun: required(n, 'cMun', where),
    xMun: required(n, 'xMun', where),
    UF: required(n, 'UF', where),
    CEP: text(n, 'CEP'),
    cPais: text(n, 'cPais'),
    xPais: text(n, 'xPais'),
  };
}

function address(n: Node | null, where: string, fone: string | null = null): OutputAddress | null {
  const street = streetAddressOf(n, where);
  return street === null ? null : { ...street, fone: text(n, 'fone') ?? fone };
}

function icmsOf(imposto: Node | null): OutputIcms | null {
  const group = choice(child(imposto, 'ICMS'));
  if (group === null) return null;
  const g = group.node;
  return {
    group: group.name,
    orig: text(g, 'orig'),
    CST: text(g, 'CST'),
    CSOSN: text(g, 'CSOSN'),
    vBC: text(g, 'vBC'),
    pICMS: text(g, 'pICMS'),
    vICMS: text(g, 'vICMS'),
    vBCST: text(g, 'vBCST'),
    pICMSST: text(g, 'pICMSST'),
    vICMSST: text(g, 'vICMSST'),
    vFCP: text(g, 'vFCP'),
    vFCPST: text(g, 'vFCPST'),
  };
}

/** The IBSCBS group under `parent` (the NF-e item's imposto, the CT-e's imp); `where` names it in errors. */
export function ibsCbsOf(parent: Node | null, where: string): OutputIbsCbs | null {
  const ibscbs = child(parent, 'IBSCBS');
  if (ibscbs === null) return null;
  const g = child(ibscbs, 'gIBSCBS');
  const uf = child(g, 'gIBSUF');
  const mun = child(g, 'gIBSMun');
  const cbs = child(g, 'gCBS');
  return {
    CST: required(ibscbs, 'CST', where),
    cClassTrib: text(ibscbs, 'cClassTrib'),
    vBC: text(g, 'vBC'),
    pIBSUF: text(uf, 'pIBSUF'),
    vIBSUF: text(uf, 'vIBSUF'),
    pIBSMun: text(mun, 'pIBSMun'),
    vIBSMun: text(mun, 'vIBSMun'),
    vIBS: text(g, 'vIBS'),
    pCBS: text(cbs, 'pCBS'),
    vCBS: text(cbs, 'vCBS'),
  };
}

function itemOf(det: Node): OutputItem {
  const where = `det[${attribute(det, 'nItem') ?? '?'}]`;
  const prod = child(det, 'prod');
  if (prod === null) throw new OutputParseError(`${where}/prod is missing`);
  const imposto = child(det, 'imposto');
  const ipi = choice(child(imposto, 'IPI'));
  const ipiGroup = ipi !== null && (ipi.name === 'IPITrib' || ipi.name === 'IPINT') ? ipi.node : null;
  return {
    nItem: attribute(det, 'nItem') ?? '',
    cProd: required(prod, 'cProd', where),
    cEAN: text(prod, 'cEAN'),
    xProd: required(prod, 'xProd', where),
    NCM: required(prod, 'NCM', where),
    CEST: text(prod, 'CEST'),
    CFOP: required(prod, 'CFOP', where),
    uCom: required(prod, 'uCom', where),
    qCom: required(prod, 'qCom', where),
    vUnCom: required(prod, 'vUnCom', where),
    vProd: required(prod, 'vProd', where),
    vDesc: text(prod, 'vDesc'),
    vFrete: text(prod, 'vFrete'),
    vSeg: text(prod, 'vSeg'),
    vOutro: text(prod, 'vOutro'),
    vTotTrib: text(imposto, 'vTotTrib'),
    icms: icmsOf(imposto),
    ipiCST: text(ipiGroup, 'CST'),
    vBCIPI: text(ipiGroup, 'vBC'),
    pIPI: text(ipiGroup, 'pIPI'),
    vIPI: text(ipiGroup, 'vIPI'),
    ibsCbs: ibsCbsOf(imposto, 'IBSCBS'),
    infAdProd: text(det, 'infAdProd'),
  };
}

function icmsTotOf(n: Node | null): OutputIcmsTot {
  const w = 'total/ICMSTot';
  if (n === null) throw new OutputParseError(`${w} is missing`);
  return {
    vBC: required(n, 'vBC', w),
    vICMS: required(n, 'vICMS', w),
    vICMSDeson: required(n, 'vICMSDeson', w),
    vFCPUFDest: text(n, 'vFCPUFDest'),
    vICMSUFDest: text(n, 'vICMSUFDest'),
    vICMSUFRemet: text(n, 'vICMSUFRemet'),
    vFCP: required(n, 'vFCP', w),
    vBCST: required(n, 'vBCST', w),
    vST: required(n, 'vST', w),
    vFCPST: required(n, 'vFCPST', w),
    vFCPSTRet: required(n, 'vFCPSTRet', w),
    qBCMono: text(n, 'qBCMono'),
    vICMSMono: text(n, 'vICMSMono'),
    qBCMonoReten: text(n, 'qBCMonoReten'),
    vICMSMonoReten: text(n, 'vICMSMonoReten'),
    qBCMonoRet: text(n, 'qBCMonoRet'),
    vICMSMonoRet: text(n, 'vICMSMonoRet'),
    vProd: required(n, 'vProd', w),
    vFrete: required(n, 'vFrete', w),
    vSeg: required(n, 'vSeg', w),
    vDesc: required(n, 'vDesc', w),
    vII: required(n, 'vII', w),
    vIPI: required(n, 'vIPI', w),
    vIPIDevol: required(n, 'vIPIDevol', w),
    vPIS: required(n, 'vPIS', w),
    vCOFINS: required(n, 'vCOFINS', w),
    vOutro: required(n, 'vOutro', w),
    vNF: required(n, 'vNF', w),
    vTotTrib: text(n, 'vTotTrib'),
  };
}

function ibsCbsTotOf(n: Node | null): OutputIbsCbsTot | null {
  if (n === null) return null;
  const gIBS = child(n, 'gIBS');
  return {
    vBCIBSCBS: text(n, 'vBCIBSCBS'),
    vIBS: text(gIBS, 'vIBS'),
    vIBSUF: text(child(gIBS, 'gIBSUF'), 'vIBSUF'),
    vIBSMun: text(child(gIBS, 'gIBSMun'), 'vIBSMun'),
    vCBS: text(child(n, 'gCBS'), 'vCBS'),
  };
}

function transpOf(n: Node | null): OutputTransp | null {
  if (n === null) return null;
  const t = child(n, 'transporta');
  const v = child(n, 'veicTransp');
  return {
    modFrete: required(n, 'modFrete', 'transp'),
    transporta:
      t === null
        ? null
        : {
            CNPJ: text(t, 'CNPJ'),
            CPF: text(t, 'CPF'),
            xNome: text(t, 'xNome'),
            IE: text(t, 'IE'),
            xEnder: text(t, 'xEnder'),
            xMun: text(t, 'xMun'),
            UF: text(t, 'UF'),
          },
    veicTransp:
      v === null
        ? null
        : { placa: required(v, 'placa', 'veicTransp'), UF: text(v, 'UF'), RNTC: text(v, 'RNTC') },
    vol: children(n, 'vol').map((vol) => ({
      qVol: text(vol, 'qVol'),
      esp: text(vol, 'esp'),
      marca: text(vol, 'marca'),
      nVol: text(vol, 'nVol'),
      pesoL: text(vol, 'pesoL'),
      pesoB: text(vol, 'pesoB'),
    })),
  };
}

function cobrOf(n: Node | null): OutputCobr | null {
  if (n === null) return null;
  const fat = child(n, 'fat');
  return {
    fat:
      fat === null
        ? null
        : {
            nFat: text(fat, 'nFat'),
            vOrig: text(fat, 'vOrig'),
            vDesc: text(fat, 'vDesc'),
            vLiq: text(fat, 'vLiq'),
          },
    dup: children(n, 'dup').map((d) => ({
      nDup: text(d, 'nDup'),
      dVenc: text(d, 'dVenc'),
      vDup: required(d, 'vDup', 'cobr/dup'),
    })),
  };
}

function pagOf(n: Node | null): OutputPag | null {
  if (n === null) return null;
  return {
    detPag: children(n, 'detPag').map((d) => {
      const card = child(d, 'card');
      return {
        indPag: text(d, 'indPag'),
        tPag: required(d, 'tPag', 'pag/detPag'),
        xPag: text(d, 'xPag'),
        vPag: required(d, 'vPag', 'pag/detPag'),
        card:
          card === null
            ? null
            : {
                tpIntegra: text(card, 'tpIntegra'),
                CNPJ: text(card, 'CNPJ'),
                tBand: text(card, 'tBand'),
                cAut: text(card, 'cAut'),
              },
      };
    }),
    vTroco: text(n, 'vTroco'),
  };
}

/** Finds the NFe element and its protNFe whatever holds them (nfeProc, a bare NFe, an envelope). */
function locate(root: Node): { nfe: Node | null; prot: Node | null } {
  const nfeProc = child(root, 'nfeProc');
  if (nfeProc !== null) return { nfe: child(nfeProc, 'NFe'), prot: child(nfeProc, 'protNFe') };
  const nfe = child(root, 'NFe');
  if (nfe !== null) return { nfe, prot: null };
  for (const v of Object.values(root)) {
    const first: unknown = Array.isArray(v) ? v[0] : v;
    if (isNode(first)) {
      const found = locate(first);
      if (found.nfe !== null) return found;
    }
  }
  return { nfe: null, prot: null };
}

/**
 * Reads an `nfeProc` (NFe + protNFe) or a bare signed `NFe` (contingency, no protocol yet) into the
 * printable model. `cancelled` comes from the caller (the cancellation is a separate event document).
 * @throws OutputParseError when the document is not an NF-e/NFC-e or lacks a required field.
 */
export function parseOutputDocument(
  xml: string,
  options: { cancelled?: boolean; /** false: fast-xml-parser only (tests). */ fastReader?: boolean } = {},
): OutputDocument {
  const { nfe, prot } = locate((options.fastReader === false ? readTreeSlow : readTree)(xml));
  const infNFe = child(nfe, 'infNFe');
  if (infNFe === null) throw new OutputParseError('no NFe/infNFe element');

  const id = attribute(infNFe, 'Id') ?? '';
  const chave = id.replace(/^NFe/, '');
  if (!/^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/.test(chave))
    throw new OutputParseError(`infNFe/@Id '${id}' is not an access key`);

  const ide = child(infNFe, 'ide');
  const modelo = required(ide, 'mod', 'ide');
  if (modelo !== '55' && modelo !== '65')
    throw new OutputParseError(`ide/mod ${modelo} is neither 55 nor 65`);
  const tpAmb = required(ide, 'tpAmb', 'ide');
  if (tpAmb !== '1' && tpAmb !== '2') throw new OutputParseError(`ide/tpAmb ${tpAmb} is neither 1 nor 2`);

  const emit = child(infNFe, 'emit');
  const enderEmit = address(child(emit, 'enderEmit'), 'emit/enderEmit');
  if (emit === null || enderEmit === null) throw new OutputParseError('emit/enderEmit is missing');
  const dest = child(infNFe, 'dest');
  const total = child(infNFe, 'total');
  const infAdic = child(infNFe, 'infAdic');
  const supl = child(nfe, 'infNFeSupl');
  const infProt = child(prot, 'infProt');

  return {
    modelo,
    chave,
    versao: attribute(infNFe, 'versao') ?? '',
    tpAmb,
    tpEmis: required(ide, 'tpEmis', 'ide'),
    dhCont: text(ide, 'dhCont'),
    xJust: text(ide, 'xJust'),
    cUF: required(ide, 'cUF', 'ide'),
    nNF: required(ide, 'nNF', 'ide'),
    serie: required(ide, 'serie', 'ide'),
    dhEmi: required(ide, 'dhEmi', 'ide'),
    dhSaiEnt: text(ide, 'dhSaiEnt'),
    natOp: required(ide, 'natOp', 'ide'),
    tpNF: required(ide, 'tpNF', 'ide'),
    idDest: text(ide, 'idDest'),
    tpImp: text(ide, 'tpImp'),
    finNFe: text(ide, 'finNFe'),
    indFinal: text(ide, 'indFinal'),
    indPres: text(ide, 'indPres'),
    emit: {
      CNPJ: text(emit, 'CNPJ'),
      CPF: text(emit, 'CPF'),
      xNome: required(emit, 'xNome', 'emit'),
      xFant: text(emit, 'xFant'),
      IE: text(emit, 'IE'),
      IEST: text(emit, 'IEST'),
      IM: text(emit, 'IM'),
      CRT: required(emit, 'CRT', 'emit'),
      address: enderEmit,
    },
    dest:
      dest === null
        ? null
        : {
            CNPJ: text(dest, 'CNPJ'),
            CPF: text(dest, 'CPF'),
            idEstrangeiro: text(dest, 'idEstrangeiro'),
            xNome: text(dest, 'xNome'),
            IE: text(dest, 'IE'),
            indIEDest: text(dest, 'indIEDest'),
            email: text(dest, 'email'),
            address: address(child(dest, 'enderDest'), 'dest/enderDest'),
          },
    items: children(infNFe, 'det').map(itemOf),
    totals: {
      ICMSTot: icmsTotOf(child(total, 'ICMSTot')),
      IBSCBSTot: ibsCbsTotOf(child(total, 'IBSCBSTot')),
      vNFTot: text(total, 'vNFTot'),
    },
    transp: transpOf(child(infNFe, 'transp')),
    cobr: cobrOf(child(infNFe, 'cobr')),
    pag: pagOf(child(infNFe, 'pag')),
    infAdic:
      infAdic === null ? null : { infAdFisco: text(infAdic, 'infAdFisco'), infCpl: text(infAdic, 'infCpl') },
    infNFeSupl:
      supl === null
        ? null
        : { qrCode: required(supl, 'qrCode', 'infNFeSupl'), urlChave: text(supl, 'urlChave') },
    protocol:
      infProt === null
        ? null
        : {
            nProt: text(infProt, 'nProt'),
            dhRecbto: required(infProt, 'dhRecbto', 'protNFe/infProt'),
            cStat: required(infProt, 'cStat', 'protNFe/infProt'),
            xMotivo: required(infProt, 'xMotivo', 'protNFe/infProt'),
            digVal: text(infProt, 'digVal'),
          },
    cancelled: options.cancelled ?? false,
  };
}
