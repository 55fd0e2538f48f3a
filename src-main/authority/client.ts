// Typed calls to the NF-e 4.00 web services: builds each request message, wraps it in SOAP (soap.ts), sends
// it through an AuthorityTransport and reads the answer, keeping the authority's own XML where it is evidence.
import { gunzipSync } from 'node:zlib';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { fastXmlTree } from '../outputs/fast-tree.ts';
import { ufByCode } from '../../src-shared/uf.ts';
import { responseWrapper, unwrapMessage, wrapRequest } from './soap.ts';
import { httpStatusError, type AuthorityTransport } from './transport.ts';
import type { AuthorityService, Endpoint } from './types.ts';

const NFE_NS = 'http://www.portalfiscal.inf.br/nfe';

export type TpAmb = 1 | 2;

/**
 * The authorization protocol of one document (infProt of TProtNFe, TProtCTe, TProtDCe), its key under the
 * family's name (`K`: chNFe, chCTe, chDCe).
 */
export type Protocol<K extends string> = { [P in K]: string } & {
  cStat: string;
  xMotivo: string;
  nProt?: string;
  dhRecbto: string;
  digVal?: string;
  /**
   * The protocol element exactly as the authority sent it, to be placed after the document in its proc. An NF-e
   * protNFe declares no namespace of its own (it inherits the NF-e default namespace, which nfeProc supplies again).
   */
  xml: string;
};

/** protNFe/infProt (leiauteNFe_v4.00.xsd TProtNFe). */
export type ProtNFe = Protocol<'chNFe'>;

/** retEnviNFe: the lot receipt (async, cStat 103, nRec) or the processed lot (sync, cStat 104, protocols). */
export interface AutorizacaoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  nRec?: string;
  /** Average processing time in seconds the authority announces for an async lot. */
  tMed?: string;
  protocols: ProtNFe[];
}

/** retConsReciNFe: the result of an async lot. */
export interface RetAutorizacaoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  nRec: string;
  protocols: ProtNFe[];
}

/** retConsSitNFe: the situation of one NF-e. */
export interface ConsultaProtocoloResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  chNFe: string;
  protocol?: ProtNFe;
  /** Each procEventoNFe (cancellation, CC-e, ...) exactly as the authority sent it. */
  events: string[];
}

/** retConsStatServ, and the CT-e's and DC-e's retConsStatServ* (the same fields). */
export interface StatusServicoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  tMed?: string;
  dhRetorno?: string;
  xObs?: string;
}

/** One retEvento of retEnvEvento. chNFe, tpEvento and nSeqEvento are optional in the schema (rejections). */
export interface EventoResult {
  cStat: string;
  xMotivo: string;
  chNFe?: string;
  tpEvento?: string;
  nSeqEvento?: string;
  nProt?: string;
  dhRegEvento: string;
  /** The retEvento element exactly as the authority sent it, for procEventoNFe. */
  xml: string;
}

/**
 * retEventoCTe / retEventoDCe: one event per message, its key under the family's name (`K`). Its fields but the
 * status are optional on rejection.
 */
export type SingleEventoResult<K extends string> = { [P in K]?: string } & {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cOrgao: string;
  tpEvento?: string;
  nSeqEvento?: string;
  nProt?: string;
  dhRegEvento?: string;
  /** The ret* element exactly as received, for the family's procEvento. */
  xml: string;
};

export interface RecepcaoEventoResult {
  cStat: string;
  xMotivo: string;
  idLote: string;
  tpAmb: TpAmb;
  cOrgao: string;
  results: EventoResult[];
}

export interface InutilizacaoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  cUF: string;
  dhRecbto: string;
  nProt?: string;
  /** The retInutNFe element exactly as the authority sent it, for ProcInutNFe. */
  xml: string;
}

export interface DistribuicaoDoc {
  NSU: string;
  /** The schema the document follows, e.g. 'resNFe_v1.01.xsd', 'procNFe_v4.00.xsd'. */
  schema: string;
  /** The document, gunzipped from docZip. */
  xml: string;
}

export interface DistribuicaoResult {
  cStat: string;
  xMotivo: string;
  tpAmb: TpAmb;
  dhResp: string;
  ultNSU: string;
  maxNSU: string;
  docs: DistribuicaoDoc[];
}

/** NT 2014.002 distDFeInt: the next documents after ultNSU (default 0), one NSU, or one access key. */
export type DistribuicaoRequest = { tpAmb: TpAmb; cUFAutor: number | string; CNPJ: string } & (
  | { ultNSU?: string | number; NSU?: undefined; chNFe?: undefined }
  | { NSU: string | number; ultNSU?: undefined; chNFe?: undefined }
  | { chNFe: string; ultNSU?: undefined; NSU?: undefined }
);

export interface AuthorityClient {
  /** NFeAutorizacao4 with an enviNFe lot of signed NFe documents (indSinc 1: one NF-e, answer in place). */
  autorizacao(req: { nfe: readonly string[]; idLote: string; indSinc: 0 | 1 }): Promise<AutorizacaoResult>;
  /** NFeRetAutorizacao4: the result of an async lot by its receipt number. */
  retAutorizacao(req: { tpAmb: TpAmb; nRec: string }): Promise<RetAutorizacaoResult>;
  /** NFeConsultaProtocolo4: how the authority sees a note; settles sends that got no answer. */
  consultaProtocolo(req: { tpAmb: TpAmb; chNFe: string }): Promise<ConsultaProtocoloResult>;
  statusServico(req: { tpAmb: TpAmb; cUF: number | string }): Promise<StatusServicoResult>;
  /** NFeRecepcaoEvento4 with a complete, signed envEvento, sent byte for byte. */
  recepcaoEvento(req: { envEvento: string }): Promise<RecepcaoEventoResult>;
  /** NFeInutilizacao4 with a signed inutNFe, sent byte for byte. */
  inutilizacao(req: { inutNFe: string }): Promise<InutilizacaoResult>;
  distribuicaoDFe(req: DistribuicaoRequest): Promise<DistribuicaoResult>;
}

export interface AuthorityClientOptions {
  transport: AuthorityTransport;
  /** Where each service is: usually `(service) => resolveEndpoint({ ...company, service })`. */
  endpoint: (service: AuthorityService) => Endpoint | string;
  /** Time allowed for each answer once the request is on its way. */
  timeoutMs: number;
}

export type AuthorityResponseErrorKind = 'soap_fault' | 'not_xml' | 'unexpected_message';

/**
 * The authority answered, but not with the message the service defines: a SOAP Fault, a body that is not
 * XML (an HTML error page behind a 200), or XML without the expected result. Unlike AuthorityUnavailableError
 * the request did arrive; `mayHaveBeenReceived` says whether it may also have been processed: false only for
 * a Sender (client) fault, where the authority refused the message itself.
 */
export class AuthorityResponseError extends Error {
  readonly kind: AuthorityResponseErrorKind;
  readonly service: AuthorityService;
  readonly url: string;
  readonly status: number;
  readonly mayHaveBeenReceived: boolean;
  /** SOAP fault code without prefix, e.g. 'Receiver', 'Sender' (SOAP 1.1: 'Server', 'Client'). */
  readonly faultCode: string | undefined;
  readonly faultReason: string | undefined;
  /** The response body as received, for the log. */
  readonly body: string;

  constructor(init: {
    kind: AuthorityResponseErrorKind;
    service: AuthorityService;
    url: string;
    status: number;
    body: string;
    detail: string;
    faultCode?: string;
    faultReason?: string;
  }) {
    super(`${init.service} at ${init.url} (HTTP ${init.status}): ${init.kind}: ${init.detail}`);
    this.name = 'AuthorityResponseError';
    this.kind = init.kind;
    this.service = init.service;
    this.url = init.url;
    this.status = init.status;
    this.body = init.body;
    this.faultCode = init.faultCode;
    this.faultReason = init.faultReason;
    this.mayHaveBeenReceived = !(
      init.kind === 'soap_fault' && /^(Sender|Client)$/i.test(init.faultCode ?? '')
    );
  }
}

// --------------------------------------------------------------------------------------------------------
// Parsing. Values stay strings (parseTagValue false): cStat, nProt, NSU and codes keep their leading zeros.
// htmlEntities: fast-xml-parser decodes numeric character references (Rejei&#231;&#227;o) only with it on.

// Elements that may repeat in the answers we read; the parser returns them as arrays even when single.
const REPEATING = new Set(['protNFe', 'procEventoNFe', 'retEvento', 'docZip']);

/** Reads an answer's message into a tree of text (see answerParser). */
export interface AnswerReader {
  parse(xml: string): unknown;
}

/**
 * A reader of an authority's answers that keeps every value as text; `repeating` elements are arrays. The
 * DOM-free reader of the notes we print (outputs/fast-tree.ts) builds the very tree fast-xml-parser builds with
 * these options, about 13x faster on an authorization answer (5 vs 66 µs); what it leaves (comments, CDATA,
 * mixed content) goes to fast-xml-parser. `fast: false` reads with fast-xml-parser alone, for the tests that hold
 * the two to the same tree.
 */
export function answerParser(repeating: ReadonlySet<string>, options: { fast?: boolean } = {}): AnswerReader {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    htmlEntities: true,
    isArray: (name) => repeating.has(name),
  });
  if (options.fast === false) return { parse: (xml) => parser.parse(xml) as unknown };
  return { parse: (xml) => fastXmlTree(xml, repeating) ?? (parser.parse(xml) as unknown) };
}

/** The elements the NF-e client's reader lists as arrays (tests read with the same set). */
export const NFE_REPEATING: ReadonlySet<string> = REPEATING;

const messageParser = answerParser(REPEATING);

const envelopeParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  htmlEntities: true,
});

/**
 * A SOAP Fault is an element named Fault, whatever its prefix: an envelope without such a start tag has none, and
 * is not parsed whole for it (parsing the envelope cost more than reading the message itself).
 */
const MAY_HOLD_FAULT = /<(?:[A-Za-z_][\w.-]*:)?Fault[\s/>]/;

export type Node = Record<string, unknown>;

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of a child element: a plain string, or '#text' when the element also has attributes. */
export function text(node: unknown, name: string): string | undefined {
  if (!isNode(node)) return undefined;
  const value = node[name];
  if (typeof value === 'string') return value;
  if (isNode(value)) {
    const t = value['#text'];
    if (typeof t === 'string') return t;
    if (typeof t === 'number') return String(t);
    // An empty element that carries attributes only.
    if (Object.keys(value).every((k) => k.startsWith('@_'))) return '';
  }
  return undefined;
}

function list(node: unknown, name: string): unknown[] {
  if (!isNode(node)) return [];
  const value = node[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** Reads one answer and raises AuthorityResponseError('unexpected_message') for what is missing. */
export class Reader {
  constructor(readonly fail: (detail: string) => never) {}

  required(node: unknown, name: string, where: string): string {
    const value = text(node, name);
    if (value === undefined) this.fail(`<${where}> has no <${name}>`);
    return value;
  }

  tpAmb(node: unknown, where: string): TpAmb {
    const value = this.required(node, 'tpAmb', where);
    if (value !== '1' && value !== '2') this.fail(`<${where}/tpAmb> is ${JSON.stringify(value)}`);
    return value === '1' ? 1 : 2;
  }

  /** cStat, xMotivo, tpAmb and cUF: how most answers (retEnviNFe, retConsSitCTe ...) begin. */
  status(node: unknown, where: string): { cStat: string; xMotivo: string; tpAmb: TpAmb; cUF: string } {
    return {
      cStat: this.required(node, 'cStat', where),
      xMotivo: this.required(node, 'xMotivo', where),
      tpAmb: this.tpAmb(node, where),
      cUF: this.required(node, 'cUF', where),
    };
  }

  child(node: unknown, name: string, where: string): Node {
    const value = isNode(node) ? node[name] : undefined;
    if (!isNode(value)) this.fail(`<${where}> has no <${name}>`);
    return value;
  }
}

export function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/**
 * The exact source text of the elements at `path` (local names from the document element down), so that
 * signed or protocol-bearing XML (protNFe, retEvento, procEventoNFe, retInutNFe) is kept byte for byte.
 * Expects well-formed XML (checked before); skips comments, CDATA, processing instructions and DOCTYPE.
 */
export function rawElements(xml: string, path: readonly string[]): string[] {
  const out: string[] = [];
  const stack: { local: string; start: number }[] = [];
  const after = (token: string, from: number): number => {
    const at = xml.indexOf(token, from);
    if (at < 0) throw new Error(`unterminated markup: no ${JSON.stringify(token)} after offset ${from}`);
    return at + token.length;
  };
  const atPath = (local: string): boolean =>
    stack.length + 1 === path.length &&
    path[stack.length] === local &&
    stack.every((s, k) => s.local === path[k]);

  let i = 0;
  for (;;) {
    const lt = xml.indexOf('<', i);
    if (lt < 0) break;
    if (xml.startsWith('<!--', lt)) i = after('-->', lt + 4);
    else if (xml.startsWith('<![CDATA[', lt)) i = after(']]>', lt + 9);
    else if (xml.startsWith('<?', lt)) i = after('?>', lt + 2);
    else if (xml.startsWith('<!', lt)) i = after('>', lt + 2);
    else if (xml.startsWith('</', lt)) {
      i = after('>', lt + 2);
      const top = stack.pop();
      if (top !== undefined && atPath(top.local)) out.push(xml.slice(top.start, i));
    } else {
      // A start tag ends at the first '>' outside a quoted attribute value ('>' is legal inside one).
      let j = lt + 1;
      let quote: string | undefined;
      for (; j < xml.length; j++) {
        const c = xml[j];
        if (quote !== undefined) {
          if (c === quote) quote = undefined;
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
      }
      if (j >= xml.length) throw new Error(`unterminated start tag at offset ${lt}`);
      const name = /^[^\s/>]+/.exec(xml.slice(lt + 1, j))?.[0] ?? '';
      const local = name.slice(name.indexOf(':') + 1);
      if (xml[j - 1] === '/') {
        if (atPath(local)) out.push(xml.slice(lt, j + 1));
      } else {
        stack.push({ local, start: lt });
      }
      i = j + 1;
    }
  }
  return out;
}

// --------------------------------------------------------------------------------------------------------
// Requests. Canonical NF-e form: no declaration, no whitespace, xmlns then versao as the 4.00 examples.

const ID_LOTE = /^[0-9]{1,15}$/; // leiauteNFe TIdLote
const N_REC = /^[0-9]{15}$/; // tiposBasico TRec
/**
 * TChNFe of PL_010 and the TChDFe of the CT-e and DC-e: the emitter CNPJ (positions 7-20) may hold letters from
 * July 2026 (IN RFB 2.229/2024).
 */
export const ACCESS_KEY = /^[0-9]{6}[0-9A-Z]{12}[0-9]{26}$/;
const CNPJ = /^[0-9A-Z]{12}[0-9]{2}$/;
const NSU = /^[0-9]{1,15}$/;

/**
 * Drops a BOM and XML declaration around a document and checks its root element and that the root declares
 * the family's namespace itself (`namespace`, default the NF-e's): the document is sent as is.
 */
export function element(xml: string, root: string, what: string, namespace: string = NFE_NS): string {
  const body = xml
    .replace(/^\uFEFF/, '')
    .replace(/^\s*<\?xml[^?]*\?>/, '')
    .trim();
  const start = new RegExp(`^<${root}(\\s[^>]*)?>`).exec(body);
  if (start === null || !body.endsWith(`</${root}>`)) {
    throw new TypeError(`${what} must be one <${root}> element`);
  }
  if (/\sxmlns="([^"]*)"/.exec(start[0])?.[1] !== namespace) {
    throw new TypeError(`${what}: <${root}> must declare xmlns="${namespace}" itself (it is sent as is)`);
  }
  return body;
}

export function codeUf(value: number | string, what: string): string {
  const code = typeof value === 'number' ? String(value).padStart(2, '0') : value;
  if (ufByCode(code) === undefined)
    throw new RangeError(`${what} must be an IBGE UF code, got ${JSON.stringify(value)}`);
  return code;
}

export function tpAmbText(tpAmb: TpAmb): string {
  if (tpAmb !== 1 && tpAmb !== 2) throw new RangeError(`tpAmb must be 1 or 2, got ${JSON.stringify(tpAmb)}`);
  return String(tpAmb);
}

function nsu(value: string | number, what: string): string {
  const s = String(value);
  if (!NSU.test(s)) throw new RangeError(`${what} must be up to 15 digits, got ${JSON.stringify(value)}`);
  return s.padStart(15, '0');
}

/** One request/answer exchange with a service of `S` (see soapCaller). */
export type SoapCall<S extends AuthorityService> = (
  service: S,
  message: string,
  root: string,
) => Promise<{ xml: string; node: Node; read: Reader }>;

/**
 * Sends one message to a web service of the NF-e, CT-e or DC-e family and returns the result message (exact bytes)
 * with its parsed document element `root`; a body that is not XML, a SOAP fault or another message raises
 * AuthorityResponseError, an HTTP error status without a fault AuthorityUnavailableError.
 */
export function soapCaller<S extends AuthorityService>(options: {
  transport: AuthorityTransport;
  endpoint: (service: S) => Endpoint | string;
  timeoutMs: number;
  /** The reader of the result message (which elements it lists as arrays). */
  parse: (xml: string) => unknown;
  /** Finds the result message (`root`) in the envelope; default: the content of the service's result element. */
  message?: (envelope: string, root: string) => string | null;
}): SoapCall<S> {
  const { transport, timeoutMs } = options;
  return async (service, message, root) => {
    const target = options.endpoint(service);
    const url = typeof target === 'string' ? target : target.url;
    const envelope = wrapRequest(service, message);
    const { status, body } = await transport.send({ url, service, envelope, timeoutMs });

    function fail(
      kind: AuthorityResponseErrorKind,
      detail: string,
      fault?: { code: string; reason: string },
    ): never {
      throw new AuthorityResponseError({
        kind,
        service,
        url,
        status,
        body,
        detail,
        ...(fault === undefined ? {} : { faultCode: fault.code, faultReason: fault.reason }),
      });
    }
    const ok = status >= 200 && status < 300;
    const trimmed = body.replace(/^\uFEFF/, '').trim();
    const wellFormed = trimmed.startsWith('<') && XMLValidator.validate(trimmed) === true;
    if (!wellFormed) {
      if (!ok) throw httpStatusError(status, url, service);
      fail('not_xml', `the body is not XML: ${JSON.stringify(trimmed.slice(0, 120))}`);
    }
    const fault = MAY_HOLD_FAULT.test(trimmed) ? soapFault(envelopeParser.parse(trimmed)) : undefined;
    if (fault !== undefined) fail('soap_fault', `${fault.code}: ${fault.reason}`, fault);
    if (!ok) throw httpStatusError(status, url, service);

    const wrapper = options.message === undefined ? responseWrapper(service) : root;
    const xml =
      options.message === undefined ? unwrapMessage(trimmed, wrapper) : options.message(trimmed, root);
    if (xml === null) fail('unexpected_message', `no <${wrapper}> in the answer`);
    const parsed: unknown = options.parse(xml);
    const node = isNode(parsed) ? parsed[root] : undefined;
    if (!isNode(node)) {
      const found = isNode(parsed) ? Object.keys(parsed).filter((k) => k !== '?xml') : [];
      fail(
        'unexpected_message',
        `expected <${root}>, got ${found.map((k) => `<${k}>`).join(', ') || 'nothing'}`,
      );
    }
    return { xml, node, read: new Reader((detail) => fail('unexpected_message', detail)) };
  };
}

/** Reads one protocol element (`root`: protNFe, protCTe, protDCe), kept byte for byte as `raw`. */
export function readProtocol<K extends string>(
  parser: AnswerReader,
  raw: string,
  root: string,
  key: K,
  read: Reader,
): Protocol<K> {
  const parsed: unknown = parser.parse(raw);
  const inf = read.child(list(parsed, root)[0], 'infProt', root);
  // A computed key widens to `string` for the compiler; `key` is K by the signature.
  return {
    [key]: read.required(inf, key, 'infProt'),
    cStat: read.required(inf, 'cStat', 'infProt'),
    xMotivo: read.required(inf, 'xMotivo', 'infProt'),
    ...optional('nProt', text(inf, 'nProt')),
    dhRecbto: read.required(inf, 'dhRecbto', 'infProt'),
    ...optional('digVal', text(inf, 'digVal')),
    xml: raw,
  } as Protocol<K>;
}

/**
 * The status question of a family (`root`: consStatServ, consStatServCTe, consStatServDCe; the same fields in
 * each) and its answer `answer`.
 */
export async function askStatusServico<S extends AuthorityService>(
  call: SoapCall<S>,
  service: S,
  form: { root: string; answer: string; namespace: string; versao: string },
  req: { tpAmb: TpAmb; cUF: number | string },
): Promise<StatusServicoResult> {
  const { root, answer, namespace, versao } = form;
  const message = `<${root} xmlns="${namespace}" versao="${versao}"><tpAmb>${tpAmbText(req.tpAmb)}</tpAmb><cUF>${codeUf(req.cUF, 'cUF')}</cUF><xServ>STATUS</xServ></${root}>`;
  const { node, read } = await call(service, message, answer);
  return {
    ...read.status(node, answer),
    dhRecbto: read.required(node, 'dhRecbto', answer),
    ...optional('tMed', text(node, 'tMed')),
    ...optional('dhRetorno', text(node, 'dhRetorno')),
    ...optional('xObs', text(node, 'xObs')),
  };
}

/** The fields of a retEventoCTe / retEventoDCe (`root`, its parsed `node`), all but its exact text. */
export function readSingleEvento<K extends string>(
  node: Node,
  read: Reader,
  root: string,
  key: K,
): Omit<SingleEventoResult<K>, 'xml'> {
  const inf = read.child(node, 'infEvento', root);
  const where = `${root}/infEvento`;
  return {
    cStat: read.required(inf, 'cStat', where),
    xMotivo: read.required(inf, 'xMotivo', where),
    tpAmb: read.tpAmb(inf, where),
    cOrgao: read.required(inf, 'cOrgao', where),
    ...optional(key, text(inf, key)),
    ...optional('tpEvento', text(inf, 'tpEvento')),
    ...optional('nSeqEvento', text(inf, 'nSeqEvento')),
    ...optional('nProt', text(inf, 'nProt')),
    ...optional('dhRegEvento', text(inf, 'dhRegEvento')),
  } as Omit<SingleEventoResult<K>, 'xml'>;
}

// --------------------------------------------------------------------------------------------------------

export function createAuthorityClient(options: AuthorityClientOptions): AuthorityClient {
  const call = soapCaller({ ...options, parse: (xml) => messageParser.parse(xml) });

  const protocol = (raw: string, read: Reader): ProtNFe =>
    readProtocol(messageParser, raw, 'protNFe', 'chNFe', read);

  return {
    async autorizacao({ nfe, idLote, indSinc }) {
      if (!ID_LOTE.test(idLote))
        throw new RangeError(`idLote must be 1 to 15 digits, got ${JSON.stringify(idLote)}`);
      if (indSinc !== 0 && indSinc !== 1)
        throw new RangeError(`indSinc must be 0 or 1, got ${JSON.stringify(indSinc)}`);
      // enviNFe_v4.00.xsd: 1 to 50 NFe; MOC 7.0 (rejection 452): a synchronous lot holds exactly one.
      if (nfe.length < 1 || nfe.length > 50)
        throw new RangeError(`a lot holds 1 to 50 NF-e, got ${nfe.length}`);
      if (indSinc === 1 && nfe.length !== 1)
        throw new RangeError('a synchronous lot (indSinc 1) holds one NF-e');
      const docs = nfe.map((doc, i) => element(doc, 'NFe', `nfe[${i}]`)).join('');
      const message = `<enviNFe xmlns="${NFE_NS}" versao="4.00"><idLote>${idLote}</idLote><indSinc>${indSinc}</indSinc>${docs}</enviNFe>`;
      const { xml, node, read } = await call('NFeAutorizacao4', message, 'retEnviNFe');
      const infRec = isNode(node.infRec) ? node.infRec : undefined;
      return {
        ...read.status(node, 'retEnviNFe'),
        dhRecbto: read.required(node, 'dhRecbto', 'retEnviNFe'),
        ...(infRec === undefined
          ? {}
          : { nRec: read.required(infRec, 'nRec', 'infRec'), ...optional('tMed', text(infRec, 'tMed')) }),
        protocols: rawElements(xml, ['retEnviNFe', 'protNFe']).map((raw) => protocol(raw, read)),
      };
    },

    async retAutorizacao({ tpAmb, nRec }) {
      if (!N_REC.test(nRec)) throw new RangeError(`nRec must be 15 digits, got ${JSON.stringify(nRec)}`);
      const message = `<consReciNFe xmlns="${NFE_NS}" versao="4.00"><tpAmb>${tpAmbText(tpAmb)}</tpAmb><nRec>${nRec}</nRec></consReciNFe>`;
      const { xml, node, read } = await call('NFeRetAutorizacao4', message, 'retConsReciNFe');
      return {
        ...read.status(node, 'retConsReciNFe'),
        dhRecbto: read.required(node, 'dhRecbto', 'retConsReciNFe'),
        nRec: read.required(node, 'nRec', 'retConsReciNFe'),
        protocols: rawElements(xml, ['retConsReciNFe', 'protNFe']).map((raw) => protocol(raw, read)),
      };
    },

    async consultaProtocolo({ tpAmb, chNFe }) {
      if (!ACCESS_KEY.test(chNFe))
        throw new RangeError(`chNFe must be an access key of 44, got ${JSON.stringify(chNFe)}`);
      const message = `<consSitNFe xmlns="${NFE_NS}" versao="4.00"><tpAmb>${tpAmbText(tpAmb)}</tpAmb><xServ>CONSULTAR</xServ><chNFe>${chNFe}</chNFe></consSitNFe>`;
      const { xml, node, read } = await call('NFeConsultaProtocolo4', message, 'retConsSitNFe');
      const prot = rawElements(xml, ['retConsSitNFe', 'protNFe'])[0];
      return {
        ...read.status(node, 'retConsSitNFe'),
        dhRecbto: read.required(node, 'dhRecbto', 'retConsSitNFe'),
        chNFe: read.required(node, 'chNFe', 'retConsSitNFe'),
        ...(prot === undefined ? {} : { protocol: protocol(prot, read) }),
        events: rawElements(xml, ['retConsSitNFe', 'procEventoNFe']),
      };
    },

    statusServico: (req) =>
      askStatusServico(
        call,
        'NFeStatusServico4',
        { root: 'consStatServ', answer: 'retConsStatServ', namespace: NFE_NS, versao: '4.00' },
        req,
      ),

    async recepcaoEvento({ envEvento }) {
      const message = element(envEvento, 'envEvento', 'envEvento');
      const { xml, node, read } = await call('NFeRecepcaoEvento4', message, 'retEnvEvento');
      const results = rawElements(xml, ['retEnvEvento', 'retEvento']).map((raw): EventoResult => {
        const inf = read.child(list(messageParser.parse(raw), 'retEvento')[0], 'infEvento', 'retEvento');
        return {
          cStat: read.required(inf, 'cStat', 'retEvento/infEvento'),
          xMotivo: read.required(inf, 'xMotivo', 'retEvento/infEvento'),
          ...optional('chNFe', text(inf, 'chNFe')),
          ...optional('tpEvento', text(inf, 'tpEvento')),
          ...optional('nSeqEvento', text(inf, 'nSeqEvento')),
          ...optional('nProt', text(inf, 'nProt')),
          dhRegEvento: read.required(inf, 'dhRegEvento', 'retEvento/infEvento'),
          xml: raw,
        };
      });
      return {
        cStat: read.required(node, 'cStat', 'retEnvEvento'),
        xMotivo: read.required(node, 'xMotivo', 'retEnvEvento'),
        idLote: read.required(node, 'idLote', 'retEnvEvento'),
        tpAmb: read.tpAmb(node, 'retEnvEvento'),
        cOrgao: read.required(node, 'cOrgao', 'retEnvEvento'),
        results,
      };
    },

    async inutilizacao({ inutNFe }) {
      const message = element(inutNFe, 'inutNFe', 'inutNFe');
      const { xml, node, read } = await call('NFeInutilizacao4', message, 'retInutNFe');
      const inf = read.child(node, 'infInut', 'retInutNFe');
      const raw = rawElements(xml, ['retInutNFe'])[0] ?? read.fail('no <retInutNFe> element');
      return {
        cStat: read.required(inf, 'cStat', 'infInut'),
        xMotivo: read.required(inf, 'xMotivo', 'infInut'),
        tpAmb: read.tpAmb(inf, 'infInut'),
        cUF: read.required(inf, 'cUF', 'infInut'),
        dhRecbto: read.required(inf, 'dhRecbto', 'infInut'),
        ...optional('nProt', text(inf, 'nProt')),
        xml: raw,
      };
    },

    async distribuicaoDFe(req) {
      if (!CNPJ.test(req.CNPJ))
        throw new RangeError(`CNPJ must be 14 characters, got ${JSON.stringify(req.CNPJ)}`);
      const given = [req.ultNSU, req.NSU, req.chNFe].filter((v) => v !== undefined).length;
      if (given > 1) throw new RangeError('give one of ultNSU, NSU or chNFe');
      let query: string;
      if (req.NSU !== undefined) query = `<consNSU><NSU>${nsu(req.NSU, 'NSU')}</NSU></consNSU>`;
      else if (req.chNFe !== undefined) {
        if (!ACCESS_KEY.test(req.chNFe))
          throw new RangeError(`chNFe must be an access key, got ${JSON.stringify(req.chNFe)}`);
        query = `<consChNFe><chNFe>${req.chNFe}</chNFe></consChNFe>`;
      } else query = `<distNSU><ultNSU>${nsu(req.ultNSU ?? 0, 'ultNSU')}</ultNSU></distNSU>`;
      // distDFeInt_v1.01.xsd (NT 2014.002): tpAmb, cUFAutor, CNPJ|CPF, then one of the three queries.
      const message = `<distDFeInt xmlns="${NFE_NS}" versao="1.01"><tpAmb>${tpAmbText(req.tpAmb)}</tpAmb><cUFAutor>${codeUf(req.cUFAutor, 'cUFAutor')}</cUFAutor><CNPJ>${req.CNPJ}</CNPJ>${query}</distDFeInt>`;
      const { node, read } = await call('NFeDistribuicaoDFe', message, 'retDistDFeInt');
      const docs = list(node.loteDistDFeInt, 'docZip').map((doc): DistribuicaoDoc => {
        const { '@_NSU': NSU, '@_schema': schema, '#text': content } = isNode(doc) ? doc : {};
        if (typeof NSU !== 'string' || typeof schema !== 'string' || typeof content !== 'string') {
          return read.fail('a <docZip> lacks its NSU, schema or content');
        }
        let xml: string;
        try {
          xml = gunzipSync(Buffer.from(content, 'base64')).toString('utf8');
        } catch (cause) {
          return read.fail(`<docZip NSU="${NSU}"> does not gunzip: ${String(cause)}`);
        }
        return { NSU, schema, xml };
      });
      return {
        cStat: read.required(node, 'cStat', 'retDistDFeInt'),
        xMotivo: read.required(node, 'xMotivo', 'retDistDFeInt'),
        tpAmb: read.tpAmb(node, 'retDistDFeInt'),
        dhResp: read.required(node, 'dhResp', 'retDistDFeInt'),
        ultNSU: read.required(node, 'ultNSU', 'retDistDFeInt'),
        maxNSU: read.required(node, 'maxNSU', 'retDistDFeInt'),
        docs,
      };
    },
  };
}

/** SOAP 1.2 (Code/Value, Reason/Text) or 1.1 (faultcode, faultstring) Fault in a parsed envelope. */
export function soapFault(envelope: unknown): { code: string; reason: string } | undefined {
  const body = isNode(envelope) && isNode(envelope.Envelope) ? envelope.Envelope.Body : undefined;
  const fault = isNode(body) ? body.Fault : undefined;
  if (!isNode(fault)) return undefined;
  const code = isNode(fault.Code) ? text(fault.Code, 'Value') : text(fault, 'faultcode');
  const reasonNode = isNode(fault.Reason) ? list(fault.Reason, 'Text')[0] : undefined;
  const reason = reasonNode !== undefined ? text({ t: reasonNode }, 't') : text(fault, 'faultstring');
  // The code is a QName (soap12:Receiver); its prefix says nothing.
  return { code: (code ?? '').replace(/^[^:]*:/, ''), reason: reason ?? '' };
}
