// Reads a DC-e back (the signed <DCe> of a draft, or a dceProc) into the layout's fields the kind, its view and
// the sandbox need: identification, the parties, items, totals, transport, the QR code and, for a dceProc, the
// protocol. Reads what was signed byte for byte; it never rebuilds XML.
import { attributeOf, findElement, findElements, textOf } from '../proc.ts';
import { DCE_NAMESPACE } from '../schema.ts';
import type { UfSigla } from '../../../src-shared/uf.ts';
import type { DceEmitId } from './events.ts';
import type { DceAddress, DceItem, DceModel, DceObs, DceParty } from './model.ts';

export interface DceReadProtocol {
  chDCe: string;
  cStat: string;
  xMotivo: string;
  nProt: string | null;
  dhRecbto: string;
  digVal: string | null;
}

export interface DceRead {
  chave: string;
  /** The builder's ide, with any tpEmis and tpEmit the layout has, not only those Balcão issues. */
  ide: Omit<DceModel['ide'], 'tpEmis' | 'tpEmit'> & {
    tpEmis: number;
    /** 0 fisco app, 1 marketplace, 2 emissor próprio, 3 transportadora, 4 Correios. */
    tpEmit: number;
  };
  /** The declarant, with how its events name it. */
  emit: DceParty & { id: DceEmitId };
  /** The issuing system's group (Marketplace, Transportadora; Fisco or ECT when others issued). */
  issuer: {
    group: 'Fisco' | 'Marketplace' | 'Transportadora' | 'ECT';
    CNPJ: string;
    xNome: string;
    Site: string | null;
  } | null;
  dest: DceParty;
  det: DceItem[];
  vDC: string;
  transp: { modTrans: number; CNPJTransp: string | null };
  infAdic: { infCpl: string | null; obs: (DceObs & { tag: string })[] } | null;
  infDec: { xObs1: string; xObs2: string };
  supl: { qrCodDCe: string; urlChave: string } | null;
  /** DigestValue of the DCe's signature; null for an unsigned one. */
  digestValue: string | null;
  /** protDCe of a dceProc; null for a DCe alone. */
  prot: DceReadProtocol | null;
}

/** The document is not a DC-e of layout 1.00 (a required element is missing). */
export class DceReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DceReadError';
  }
}

const ISSUER_GROUPS = ['Fisco', 'Marketplace', 'Transportadora', 'ECT'] as const;

// Each group is cut out once and read within its own substring, so a 999-item DC-e is read in linear time.
// The DC-e's elements are unprefixed and their names do not repeat inside a group (the party's CNPJ is read
// before its address), so the first match in a group's substring is the group's own field.

/** The substring of the first element `name` in `xml` (any namespace), or undefined. */
function cut(xml: string, name: string): string | undefined {
  const span = findElement(xml, name, { namespace: null });
  return span === undefined ? undefined : xml.slice(span.start, span.end);
}

function group(xml: string, name: string): string {
  const found = cut(xml, name);
  if (found === undefined) throw new DceReadError(`the DC-e has no ${name}`);
  return found;
}

const opt = (xml: string, name: string): string | null => textOf(xml, name) ?? null;

function req(xml: string, name: string): string {
  const value = textOf(xml, name);
  if (value === undefined) throw new DceReadError(`the DC-e has no ${name}`);
  return value;
}

function addressOf(a: string): DceAddress {
  return {
    xLgr: req(a, 'xLgr'),
    nro: req(a, 'nro'),
    xCpl: opt(a, 'xCpl'),
    xBairro: req(a, 'xBairro'),
    cMun: req(a, 'cMun'),
    xMun: req(a, 'xMun'),
    UF: req(a, 'UF') as UfSigla,
    CEP: req(a, 'CEP'),
    fone: opt(a, 'fone'),
    email: opt(a, 'email'),
  };
}

function partyOf(p: string, address: 'enderEmit' | 'enderDest'): DceParty {
  const at = p.indexOf(`<${address}>`);
  const head = at < 0 ? p : p.slice(0, at);
  const CNPJ = opt(head, 'CNPJ');
  const CPF = opt(head, 'CPF');
  const idOutros = opt(head, 'idOutros');
  return {
    ...(CNPJ !== null ? { CNPJ } : CPF !== null ? { CPF } : { idOutros: idOutros ?? '' }),
    xNome: req(head, 'xNome'),
    ender: addressOf(group(p, address)),
  };
}

function emitIdOf(p: DceParty): DceEmitId {
  if (p.CNPJ !== undefined) return { tag: 'CNPJUsEmit', value: p.CNPJ };
  if (p.CPF !== undefined) return { tag: 'CPFUsEmit', value: p.CPF };
  return { tag: 'IdOutrosUsEmit', value: p.idOutros ?? '' };
}

/** The first element `name` (any prefix) of a run of markup that need not be well-formed as a whole. */
function textCut(xml: string, name: string): string | undefined {
  return new RegExp(`<([A-Za-z_][\\w.-]*:)?${name}[\\s>][\\s\\S]*?</\\1?${name}\\s*>`).exec(xml)?.[0];
}

const startTagOf = (element: string) => element.slice(0, element.indexOf('>') + 1);

/**
 * The fields of a DCe or dceProc.
 * @throws DceReadError when the document lacks what every DC-e 1.00 has.
 */
export function readDce(xml: string): DceRead {
  const infSpan = findElement(xml, 'infDCe', { namespace: DCE_NAMESPACE });
  if (infSpan === undefined) throw new DceReadError('not a DC-e: no infDCe in its namespace');
  const inf = xml.slice(infSpan.start, infSpan.end);
  const chave = (attributeOf(startTagOf(inf), 'Id') ?? '').replace(/^DCe/, '');
  // infDCe is ide … dest, det+, total … infDec: the groups around the items are read from the short runs of
  // children before and after them, so only the items' run is scanned element by element.
  const content = xml.slice(infSpan.startTagEnd, infSpan.end - `</${infSpan.qName}>`.length);
  const dets = findElements(content, 'det', { namespace: null });
  const head = content.slice(0, dets[0]?.start ?? content.length);
  const tail = content.slice(dets[dets.length - 1]?.end ?? content.length);
  const ide = group(head, 'ide');
  const emit = partyOf(group(head, 'emit'), 'enderEmit');
  let issuer: DceRead['issuer'] = null;
  for (const name of ISSUER_GROUPS) {
    const g = cut(head, name);
    if (g !== undefined) {
      issuer = {
        group: name,
        CNPJ: req(g, 'CNPJ'),
        xNome: opt(g, 'xNome') ?? opt(g, 'xOrgao') ?? '',
        Site: opt(g, 'Site'),
      };
    }
  }
  const det = dets.map((span): DceItem => {
    const d = content.slice(span.start, span.end);
    return {
      xProd: req(d, 'xProd'),
      NCM: req(d, 'NCM'),
      qCom: req(d, 'qCom'),
      vUnCom: req(d, 'vUnCom'),
      vProd: req(d, 'vProd'),
      infAdProd: opt(d, 'infAdProd'),
    };
  });
  const transp = group(tail, 'transp');
  const CNPJTransp = opt(transp, 'CNPJTransp');
  const adic = cut(tail, 'infAdic');
  const infDec = group(tail, 'infDec');
  // After infDCe: infDCeSupl, the Signature and, in a dceProc, the protDCe (none of them nests its own name).
  const after = xml.slice(infSpan.end);
  const supl = after.includes('infDCeSupl') ? textCut(after, 'infDCeSupl') : undefined;
  const digestValue = textOf(after, 'DigestValue') ?? null;
  const prot = after.includes('protDCe') ? textCut(after, 'protDCe') : undefined;

  return {
    chave,
    ide: {
      cUF: Number(req(ide, 'cUF')),
      cDC: req(ide, 'cDC'),
      serie: Number(req(ide, 'serie')),
      nDC: Number(req(ide, 'nDC')),
      dhEmi: req(ide, 'dhEmi'),
      tpEmis: Number(req(ide, 'tpEmis')),
      tpEmit: Number(req(ide, 'tpEmit')),
      nSiteAutoriz: Number(req(ide, 'nSiteAutoriz')),
      cDV: Number(req(ide, 'cDV')),
      tpAmb: req(ide, 'tpAmb') === '1' ? 1 : 2,
      verProc: req(ide, 'verProc'),
    },
    emit: { ...emit, id: emitIdOf(emit) },
    issuer,
    dest: partyOf(group(head, 'dest'), 'enderDest'),
    det,
    vDC: req(group(tail, 'total'), 'vDC'),
    transp: { modTrans: Number(req(transp, 'modTrans')), CNPJTransp: CNPJTransp === '' ? null : CNPJTransp },
    infAdic:
      adic === undefined
        ? null
        : {
            infCpl: opt(adic, 'infCpl'),
            obs: ['obsEmit', 'obsFisco', 'obsMarketplace', 'obsECT'].flatMap((tag) =>
              findElements(adic, tag, { namespace: null }).map((o) => {
                const element = adic.slice(o.start, o.end);
                return {
                  tag,
                  xCampo: attributeOf(startTagOf(element), 'xCampo') ?? '',
                  xTexto: req(element, 'xTexto'),
                };
              }),
            ),
          },
    infDec: { xObs1: req(infDec, 'xObs1'), xObs2: req(infDec, 'xObs2') },
    supl: supl === undefined ? null : { qrCodDCe: req(supl, 'qrCodDCe'), urlChave: req(supl, 'urlChave') },
    digestValue,
    prot:
      prot === undefined
        ? null
        : {
            chDCe: req(prot, 'chDCe'),
            cStat: req(prot, 'cStat'),
            xMotivo: req(prot, 'xMotivo'),
            nProt: opt(prot, 'nProt'),
            dhRecbto: req(prot, 'dhRecbto'),
            digVal: opt(prot, 'digVal'),
          },
  };
}
