// Typed calls to the national NFS-e REST APIs (Sefin Nacional and the ADN Parâmetros Municipais) over the mutual
// TLS transport: where each call goes (endpoints.ts), what it carries and what its answer says (codec.ts).
// An answer that decides nothing (5xx, 429, a body off the documented schemas) is thrown as NfseAnswerError.
import {
  emitirNfseRequest,
  parseAliquotaAnswer,
  parseConsultarDpsAnswer,
  parseConsultarNfseAnswer,
  parseConvenioAnswer,
  parseEmitirNfseAnswer,
  parseEventoAnswer,
  parseExisteDpsAnswer,
  registrarEventoRequest,
  type AliquotasMunicipais,
  type AuthorizedNfse,
  type ConvenioMunicipal,
  type FieldError,
  type FoundDps,
  type FoundNfse,
  type RegisteredEvent,
  type Rejected,
  type Unreadable,
} from './codec.ts';
import {
  resolveNfseEndpoint,
  type NfseApi,
  type NfseOperation,
  type NfseOperationParams,
} from './endpoints.ts';
import type { RestResponse, RestTransport } from '../transport.ts';

/**
 * The national environment answered, but its answer settles nothing: a server error, "too many requests", or a
 * body that fits none of the operation's documented schemas. The request reached it, so a DPS sent this way
 * may have become a note: it is looked up by its Id before any resend.
 */
export class NfseAnswerError extends Error {
  readonly kind: 'http_status' | 'ilegivel';
  readonly status: number;
  readonly url: string;
  readonly operation: NfseOperation;
  readonly problems: FieldError[];
  readonly mayHaveBeenReceived = true;

  constructor(init: {
    kind: 'http_status' | 'ilegivel';
    status: number;
    url: string;
    operation: NfseOperation;
    problems?: FieldError[];
  }) {
    const detail =
      init.kind === 'http_status'
        ? `HTTP ${init.status}`
        : `unreadable answer (HTTP ${init.status}): ${(init.problems ?? [])
            .map((p) => `${p.field}: ${p.error}`)
            .join('; ')}`;
    super(`NFS-e ${init.operation} at ${init.url}: ${detail}; the request may have been received`);
    this.name = 'NfseAnswerError';
    this.kind = init.kind;
    this.status = init.status;
    this.url = init.url;
    this.operation = init.operation;
    this.problems = init.problems ?? [];
  }
}

export interface NfseClientOptions {
  transport: RestTransport;
  /** 1 produção, 2 produção restrita. */
  tpAmb: 1 | 2;
  /** Time allowed for each answer once the request is on its way. */
  timeoutMs: number;
  /** Other bases per API (the embedded sandbox's, endpoints.ts sandboxNfseBases); omitted: the national ones. */
  bases?: Readonly<Record<NfseApi, string>>;
}

export interface NfseClient {
  /** POST /nfse with the signed DPS: the note (201) or the documented refusal with its codes. */
  emitir(signedDpsXml: string): Promise<AuthorizedNfse | Rejected>;
  /** GET /nfse/{chaveAcesso}. */
  consultarNfse(chaveAcesso: string): Promise<FoundNfse | Rejected>;
  /** GET /dps/{id}: the key of the note the DPS became (200), or a refusal (404: it never became one). */
  consultarDps(idDps: string): Promise<FoundDps | Rejected>;
  /** HEAD /dps/{id}. */
  existeDps(idDps: string): Promise<'existe' | 'nao-existe' | 'desconhecido'>;
  /** POST /nfse/{chaveAcesso}/eventos with the signed pedRegEvento. */
  registrarEvento(chaveAcesso: string, signedPedRegEventoXml: string): Promise<RegisteredEvent | Rejected>;
  /** GET /nfse/{chaveAcesso}/eventos/{tipoEvento}/{numSeqEvento}. */
  consultarEvento(
    chaveAcesso: string,
    tipoEvento: string,
    numSeqEvento: number,
  ): Promise<RegisteredEvent | Rejected>;
  /** GET {parametros}/{cMun}/convenio; only 200 and 404 are answers (404: the ADN knows no agreement). */
  convenio(cMun: string): Promise<ConvenioMunicipal>;
  /** GET {parametros}/{cMun}/{cServ}/{competencia}/aliquota; only 200 and 404 are answers. */
  aliquotas(cMun: string, codigoServico: string, competencia: string): Promise<AliquotasMunicipais>;
}

const JSON_HEADERS = { Accept: 'application/json' };

export function createNfseClient(options: NfseClientOptions): NfseClient {
  const { transport, tpAmb, timeoutMs, bases } = options;

  async function call<O extends NfseOperation>(
    operation: O,
    params: NfseOperationParams[O],
    body?: object,
  ): Promise<{ response: RestResponse; url: string }> {
    const target = resolveNfseEndpoint(tpAmb, operation, params, bases);
    const response = await transport.request({
      method: target.method,
      url: target.url,
      headers:
        body === undefined
          ? JSON_HEADERS
          : { ...JSON_HEADERS, 'Content-Type': 'application/json; charset=utf-8' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      timeoutMs,
      label: `NFS-e ${operation}`,
    });
    // Server trouble and throttling decide nothing, whatever their body says.
    if (response.status >= 500 || response.status === 429) {
      throw new NfseAnswerError({ kind: 'http_status', status: response.status, url: target.url, operation });
    }
    return { response, url: target.url };
  }

  /** The JSON body, or an NfseAnswerError: a proxy's HTML page is not an answer. */
  function json(operation: NfseOperation, url: string, response: RestResponse): unknown {
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      throw new NfseAnswerError({
        kind: 'ilegivel',
        status: response.status,
        url,
        operation,
        problems: [{ field: '(body)', error: 'not JSON' }],
      });
    }
  }

  function readable<T extends { kind: string }>(
    operation: NfseOperation,
    url: string,
    answer: T | Unreadable,
  ): Exclude<T, Unreadable> {
    if (answer.kind === 'ilegivel') {
      const u = answer as Unreadable;
      throw new NfseAnswerError({ kind: 'ilegivel', status: u.status, url, operation, problems: u.problems });
    }
    return answer as Exclude<T, Unreadable>;
  }

  /** The parameters service answers the same schema on 200, 400 and 404; a 400 is our question's fault. */
  async function parametros<O extends 'convenioMunicipal' | 'aliquotaMunicipal'>(
    operation: O,
    params: NfseOperationParams[O],
  ): Promise<{ status: number; body: unknown; url: string }> {
    const { response, url } = await call(operation, params);
    if (response.status !== 200 && response.status !== 404) {
      throw new NfseAnswerError({ kind: 'http_status', status: response.status, url, operation });
    }
    return { status: response.status, body: json(operation, url, response), url };
  }

  return {
    async emitir(signedDpsXml) {
      const { response, url } = await call('emitirNfse', {}, emitirNfseRequest(signedDpsXml));
      const body = json('emitirNfse', url, response);
      return readable('emitirNfse', url, parseEmitirNfseAnswer(response.status, body));
    },

    async consultarNfse(chaveAcesso) {
      const { response, url } = await call('consultarNfse', { chaveAcesso });
      const body = json('consultarNfse', url, response);
      return readable('consultarNfse', url, parseConsultarNfseAnswer(response.status, body));
    },

    async consultarDps(id) {
      const { response, url } = await call('consultarDps', { id });
      const body = json('consultarDps', url, response);
      return readable('consultarDps', url, parseConsultarDpsAnswer(response.status, body));
    },

    async existeDps(id) {
      const { response } = await call('existeDps', { id });
      return parseExisteDpsAnswer(response.status);
    },

    async registrarEvento(chaveAcesso, signedPedRegEventoXml) {
      const { response, url } = await call(
        'registrarEvento',
        { chaveAcesso },
        registrarEventoRequest(signedPedRegEventoXml),
      );
      const body = json('registrarEvento', url, response);
      return readable('registrarEvento', url, parseEventoAnswer(response.status, body));
    },

    async consultarEvento(chaveAcesso, tipoEvento, numSeqEvento) {
      const { response, url } = await call('consultarEvento', { chaveAcesso, tipoEvento, numSeqEvento });
      const body = json('consultarEvento', url, response);
      return readable('consultarEvento', url, parseEventoAnswer(response.status, body));
    },

    async convenio(cMun) {
      const { status, body, url } = await parametros('convenioMunicipal', { codigoMunicipio: cMun });
      return readable('convenioMunicipal', url, parseConvenioAnswer(status, body));
    },

    async aliquotas(cMun, codigoServico, competencia) {
      const { status, body, url } = await parametros('aliquotaMunicipal', {
        codigoMunicipio: cMun,
        codigoServico,
        competencia,
      });
      return readable('aliquotaMunicipal', url, parseAliquotaAnswer(status, body));
    },
  };
}
