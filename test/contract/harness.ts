// The conformance suite's view of the service: requests named by the specification's path templates, every
// answer passed through one checking hook, and spec-literal NF-e/NFC-e payloads with their follow-up helpers.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { cnpjCheckDigits } from '../../src-shared/tax-ids.ts';
import { startHarness, type Harness } from '../api/harness.ts';
import { openApiDocument } from '../../src-shared/contracts/api-routes.ts';
import { conformsToOpenApi } from './openapi-check.ts';

/** What every response of the suite is shown to, before the test looks at it. */
export interface CheckedResponse {
  method: string;
  /** The specification's path template, e.g. `/v1/nfe/:id`. */
  template: string;
  status: number;
  contentType: string;
  body: unknown;
}

export type ResponseChecker = (response: CheckedResponse) => void;

/**
 * Checkers run on every response of the suite. The one registered here holds every /v1 answer against the
 * OpenAPI document (GET /v1/openapi.json), so the document cannot drift from the service.
 */
export const responseCheckers: ResponseChecker[] = [
  conformsToOpenApi(openApiDocument('contract'), (problems) => {
    // Soft inside a test (its own assertions still run); hooks (beforeAll) have no test to attach it to.
    const check = expect.getState().currentTestName === undefined ? expect : expect.soft;
    check(problems, 'the answer differs from the OpenAPI document').toEqual([]);
  }),
];

export function checkResponse(response: CheckedResponse): void {
  for (const checker of responseCheckers) checker(response);
}

export interface CallOptions {
  /** Values for the template's `:name` parameters. */
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  json?: unknown;
  /** A raw body (sent with Content-Type application/json unless headers say otherwise). */
  raw?: string;
  /** The X-API-Key to send; default the company key; null sends none. */
  key?: string | null;
  headers?: Record<string, string>;
  /** Return a 429 as it is instead of moving the clock past it and retrying. */
  keep429?: boolean;
}

export interface Res {
  status: number;
  headers: Headers;
  contentType: string;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: unknown;
  text: string;
  bytes: Buffer;
}

export interface Contract {
  h: Harness;
  /** The key sandbox.json hands to integrators: a company key (calls need no companyId). */
  key: string;
  /** The organization key, only for the sandbox switches (an addition beyond the specification). */
  orgKey: string;
  companyId: string;
  call(method: string, template: string, options?: CallOptions): Promise<Res>;
  stop(): Promise<void>;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
export const ACCESS_KEY = /^\d{44}$/;

export const VALID_CPF = '52998224725';
export const cnpjOf = (base12: string): string => base12 + cnpjCheckDigits(base12);
/** A recipient company (not the demo issuer). */
export const RECIPIENT_CNPJ = cnpjOf('112223330001');

export function fill(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} in ${template}`);
    return encodeURIComponent(String(value));
  });
}

export async function startContract(): Promise<Contract> {
  const h = await startHarness();
  const sandbox = JSON.parse(fs.readFileSync(path.join(h.dataDir, 'sandbox.json'), 'utf8')) as {
    apiKey: string;
    organizationApiKey?: string;
  };
  const key = sandbox.apiKey;
  const orgKey = sandbox.organizationApiKey ?? h.apiKey;

  const call = async (method: string, template: string, options: CallOptions = {}): Promise<Res> => {
    let url = fill(template, options.params);
    if (options.query !== undefined) {
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(options.query)) search.set(name, String(value));
      url += `?${search.toString()}`;
    }
    const headers: Record<string, string> = {};
    const sentKey = options.key === undefined ? key : options.key;
    if (sentKey !== null) headers['X-API-Key'] = sentKey;
    let body: string | undefined;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.raw !== undefined) body = options.raw;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    Object.assign(headers, options.headers);
    for (;;) {
      const response = await fetch(`${h.service.url}${url}`, { method, headers, body });
      const bytes = Buffer.from(await response.arrayBuffer());
      // The harness clock stands still, so a per-second budget never refills by itself: move it past the 429.
      if (response.status === 429 && options.keep429 !== true) {
        h.clock.advance(Number(response.headers.get('Retry-After') ?? '1') * 1000);
        continue;
      }
      const contentType = response.headers.get('content-type') ?? '';
      const text = bytes.toString('utf8');
      let parsed: unknown = text;
      if (contentType.includes('application/json')) parsed = JSON.parse(text);
      checkResponse({ method, template, status: response.status, contentType, body: parsed });
      return { status: response.status, headers: response.headers, contentType, body: parsed, text, bytes };
    }
  };
  return { h, key, orgKey, companyId: h.companyId, call, stop: () => h.stop() };
}

// ---------------------------------------------------------------------------------------------------------
// Payloads written from the specification alone.

/** §2.2 recipient: a person, so no state registration is involved. */
export function customerA(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cpfCnpj: VALID_CPF,
    nome: 'Maria da Silva',
    email: 'maria@example.com.br',
    telefone: '11999990000',
    endereco: {
      logradouro: 'Avenida Paulista',
      numero: '1000',
      complemento: 'Sala 1',
      bairro: 'Bela Vista',
      xMun: 'São Paulo',
      UF: 'SP',
      CEP: '01310100',
    },
    ...overrides,
  };
}

/** §2.3 item with only the required fields (and a unit): simple mode must tax it. */
export function itemA(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    codigo: 'CAFE500',
    descricao: 'Cafe torrado 500 g',
    ncm: '09012100',
    unidade: 'UN',
    quantidade: 2,
    valorUnitario: 10.5,
    ...overrides,
  };
}

/** §2.1 spelling A: 2 × 10.50 = 21.00 paid by PIX. */
export function nfeA(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    naturezaOperacao: 'Venda de mercadoria',
    customer: customerA(),
    itens: [itemA()],
    pagamentos: [{ forma: '17', valor: 21 }],
    ...overrides,
  };
}

/** An address in snake_case, as §2.8's taker spells it (and spelling B's recipient, after it). */
export function enderecoB(): Record<string, unknown> {
  return {
    logradouro: 'Avenida Paulista',
    numero: '1000',
    bairro: 'Bela Vista',
    municipio: 'São Paulo',
    uf: 'SP',
    cep: '01310100',
  };
}

/** §2.1 spelling B; the recipient's sub-fields are not named by the specification (snake_case as §2.8). */
export function nfeB(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    natureza_operacao: 'Venda de mercadoria',
    destinatario: {
      cpf_cnpj: VALID_CPF,
      razao_social: 'Maria da Silva',
      uf: 'SP',
      endereco: enderecoB(),
    },
    itens: [
      {
        codigo: 'CAFE500',
        descricao: 'Cafe torrado 500 g',
        ncm: '09012100',
        cfop: '5102',
        quantidade: 2,
        valor_unitario: 10.5,
      },
    ],
    pagamento: { forma: 'pix', valor: 21 },
    ...overrides,
  };
}

/** §2.6 spelling A: anonymous consumer, one item, cash. */
export function nfceA(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    itens: [
      itemA({ codigo: 'AGUA500', descricao: 'Agua mineral 500 ml', ncm: '22021000', valorUnitario: 3.5 }),
    ],
    pagamentos: [{ forma: '01', valor: 7 }],
    ...overrides,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Following documents.

export interface Doc {
  id: string;
  numero: number;
  serie: number;
  status: string;
  chave_acesso?: string | null;
  protocolo?: string | null;
  [field: string]: unknown;
}

/** Polls `GET template` until `until` holds; a generous cap turns a stuck document into a clear failure. */
export async function waitFor(
  c: Contract,
  template: string,
  id: string,
  until: (doc: Doc) => boolean,
  capMs = 30_000,
): Promise<Doc> {
  const deadline = Date.now() + capMs;
  let last: unknown;
  for (;;) {
    const res = await c.call('GET', template, { params: { id } });
    last = res.body;
    if (res.status === 200 && until(res.body as Doc)) return res.body as Doc;
    if (Date.now() > deadline) {
      throw new Error(`${template} ${id} did not reach the expected state; last: ${JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const settled = (doc: Doc) => doc.status !== 'processando' && doc.status !== 'rascunho';

/** Creates an NF-e (201 expected), failing with the body when the service refuses the payload. */
export async function createNfe(c: Contract, payload: unknown = nfeA()): Promise<Doc> {
  const res = await c.call('POST', '/v1/nfe', { json: payload });
  if (res.status !== 201) throw new Error(`POST /v1/nfe answered ${res.status}: ${res.text}`);
  return res.body as Doc;
}

export async function createNfce(c: Contract, payload: unknown = nfceA()): Promise<Doc> {
  const res = await c.call('POST', '/v1/nfce', { json: payload });
  if (res.status !== 201) throw new Error(`POST /v1/nfce answered ${res.status}: ${res.text}`);
  return res.body as Doc;
}

/** Sends a draft (202 expected) and follows it with GET until it leaves processando. */
export async function sendAndSettle(c: Contract, kind: 'nfe' | 'nfce', id: string): Promise<Doc> {
  const res = await c.call('POST', `/v1/${kind}/:id/send`, { params: { id } });
  if (res.status !== 202) throw new Error(`POST /v1/${kind}/:id/send answered ${res.status}: ${res.text}`);
  return waitFor(c, `/v1/${kind}/:id`, id, settled);
}

/** An authorized NF-e from a spec-literal payload, or a failure that says why it is not. */
export async function authorizedNfe(c: Contract, payload: unknown = nfeA()): Promise<Doc> {
  const draft = await createNfe(c, payload);
  const doc = await sendAndSettle(c, 'nfe', draft.id);
  if (doc.status !== 'autorizada') throw new Error(`NF-e ended ${doc.status}: ${JSON.stringify(doc)}`);
  return doc;
}

export async function authorizedNfce(c: Contract, payload: unknown = nfceA()): Promise<Doc> {
  const draft = await createNfce(c, payload);
  const doc = await sendAndSettle(c, 'nfce', draft.id);
  if (doc.status !== 'autorizada') throw new Error(`NFC-e ended ${doc.status}: ${JSON.stringify(doc)}`);
  return doc;
}

// ---------------------------------------------------------------------------------------------------------
// Assertions of §7.

export interface ErrorBody {
  error: string;
  message: string;
  details: { field: string; error: string }[];
  cStat?: unknown;
  [field: string]: unknown;
}

/** §7 error body: `error` and `message` strings, `details` an array of `{field, error}` strings. */
export function expectErrorBody(res: Res, status: number): ErrorBody {
  expect(res.status, res.text).toBe(status);
  expect(res.contentType).toContain('application/json');
  const body = res.body as ErrorBody;
  expect(typeof body.error).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(Array.isArray(body.details)).toBe(true);
  for (const detail of body.details) {
    expect(typeof detail.field).toBe('string');
    expect(typeof detail.error).toBe('string');
  }
  return body;
}

/** A 400 validation_error whose details name `field` (as the caller spelled it). */
export function expectFieldError(res: Res, field: string): ErrorBody {
  const body = expectErrorBody(res, 400);
  expect(body.error).toBe('validation_error');
  expect(
    body.details.map((d) => d.field),
    res.text,
  ).toContain(field);
  return body;
}

/** Every cStat value anywhere in a body (as numbers), to find the authority's code wherever it is kept. */
export function cStatsIn(value: unknown): number[] {
  const found: number[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) {
      for (const [name, child] of Object.entries(node)) {
        if (name === 'cStat' && (typeof child === 'number' || typeof child === 'string'))
          found.push(Number(child));
        else walk(child);
      }
    }
  };
  walk(value);
  return found;
}

/**
 * A rejection with `cStat`: either refused at once (422 with the §7 body carrying cStat) by create or send,
 * or, the authority answering asynchronously, the note ends `erro` and carries the code.
 */
export async function expectRejection(
  c: Contract,
  kind: 'nfe' | 'nfce',
  payload: unknown,
  cStat: number,
): Promise<void> {
  const created = await c.call('POST', `/v1/${kind}`, { json: payload });
  if (created.status === 422) {
    expectErrorBody(created, 422);
    expect(cStatsIn(created.body), created.text).toContain(cStat);
    return;
  }
  expect(created.status, created.text).toBe(201);
  const id = (created.body as Doc).id;
  const sent = await c.call('POST', `/v1/${kind}/:id/send`, { params: { id } });
  if (sent.status === 422) {
    expectErrorBody(sent, 422);
    expect(cStatsIn(sent.body), sent.text).toContain(cStat);
    return;
  }
  expect(sent.status, sent.text).toBe(202);
  const doc = await waitFor(c, `/v1/${kind}/:id`, id, settled);
  expect(doc.status, JSON.stringify(doc)).toBe('erro');
  expect(cStatsIn(doc), JSON.stringify(doc)).toContain(cStat);
}

/** Checks that `value` has every field named, each of the given JSON type. */
export function expectFields(value: unknown, fields: Record<string, FieldType>): void {
  expect(typeof value).toBe('object');
  const record = value as Record<string, unknown>;
  for (const [name, type] of Object.entries(fields)) {
    expect(record, `field ${name} in ${JSON.stringify(value)}`).toHaveProperty(name);
    const actual = record[name];
    const ok =
      type === 'uuid'
        ? typeof actual === 'string' && UUID.test(actual)
        : type === 'iso'
          ? typeof actual === 'string' && ISO_8601.test(actual)
          : type === 'key44'
            ? typeof actual === 'string' && ACCESS_KEY.test(actual)
            : type === 'integer'
              ? Number.isInteger(actual)
              : type === 'array'
                ? Array.isArray(actual)
                : type === 'any'
                  ? true
                  : typeof actual === type;
    expect(ok, `field ${name} should be ${type}, got ${JSON.stringify(actual)}`).toBe(true);
  }
}

export type FieldType =
  'string' | 'number' | 'boolean' | 'object' | 'integer' | 'uuid' | 'iso' | 'key44' | 'array' | 'any';

/** The signed XML of a note, as text. */
export async function xmlOf(c: Contract, kind: 'nfe' | 'nfce', id: string): Promise<string> {
  const res = await c.call('GET', `/v1/${kind}/:id/xml`, { params: { id } });
  expect(res.status, res.text).toBe(200);
  return res.text;
}

/** The text of the first `<tag>` of an XML document. */
export function tagOf(xml: string, tag: string): string | undefined {
  return new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml)?.[1];
}

/** Runs once, on first use, and is shared by the rows that read the same document. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}
