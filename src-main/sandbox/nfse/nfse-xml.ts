// The national environment's own documents as the sandbox answers them: the authorized <NFSe> that embeds the
// DPS (NFSe_v1.01.xsd) and the registered <evento> of a pedRegEvento (evento_v1.01.xsd), both signed by the
// sandbox with RSA-SHA256, SHA-256 and exclusive C14N with comments, the algorithms of the real Sefin's notes.
//
// Layout 1.01 note: infNFSe/cStat (TStat) admits only 100, 102, 103 and 107 — the 1.00 value 101 ("NFS-e de
// substituição gerada") is gone, so a substitute note is cStat 100 and is told apart by its DPS `subst` group.
import { X509Certificate } from 'node:crypto';
import { SignedXml } from 'xml-crypto';
import type { Element } from '@xmldom/xmldom';
import { cents, formatCents, parseScaled, roundDiv } from '../../../src-shared/money.ts';
import { NFSE_NAMESPACE } from '../../fiscal/schema.ts';
import { pedRegEventoId } from '../../fiscal/nfse/events.ts';
import type { Inscricao } from '../../fiscal/nfse/model.ts';
import { el, group, opt } from '../../fiscal/xml.ts';
import { findMunicipio } from '../../reference/ibge.ts';
import { children, parseXml, rootOf, textAt } from '../xml.ts';
import { nfseIbsCbs, type NfseIbsCbs } from './ibscbs.ts';

/** The sandbox's signing identity: its server key and certificate (ServerIdentity fits). */
export interface SandboxSigner {
  keyPem: string;
  certPem: string;
}

/** infNFSe/cStat of layout 1.01 (TStat): generated, judicial decision, avulsa, MEI. */
export type NfseCStat = '100' | '102' | '103' | '107';

const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const EXC_C14N_WITH_COMMENTS = 'http://www.w3.org/2001/10/xml-exc-c14n#WithComments';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

// ---------------------------------------------------------------------------------------------------------
// Reading a DPS: what the sandbox needs from it to check it and to generate its note.

export interface DpsFacts {
  /** infDPS/@Id, "DPS" + 42 digits. */
  id: string;
  versao: string;
  tpAmb: string;
  dhEmi: string;
  verAplic: string;
  serie: string;
  nDPS: string;
  dCompet: string;
  cLocEmi: string;
  /** The substitution group, when the DPS replaces an authorized note. */
  subst: { chSubstda: string; cMotivo: string; xMotivo: string | null } | null;
  prest: { inscricao: Inscricao; IM: string | null; fone: string | null; email: string | null };
  toma: { inscricao: Inscricao | null; xNome: string } | null;
  cLocPrestacao: string | null;
  cTribNac: string;
  xDescServ: string;
  /** vServ in cents. */
  vServ: bigint;
  tribISSQN: string;
  /** 1 not withheld, 2 withheld by the taker, 3 by the intermediary. */
  tpRetISSQN: string;
  /** The rate the DPS declares (TSDec1V2 text), or null when the municipality's applies. */
  pAliq: string | null;
  /** Federal withholdings (vRetCP + vRetIRRF + vRetCSLL) in cents. */
  vRetFederal: bigint;
  /** The taker's municipality (toma/end/endNac/cMun), when given. */
  tomaCMun: string | null;
  /** The reform's IBSCBS group of the DPS (operation indicator and classification), when present. */
  ibscbs: { cIndOp: string; indFinal: string | null; CST: string; cClassTrib: string } | null;
}

export class DpsReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DpsReadError';
  }
}

function inscricaoIn(parent: Element | undefined): Inscricao | null {
  if (parent === undefined) return null;
  const cnpj = textAt(parent, 'CNPJ', NFSE_NAMESPACE);
  if (cnpj !== undefined) return { CNPJ: cnpj };
  const cpf = textAt(parent, 'CPF', NFSE_NAMESPACE);
  return cpf !== undefined ? { CPF: cpf } : null;
}

function centsOrZero(text: string | undefined): bigint {
  return text === undefined ? 0n : cents(text);
}

/**
 * The facts of a DPS (signed or not) read with a namespace-aware parser. Meant for a DPS the schema accepted;
 * throws DpsReadError (or MalformedXml) when the document is not a DPS at all.
 */
export function readDps(dpsXml: string): DpsFacts {
  const root = rootOf(parseXml(dpsXml));
  if (root === undefined || root.localName !== 'DPS' || root.namespaceURI !== NFSE_NAMESPACE) {
    throw new DpsReadError('the document is not a DPS of the national NFS-e');
  }
  const inf = children(root, 'infDPS', NFSE_NAMESPACE)[0];
  if (inf === undefined) throw new DpsReadError('the DPS has no infDPS');
  const text = (path: string): string | undefined => textAt(inf, path, NFSE_NAMESPACE);
  const required = (path: string): string => {
    const value = text(path);
    if (value === undefined) throw new DpsReadError(`the DPS has no ${path}`);
    return value;
  };
  const prestEl = children(inf, 'prest', NFSE_NAMESPACE)[0];
  const prestInscricao = inscricaoIn(prestEl);
  if (prestInscricao === null) throw new DpsReadError('the DPS has no prest/CNPJ or prest/CPF');
  const tomaEl = children(inf, 'toma', NFSE_NAMESPACE)[0];
  const substEl = children(inf, 'subst', NFSE_NAMESPACE)[0];
  const ibsEl = children(inf, 'IBSCBS', NFSE_NAMESPACE)[0];
  const vServ = required('valores/vServPrest/vServ');
  return {
    id: inf.getAttribute('Id') ?? '',
    versao: root.getAttribute('versao') ?? '',
    tpAmb: required('tpAmb'),
    dhEmi: required('dhEmi'),
    verAplic: required('verAplic'),
    serie: required('serie'),
    nDPS: required('nDPS'),
    dCompet: required('dCompet'),
    cLocEmi: required('cLocEmi'),
    subst:
      substEl === undefined
        ? null
        : {
            chSubstda: textAt(substEl, 'chSubstda', NFSE_NAMESPACE) ?? '',
            cMotivo: textAt(substEl, 'cMotivo', NFSE_NAMESPACE) ?? '',
            xMotivo: textAt(substEl, 'xMotivo', NFSE_NAMESPACE) ?? null,
          },
    prest: {
      inscricao: prestInscricao,
      IM: text('prest/IM') ?? null,
      fone: text('prest/fone') ?? null,
      email: text('prest/email') ?? null,
    },
    toma:
      tomaEl === undefined
        ? null
        : { inscricao: inscricaoIn(tomaEl), xNome: textAt(tomaEl, 'xNome', NFSE_NAMESPACE) ?? '' },
    cLocPrestacao: text('serv/locPrest/cLocPrestacao') ?? null,
    cTribNac: required('serv/cServ/cTribNac'),
    xDescServ: required('serv/cServ/xDescServ'),
    vServ: cents(vServ),
    tribISSQN: required('valores/trib/tribMun/tribISSQN'),
    tpRetISSQN: text('valores/trib/tribMun/tpRetISSQN') ?? '1',
    pAliq: text('valores/trib/tribMun/pAliq') ?? null,
    vRetFederal:
      centsOrZero(text('valores/trib/tribFed/vRetCP')) +
      centsOrZero(text('valores/trib/tribFed/vRetIRRF')) +
      centsOrZero(text('valores/trib/tribFed/vRetCSLL')),
    tomaCMun: text('toma/end/endNac/cMun') ?? null,
    ibscbs:
      ibsEl === undefined
        ? null
        : {
            cIndOp: textAt(ibsEl, 'cIndOp', NFSE_NAMESPACE) ?? '',
            indFinal: textAt(ibsEl, 'indFinal', NFSE_NAMESPACE) ?? null,
            CST: textAt(ibsEl, 'valores/trib/gIBSCBS/CST', NFSE_NAMESPACE) ?? '',
            cClassTrib: textAt(ibsEl, 'valores/trib/gIBSCBS/cClassTrib', NFSE_NAMESPACE) ?? '',
          },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The authorized note.

/** TCEnderecoEmitente. */
export interface NfseEnderNac {
  xLgr: string;
  nro: string;
  xBairro: string;
  cMun: string;
  UF: string;
  /** 8 digits. */
  CEP: string;
}

/** TCEmitente: what the national register (CNC) knows of the issuer, with the DPS's contact data. */
export interface NfseEmit {
  inscricao: Inscricao;
  IM: string | null;
  xNome: string;
  enderNac: NfseEnderNac;
  fone: string | null;
  email: string | null;
}

/** TCValoresNFSe as decimal text (TSDec15V2 / TSDec1V2). */
export interface NfseValores {
  vBC: string;
  pAliqAplic: string | null;
  vISSQN: string | null;
  vTotalRet: string;
  vLiq: string;
}

/**
 * The note's values from the DPS and the rate applied (the DPS pAliq, else the municipality's): vBC = vServ
 * (no deductions or reductions are offered), vISSQN = vBC × rate rounded half-up to cents, vTotalRet = the
 * federal withholdings plus vISSQN when the taker withholds it, vLiq = vServ − vTotalRet.
 */
export function nfseValores(input: {
  vServ: bigint;
  /** Percent with two places, e.g. `5.00`; null when no ISS applies (nothing is computed). */
  pAliq: string | null;
  tpRetISSQN: string;
  vRetFederal?: bigint;
}): NfseValores {
  const vBC = input.vServ;
  const vISSQN = input.pAliq === null ? null : roundDiv(vBC * parseScaled(input.pAliq, 2), 10_000n);
  const withheldIss = vISSQN !== null && input.tpRetISSQN !== '1' ? vISSQN : 0n;
  const vTotalRet = (input.vRetFederal ?? 0n) + withheldIss;
  return {
    vBC: formatCents(vBC),
    pAliqAplic: input.pAliq === null ? null : formatCents(parseScaled(input.pAliq, 2)),
    vISSQN: vISSQN === null ? null : formatCents(vISSQN),
    vTotalRet: formatCents(vTotalRet),
    vLiq: formatCents(input.vServ - vTotalRet),
  };
}

/**
 * The issuer as the sandbox's register gives it: the DPS's inscription and contact data, and a name and address
 * of its own (the sandbox keeps no CNC; `cadastro` overrides them). The address is the issuing municipality's.
 */
export function emitFromDps(
  dps: Pick<DpsFacts, 'prest' | 'cLocEmi'>,
  cadastro: { xNome?: string; enderNac?: Partial<NfseEnderNac> } = {},
): NfseEmit {
  const inscricao = dps.prest.inscricao.CNPJ ?? dps.prest.inscricao.CPF;
  return {
    inscricao: dps.prest.inscricao,
    IM: dps.prest.IM,
    xNome: cadastro.xNome ?? `CONTRIBUINTE ${inscricao} (SANDBOX)`,
    enderNac: {
      xLgr: 'ENDERECO DO CADASTRO DO SANDBOX',
      nro: 'S/N',
      xBairro: 'CENTRO',
      cMun: dps.cLocEmi,
      UF: findMunicipio(dps.cLocEmi)?.uf ?? 'DF',
      CEP: '00000000',
      ...cadastro.enderNac,
    },
    fone: dps.prest.fone,
    email: dps.prest.email,
  };
}

export interface AuthorizedNfseInput {
  /** The DPS as received (signed); embedded as it is, without its XML declaration. */
  dpsXml: string;
  /** 50 digits (nfseAccessKey). */
  chaveAcesso: string;
  nNFSe: number | string;
  nDFSe: number | string;
  /** TSDateTimeUTC, e.g. 2026-03-02T10:15:01-03:00. */
  dhProc: string;
  cStat: NfseCStat;
  /** 1 the municipality's environment, 2 the national Sefin (the sandbox plays the latter). */
  ambGer: 1 | 2;
  emit: NfseEmit;
  valores: NfseValores;
  /** Defaults: the sandbox's version, the IBGE names of the DPS municipalities, a text naming cTribNac. */
  verAplic?: string;
  xLocEmi?: string;
  xLocPrestacao?: string;
  xTribNac?: string;
  /** Municipality where the ISS is due (cLocIncid); default: the place of service. */
  cLocIncid?: string;
  /** The note's IBS/CBS group; default: computed from the DPS's IBSCBS group (nfseIbsCbs), none without it. */
  ibscbs?: NfseIbsCbs | null;
}

export const SANDBOX_VER_APLIC = 'BalcaoSandbox_1.0';

function municipioName(cMun: string): string {
  const m = findMunicipio(cMun);
  return m === undefined ? `Município ${cMun}` : `${m.xMun} - ${m.uf}`;
}

function inscricaoXml(i: Inscricao): string {
  return i.CNPJ !== undefined ? el('CNPJ', i.CNPJ) : el('CPF', i.CPF);
}

function withoutDeclaration(xml: string): string {
  return xml.replace(/^\uFEFF?\s*<\?xml[^?]*\?>\s*/, '');
}

/** The authorized NFSe, signed by the sandbox, with the XML declaration the Sefin writes. */
export function buildAuthorizedNfse(input: AuthorizedNfseInput, signer: SandboxSigner): string {
  if (!/^\d{50}$/.test(input.chaveAcesso)) throw new RangeError('chaveAcesso must have 50 digits');
  const dps = readDps(input.dpsXml);
  const cLocPrestacao = dps.cLocPrestacao ?? dps.cLocEmi;
  const cLocIncid = input.cLocIncid ?? cLocPrestacao;
  const { emit, valores } = input;
  const ibscbs =
    input.ibscbs !== undefined
      ? input.ibscbs
      : nfseIbsCbs(
          { ...dps, cLocPrestacao },
          { vISSQN: valores.vISSQN === null ? 0n : cents(valores.vISSQN), vLiq: cents(valores.vLiq) },
        );
  const infNFSe =
    `<infNFSe Id="NFS${input.chaveAcesso}">` +
    el('xLocEmi', input.xLocEmi ?? municipioName(dps.cLocEmi)) +
    el('xLocPrestacao', input.xLocPrestacao ?? municipioName(cLocPrestacao)) +
    el('nNFSe', String(input.nNFSe)) +
    el('cLocIncid', cLocIncid) +
    el('xLocIncid', municipioName(cLocIncid)) +
    el('xTribNac', input.xTribNac ?? `Serviço do código de tributação nacional ${dps.cTribNac}`) +
    el('verAplic', input.verAplic ?? SANDBOX_VER_APLIC) +
    el('ambGer', input.ambGer) +
    // tpEmis 1: the DPS came from the taxpayer's own application (web service); procEmi likewise.
    el('tpEmis', 1) +
    el('procEmi', 1) +
    el('cStat', input.cStat) +
    el('dhProc', input.dhProc) +
    el('nDFSe', String(input.nDFSe)) +
    group(
      'emit',
      inscricaoXml(emit.inscricao),
      opt('IM', emit.IM),
      el('xNome', emit.xNome),
      group(
        'enderNac',
        el('xLgr', emit.enderNac.xLgr),
        el('nro', emit.enderNac.nro),
        el('xBairro', emit.enderNac.xBairro),
        el('cMun', emit.enderNac.cMun),
        el('UF', emit.enderNac.UF),
        el('CEP', emit.enderNac.CEP),
      ),
      opt('fone', emit.fone),
      opt('email', emit.email),
    ) +
    group(
      'valores',
      el('vBC', valores.vBC),
      opt('pAliqAplic', valores.pAliqAplic),
      opt('vISSQN', valores.vISSQN),
      el('vTotalRet', valores.vTotalRet),
      el('vLiq', valores.vLiq),
    ) +
    ibsCbsXml(ibscbs) +
    withoutDeclaration(input.dpsXml) +
    '</infNFSe>';
  const xml = `<NFSe xmlns="${NFSE_NAMESPACE}" versao="1.01">${infNFSe}</NFSe>`;
  return XML_DECLARATION + signEnveloped(xml, 'infNFSe', signer);
}

/** infNFSe/IBSCBS (TCRTCIBSCBS), after valores and before the DPS. */
function ibsCbsXml(g: NfseIbsCbs | null): string {
  if (g === null) return '';
  return group(
    'IBSCBS',
    el('cLocalidadeIncid', g.cLocalidadeIncid),
    el('xLocalidadeIncid', municipioName(g.cLocalidadeIncid)),
    group(
      'valores',
      el('vBC', g.vBC),
      group(
        'uf',
        el('pIBSUF', g.uf.pIBSUF),
        opt('pRedAliqUF', g.uf.pRedAliqUF),
        el('pAliqEfetUF', g.uf.pAliqEfetUF),
      ),
      group(
        'mun',
        el('pIBSMun', g.mun.pIBSMun),
        opt('pRedAliqMun', g.mun.pRedAliqMun),
        el('pAliqEfetMun', g.mun.pAliqEfetMun),
      ),
      group(
        'fed',
        el('pCBS', g.fed.pCBS),
        opt('pRedAliqCBS', g.fed.pRedAliqCBS),
        el('pAliqEfetCBS', g.fed.pAliqEfetCBS),
      ),
    ),
    group(
      'totCIBS',
      el('vTotNF', g.vTotNF),
      group(
        'gIBS',
        el('vIBSTot', g.vIBSTot),
        group('gIBSUFTot', el('vIBSUF', g.vIBSUF)),
        group('gIBSMunTot', el('vIBSMun', g.vIBSMun)),
      ),
      group('gCBS', el('vCBS', g.vCBS)),
    ),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Events.

/** The event types the sandbox registers: cancellation and cancellation by substitution. */
export type NfseEventoTipo = 'e101101' | 'e105102';

export interface PedRegEventoFacts {
  /** infPedReg/@Id ("PRE" + chNFSe + the 6-digit event code). */
  id: string;
  tpAmb: string;
  dhEvento: string;
  autor: Inscricao | null;
  chNFSe: string;
  /** The element name of the event group, e.g. `e101101`. */
  tipo: string;
  cMotivo: string | null;
  xMotivo: string | null;
}

/** What a pedRegEvento asks (signed or not). Throws DpsReadError when it is not one. */
export function readPedRegEvento(xml: string): PedRegEventoFacts {
  const root = rootOf(parseXml(xml));
  if (root === undefined || root.localName !== 'pedRegEvento' || root.namespaceURI !== NFSE_NAMESPACE) {
    throw new DpsReadError('the document is not a pedRegEvento of the national NFS-e');
  }
  const inf = children(root, 'infPedReg', NFSE_NAMESPACE)[0];
  if (inf === undefined) throw new DpsReadError('the pedRegEvento has no infPedReg');
  const group = children(inf, undefined, NFSE_NAMESPACE).find((c) => /^e\d{6}$/.test(c.localName ?? ''));
  const cnpj = textAt(inf, 'CNPJAutor', NFSE_NAMESPACE);
  const cpf = textAt(inf, 'CPFAutor', NFSE_NAMESPACE);
  return {
    id: inf.getAttribute('Id') ?? '',
    tpAmb: textAt(inf, 'tpAmb', NFSE_NAMESPACE) ?? '',
    dhEvento: textAt(inf, 'dhEvento', NFSE_NAMESPACE) ?? '',
    autor: cnpj !== undefined ? { CNPJ: cnpj } : cpf !== undefined ? { CPF: cpf } : null,
    chNFSe: textAt(inf, 'chNFSe', NFSE_NAMESPACE) ?? '',
    tipo: group?.localName ?? '',
    cMotivo: group === undefined ? null : (textAt(group, 'cMotivo', NFSE_NAMESPACE) ?? null),
    xMotivo: group === undefined ? null : (textAt(group, 'xMotivo', NFSE_NAMESPACE) ?? null),
  };
}

export { pedRegEventoId };

/**
 * The pedRegEvento of a cancellation by substitution (e105102), which the national environment writes itself
 * when it generates a substitute note (unsigned: TCPedRegEvt's Signature is optional). The author is the
 * issuer of both notes.
 */
export function buildSubstitutionPedRegEvento(input: {
  tpAmb: 1 | 2;
  dhEvento: string;
  autor: Inscricao;
  /** The substituted note's key. */
  chNFSe: string;
  /** TSCodJustSubst of the substitute DPS: 01..05 or 99. */
  cMotivo: string;
  /** 15..255 characters, or null. */
  xMotivo: string | null;
  chSubstituta: string;
  verAplic?: string;
}): string {
  const autor =
    input.autor.CNPJ !== undefined ? el('CNPJAutor', input.autor.CNPJ) : el('CPFAutor', input.autor.CPF);
  return (
    `<pedRegEvento xmlns="${NFSE_NAMESPACE}" versao="1.01">` +
    `<infPedReg Id="${pedRegEventoId(input.chNFSe, 'e105102')}">` +
    el('tpAmb', input.tpAmb) +
    el('verAplic', input.verAplic ?? SANDBOX_VER_APLIC) +
    el('dhEvento', input.dhEvento) +
    autor +
    el('chNFSe', input.chNFSe) +
    group(
      'e105102',
      el('xDesc', 'Cancelamento de NFS-e por Substituição'),
      el('cMotivo', input.cMotivo),
      opt('xMotivo', input.xMotivo),
      el('chSubstituta', input.chSubstituta),
    ) +
    '</infPedReg></pedRegEvento>'
  );
}

export interface RegisteredEventoInput {
  /** The pedRegEvento as the author sent it (e101101, signed) or as buildSubstitutionPedRegEvento wrote it. */
  pedRegEventoXml: string;
  /** Sequence of this event type for the note (1 for a cancellation). */
  nSeqEvento: number;
  dhProc: string;
  /** Sequential number of the event as a DF-e of the generating environment. */
  nDFSe: number | string;
  /** TSAmbGeradorEvt: 1 municipality, 2 Sefin Nacional, 3 Ambiente Nacional (default 2). */
  ambGer?: 1 | 2 | 3;
  verAplic?: string;
}

/** TSIdEvento: "EVT" + chNFSe (50) + event code (6) + sequence (3). */
export function eventoId(chNFSe: string, tipo: string, nSeqEvento: number): string {
  return `EVT${chNFSe}${tipo.slice(1)}${String(nSeqEvento).padStart(3, '0')}`;
}

/** The <evento> the Sefin answers for a registered pedRegEvento, signed by the sandbox. */
export function buildRegisteredEvento(
  input: RegisteredEventoInput,
  signer: SandboxSigner,
): { id: string; xml: string } {
  const ped = readPedRegEvento(input.pedRegEventoXml);
  if (!/^\d{50}$/.test(ped.chNFSe)) throw new DpsReadError('the pedRegEvento has no 50-digit chNFSe');
  if (!/^e\d{6}$/.test(ped.tipo)) throw new DpsReadError('the pedRegEvento names no event group');
  if (!Number.isInteger(input.nSeqEvento) || input.nSeqEvento < 0 || input.nSeqEvento > 999) {
    throw new RangeError('nSeqEvento has at most 3 digits');
  }
  const id = eventoId(ped.chNFSe, ped.tipo, input.nSeqEvento);
  const xml =
    `<evento xmlns="${NFSE_NAMESPACE}" versao="1.01"><infEvento Id="${id}">` +
    el('verAplic', input.verAplic ?? SANDBOX_VER_APLIC) +
    el('ambGer', input.ambGer ?? 2) +
    el('nSeqEvento', input.nSeqEvento) +
    el('dhProc', input.dhProc) +
    el('nDFSe', String(input.nDFSe)) +
    withoutDeclaration(input.pedRegEventoXml) +
    '</infEvento></evento>';
  return { id, xml: XML_DECLARATION + signEnveloped(xml, 'infEvento', signer) };
}

// ---------------------------------------------------------------------------------------------------------

/**
 * Enveloped XMLDSig over the single `<tag Id>` child of the root, with the Signature after it. The element
 * embeds a document signed by someone else (its own ds:Signature with a namespace declaration), which the
 * fiscal signer's canonical-as-written shortcut does not take: xml-crypto canonicalizes the parsed tree.
 */
function signEnveloped(xml: string, tag: 'infNFSe' | 'infEvento', signer: SandboxSigner): string {
  const xpath = `/*/*[local-name(.)='${tag}']`;
  const sig = new SignedXml({
    privateKey: signer.keyPem,
    publicCert: signer.certPem,
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: EXC_C14N_WITH_COMMENTS,
  });
  sig.addReference({ xpath, transforms: [ENVELOPED, EXC_C14N_WITH_COMMENTS], digestAlgorithm: SHA256 });
  sig.computeSignature(xml, { location: { reference: xpath, action: 'after' } });
  return sig.getSignedXml();
}

/** The sandbox certificate in base64 DER, for checks that compare the KeyInfo certificate. */
export function signerCertificateBase64(signer: SandboxSigner): string {
  return new X509Certificate(signer.certPem).raw.toString('base64');
}
