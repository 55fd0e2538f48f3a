// What the DACE prints, read from a DC-e (layout 1.00, model 99): the signed <DCe> of a draft or the dceProc
// (DCe + protDCe) of an authorized one; identification, the issuing system, sender, recipient, items as signed.
import { DCE_CODES } from '../../src-shared/tables/dce-codes.ts';
import {
  OutputParseError,
  attribute,
  child,
  children,
  isNode,
  required,
  text,
  xmlTreeReader,
  type Node,
  type TpAmb,
} from './model.ts';

/** tpEmit: 0 App Fisco, 1 Marketplace, 2 Emissor próprio, 3 Transportadora, 4 ECT (Correios). */
export type DceTpEmit = '0' | '1' | '2' | '3' | '4';
/** modTrans: 0 Correios, 1 by the sender's own means, 2 a carrier. */
export type DceModTrans = '0' | '1' | '2';

export interface DaceAddress {
  xLgr: string;
  nro: string;
  xCpl: string | null;
  xBairro: string;
  cMun: string;
  xMun: string;
  UF: string;
  CEP: string;
  xPais: string | null;
  fone: string | null;
  email: string | null;
}

/** emit (the declarant) or dest: exactly one of CNPJ, CPF, idOutros. */
export interface DaceParty {
  CNPJ: string | null;
  CPF: string | null;
  idOutros: string | null;
  xNome: string;
  address: DaceAddress;
}

/** The group of the system that issued for the declarant (Fisco, Marketplace, Transportadora, ECT). */
export interface DaceIssuer {
  group: 'Fisco' | 'Marketplace' | 'Transportadora' | 'ECT';
  CNPJ: string;
  xNome: string;
  /** Marketplace/Site, Fisco/xOrgao is in xNome. */
  site: string | null;
}

export interface DaceItem {
  nItem: string;
  xProd: string;
  NCM: string;
  qCom: string;
  vUnCom: string;
  vProd: string;
  infAdProd: string | null;
}

export interface DaceObs {
  /** The XML group: obsEmit, obsFisco, obsMarketplace or obsECT. */
  group: string;
  xCampo: string;
  xTexto: string;
}

export interface DaceProtocol {
  nProt: string | null;
  dhRecbto: string;
  cStat: string;
  xMotivo: string;
}

export interface DaceModel {
  chave: string;
  cUF: string;
  tpAmb: TpAmb;
  tpEmis: string;
  tpEmit: DceTpEmit;
  serie: string;
  nDC: string;
  dhEmi: string;
  emit: DaceParty;
  /** null when the declarant issued with its own system (tpEmit 2). */
  issuer: DaceIssuer | null;
  dest: DaceParty;
  items: DaceItem[];
  vDC: string;
  modTrans: DceModTrans;
  CNPJTransp: string | null;
  infAdFisco: string | null;
  infCpl: string | null;
  infAdMarketplace: string | null;
  infAdECT: string | null;
  obs: DaceObs[];
  /** The two fixed declaration texts of infDec, as signed. */
  xObs1: string;
  xObs2: string;
  qrCodDCe: string;
  urlChave: string;
  /** Only an authorization (DCE_CODES.authorized); null for a draft or a DC-e the authority did not authorize. */
  protocol: DaceProtocol | null;
}

const readTree = xmlTreeReader(new Set(['det', 'obsEmit', 'obsFisco', 'obsMarketplace', 'obsECT']));

const ISSUER_GROUPS = ['Fisco', 'Marketplace', 'Transportadora', 'ECT'] as const;
const OBS_GROUPS = ['obsEmit', 'obsFisco', 'obsMarketplace', 'obsECT'] as const;

function addressOf(n: Node | null, where: string): DaceAddress {
  if (n === null) throw new OutputParseError(`${where} is missing`);
  return {
    xLgr: required(n, 'xLgr', where),
    nro: required(n, 'nro', where),
    xCpl: text(n, 'xCpl'),
    xBairro: required(n, 'xBairro', where),
    cMun: required(n, 'cMun', where),
    xMun: required(n, 'xMun', where),
    UF: required(n, 'UF', where),
    CEP: required(n, 'CEP', where),
    xPais: text(n, 'xPais'),
    fone: text(n, 'fone'),
    email: text(n, 'email'),
  };
}

function partyOf(n: Node | null, enderTag: string, where: string): DaceParty {
  if (n === null) throw new OutputParseError(`infDCe/${where} is missing`);
  return {
    CNPJ: text(n, 'CNPJ'),
    CPF: text(n, 'CPF'),
    idOutros: text(n, 'idOutros'),
    xNome: required(n, 'xNome', `infDCe/${where}`),
    address: addressOf(child(n, enderTag), `infDCe/${where}/${enderTag}`),
  };
}

function issuerOf(inf: Node): DaceIssuer | null {
  for (const group of ISSUER_GROUPS) {
    const g = child(inf, group);
    if (g === null) continue;
    const where = `infDCe/${group}`;
    return {
      group,
      CNPJ: required(g, 'CNPJ', where),
      xNome: required(g, group === 'Fisco' ? 'xOrgao' : 'xNome', where),
      site: text(g, 'Site'),
    };
  }
  return null;
}

/** Finds the DCe element and its protDCe whatever holds them (dceProc, a bare DCe, an envelope). */
function locate(root: Node): { dce: Node | null; prot: Node | null } {
  const proc = child(root, 'dceProc');
  if (proc !== null) return { dce: child(proc, 'DCe'), prot: child(proc, 'protDCe') };
  const dce = child(root, 'DCe');
  if (dce !== null) return { dce, prot: null };
  for (const v of Object.values(root)) {
    const first: unknown = Array.isArray(v) ? v[0] : v;
    if (isNode(first)) {
      const found = locate(first);
      if (found.dce !== null) return found;
    }
  }
  return { dce: null, prot: null };
}

function oneOf<T extends string>(value: string, allowed: readonly T[], where: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new OutputParseError(`${where} '${value}' is not one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/**
 * Reads a dceProc (DCe + protDCe) or a bare signed DCe into the printable model of the DACE.
 * @throws OutputParseError when the document is not a DC-e or lacks a field the DACE prints.
 */
export function daceModelOf(xmlOrProc: string): DaceModel {
  const { dce, prot } = locate(readTree(xmlOrProc));
  const inf = child(dce, 'infDCe');
  if (inf === null) throw new OutputParseError('no DCe/infDCe element');
  const id = attribute(inf, 'Id') ?? '';
  if (!/^DCe[0-9]{44}$/.test(id)) throw new OutputParseError(`infDCe/@Id '${id}' is not "DCe" and 44 digits`);

  const ide = child(inf, 'ide');
  const where = 'infDCe/ide';
  const mod = required(ide, 'mod', where);
  if (mod !== '99') throw new OutputParseError(`${where}/mod ${mod} is not 99`);
  const tpAmb = oneOf(required(ide, 'tpAmb', where), ['1', '2'] as const, `${where}/tpAmb`);
  const tpEmit = oneOf(required(ide, 'tpEmit', where), ['0', '1', '2', '3', '4'] as const, `${where}/tpEmit`);

  const transp = child(inf, 'transp');
  const infAdic = child(inf, 'infAdic');
  const infDec = child(inf, 'infDec');
  const supl = child(dce, 'infDCeSupl');
  const infProt = child(prot, 'infProt');
  const protWhere = 'protDCe/infProt';
  const cStat = infProt === null ? null : required(infProt, 'cStat', protWhere);

  return {
    chave: id.slice(3),
    cUF: required(ide, 'cUF', where),
    tpAmb,
    tpEmis: required(ide, 'tpEmis', where),
    tpEmit,
    serie: required(ide, 'serie', where),
    nDC: required(ide, 'nDC', where),
    dhEmi: required(ide, 'dhEmi', where),
    emit: partyOf(child(inf, 'emit'), 'enderEmit', 'emit'),
    issuer: issuerOf(inf),
    dest: partyOf(child(inf, 'dest'), 'enderDest', 'dest'),
    items: children(inf, 'det').map((det) => {
      const prod = child(det, 'prod');
      const at = `infDCe/det[${attribute(det, 'nItem') ?? '?'}]/prod`;
      return {
        nItem: attribute(det, 'nItem') ?? '',
        xProd: required(prod, 'xProd', at),
        NCM: required(prod, 'NCM', at),
        qCom: required(prod, 'qCom', at),
        vUnCom: required(prod, 'vUnCom', at),
        vProd: required(prod, 'vProd', at),
        infAdProd: text(det, 'infAdProd'),
      };
    }),
    vDC: required(child(inf, 'total'), 'vDC', 'infDCe/total'),
    modTrans: oneOf(
      required(transp, 'modTrans', 'infDCe/transp'),
      ['0', '1', '2'] as const,
      'transp/modTrans',
    ),
    CNPJTransp: text(transp, 'CNPJTransp'),
    infAdFisco: text(infAdic, 'infAdFisco'),
    infCpl: text(infAdic, 'infCpl'),
    infAdMarketplace: text(infAdic, 'infAdMarketplace'),
    infAdECT: text(infAdic, 'infAdECT'),
    obs: OBS_GROUPS.flatMap((group) =>
      children(infAdic, group).map((o) => ({
        group,
        xCampo: attribute(o, 'xCampo') ?? '',
        xTexto: text(o, 'xTexto') ?? '',
      })),
    ),
    xObs1: required(infDec, 'xObs1', 'infDCe/infDec'),
    xObs2: required(infDec, 'xObs2', 'infDCe/infDec'),
    qrCodDCe: required(supl, 'qrCodDCe', 'DCe/infDCeSupl'),
    urlChave: required(supl, 'urlChave', 'DCe/infDCeSupl'),
    // A protDCe that is not an authorization (a rejection kept beside the draft) gives no protocol to print.
    protocol:
      infProt === null || cStat !== DCE_CODES.authorized.code
        ? null
        : {
            nProt: text(infProt, 'nProt'),
            dhRecbto: required(infProt, 'dhRecbto', protWhere),
            cStat,
            xMotivo: required(infProt, 'xMotivo', protWhere),
          },
  };
}
