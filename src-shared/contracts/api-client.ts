// Typed fetch client over the /v1 contracts, used by the renderer (and usable by any TypeScript POS).
// Type-only imports: the client carries no zod into the browser bundle.
import type { ApiKeyCreate, ApiKeyCreated, ApiKeyView } from './api-keys.ts';
import type { FiscalProfileView, ProductView } from './catalog.ts';
import type { ServiceView } from './services.ts';
import type { DataList, OffsetList, PageList } from './common.ts';
import type { CertificateStatusView, CompanyUpdateInput, CompanyView, NfeSequences } from './companies.ts';
import type { CustomerView } from './customers.ts';
import type { z } from 'zod';
import type { ctePayloadSchema } from './cte-payload.ts';
import type {
  CteCceRequest,
  CteDebug,
  CteEventView,
  CteSendAnswer,
  CteView,
  CteVoidAnswer,
  CteVoidRequest,
} from './cte-view.ts';
import type {
  PrintJobStatus,
  PrintJobView,
  PrinterStatusView,
  PrinterView,
  QueuedPrint,
} from './printers.ts';
import type { ErrorBody, ErrorDetail } from './errors.ts';
import type { nfsePayloadSchema, nfseSubstitutePayloadSchema } from './nfse-payload.ts';
import type {
  NfseCancelAnswer,
  NfseCancelRequest,
  NfseSettingsRequest,
  NfseSettingsViewBody,
  NfseView,
  NfseXmlAnswer,
} from './nfse-view.ts';
import type {
  DceCancelAnswer,
  DceCancelRequest,
  DceSettingsRequest,
  DceSettingsView,
  DceView,
  DceXmlAnswer,
} from './dce-view.ts';
import type { DcePayloadInput } from './dce-payload.ts';
import type { PixChargeView, PixConfigInput, PixConfigView, PixConnectionTest } from './pix.ts';
import type {
  BatchProgress,
  CompanyStatus,
  CorrectionLetterView,
  DocumentStatus,
  DocumentView,
  EventView,
  ManifestationResult,
  ReceivedNoteDetail,
  ReceivedNoteView,
  VoidResult,
} from './documents.ts';

export type {
  BatchProgress,
  CompanyStatus,
  CorrectionLetterView,
  DocumentStatus,
  DocumentView,
  EventView,
  ManifestationResult,
  ReceivedNoteDetail,
  ReceivedNoteView,
};
/** POST /v1/nfe/inutilizar (the contract's VoidResult); a 502 body's `pending` names the kept request. */
export type VoidRangeResult = VoidResult;
import type {
  DeliveryDetailView,
  DeliveryStatus,
  DeliveryView,
  WebhookEventPattern,
  WebhookView,
  WebhookWithSecret,
} from './webhooks.ts';

/** POST /v1/cte (§2.7) as a client writes it: the schema's input (UF and CPF/CNPJ as typed, normalized by the service). */
export type CteCreateBody = z.input<typeof ctePayloadSchema>;

/** POST /v1/nfe/:id/send?sync=true. */
/** POST /v1/nfse and PUT /v1/nfse/:id (§2.8) as a client writes them: the schema's input. */
export type NfseCreateBody = z.input<typeof nfsePayloadSchema>;
/** POST /v1/nfse/:id/substituir (§2.8 substitute body, all optional). */
export type NfseSubstituteBody = z.input<typeof nfseSubstitutePayloadSchema>;
/** The substitution's answer: the new note, with the one it replaces. */
export type NfseSubstituteAnswer = NfseView & { substitui_nfse_id: string };

export interface SyncSendAnswer {
  id: string;
  numero: number;
  serie: number;
  status: string;
  chave_acesso: string;
  protocolo: string | null;
  autorizada_em: string | null;
  danfe_url: string;
  xml_url: string;
}

export interface VoidRangeRequest {
  modelo: 55 | 65;
  serie: number;
  numeroInicial: number;
  numeroFinal: number;
  justificativa: string;
}

export type ManifestationType = 'ciencia' | 'confirmacao' | 'desconhecimento' | 'nao_realizada';

/** Body of POST /v1/nfce in spelling A (src-shared/contracts/nfe-payload.ts is the schema). */
export interface SalePayload {
  itens: {
    productId?: string;
    codigo?: string;
    descricao?: string;
    quantidade: string;
    valorUnitario?: string;
    valorDesconto?: string;
  }[];
  pagamentos: { forma: string; valor: string; descricao?: string; pixTxid?: string }[];
  cpfConsumidor?: string;
  customerId?: string;
  valorDesconto?: string;
}

/** Draft body of POST /v1/nfe / PUT /v1/nfe/:id (spelling A). */
export interface NfeDraftPayload {
  naturezaOperacao?: string;
  /** 0 entrada (a devolução), 1 saída (the default). */
  tipoOperacao?: 0 | 1;
  finalidade?: 1 | 2 | 3 | 4;
  customerId?: string;
  nfeReferenciada?: string[];
  itens: (SalePayload['itens'][number] & { cfop?: string })[];
  pagamentos?: SalePayload['pagamentos'];
  valorFrete?: string;
  valorDesconto?: string;
  informacoesAdicionais?: string;
}

// A type alias (not an interface) so it fits the query-string record.
export type DocumentListFilter = {
  status?: string;
  data_inicio?: string;
  data_fim?: string;
  modelo?: '55' | '65';
};

/** The wire shapes of /v1/operators, /v1/register-sessions and /v1/reports/sales (issue 13's design). */
export type OperatorRole = 'caixa' | 'supervisor' | 'gerente';
export interface OperatorView {
  id: string;
  codigo: string;
  nome: string;
  papel: OperatorRole;
  ativo: boolean;
  bloqueado_ate: string | null;
  created_at: string;
  updated_at: string;
}
export interface OperatorRef {
  id: string;
  codigo: string;
  nome: string;
}
export interface OperatorSignIn {
  operador: OperatorView;
  token: string;
  caixa: string;
  expira_em: string;
}
export interface SupervisorAuthorization {
  autorizacao: string;
  supervisor: OperatorView;
  acao: string;
  expira_em: string;
}
/** Amounts per payment method, keyed by the spelling-B names (dinheiro, cartao_credito, …). */
export type AmountsByMethod = Record<string, number>;
export interface MovementView {
  id: string;
  tipo: 'sangria' | 'suprimento';
  valor: number;
  motivo: string;
  operador: OperatorRef | null;
  created_at: string;
  impressao: { job_id: string } | null;
}
export interface SessionView {
  id: string;
  caixa: string;
  status: 'aberta' | 'fechada';
  aberta_em: string;
  aberta_por: OperatorRef | null;
  fundo_troco: number;
  fechada_em: string | null;
  fechada_por: OperatorRef | null;
  movimentos: MovementView[];
  vendas: { quantidade: number };
  fechamento: null | {
    contado: AmountsByMethod;
    esperado: AmountsByMethod;
    diferenca: AmountsByMethod;
    diferenca_total: number;
  };
}
export interface ShiftReport {
  sessao: Record<string, unknown> & { id?: string; caixa?: string };
  fundo_troco: number;
  vendas: { quantidade: number; total: number };
  por_metodo: { metodo: string; quantidade: number; valor: number }[];
  /** Change given in cash, already netted from dinheiro. */
  troco?: number;
  suprimentos?: number;
  sangrias?: number;
  cancelamentos: { id: string; numero: number; serie: number; valor: number }[];
  voids: { tipo?: string; descricao?: string; valor?: number }[];
  contingencia_pendente: { id: string; numero: number; serie: number; valor: number }[];
  movimentos: MovementView[];
  esperado: AmountsByMethod | null;
  contado: AmountsByMethod | null;
  diferenca: AmountsByMethod | null;
  diferenca_total: number | null;
}
export type SalesGrouping = 'dia' | 'sessao' | 'operador' | 'produto' | 'metodo';
export interface SalesReport {
  agrupar: SalesGrouping;
  de: string;
  ate: string;
  linhas: { chave: string; rotulo: string; vendas: number; itens?: number; total: number }[];
  total: number;
}

/** An answer of the API other than 2xx, with its error body (seed §7). */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.message);
    this.name = 'ApiRequestError';
  }

  get details(): ErrorDetail[] {
    return this.body.details;
  }

  /** The message for one field (`itens[0].quantidade`), or undefined. */
  fieldError(field: string): string | undefined {
    return this.body.details.find((d) => d.field === field)?.error;
  }
}

export interface ApiClientOptions {
  /** The /v1 base, e.g. `http://127.0.0.1:8787/v1`. */
  baseUrl: string;
  apiKey: string;
  /** The company the company-scoped routes act on (needed with an organization key). */
  companyId?: string;
  /** The signed-in operator's token: sent as X-Operator-Token on every request. */
  operatorToken?: string | null;
  /** A supervisor's one-time approval: sent as X-Supervisor-Authorization (see `withSupervisor`). */
  supervisorAuthorization?: string | null;
  fetch?: typeof fetch;
}

type Query = Record<string, string | number | boolean | undefined>;

/** Paging of the §4.6 lists: `page` (1-based) or `offset`, and `limit` (1..100). */
type ListQuery = { page?: number; limit?: number; offset?: number };

function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

/** A network failure (the service is not answering) becomes an error body like the API's own. */
function unreachable(error: unknown): ApiRequestError {
  return new ApiRequestError(0, {
    error: 'authority_unavailable',
    message: `O serviço local não respondeu (${error instanceof Error ? error.message : String(error)}).`,
    details: [],
  });
}

export function createApiClient(options: ApiClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch: typeof fetch = options.fetch ?? ((...args) => fetch(...args));
  const companyId = options.companyId;
  const scoped = (query?: Query): Query => ({ ...(companyId === undefined ? {} : { companyId }), ...query });

  async function send(
    method: string,
    path: string,
    init: { query?: Query; json?: unknown; body?: FormData; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { 'X-API-Key': options.apiKey, ...init.headers };
    if (options.operatorToken != null) headers['X-Operator-Token'] = options.operatorToken;
    if (options.supervisorAuthorization != null)
      headers['X-Supervisor-Authorization'] = options.supervisorAuthorization;
    let body: string | FormData | undefined = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['Content-Type'] = 'application/json';
    }
    let res: Response;
    try {
      res = await doFetch(`${base}${path}${queryString(init.query)}`, { method, headers, body });
    } catch (error) {
      throw unreachable(error);
    }
    if (!res.ok) {
      const text = await res.text();
      let parsed: ErrorBody;
      try {
        parsed = JSON.parse(text) as ErrorBody;
        if (typeof parsed.message !== 'string') throw new TypeError('not an error body');
        parsed.details ??= [];
      } catch {
        parsed = {
          error: 'internal_error',
          message: `HTTP ${res.status}: ${text.slice(0, 200)}`,
          details: [],
        };
      }
      throw new ApiRequestError(res.status, parsed);
    }
    return res;
  }

  async function json<T>(method: string, path: string, init?: Parameters<typeof send>[2]): Promise<T> {
    const res = await send(method, path, init);
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  const get = <T>(path: string, query?: Query) => json<T>('GET', path, { query });
  const post = <T>(path: string, body?: unknown, query?: Query, headers?: Record<string, string>) =>
    json<T>('POST', path, {
      json: body ?? {},
      ...(query === undefined ? {} : { query }),
      ...(headers === undefined ? {} : { headers }),
    });
  const put = <T>(path: string, body: unknown) => json<T>('PUT', path, { json: body });
  /** The Idempotency-Key header of a retried POST; none when the caller gave no key. */
  const idempotent = (key: string | undefined) =>
    key === undefined ? undefined : { 'Idempotency-Key': key };
  const del = (path: string) => json<void>('DELETE', path);
  const docBase = (modelo: 55 | 65) => (modelo === 55 ? '/nfe' : '/nfce');

  /** A link a browser can open by itself (a PDF in a tab, an image): the key rides in `?api_key=`. */
  const link = (path: string, query?: Query) =>
    `${base}${path}${queryString({ ...query, api_key: options.apiKey })}`;

  return {
    baseUrl: base,
    companyId,
    link,
    operatorToken: options.operatorToken ?? null,
    /** The same client carrying a supervisor's approval: for the one call the approval was asked for. */
    withSupervisor: (authorization: string) =>
      createApiClient({ ...options, supervisorAuthorization: authorization }),
    operators: {
      list: (query?: { ativo?: boolean }) => get<DataList<OperatorView>>('/operators', scoped(query)),
      get: (id: string) => get<OperatorView>(`/operators/${id}`),
      create: (body: { nome: string; papel: OperatorRole; pin: string; codigo?: string }) =>
        post<OperatorView>('/operators', body, scoped()),
      update: (id: string, body: { nome?: string; papel?: OperatorRole; pin?: string; ativo?: boolean }) =>
        put<OperatorView>(`/operators/${id}`, body),
      deactivate: (id: string) => del(`/operators/${id}`),
      signIn: (body: { codigo: string; pin: string; caixa?: string }) =>
        post<OperatorSignIn>('/operators/sign-in', body, scoped()),
      signOut: () => post<undefined>('/operators/sign-out', {}),
      me: () => get<Omit<OperatorSignIn, 'token'>>('/operators/me'),
      authorize: (body: { codigo: string; pin: string; acao: string }) =>
        post<SupervisorAuthorization>('/operators/authorize', body, scoped()),
      /** Records an action the UI alone performs (an item removed after payment started). */
      action: (body: { acao: string; detalhe?: Record<string, unknown> }) =>
        post<Record<string, unknown>>('/operators/actions', body, scoped()),
    },
    registerSessions: {
      list: (
        query?: { status?: 'aberta' | 'fechada'; caixa?: string; de?: string; ate?: string } & ListQuery,
      ) => get<DataList<SessionView>>('/register-sessions', scoped(query)),
      /** The open session of a caixa, or null when the register is closed. */
      current: async (caixa?: string): Promise<SessionView | null> => {
        try {
          return await get<SessionView>('/register-sessions/current', scoped({ caixa }));
        } catch (error) {
          if (error instanceof ApiRequestError && error.status === 404) return null;
          throw error;
        }
      },
      get: (id: string) => get<SessionView>(`/register-sessions/${id}`),
      open: (body: { fundo_troco: string; caixa?: string }) =>
        post<SessionView>('/register-sessions', body, scoped()),
      movement: (id: string, body: { tipo: 'sangria' | 'suprimento'; valor: string; motivo: string }) =>
        post<MovementView>(`/register-sessions/${id}/movements`, body),
      void: (id: string, body: { tipo: 'item' | 'venda'; descricao: string; valor: string }) =>
        post<Record<string, unknown>>(`/register-sessions/${id}/voids`, body),
      close: (id: string, contagem: Record<string, string>) =>
        post<SessionView>(`/register-sessions/${id}/close`, { contagem }),
      report: (id: string) => get<ShiftReport>(`/register-sessions/${id}/report`),
      printReport: (id: string) => post<QueuedPrint>(`/register-sessions/${id}/report/print`, {}),
    },
    reports: {
      sales: (query: { de: string; ate: string; agrupar: SalesGrouping }) =>
        get<SalesReport>('/reports/sales', scoped(query)),
      /** The CSV download, a link a browser opens by itself. */
      salesCsvUrl: (query: { de: string; ate: string; agrupar: SalesGrouping }) =>
        link('/reports/sales', { ...scoped(query), formato: 'csv' }),
    },
    companies: {
      list: (query?: { page?: number; pageSize?: number }) => get<PageList<CompanyView>>('/companies', query),
      get: (id: string) => get<CompanyView>(`/companies/${id}`),
      config: (
        id: string,
        body: {
          ambiente?: string;
          csc_nfce?: string;
          id_csc?: string;
          versao_qrcode?: 2 | 3;
          defaultFiscalProfileId?: string;
        },
      ) => put<{ success: boolean; message: string }>(`/companies/${id}/config`, body),
      /** PUT /v1/companies/:id: the registration data the owner edits (Settings › Empresa). */
      update: (id: string, body: CompanyUpdateInput) => put<CompanyView>(`/companies/${id}`, body),
      sequences: (id: string) => get<NfeSequences>(`/companies/${id}/nfe-sequences`, { environment: 'all' }),
      certificate: (id: string) => get<CertificateStatusView>(`/companies/${id}/certificate`),
      uploadCertificate: (id: string, file: Blob, fileName: string, password: string) => {
        const form = new FormData();
        form.append('password', password);
        form.append('certificate', file, fileName);
        return json<CertificateStatusView>('POST', `/companies/${id}/certificate`, { body: form });
      },
      /** The logo printed on the DANFE/DANFCe; null when the company has none. */
      logo: async (id: string): Promise<Blob | null> => {
        try {
          return await (await send('GET', `/companies/${id}/logo`)).blob();
        } catch (error) {
          if (error instanceof ApiRequestError && error.status === 404) return null;
          throw error;
        }
      },
      uploadLogo: (id: string, file: Blob, fileName: string) => {
        const form = new FormData();
        form.append('logo', file, fileName);
        return json<{ mediaType: string; width: number; height: number; bytes: number }>(
          'PUT',
          `/companies/${id}/logo`,
          { body: form },
        );
      },
      removeLogo: (id: string) => json<undefined>('DELETE', `/companies/${id}/logo`),
      /** The provider's NFS-e tax regime (DPS regTrib); `padrao` while it still comes from the CRT. */
      nfseSettings: (id: string) => get<NfseSettingsViewBody>(`/companies/${id}/nfse-settings`),
      saveNfseSettings: (id: string, body: NfseSettingsRequest) =>
        put<NfseSettingsViewBody>(`/companies/${id}/nfse-settings`, body),
      /** The defaults of the company's DC-e (issuer type, marketplace site, series); `padrao` until saved. */
      dceSettings: (id: string) => get<DceSettingsView>(`/companies/${id}/dce-settings`),
      saveDceSettings: (id: string, body: DceSettingsRequest) =>
        put<DceSettingsView>(`/companies/${id}/dce-settings`, body),
      status: (id: string) => get<CompanyStatus>(`/companies/${id}/status`),
      abandonedNumbers: (id: string, olderThanHours = 24) =>
        get<{ total: number; items: { id: string; modelo: number; serie: number; numero: number }[] }>(
          `/companies/${id}/abandoned-numbers`,
          { older_than_hours: olderThanHours },
        ),
    },
    products: {
      list: (query?: { q?: string; cEAN?: string } & ListQuery) =>
        get<DataList<ProductView>>('/products', scoped(query)),
      get: (id: string) => get<ProductView>(`/products/${id}`),
      create: (body: Record<string, unknown>) => post<ProductView>('/products', body, scoped()),
      update: (id: string, body: Record<string, unknown>) => put<ProductView>(`/products/${id}`, body),
      remove: (id: string) => del(`/products/${id}`),
    },
    /** The services catalogue of the NFS-e; `remove` deactivates and answers the service. */
    services: {
      list: (
        query?: { q?: string; ativo?: 'true' | 'false'; codigoTributacaoNacional?: string } & ListQuery,
      ) => get<DataList<ServiceView>>('/services', scoped(query)),
      get: (id: string) => get<ServiceView>(`/services/${id}`),
      create: (body: Record<string, unknown>) => post<ServiceView>('/services', body, scoped()),
      update: (id: string, body: Record<string, unknown>) => put<ServiceView>(`/services/${id}`, body),
      remove: (id: string) => json<ServiceView>('DELETE', `/services/${id}`),
    },
    fiscalProfiles: {
      list: (query?: ListQuery) => get<DataList<FiscalProfileView>>('/fiscal-profiles', scoped(query)),
      create: (body: Record<string, unknown>) => post<FiscalProfileView>('/fiscal-profiles', body, scoped()),
      get: (id: string) => get<FiscalProfileView>(`/fiscal-profiles/${id}`),
      update: (id: string, body: Record<string, unknown>) =>
        put<FiscalProfileView>(`/fiscal-profiles/${id}`, body),
    },
    customers: {
      list: (query?: { q?: string } & ListQuery) => get<DataList<CustomerView>>('/customers', scoped(query)),
      get: (id: string) => get<CustomerView>(`/customers/${id}`),
      create: (body: Record<string, unknown>) => post<CustomerView>('/customers', body, scoped()),
    },
    nfce: {
      /** The cashier's sale: answers authorized or in offline contingency within a few seconds. */
      sell: (body: SalePayload, idempotencyKey: string) =>
        post<DocumentView>('/nfce/venda', body, scoped(), idempotent(idempotencyKey)),
      list: (query?: DocumentListFilter & { limit?: number; offset?: number }) =>
        get<OffsetList<DocumentView>>('/nfce', scoped(query)),
      print: (id: string, body: { printerId?: string } = {}) => post<QueuedPrint>(`/nfce/${id}/print`, body),
      reprint: (id: string, body: { printerId?: string } = {}) =>
        post<QueuedPrint>(`/nfce/${id}/reprint`, body),
      previewUrl: (id: string, largura: 58 | 80 = 80) => link(`/nfce/${id}/escpos/preview.png`, { largura }),
    },
    nfe: {
      create: (body: NfeDraftPayload) => post<DocumentView>('/nfe', body, scoped()),
      update: (id: string, body: NfeDraftPayload) => put<DocumentView>(`/nfe/${id}`, body),
      send: (id: string, idempotencyKey: string) =>
        post<SyncSendAnswer>(`/nfe/${id}/send`, {}, { sync: 'true' }, idempotent(idempotencyKey)),
      list: (query?: DocumentListFilter & { page?: number; pageSize?: number }) =>
        get<PageList<DocumentView>>('/nfe', scoped(query)),
      correctionLetter: (id: string, correcao: string) =>
        post<CorrectionLetterView>(`/nfe/${id}/correction-letter`, { correcao }),
      devolucao: (id: string, itens?: { nItem: number; quantidade: string }[]) =>
        post<DocumentView>(`/nfe/${id}/devolucao`, itens === undefined ? {} : { itens }),
      voidRange: (body: VoidRangeRequest) => post<VoidRangeResult>('/nfe/inutilizar', body, scoped()),
      batch: (notas: unknown[], idempotencyKey: string) =>
        post<{ batchId: string; total: number; status: string }>('/nfe/batch', { notas }, scoped(), {
          'Idempotency-Key': idempotencyKey,
        }),
      batchProgress: (batchId: string) => get<BatchProgress>(`/nfe/batch/${batchId}`),
    },
    /** /v1/cte (§4.3): drafts, the queue, events and files of the CT-e. */
    cte: {
      create: (body: CteCreateBody, idempotencyKey?: string) =>
        post<CteView>('/cte', body, scoped(), idempotent(idempotencyKey)),
      list: (query?: { status?: string; from?: string; to?: string } & ListQuery) =>
        get<DataList<CteView>>('/cte', scoped(query)),
      get: (id: string) => get<CteView>(`/cte/${id}`),
      send: (id: string, idempotencyKey: string) =>
        post<CteSendAnswer>(`/cte/${id}/send`, undefined, undefined, idempotent(idempotencyKey)),
      remove: (id: string) => del(`/cte/${id}`),
      cancel: (id: string, justificativa: string) =>
        post<CteEventView>(`/cte/${id}/cancel`, { justificativa }),
      cce: (id: string, body: CteCceRequest) => post<CteEventView>(`/cte/${id}/cce`, body),
      voidRange: (body: CteVoidRequest) => post<CteVoidAnswer>('/cte/inutilizar', body, scoped()),
      debug: (id: string) => get<CteDebug>(`/cte/${id}/debug`),
      xml: async (id: string) => (await send('GET', `/cte/${id}/xml`)).text(),
      /** The DACTE a browser opens by itself; `download` asks for an attachment, `regenerate` rebuilds it. */
      dacteUrl: (id: string, options: { download?: boolean; regenerate?: boolean } = {}) =>
        link(`/cte/${id}/dacte`, {
          ...(options.download === true ? { download: 'true' } : {}),
          ...(options.regenerate === true ? { regenerate: 'true' } : {}),
        }),
    },
    /** /v1/nfse (§4.4): the national NFS-e, its drafts, cancellation, substitution and files. */
    nfse: {
      /** Issued at once: 200 authorized within the wait, 202 queued (`message` says how to follow it). */
      issue: (body: NfseCreateBody, idempotencyKey?: string) =>
        post<NfseView>('/nfse', body, scoped(), idempotent(idempotencyKey)),
      /** A draft (`rascunho`, 201), sent later with `send`. */
      createDraft: (body: NfseCreateBody, idempotencyKey?: string) =>
        post<NfseView>('/nfse', body, scoped({ rascunho: 'true' }), idempotent(idempotencyKey)),
      list: (query?: { status?: string; from?: string; to?: string } & ListQuery) =>
        get<DataList<NfseView>>('/nfse', scoped(query)),
      get: (id: string) => get<NfseView>(`/nfse/${id}`),
      update: (id: string, body: NfseCreateBody) => put<NfseView>(`/nfse/${id}`, body),
      send: (id: string, idempotencyKey: string) =>
        post<NfseView>(`/nfse/${id}/send`, undefined, undefined, idempotent(idempotencyKey)),
      remove: (id: string) => del(`/nfse/${id}`),
      cancel: (id: string, body: NfseCancelRequest) => post<NfseCancelAnswer>(`/nfse/${id}/cancel`, body),
      substitute: (id: string, body: NfseSubstituteBody) =>
        post<NfseSubstituteAnswer>(`/nfse/${id}/substituir`, body),
      xml: (id: string) => get<NfseXmlAnswer>(`/nfse/${id}/xml`),
      /** The DANFSe a browser opens by itself; `download` asks for an attachment. */
      danfseUrl: (id: string, options: { download?: boolean } = {}) =>
        link(`/nfse/${id}/danfse`, options.download === true ? { download: 'true' } : {}),
    },
    /** /v1/dce: the DC-e (content declaration, model 99), its drafts, sending, cancellation and files. */
    dce: {
      /** A draft (`rascunho`, 201): number reserved, XML signed; sent later with `send`. */
      create: (body: DcePayloadInput, idempotencyKey?: string) =>
        post<DceView>('/dce', body, scoped(), idempotent(idempotencyKey)),
      list: (query?: { status?: string; from?: string; to?: string; q?: string } & ListQuery) =>
        get<DataList<DceView>>('/dce', scoped(query)),
      get: (id: string) => get<DceView>(`/dce/${id}`),
      update: (id: string, body: DcePayloadInput) => put<DceView>(`/dce/${id}`, body),
      /** Queued for the authority (202, `processando`). */
      send: (id: string, idempotencyKey: string) =>
        post<DceView>(`/dce/${id}/send`, undefined, undefined, idempotent(idempotencyKey)),
      remove: (id: string) => del(`/dce/${id}`),
      cancel: (id: string, body: DceCancelRequest) => post<DceCancelAnswer>(`/dce/${id}/cancel`, body),
      /** Every XML of the DC-e: the signed DCe, its dceProc once authorized, and its events. */
      xml: (id: string) => get<DceXmlAnswer>(`/dce/${id}/xml`, { formato: 'json' }),
      /** The DACE a browser opens by itself: A4 or the 100 × 150 mm label; `previa` prints a draft for checking. */
      daceUrl: (id: string, options: { formato?: 'a4' | 'etiqueta'; previa?: boolean } = {}) =>
        link(`/dce/${id}/dace`, {
          ...(options.formato === undefined ? {} : { formato: options.formato }),
          ...(options.previa === true ? { previa: 'true' } : {}),
        }),
    },
    documents: {
      get: (modelo: 55 | 65, id: string) => get<DocumentView>(`${docBase(modelo)}/${id}`),
      xml: async (modelo: 55 | 65, id: string) => (await send('GET', `${docBase(modelo)}/${id}/xml`)).text(),
      cancel: (modelo: 55 | 65, id: string, justificativa: string) =>
        post<DocumentView>(`${docBase(modelo)}/${id}/cancel`, { justificativa }),
      events: (id: string) => get<{ items: EventView[] }>(`/nfe/${id}/events`),
      danfeUrl: (modelo: 55 | 65, id: string) => link(`${docBase(modelo)}/${id}/danfe`),
    },
    received: {
      list: (query?: { manifestacao?: string } & ListQuery) =>
        get<DataList<ReceivedNoteView>>('/nfe/received', scoped(query)),
      get: (id: string) => get<ReceivedNoteDetail>(`/nfe/received/${id}`),
      sync: () => post<Record<string, unknown>>('/nfe/received/sync', {}, scoped()),
      manifest: (id: string, tipo: ManifestationType, justificativa?: string) =>
        post<ManifestationResult>(
          `/nfe/received/${id}/manifest`,
          justificativa === undefined ? { tipo } : { tipo, justificativa },
        ),
    },
    apiKeys: {
      list: (query?: { page?: number; pageSize?: number }) => get<PageList<ApiKeyView>>('/api-keys', query),
      create: (body: Omit<ApiKeyCreate, 'plan'> & { plan?: ApiKeyCreate['plan'] }) =>
        post<ApiKeyCreated>('/api-keys', body),
      rotate: (id: string, graceSeconds: number) =>
        post<ApiKeyCreated>(`/api-keys/${id}/rotate`, { graceSeconds }),
      revoke: (id: string) => post<ApiKeyView>(`/api-keys/${id}/revoke`, {}),
    },
    webhooks: {
      list: (query?: ListQuery) => get<DataList<WebhookView>>('/webhooks', scoped(query)),
      create: (body: {
        url: string;
        eventos: WebhookEventPattern[];
        descricao?: string;
        permitirRedeLocal?: boolean;
      }) => post<WebhookWithSecret>('/webhooks', body, scoped()),
      update: (id: string, body: { ativo?: boolean; url?: string; eventos?: WebhookEventPattern[] }) =>
        put<WebhookView>(`/webhooks/${id}`, body),
      remove: (id: string) => del(`/webhooks/${id}`),
      rotateSecret: (id: string) => post<WebhookWithSecret>(`/webhooks/${id}/rotate-secret`, {}),
      testConnection: (id: string) => post<Record<string, unknown>>(`/webhooks/${id}/test-connection`, {}),
      deliveries: (id: string, query?: { status?: DeliveryStatus } & ListQuery) =>
        get<DataList<DeliveryView>>(`/webhooks/${id}/deliveries`, query),
      delivery: (id: string, deliveryId: string) =>
        get<DeliveryDetailView>(`/webhooks/${id}/deliveries/${deliveryId}`),
      redeliver: (id: string, deliveryId: string) =>
        post<DeliveryView>(`/webhooks/${id}/deliveries/${deliveryId}/redeliver`, {}),
    },
    printers: {
      list: (companyId: string) =>
        get<PageList<PrinterView>>(`/companies/${companyId}/printers`, { pageSize: 100 }),
      create: (companyId: string, body: Record<string, unknown>) =>
        post<PrinterView>(`/companies/${companyId}/printers`, body),
      update: (companyId: string, printerId: string, body: Record<string, unknown>) =>
        put<PrinterView>(`/companies/${companyId}/printers/${printerId}`, body),
      remove: (companyId: string, printerId: string) => del(`/companies/${companyId}/printers/${printerId}`),
      status: (companyId: string, printerId: string) =>
        get<PrinterStatusView>(`/companies/${companyId}/printers/${printerId}/status`),
      test: (companyId: string, printerId: string) =>
        post<QueuedPrint>(`/companies/${companyId}/printers/${printerId}/test`, {}),
      /** Opens the printer's cash drawer (ESC p). */
      drawer: (companyId: string, printerId: string) =>
        post<QueuedPrint>(`/companies/${companyId}/printers/${printerId}/drawer`, {}),
    },
    printJobs: {
      list: (query?: { status?: PrintJobStatus; documentId?: string; page?: number; pageSize?: number }) =>
        get<PageList<PrintJobView>>('/print-jobs', scoped(query)),
      get: (jobId: string) => get<PrintJobView>(`/print-jobs/${jobId}`),
      retry: (jobId: string) => post<QueuedPrint>(`/print-jobs/${jobId}/retry`, {}),
    },
    sandbox: {
      faults: () => get<Record<string, unknown>>('/sandbox/faults'),
      setFaults: (body: Record<string, unknown>) => post<Record<string, unknown>>('/sandbox/faults', body),
    },
    pix: {
      /** The company's PSP for dynamic PIX; 404 when it has none (PIX stays static). */
      config: (companyIdOf: string) => get<PixConfigView>(`/companies/${companyIdOf}/pix`),
      saveConfig: (companyIdOf: string, body: PixConfigInput) =>
        put<PixConfigView>(`/companies/${companyIdOf}/pix`, body),
      removeConfig: (companyIdOf: string) => del(`/companies/${companyIdOf}/pix`),
      /** A new token from the PSP with the stored settings ("Testar conexão"). */
      testConnection: (companyIdOf: string) =>
        post<PixConnectionTest>(`/companies/${companyIdOf}/pix/test`, {}),
      createCharge: (body: { valor: string; descricao?: string }, idempotencyKey?: string) =>
        post<PixChargeView>('/pix/charges', body, scoped(), idempotent(idempotencyKey)),
      charge: (txid: string) => get<PixChargeView>(`/pix/charges/${txid}`),
      cancel: (txid: string) => post<PixChargeView>(`/pix/charges/${txid}/cancel`, {}),
      print: (txid: string) => post<QueuedPrint>(`/pix/charges/${txid}/print`, {}),
      /** Sandbox PSP only: pays the charge as the customer's bank would. */
      simulatePayment: (txid: string) => post<PixChargeView>(`/sandbox/pix/charges/${txid}/pay`, {}),
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
