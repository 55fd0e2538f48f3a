// Typed calls to the CT-e 4.00 web services (MOC CT-e 4.00 §3): CTeRecepcaoSincV4 takes the signed CTe gzipped
// and in base64 inside cteDadosMsg, the others the XML itself; answers come in `<operation>Result`. The
// authority's protCTe / retEventoCTe / procEventoCTe are kept byte for byte, as evidence and for the procs.
import { gzipSync } from 'node:zlib';
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
} from '../client.ts';
import type { AuthorityTransport } from '../transport.ts';
import type { CteService, Endpoint } from '../types.ts';

const CTE_NS = 'http://www.portalfiscal.inf.br/cte';

export type TpAmb = 1 | 2;

/** The authorization protocol of one CT-e (TProtCTe/infProt). */
export interface ProtCTe {
  chCTe: string;
  cStat: string;
  xMotivo: string;
  nProt?: string;
  dhRecbto: string;
  digVal?: string;
  /** The protCTe element exactly as the authority sent it, to be placed after the CTe in cteProc. */
  xml: string;
}

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
export interface CteStatusResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  tMed?: string;
  dhRetorno?: string;
  xObs?: string;
}

/** retEventoCTe: one event per message in CT-e 4.00 (no batch). Its fields but cStat are optional on rejection. */
export interface CteEventoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cOrgao: string;
  chCTe?: string;
  tpEvento?: string;
  nSeqEvento?: string;
  nProt?: string;
  dhRegEvento?: string;
  /** The retEventoCTe element exactly as received, for procEventoCTe. */
  xml: string;
}

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

// TChDFe: the emitter CNPJ (positions 7-20) may hold letters (alphanumeric CNPJ).
const CH_CTE = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/;

/** The CTeRecepcaoSincV4 message: the CTe's UTF-8 bytes, gzipped, in base64 (MOC CT-e 4.00 §3.1). */
export function compressCte(cteXml: string): string {
  return gzipSync(Buffer.from(cteXml, 'utf8')).toString('base64');
}

export function createCteAuthorityClient(options: CteAuthorityClientOptions): CteAuthorityClient {
  const call = soapCaller<CteService>({ ...options, parse: (xml) => parser.parse(xml) });

  function protocol(raw: string, read: Reader): ProtCTe {
    const parsed: unknown = parser.parse(raw);
    const inf = isNode(parsed) && isNode(parsed.protCTe) ? parsed.protCTe.infProt : undefined;
    if (!isNode(inf)) return read.fail('<protCTe> has no <infProt>');
    return {
      chCTe: read.required(inf, 'chCTe', 'infProt'),
      cStat: read.required(inf, 'cStat', 'infProt'),
      xMotivo: read.required(inf, 'xMotivo', 'infProt'),
      ...optional('nProt', text(inf, 'nProt')),
      dhRecbto: read.required(inf, 'dhRecbto', 'infProt'),
      ...optional('digVal', text(inf, 'digVal')),
      xml: raw,
    };
  }

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
      if (!CH_CTE.test(chCTe))
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

    async statusServico({ tpAmb, cUF }) {
      const code = typeof cUF === 'number' ? String(cUF).padStart(2, '0') : cUF;
      if (ufByCode(code) === undefined)
        throw new RangeError(`cUF must be an IBGE UF code, got ${JSON.stringify(cUF)}`);
      const message = `<consStatServCTe xmlns="${CTE_NS}" versao="4.00"><tpAmb>${tpAmbText(tpAmb)}</tpAmb><cUF>${code}</cUF><xServ>STATUS</xServ></consStatServCTe>`;
      const { node, read } = await call('CTeStatusServicoV4', message, 'retConsStatServCTe');
      return {
        ...read.status(node, 'retConsStatServCTe'),
        dhRecbto: read.required(node, 'dhRecbto', 'retConsStatServCTe'),
        ...optional('tMed', text(node, 'tMed')),
        ...optional('dhRetorno', text(node, 'dhRetorno')),
        ...optional('xObs', text(node, 'xObs')),
      };
    },

    async recepcaoEvento({ eventoCTe }) {
      const message = element(eventoCTe, 'eventoCTe', 'eventoCTe', CTE_NS);
      const { xml, node, read } = await call('CTeRecepcaoEventoV4', message, 'retEventoCTe');
      const inf = node.infEvento;
      if (!isNode(inf)) return read.fail('<retEventoCTe> has no <infEvento>');
      return {
        cStat: read.required(inf, 'cStat', 'retEventoCTe/infEvento'),
        xMotivo: read.required(inf, 'xMotivo', 'retEventoCTe/infEvento'),
        tpAmb: read.tpAmb(inf, 'retEventoCTe/infEvento'),
        cOrgao: read.required(inf, 'cOrgao', 'retEventoCTe/infEvento'),
        ...optional('chCTe', text(inf, 'chCTe')),
        ...optional('tpEvento', text(inf, 'tpEvento')),
        ...optional('nSeqEvento', text(inf, 'nSeqEvento')),
        ...optional('nProt', text(inf, 'nProt')),
        ...optional('dhRegEvento', text(inf, 'dhRegEvento')),
        xml: rawElements(xml, ['retEventoCTe'])[0] ?? read.fail('no <retEventoCTe> element'),
      };
    },
  };
}
