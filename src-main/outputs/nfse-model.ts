// What the DANFSe prints, read from an authorized national NFS-e (<NFSe> with infNFSe and the DPS inside it,
// leiaute 1.00/1.01 of the Emissor Nacional): numbers, dates, parties, service, taxes and values as text.
import {
  OutputParseError,
  attribute,
  child,
  required,
  text,
  xmlTreeReader,
  type Node,
  type TpAmb,
} from './model.ts';

export interface NfseOutputAddress {
  xLgr: string | null;
  nro: string | null;
  xCpl: string | null;
  xBairro: string | null;
  /** IBGE code of the municipality (national address), or the city of a foreign one. */
  cMun: string | null;
  UF: string | null;
  CEP: string | null;
}

export interface NfseOutputParty {
  CNPJ: string | null;
  CPF: string | null;
  NIF: string | null;
  IM: string | null;
  xNome: string | null;
  fone: string | null;
  email: string | null;
  address: NfseOutputAddress | null;
}

export interface NfseOutputDocument {
  /** The 50 characters after "NFS" in infNFSe/@Id. */
  chave: string;
  nNFSe: string;
  cStat: string | null;
  dhProc: string;
  xLocEmi: string | null;
  xLocPrestacao: string | null;
  xLocIncid: string | null;
  xTribNac: string | null;
  xTribMun: string | null;
  xNBS: string | null;
  // The DPS
  tpAmb: TpAmb;
  dhEmi: string;
  dCompet: string;
  serie: string;
  nDPS: string;
  emit: NfseOutputParty;
  /** Simples Nacional option of the provider (regTrib/opSimpNac: 1 no, 2 MEI, 3 ME/EPP). */
  opSimpNac: string | null;
  toma: NfseOutputParty | null;
  interm: NfseOutputParty | null;
  cTribNac: string;
  cTribMun: string | null;
  xDescServ: string;
  cNBS: string | null;
  cLocPrestacao: string | null;
  xInfComp: string | null;
  // Values (decimal text exactly as signed)
  vServ: string;
  vDescIncond: string | null;
  vDescCond: string | null;
  tribISSQN: string | null;
  tpRetISSQN: string | null;
  vBC: string | null;
  pAliqAplic: string | null;
  vISSQN: string | null;
  vTotalRet: string | null;
  vLiq: string;
  vRetIRRF: string | null;
  vRetCP: string | null;
  vRetCSLL: string | null;
  vPis: string | null;
  vCofins: string | null;
  pTotTribSN: string | null;
  /** The reform's IBS/CBS: the DPS's classification with the values the national environment computed. */
  ibscbs: NfseOutputIbsCbs | null;
}

/** IBS/CBS of layout 1.01 (DPS IBSCBS group and infNFSe/IBSCBS), decimal text as signed. */
export interface NfseOutputIbsCbs {
  CST: string | null;
  cClassTrib: string | null;
  cIndOp: string | null;
  /** Null when the note carries no computed values (only the DPS's classification). */
  xLocalidadeIncid: string | null;
  vBC: string | null;
  pAliqEfetCBS: string | null;
  vCBS: string | null;
  pAliqEfetUF: string | null;
  vIBSUF: string | null;
  pAliqEfetMun: string | null;
  vIBSMun: string | null;
  vIBSTot: string | null;
}

const readTree = xmlTreeReader(new Set());

function addressOf(end: Node | null): NfseOutputAddress | null {
  if (end === null) return null;
  const nac = child(end, 'endNac');
  const ext = child(end, 'endExt');
  return {
    xLgr: text(end, 'xLgr'),
    nro: text(end, 'nro'),
    xCpl: text(end, 'xCpl'),
    xBairro: text(end, 'xBairro'),
    cMun: text(nac, 'cMun') ?? text(ext, 'xCidade'),
    UF: text(nac, 'UF'),
    CEP: text(nac, 'CEP') ?? text(ext, 'cEndPost'),
  };
}

/** emit carries enderNac (address fields and municipality together); the DPS parties carry end. */
function partyOf(n: Node | null): NfseOutputParty | null {
  if (n === null) return null;
  const enderNac = child(n, 'enderNac');
  return {
    CNPJ: text(n, 'CNPJ'),
    CPF: text(n, 'CPF'),
    NIF: text(n, 'NIF'),
    IM: text(n, 'IM'),
    xNome: text(n, 'xNome'),
    fone: text(n, 'fone'),
    email: text(n, 'email'),
    address:
      enderNac !== null
        ? {
            xLgr: text(enderNac, 'xLgr'),
            nro: text(enderNac, 'nro'),
            xCpl: text(enderNac, 'xCpl'),
            xBairro: text(enderNac, 'xBairro'),
            cMun: text(enderNac, 'cMun'),
            UF: text(enderNac, 'UF'),
            CEP: text(enderNac, 'CEP'),
          }
        : addressOf(child(n, 'end')),
  };
}

/**
 * Reads the printable content of an authorized NFS-e.
 * @throws OutputParseError when the XML is not an NFS-e or misses what the DANFSe must print.
 */
export function parseNfseOutput(xml: string): NfseOutputDocument {
  const root = readTree(xml);
  const nfse = child(root, 'NFSe');
  const inf = child(nfse, 'infNFSe');
  if (inf === null) throw new OutputParseError('not an NFS-e: NFSe/infNFSe is missing');
  const id = attribute(inf, 'Id') ?? '';
  if (!/^NFS[0-9]{50}$/.test(id)) throw new OutputParseError('infNFSe/@Id is not "NFS" and 50 digits');
  const infDps = child(child(inf, 'DPS'), 'infDPS');
  if (infDps === null) throw new OutputParseError('infNFSe/DPS/infDPS is missing');
  const where = 'infNFSe/DPS/infDPS';
  const tpAmb = required(infDps, 'tpAmb', where);
  if (tpAmb !== '1' && tpAmb !== '2') throw new OutputParseError(`${where}/tpAmb is not 1 or 2`);
  const prest = child(infDps, 'prest');
  const emit = partyOf(child(inf, 'emit')) ?? partyOf(prest);
  if (emit === null) throw new OutputParseError('infNFSe/emit is missing');
  // The provider's phone and e-mail of the DPS stand in when the authority left them out of emit.
  const prestParty = partyOf(prest);
  if (prestParty !== null) {
    emit.fone ??= prestParty.fone;
    emit.email ??= prestParty.email;
  }
  const serv = child(infDps, 'serv');
  const cServ = child(serv, 'cServ');
  const valoresNfse = child(inf, 'valores');
  const valoresDps = child(infDps, 'valores');
  const vServPrest = child(valoresDps, 'vServPrest');
  const vDesc = child(valoresDps, 'vDescCondIncond');
  const trib = child(valoresDps, 'trib');
  const tribMun = child(trib, 'tribMun');
  const tribFed = child(trib, 'tribFed');
  const piscofins = child(tribFed, 'piscofins');
  const dpsIbs = child(infDps, 'IBSCBS');
  const gIBSCBS = child(child(child(dpsIbs, 'valores'), 'trib'), 'gIBSCBS');
  const noteIbs = child(inf, 'IBSCBS');
  const ibsValores = child(noteIbs, 'valores');
  const tot = child(noteIbs, 'totCIBS');
  const gIBS = child(tot, 'gIBS');
  return {
    chave: id.slice(3),
    nNFSe: required(inf, 'nNFSe', 'infNFSe'),
    cStat: text(inf, 'cStat'),
    dhProc: required(inf, 'dhProc', 'infNFSe'),
    xLocEmi: text(inf, 'xLocEmi'),
    xLocPrestacao: text(inf, 'xLocPrestacao'),
    xLocIncid: text(inf, 'xLocIncid'),
    xTribNac: text(inf, 'xTribNac'),
    xTribMun: text(inf, 'xTribMun'),
    xNBS: text(inf, 'xNBS'),
    tpAmb,
    dhEmi: required(infDps, 'dhEmi', where),
    dCompet: required(infDps, 'dCompet', where),
    serie: required(infDps, 'serie', where),
    nDPS: required(infDps, 'nDPS', where),
    emit,
    opSimpNac: text(child(prest, 'regTrib'), 'opSimpNac'),
    toma: partyOf(child(infDps, 'toma')),
    interm: partyOf(child(infDps, 'interm')),
    cTribNac: required(cServ, 'cTribNac', `${where}/serv/cServ`),
    cTribMun: text(cServ, 'cTribMun'),
    xDescServ: required(cServ, 'xDescServ', `${where}/serv/cServ`),
    cNBS: text(cServ, 'cNBS'),
    cLocPrestacao: text(child(serv, 'locPrest'), 'cLocPrestacao'),
    xInfComp: text(child(serv, 'infoCompl'), 'xInfComp'),
    vServ: required(vServPrest, 'vServ', `${where}/valores/vServPrest`),
    vDescIncond: text(vDesc, 'vDescIncond'),
    vDescCond: text(vDesc, 'vDescCond'),
    tribISSQN: text(tribMun, 'tribISSQN'),
    tpRetISSQN: text(tribMun, 'tpRetISSQN'),
    vBC: text(valoresNfse, 'vBC'),
    pAliqAplic: text(valoresNfse, 'pAliqAplic') ?? text(tribMun, 'pAliq'),
    vISSQN: text(valoresNfse, 'vISSQN'),
    vTotalRet: text(valoresNfse, 'vTotalRet'),
    vLiq: required(valoresNfse, 'vLiq', 'infNFSe/valores'),
    vRetIRRF: text(tribFed, 'vRetIRRF'),
    vRetCP: text(tribFed, 'vRetCP'),
    vRetCSLL: text(tribFed, 'vRetCSLL'),
    vPis: text(piscofins, 'vPis'),
    vCofins: text(piscofins, 'vCofins'),
    pTotTribSN: text(child(trib, 'totTrib'), 'pTotTribSN'),
    ibscbs:
      dpsIbs === null && noteIbs === null
        ? null
        : {
            CST: text(gIBSCBS, 'CST'),
            cClassTrib: text(gIBSCBS, 'cClassTrib'),
            cIndOp: text(dpsIbs, 'cIndOp'),
            xLocalidadeIncid: text(noteIbs, 'xLocalidadeIncid'),
            vBC: text(ibsValores, 'vBC'),
            pAliqEfetCBS: text(child(ibsValores, 'fed'), 'pAliqEfetCBS'),
            vCBS: text(child(tot, 'gCBS'), 'vCBS'),
            pAliqEfetUF: text(child(ibsValores, 'uf'), 'pAliqEfetUF'),
            vIBSUF: text(child(gIBS, 'gIBSUFTot'), 'vIBSUF'),
            pAliqEfetMun: text(child(ibsValores, 'mun'), 'pAliqEfetMun'),
            vIBSMun: text(child(gIBS, 'gIBSMunTot'), 'vIBSMun'),
            vIBSTot: text(gIBS, 'vIBSTot'),
          },
  };
}
