// Typed calls to the DC-e 1.00 web services: each message goes as XML inside `dceDadosMsg` (SOAP 1.2, mutual
// TLS), the answer's ret* element is read wherever the envelope holds it. The authority's protDCe,
// retEventoDCe and procEventoDCe are kept byte for byte, as evidence and for the procs.
import {
  ACCESS_KEY,
  answerParser,
  askStatusServico,
  element,
  rawElements,
  readProtocol,
  readSingleEvento,
  soapCaller,
  tpAmbText,
  type Protocol,
  type Reader,
  type SingleEventoResult,
  type StatusServicoResult,
  type TpAmb,
} from '../client.ts';
import type { AuthorityTransport } from '../transport.ts';
import type { DceService, Endpoint } from '../types.ts';

// The DC-e family's namespace (fiscal/schema.ts DCE_NAMESPACE), repeated so the link does not load the XSD engine.
const DCE_NS = 'http://www.portalfiscal.inf.br/dce';

/** The authorization protocol of one DC-e (TProtDCe/infProt); its xml goes after the DCe in dceProc. */
export type ProtDCe = Protocol<'chDCe'>;

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
export type DceStatusResult = StatusServicoResult;

/** retEventoDCe: one event per message. */
export type DceEventoResult = SingleEventoResult<'chDCe'>;

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

  const protocol = (raw: string | undefined, read: Reader): ProtDCe | undefined =>
    raw === undefined ? undefined : readProtocol(parser, raw, 'protDCe', 'chDCe', read);

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
      if (!ACCESS_KEY.test(chDCe))
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

    statusServico: (req) =>
      askStatusServico(
        call,
        'DCeStatusServico',
        { root: 'consStatServDCe', answer: 'retConsStatServDCe', namespace: DCE_NS, versao: '1.00' },
        req,
      ),

    async recepcaoEvento({ eventoDCe }) {
      const message = element(eventoDCe, 'eventoDCe', 'eventoDCe', DCE_NS);
      const { xml, node, read } = await call('DCeRecepcaoEvento', message, 'retEventoDCe');
      return {
        ...readSingleEvento(node, read, 'retEventoDCe', 'chDCe'),
        xml,
      };
    },
  };
}
