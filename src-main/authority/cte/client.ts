// Typed calls to the CT-e 4.00 web services (MOC CT-e 4.00 §3): CTeRecepcaoSincV4 takes the signed CTe gzipped
// and in base64 inside cteDadosMsg, the others the XML itself; answers come in `<operation>Result`. The
// authority's protCTe / retEventoCTe / procEventoCTe are kept byte for byte, as evidence and for the procs.
import { gzipSync } from 'node:zlib';
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
  type SingleEventoResult,
  type StatusServicoResult,
  type Reader,
  type TpAmb,
} from '../client.ts';
import type { AuthorityTransport } from '../transport.ts';
import type { CteService, Endpoint } from '../types.ts';

const CTE_NS = 'http://www.portalfiscal.inf.br/cte';

/** The authorization protocol of one CT-e (TProtCTe/infProt); its xml goes after the CTe in cteProc. */
export type ProtCTe = Protocol<'chCTe'>;

/** retCTe: the answer of CTeRecepcaoSincV4 for one CT-e. */
export interface CteRecepcaoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  /** Present when the CT-e was processed (authorized, denied, or rejected with its key known). */
  protocol?: ProtCTe;
  /** The retCTe as received. */
  xml: string;
}

/** retConsSitCTe: how the authority sees one CT-e. */
export interface CteConsultaResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  protocol?: ProtCTe;
  /** Each procEventoCTe (cancellation, CC-e, ...) exactly as the authority sent it. */
  events: string[];
}

/** retConsStatServCTe. */
export type CteStatusResult = StatusServicoResult;

/** retEventoCTe: one event per message in CT-e 4.00 (no batch). */
export type CteEventoResult = SingleEventoResult<'chCTe'>;

export interface CteAuthorityClient {
  /** CTeRecepcaoSincV4 with one signed CTe (sent gzipped, base64, byte for byte inside). */
  recepcao(req: { cte: string }): Promise<CteRecepcaoResult>;
  /** CTeConsultaV4: settles sends that got no answer. */
  consulta(req: { tpAmb: TpAmb; chCTe: string }): Promise<CteConsultaResult>;
  statusServico(req: { tpAmb: TpAmb; cUF: number | string }): Promise<CteStatusResult>;
  /** CTeRecepcaoEventoV4 with a signed eventoCTe, sent byte for byte. */
  recepcaoEvento(req: { eventoCTe: string }): Promise<CteEventoResult>;
}

export interface CteAuthorityClientOptions {
  transport: AuthorityTransport;
  /** Where each service is: usually `(service) => resolveCteEndpoint({ ...company, service })`. */
  endpoint: (service: CteService) => Endpoint | string;
  /** Time allowed for each answer once the request is on its way. */
  timeoutMs: number;
}

const REPEATING = new Set(['procEventoCTe']);
const parser = answerParser(REPEATING);

/** The CTeRecepcaoSincV4 message: the CTe's UTF-8 bytes, gzipped, in base64 (MOC CT-e 4.00 §3.1). */
export function compressCte(cteXml: string): string {
  return gzipSync(Buffer.from(cteXml, 'utf8')).toString('base64');
}

export function createCteAuthorityClient(options: CteAuthorityClientOptions): CteAuthorityClient {
  const call = soapCaller<CteService>({ ...options, parse: (xml) => parser.parse(xml) });

  const protocol = (raw: string, read: Reader): ProtCTe =>
    readProtocol(parser, raw, 'protCTe', 'chCTe', read);

  return {
    async recepcao({ cte }) {
      const message = compressCte(element(cte, 'CTe', 'cte', CTE_NS));
      const { xml, node, read } = await call('CTeRecepcaoSincV4', message, 'retCTe');
      const prot = rawElements(xml, ['retCTe', 'protCTe'])[0];
      return {
        ...read.status(node, 'retCTe'),
        ...(prot === undefined ? {} : { protocol: protocol(prot, read) }),
        xml: rawElements(xml, ['retCTe'])[0] ?? xml,
      };
    },

    async consulta({ tpAmb, chCTe }) {
      if (!ACCESS_KEY.test(chCTe))
        throw new RangeError(`chCTe must be an access key of 44, got ${JSON.stringify(chCTe)}`);
      const message = `<consSitCTe xmlns="${CTE_NS}" versao="4.00"><tpAmb>${tpAmbText(tpAmb)}</tpAmb><xServ>CONSULTAR</xServ><chCTe>${chCTe}</chCTe></consSitCTe>`;
      const { xml, node, read } = await call('CTeConsultaV4', message, 'retConsSitCTe');
      const prot = rawElements(xml, ['retConsSitCTe', 'protCTe'])[0];
      return {
        ...read.status(node, 'retConsSitCTe'),
        ...(prot === undefined ? {} : { protocol: protocol(prot, read) }),
        events: rawElements(xml, ['retConsSitCTe', 'procEventoCTe']),
      };
    },

    statusServico: (req) =>
      askStatusServico(
        call,
        'CTeStatusServicoV4',
        { root: 'consStatServCTe', answer: 'retConsStatServCTe', namespace: CTE_NS, versao: '4.00' },
        req,
      ),

    async recepcaoEvento({ eventoCTe }) {
      const message = element(eventoCTe, 'eventoCTe', 'eventoCTe', CTE_NS);
      const { xml, node, read } = await call('CTeRecepcaoEventoV4', message, 'retEventoCTe');
      return {
        ...readSingleEvento(node, read, 'retEventoCTe', 'chCTe'),
        xml: rawElements(xml, ['retEventoCTe'])[0] ?? read.fail('no <retEventoCTe> element'),
      };
    },
  };
}
