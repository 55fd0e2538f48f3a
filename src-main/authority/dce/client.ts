// Typed calls to the DC-e 1.00 web services: each message goes as XML inside `dceDadosMsg` (SOAP 1.2, mutual
// TLS), the answer's ret* element is read wherever the envelope holds it. The authority's protDCe,
// retEventoDCe and procEventoDCe are kept byte for byte, as evidence and for the procs.
import { ufByCode } from '../../../src-shared/uf.ts';
import {
  answerParser,
  element,
  isNode,
  optional,
  rawElements,
  soapCaller,
  text,
  tpAmbText,
  type Reader,
  type TpAmb,
} from '../client.ts';
import type { AuthorityTransport } from '../transport.ts';
import type { DceService, Endpoint } from '../types.ts';

// The DC-e family's namespace (fiscal/schema.ts DCE_NAMESPACE), repeated so the link does not load the XSD engine.
const DCE_NS = 'http://www.portalfiscal.inf.br/dce';

/** The authorization protocol of one DC-e (TProtDCe/infProt). */
export interface ProtDCe {
  chDCe: string;
  cStat: string;
  xMotivo: string;
  nProt?: string;
  dhRecbto: string;
  digVal?: string;
  /** The protDCe element exactly as the authority sent it, to be placed after the DCe in dceProc. */
  xml: string;
}

/** retDCe: the synchronous answer of DCeAutorizacao for one DC-e. */
export interface DceAutorizacaoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  /** Present when the DC-e was processed (authorized, or rejected with its key known). */
  protocol?: ProtDCe;
  /** The retDCe as received. */
  xml: string;
}

/** retConsSitDCe: how the authority sees one DC-e. */
export interface DceConsultaResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  chDCe: string;
  protocol?: ProtDCe;
  /** Each procEventoDCe (the cancellation) exactly as the authority sent it. */
  events: string[];
}

/** retConsStatServDCe. */
export interface DceStatusResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  tMed?: string;
  dhRetorno?: string;
  xObs?: string;
}

/** retEventoDCe: one event per message. Its fields but the status are optional on rejection. */
export interface DceEventoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cOrgao: string;
  chDCe?: string;
  tpEvento?: string;
  nSeqEvento?: string;
  nProt?: string;
  dhRegEvento?: string;
  /** The retEventoDCe element exactly as received, for procEventoDCe. */
  xml: string;
}

export interface DceAuthorityClient {
  /** DCeAutorizacao with one signed DCe, sent byte for byte; answered in place (no lot, no receipt). */
  autorizacao(req: { dce: string }): Promise<DceAutorizacaoResult>;
  /** DCeConsulta: settles sends that got no answer, and tells a cancelled DC-e (with its event). */
  consulta(req: { tpAmb: TpAmb; chDCe: string }): Promise<DceConsultaResult>;
  statusServico(req: { tpAmb: TpAmb; cUF: number | string }): Promise<DceStatusResult>;
  /** DCeRecepcaoEvento with a signed eventoDCe, sent byte for byte. */
  recepcaoEvento(req: { eventoDCe: string }): Promise<DceEventoResult>;
}

export interface DceAuthorityClientOptions {
  transport: AuthorityTransport;
  /** Where each service is: usually `(service) => resolveDceEndpoint(uf, tpAmb, service)`. */
  endpoint: (service: DceService) => Endpoint | string;
  /** Time allowed for each answer once the request is on its way. */
  timeoutMs: number;
}

const parser = answerParser(new Set(['procEventoDCe']));

// TChDFe: the signer's CNPJ (positions 7-20) may hold letters (alphanumeric CNPJ).
const CH_DCE = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/;

/**
 * The exact text of the first `name` element anywhere in an answer envelope, whatever wraps it
 * (`dceResultMsg`, an `<operation>Result`, or the SOAP Body itself) and whatever its prefix.
 */
export function elementAnywhere(envelope: string, name: string): string | null {
  const open = new RegExp(`<((?:[A-Za-z_][\\w.-]*:)?)${name}(?=[\\s/>])`).exec(envelope);
  if (open === null) return null;
  const close = `</${open[1] ?? ''}${name}>`;
  const end = envelope.indexOf(close, open.index);
  if (end < 0) return null;
  return envelope.slice(open.index, end + close.length);
}

export function createDceAuthorityClient(options: DceAuthorityClientOptions): DceAuthorityClient {
  const call = soapCaller<DceService>({
    ...options,
    parse: (xml) => parser.parse(xml),
    message: elementAnywhere,
  });

  function protocol(raw: string | undefined, read: Reader): ProtDCe | undefined {
    if (raw === undefined) return undefined;
    const parsed: unknown = parser.parse(raw);
    const inf = isNode(parsed) && isNode(parsed.protDCe) ? parsed.protDCe.infProt : undefined;
    if (!isNode(inf)) return read.fail('<protDCe> has no <infProt>');
    return {
      chDCe: read.required(inf, 'chDCe', 'infProt'),
      cStat: read.required(inf, 'cStat', 'infProt'),
      xMotivo: read.required(inf, 'xMotivo', 'infProt'),
      ...optional('nProt', text(inf, 'nProt')),
      dhRecbto: read.required(inf, 'dhRecbto', 'infProt'),
      ...optional('digVal', text(inf, 'digVal')),
      xml: raw,
    };
  }

  return {
    async autorizacao({ dce }) {
      const message = element(dce, 'DCe', 'dce', DCE_NS);
      const { xml, node, read } = await call('DCeAutorizacao', message, 'retDCe');
      const prot = protocol(rawElements(xml, ['retDCe', 'protDCe'])[0], read);
      return {
        ...read.status(node, 'retDCe'),
        dhRecbto: read.required(node, 'dhRecbto', 'retDCe'),
        ...(prot === undefined ? {} : { protocol: prot }),
        xml,
      };
    },

    async consulta({ tpAmb, chDCe }) {
      if (!CH_DCE.test(chDCe))
        throw new RangeError(`chDCe must be an access key of 44, got ${JSON.stringify(chDCe)}`);
      const message = `<consSitDCe xmlns="${DCE_NS}" versao="1.00"><tpAmb>${tpAmbText(tpAmb)}</tpAmb><xServ>CONSULTAR</xServ><chDCe>${chDCe}</chDCe></consSitDCe>`;
      const { xml, node, read } = await call('DCeConsulta', message, 'retConsSitDCe');
      const prot = protocol(rawElements(xml, ['retConsSitDCe', 'protDCe'])[0], read);
      return {
        ...read.status(node, 'retConsSitDCe'),
        dhRecbto: read.required(node, 'dhRecbto', 'retConsSitDCe'),
        chDCe: read.required(node, 'chDCe', 'retConsSitDCe'),
        ...(prot === undefined ? {} : { protocol: prot }),
        // The schema's procEventoDCe holds one element (xs:any): the event's own procEventoDCe, taken out of it.
        events: rawElements(xml, ['retConsSitDCe', 'procEventoDCe']).map(
          (wrapper) => rawElements(wrapper, ['procEventoDCe', 'procEventoDCe'])[0] ?? wrapper,
        ),
      };
    },

    async statusServico({ tpAmb, cUF }) {
      const code = typeof cUF === 'number' ? String(cUF).padStart(2, '0') : cUF;
      if (ufByCode(code) === undefined)
        throw new RangeError(`cUF must be an IBGE UF code, got ${JSON.stringify(cUF)}`);
      const message = `<consStatServDCe xmlns="${DCE_NS}" versao="1.00"><tpAmb>${tpAmbText(tpAmb)}</tpAmb><cUF>${code}</cUF><xServ>STATUS</xServ></consStatServDCe>`;
      const { node, read } = await call('DCeStatusServico', message, 'retConsStatServDCe');
      return {
        ...read.status(node, 'retConsStatServDCe'),
        dhRecbto: read.required(node, 'dhRecbto', 'retConsStatServDCe'),
        ...optional('tMed', text(node, 'tMed')),
        ...optional('dhRetorno', text(node, 'dhRetorno')),
        ...optional('xObs', text(node, 'xObs')),
      };
    },

    async recepcaoEvento({ eventoDCe }) {
      const message = element(eventoDCe, 'eventoDCe', 'eventoDCe', DCE_NS);
      const { xml, node, read } = await call('DCeRecepcaoEvento', message, 'retEventoDCe');
      const inf = read.child(node, 'infEvento', 'retEventoDCe');
      const where = 'retEventoDCe/infEvento';
      return {
        cStat: read.required(inf, 'cStat', where),
        xMotivo: read.required(inf, 'xMotivo', where),
        tpAmb: read.tpAmb(inf, where),
        cOrgao: read.required(inf, 'cOrgao', where),
        ...optional('chDCe', text(inf, 'chDCe')),
        ...optional('tpEvento', text(inf, 'tpEvento')),
        ...optional('nSeqEvento', text(inf, 'nSeqEvento')),
        ...optional('nProt', text(inf, 'nProt')),
        ...optional('dhRegEvento', text(inf, 'dhRegEvento')),
        xml,
      };
    },
  };
}
