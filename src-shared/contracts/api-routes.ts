// Every /v1 route with its parameters, body and answers, pointing at the zod contracts: the source the
// OpenAPI document (GET /v1/openapi.json) is generated from. A test compares it with the routes Express has.
import { z } from 'zod';
import * as apiKeys from './api-keys.ts';
import * as answers from './answers.ts';
import * as catalog from './catalog.ts';
import {
  dataListSchema,
  offsetListSchema,
  offsetQuerySchema,
  pageLimitQuerySchema,
  pageListSchema,
  pageQuerySchema,
} from './common.ts';
import * as companies from './companies.ts';
import * as customers from './customers.ts';
import * as documents from './documents.ts';
import { errorBodySchema } from './errors.ts';
import { nfePayloadSchema } from './nfe-payload.ts';
import { spellingBName } from './spelling.ts';
import * as printers from './printers.ts';
import { PIX_ROUTES } from './pix-routes.ts';
import { CTE_ROUTES } from './cte-routes.ts';
import { NFSE_ROUTES } from './nfse-routes.ts';
import { DCE_PAYLOAD_COMPONENTS, DCE_ROUTES, DCE_SETTINGS_ROUTES } from './dce-routes.ts';
import { dcePayloadSchema } from './dce-payload.ts';
import { REFERENCE_ROUTES } from './reference-routes.ts';
import { SERVICES_ROUTES } from './services-routes.ts';
import * as services from './services.ts';
import * as operators from './operators.ts';
import * as register from './register.ts';
import * as requests from './requests.ts';
import * as webhooks from './webhooks.ts';
import { buildOpenApiDocument, type ComponentNames, type JsonSchema, type RouteSpec } from './openapi.ts';
import { idempotencyKey, json, jsonBody, ok } from './route-spec.ts';
import { listCursorQuerySchema, NEXT_CURSOR_HEADER } from './list-cursor.ts';

const documentView = documents.documentViewSchema;
const voidResult = documents.voidResultSchema;
const correctionLetterView = documents.correctionLetterViewSchema;
const manifestationResult = documents.manifestationResultSchema;
const webhookView = webhooks.webhookViewSchema;
const webhookWithSecret = webhooks.webhookWithSecretSchema;
const deliveryView = webhooks.deliveryViewSchema;
const deliveryDetailView = webhooks.deliveryDetailViewSchema;
const queuedJob = webhooks.queuedJobSchema;
const nfeSequences = companies.nfeSequencesSchema;

/** §4.6 paging parameters (page, limit, offset; pageSize the older name of limit). */
const pageLimitQuery = z.object(pageLimitQuerySchema.shape);
const withPaging = <S extends z.ZodRawShape>(filters: S) =>
  z.object({ ...pageLimitQuerySchema.shape, ...filters });

// --- creation payloads in both spellings ------------------------------------------------------------

/** Objects whose keys are the layout's tags (CST, pICMS, vBC): the same in both spellings. */
const LAYOUT_GROUPS = new Set(['tributacao', 'impostos']);

/** The spelling-B JSON Schema of a spelling-A one: the same shape under snake_case property names. */
export function toSpellingBSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toSpellingBSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([name, child]) => [
          spellingBName(name),
          LAYOUT_GROUPS.has(name) ? child : toSpellingBSchema(child),
        ]),
      );
    } else if (key === 'required' && Array.isArray(value)) {
      out[key] = value.map((name) => (typeof name === 'string' ? spellingBName(name) : name));
    } else out[key] = toSpellingBSchema(value);
  }
  return out;
}

const payloadA = { $ref: '#/components/schemas/NfePayload' };
const payloadB = { $ref: '#/components/schemas/NfePayloadSnakeCase' };
const payloadEither: JsonSchema = {
  anyOf: [payloadA, payloadB],
  description:
    'Spelling A (camelCase) or spelling B (snake_case, e.g. `natureza_operacao`, `destinatario`, `pagamento`). ' +
    'Both are accepted as written; names may also be mixed.',
};

// --- helpers for the route list --------------------------------------------------------------------------

const noContent = { description: 'Done; no body.' };
const fileAnswer = (type: string, description: string) => ({
  description,
  content: { [type]: { binary: true } as const },
});

const T = {
  companies: 'Empresas',
  certificate: 'Certificado',
  customers: 'Clientes',
  catalog: 'Produtos e perfis fiscais',
  keys: 'Chaves de API',
  webhooks: 'Webhooks',
  nfe: 'NF-e',
  nfce: 'NFC-e',
  files: 'Arquivos (DANFE, XML, ESC/POS)',
  events: 'Eventos (CC-e, cancelamento)',
  voids: 'Inutilização',
  batch: 'Lotes',
  received: 'Notas recebidas (MD-e)',
  printers: 'Impressoras',
  operators: 'Operadores',
  register: 'Caixa',
  reports: 'Relatórios',
  sandbox: 'Autoridade sandbox',
  meta: 'Documentação',
};

function documentRoutes(base: '/v1/nfe' | '/v1/nfce'): RouteSpec[] {
  const nfce = base === '/v1/nfce';
  const tag = nfce ? T.nfce : T.nfe;
  const name = nfce ? 'NFC-e' : 'NF-e';
  return [
    {
      method: 'post',
      path: base,
      summary: `Create an ${name} draft`,
      description: `Reserves the next number, computes taxes, builds, validates and signs the note: 201 \`rascunho\`. Send it with POST ${base}/{id}/send.`,
      tags: [tag],
      company: true,
      ...(nfce ? { query: requests.documentCreateQuerySchema } : {}),
      body: { required: true, content: { 'application/json': { jsonSchema: payloadEither } } },
      responses: { 201: ok(documentView, `The ${name} draft.`) },
      errors: [409, 422, 503],
    },
    ...(nfce
      ? [
          {
            method: 'post',
            path: '/v1/nfce/venda',
            summary: 'Sell an NFC-e in one step (Balcão addition)',
            description:
              "The cashier's sale: reserves the number, issues and sends the NFC-e; waits up to 3 s for the authority, otherwise completes in offline contingency (tpEmis 9). 201 with `status` `autorizada` or `contingencia`.",
            tags: [tag],
            company: true,
            headers: [idempotencyKey],
            body: { required: true, content: { 'application/json': { jsonSchema: payloadEither } } },
            responses: { 201: ok(documentView, 'The NFC-e, authorized or in contingency.') },
            errors: [409, 422, 503],
          } satisfies RouteSpec,
        ]
      : []),
    {
      method: 'get',
      path: base,
      summary: `List ${name}`,
      description:
        (nfce
          ? '§4.2 list: `limit`/`offset`.'
          : '§4.1 list (`page`, `pageSize`); `modelo=65` answers the §4.2 shape of the NFC-e list.') +
        ' Keyset paging (addition): `cursor` = the `X-Next-Cursor` of a previous answer starts just after its last row; not with `offset` or `page`.',
      tags: [tag],
      company: true,
      query: nfce
        ? requests.documentListFilterSchema.extend({
            ...offsetQuerySchema.shape,
            ...listCursorQuerySchema.shape,
          })
        : requests.documentListFilterSchema.extend({
            ...pageQuerySchema.shape,
            ...offsetQuerySchema.shape,
            ...listCursorQuerySchema.shape,
          }),
      responses: {
        200: {
          ...(nfce
            ? ok(offsetListSchema(documentView))
            : ok(z.union([pageListSchema(documentView), offsetListSchema(documentView)]))),
          headers: {
            [NEXT_CURSOR_HEADER]: {
              description: 'The `cursor` of the page after this one; absent on the last page.',
              schema: { type: 'string' },
            },
          },
        },
      },
    },
    {
      method: 'get',
      path: `${base}/{id}`,
      summary: `Read an ${name}`,
      tags: [tag],
      responses: { 200: ok(documentView) },
    },
    {
      method: 'put',
      path: `${base}/{id}`,
      summary: `Replace a draft or rejected ${name}`,
      description: 'Only for `rascunho` or `erro`; the number is kept. Same body as the creation.',
      tags: [tag],
      body: { required: true, content: { 'application/json': { jsonSchema: payloadEither } } },
      responses: { 200: ok(documentView) },
      errors: [409, 422, 503],
    },
    {
      method: 'post',
      path: `${base}/{id}/send`,
      summary: `Send an ${name} to the authority`,
      description: nfce
        ? "202 `processando` (or `contingencia` when offline). `?sync=true` is the cashier's mode: authorized or issued in contingency within 3 s → 200."
        : '202 `processando`; `?sync=true` waits up to 10 s and answers 200 with the synchronous variant.',
      tags: [tag],
      query: requests.sendQuerySchema,
      headers: [idempotencyKey],
      responses: {
        200: ok(answers.syncSendAnswerSchema, 'Synchronous variant (`?sync=true`).'),
        202: ok(documentView, 'Queued (`processando`).'),
      },
      errors: [409, 422, 502, 503],
    },
    {
      method: 'post',
      path: `${base}/{id}/cancel`,
      summary: `Cancel an authorized ${name}`,
      description: nfce
        ? 'Within 30 min of the authorization (422 with `cStat` 501 after) → 202.'
        : 'Within 24 h of the authorization (422 with `cStat` 501 after) → 202; ends `cancelada`.',
      tags: [tag, T.events],
      body: jsonBody(requests.cancelRequestSchema),
      responses: { 202: ok(documentView, 'Cancellation queued.') },
      errors: [409, 422, 502, 503],
    },
    {
      method: 'get',
      path: `${base}/{id}/xml`,
      summary: `The ${name} XML`,
      description: '`nfeProc` (with `protNFe`) once authorized; the signed `NFe` before.',
      tags: [tag, T.files],
      auth: 'key-or-query',
      responses: { 200: fileAnswer('application/xml', 'The XML.') },
    },
    {
      method: 'get',
      path: `${base}/{id}/danfe`,
      summary: nfce ? 'The DANFCe (PDF)' : 'The DANFE (PDF; the DANFCe for an NFC-e)',
      tags: [tag, T.files],
      auth: 'key-or-query',
      query: requests.danfeQuerySchema,
      responses: { 200: fileAnswer('application/pdf', 'The PDF.') },
      errors: [409],
    },
  ];
}

const codePages = printers.PRINTER_CODE_PAGES;

export const ROUTES: readonly RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    description: 'Public: needs no API key.',
    tags: [T.meta],
    auth: 'public',
    responses: { 200: { description: 'The document.', content: { 'application/json': { jsonSchema: {} } } } },
  },
  // --- companies ---
  {
    method: 'get',
    path: '/v1/companies',
    summary: 'Companies the key reaches',
    tags: [T.companies],
    query: pageQuerySchema,
    responses: { 200: ok(pageListSchema(companies.companyViewSchema)) },
  },
  {
    method: 'post',
    path: '/v1/companies',
    summary: 'Create a company (organization key)',
    tags: [T.companies],
    body: jsonBody(companies.companyCreateSchema),
    responses: { 201: ok(companies.companyViewSchema, 'Created.') },
    errors: [403, 409],
  },
  {
    method: 'get',
    path: '/v1/companies/{id}',
    summary: 'Read a company',
    description: 'The CSC token is never returned.',
    tags: [T.companies],
    responses: { 200: ok(companies.companyViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{id}',
    summary: "Edit a company's registration data",
    description:
      'Razão social, nome fantasia, IE, IM, e-mail and the address (replaced whole; the IBGE code is checked). ' +
      'The CNPJ, the tax regime and the environment are not edited here. `null` clears an optional field.',
    tags: [T.companies],
    body: jsonBody(companies.companyUpdateSchema),
    responses: { 200: ok(companies.companyViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{id}/config',
    summary: 'Change environment and NFC-e CSC',
    tags: [T.companies],
    body: jsonBody(companies.companyConfigSchema),
    responses: { 200: ok(companies.companyConfigResultSchema) },
  },
  {
    method: 'get',
    path: '/v1/companies/{id}/nfe-sequences',
    summary: 'Numbering of the NF-e and NFC-e series',
    tags: [T.companies],
    query: companies.sequencesQuerySchema,
    responses: { 200: ok(nfeSequences) },
  },
  {
    method: 'get',
    path: '/v1/companies/{companyId}/status',
    summary: 'What the status bar shows: authority mode, queue, certificate',
    tags: [T.companies],
    params: { companyId: 'Id of the company.' },
    responses: { 200: ok(documents.companyStatusSchema) },
  },
  {
    method: 'post',
    path: '/v1/companies/{id}/certificate',
    summary: 'Upload the A1 certificate',
    description: 'Multipart (`certificate` file + `password`) or JSON with the .pfx in base64.',
    tags: [T.certificate],
    body: {
      required: true,
      content: {
        'application/json': requests.certificateJsonSchema,
        'multipart/form-data': {
          jsonSchema: {
            type: 'object',
            properties: {
              certificate: { type: 'string', contentMediaType: 'application/x-pkcs12' },
              password: { type: 'string' },
            },
            required: ['certificate', 'password'],
          },
        },
      },
    },
    responses: { 201: ok(companies.certificateStatusViewSchema, 'Stored.') },
    errors: [422],
  },
  {
    method: 'get',
    path: '/v1/companies/{id}/certificate',
    summary: 'Certificate status',
    tags: [T.certificate],
    responses: { 200: ok(companies.certificateStatusViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{id}/logo',
    summary: 'Upload the logo printed on the DANFE and DANFCe',
    description:
      'The image as the body (PNG or JPEG, at most 256 KiB and 2000×2000 px) or multipart with the file in `logo`.',
    tags: [T.companies],
    body: {
      required: true,
      content: {
        'image/png': { binary: true },
        'image/jpeg': { binary: true },
        'multipart/form-data': {
          jsonSchema: {
            type: 'object',
            properties: { logo: { type: 'string', contentMediaType: 'image/png' } },
            required: ['logo'],
          },
        },
      },
    },
    responses: { 200: ok(answers.logoInfoSchema) },
    errors: [400, 413],
  },
  {
    method: 'get',
    path: '/v1/companies/{id}/logo',
    summary: 'The stored logo',
    tags: [T.companies],
    responses: {
      200: {
        description: 'The image.',
        content: { 'image/png': { binary: true }, 'image/jpeg': { binary: true } },
      },
    },
  },
  {
    method: 'delete',
    path: '/v1/companies/{id}/logo',
    summary: 'Remove the logo',
    tags: [T.companies],
    responses: { 204: noContent },
  },
  {
    method: 'get',
    path: '/v1/companies/{id}/abandoned-numbers',
    summary: 'Numbers reserved but never issued',
    tags: [T.voids],
    query: requests.abandonedQuerySchema,
    responses: { 200: ok(answers.abandonedNumbersSchema) },
  },
  {
    method: 'get',
    path: '/v1/companies/{id}/xml-export',
    summary: "The month's XML for the accountant (zip)",
    description:
      'Every authorized, denied or cancelled note whose `dhEmi` falls in `mes` (company time zone), as `nfeProc`, ' +
      'in `NFe/` and `NFCe/` (`<chave>-procNFe.xml`); the cancellations, substitutions and CC-e registered in ' +
      'the month as `procEventoNFe` in `Eventos/`; the homologated inutilizações as `ProcInutNFe` in ' +
      '`Inutilizacoes/`; and `resumo.csv` (`;`-separated, one line per file). Each XML is the stored one, byte ' +
      'for byte. A month with nothing is a zip holding only the CSV header.',
    tags: [T.files],
    auth: 'key-or-query',
    query: requests.xmlExportQuerySchema,
    responses: { 200: fileAnswer('application/zip', 'The zip.') },
  },
  {
    method: 'post',
    path: '/v1/companies/{id}/abandoned-numbers/void',
    summary: 'Void (inutilização) the abandoned numbers',
    tags: [T.voids],
    body: jsonBody(requests.abandonedVoidRequestSchema, false),
    responses: { 200: ok(answers.abandonedVoidAnswerSchema(voidResult)) },
    errors: [503],
  },
  // --- customers and catalog ---
  ...crud(
    '/v1/customers',
    T.customers,
    'customer',
    customers.customerCreateSchema,
    customers.customerViewSchema,
    {
      listFilters: customers.customerListQuerySchema.shape,
      remove: false,
    },
  ),
  ...crud(
    '/v1/fiscal-profiles',
    T.catalog,
    'fiscal profile',
    catalog.fiscalProfileCreateSchema,
    catalog.fiscalProfileViewSchema,
    { listFilters: {}, remove: true },
  ),
  ...crud('/v1/products', T.catalog, 'product', catalog.productCreateSchema, catalog.productViewSchema, {
    listFilters: catalog.productListQuerySchema.shape,
    remove: true,
  }),
  // --- services catalogue (services-routes.ts) ---
  ...SERVICES_ROUTES,
  // --- operators (issue 13) ---
  {
    method: 'get',
    path: '/v1/operators',
    summary: 'Operators of the company',
    tags: [T.operators],
    company: true,
    query: withPaging(operators.operatorListQuerySchema.shape),
    responses: { 200: ok(dataListSchema(operators.operatorViewSchema)) },
  },
  {
    method: 'post',
    path: '/v1/operators',
    summary: 'Create an operator',
    description:
      '`pin`: 4 to 8 digits (400 on `pin`), not one digit repeated nor a run like 1234 (422 on `pin`); stored as ' +
      'a slow hash. ' +
      '`codigo` (1 to 6 digits) is the next free number when absent; a code in use is 409.',
    tags: [T.operators],
    company: true,
    body: jsonBody(operators.operatorCreateSchema),
    responses: { 201: ok(operators.operatorViewSchema, 'Created.') },
    errors: [409, 422],
  },
  {
    method: 'post',
    path: '/v1/operators/sign-in',
    summary: 'Sign an operator in with code and PIN',
    description:
      'Answers the token to send in `X-Operator-Token` (valid 12 h). A wrong PIN is 401 `pin_invalido` with the ' +
      'attempts left; the 5th wrong PIN in a row locks the operator for 5 min (doubling at each further lock, up ' +
      'to 1 h): 423 `operador_bloqueado`. An unknown or inactive code is 401 on `codigo`.',
    tags: [T.operators],
    company: true,
    body: jsonBody(operators.signInSchema),
    responses: { 200: ok(operators.signInAnswerSchema) },
    errors: [423],
  },
  {
    method: 'post',
    path: '/v1/operators/sign-out',
    summary: 'End the session of `X-Operator-Token`',
    tags: [T.operators],
    headers: [{ name: 'X-Operator-Token', description: 'The token of the operator signing out.' }],
    responses: { 204: noContent },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/operators/me',
    summary: 'The operator of `X-Operator-Token`',
    tags: [T.operators],
    headers: [{ name: 'X-Operator-Token', description: 'The signed-in operator.' }],
    responses: { 200: ok(operators.meAnswerSchema) },
    errors: [400],
  },
  {
    method: 'post',
    path: '/v1/operators/authorize',
    summary: "A supervisor's approval of one action",
    description:
      'The supervisor types code and PIN (counted and locked like a sign-in). The answer `autorizacao` goes in ' +
      '`X-Supervisor-Authorization` of the request it approves: single use, 2 minutes, only for `acao`. A caixa ' +
      'cannot approve (403 `papel_insuficiente`).',
    tags: [T.operators],
    company: true,
    headers: [{ name: 'X-Operator-Token', description: 'The operator asking, when signed in.' }],
    body: jsonBody(operators.authorizeSchema),
    responses: { 200: ok(operators.authorizeAnswerSchema) },
    errors: [423],
  },
  {
    method: 'post',
    path: '/v1/operators/actions',
    summary: 'Record an action only the cashier screen sees (item removed after payment started)',
    description:
      'Needs `X-Operator-Token`; a caixa also needs `X-Supervisor-Authorization` for `remover_item` (403 ' +
      '`autorizacao_necessaria` otherwise). Written to the audit.',
    tags: [T.operators],
    headers: [
      { name: 'X-Operator-Token', description: 'The signed-in operator.' },
      { name: 'X-Supervisor-Authorization', description: 'The approval, when the role needs one.' },
    ],
    body: jsonBody(operators.operatorActionRequestSchema),
    responses: { 201: ok(operators.operatorActionAnswerSchema, 'Recorded.') },
    errors: [403],
  },
  {
    method: 'get',
    path: '/v1/operators/actions',
    summary: 'The audit: what operators did and who approved it',
    tags: [T.operators],
    company: true,
    query: withPaging(operators.operatorActionsQuerySchema.shape),
    responses: { 200: ok(dataListSchema(operators.operatorActionViewSchema)) },
  },
  {
    method: 'get',
    path: '/v1/operators/{id}',
    summary: 'Read an operator',
    tags: [T.operators],
    responses: { 200: ok(operators.operatorViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/operators/{id}',
    summary: 'Change an operator',
    description: 'A new `pin` also lifts a lock; a new role, PIN or `ativo: false` ends open sessions.',
    tags: [T.operators],
    body: jsonBody(operators.operatorUpdateSchema),
    responses: { 200: ok(operators.operatorViewSchema) },
    errors: [422],
  },
  {
    method: 'delete',
    path: '/v1/operators/{id}',
    summary: 'Deactivate an operator',
    description: 'The row stays (notes and the audit keep naming the operator); sign-in is refused.',
    tags: [T.operators],
    responses: { 204: noContent },
  },
  // --- register sessions and sales reports (issue 13) ---
  {
    method: 'post',
    path: '/v1/register-sessions',
    summary: 'Open a register with the counted float',
    description:
      'Needs `X-Operator-Token` (400 naming it otherwise); `caixa` defaults to the one the operator signed in ' +
      'on. 409 `caixa_ja_aberto` when that register is open. Prints the opening ticket and opens the drawer ' +
      '(`impressao` is null without a default printer).',
    tags: [T.register],
    headers: [{ name: 'X-Operator-Token', description: 'The operator opening the register.' }],
    body: jsonBody(register.sessionOpenSchema),
    responses: { 201: ok(register.sessionViewSchema, 'Opened.') },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/register-sessions',
    summary: 'Register sessions, newest first',
    description: "`de`/`ate` (AAAA-MM-DD) filter on the opening day in the store's time zone (its UF's).",
    tags: [T.register],
    company: true,
    query: withPaging(register.sessionListQuerySchema.shape),
    responses: { 200: ok(dataListSchema(register.sessionViewSchema)) },
  },
  {
    method: 'get',
    path: '/v1/register-sessions/current',
    summary: 'The open session of a register',
    description: '`caixa` defaults to the signed-in operator\'s register, else "1". 404 when it is closed.',
    tags: [T.register],
    company: true,
    query: register.currentSessionQuerySchema,
    responses: { 200: ok(register.sessionViewSchema) },
  },
  {
    method: 'get',
    path: '/v1/register-sessions/{id}',
    summary: 'Read a register session',
    description:
      '`fechamento` is null while the session is open: the expected amounts are never shown before the blind count.',
    tags: [T.register],
    responses: { 200: ok(register.sessionViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/register-sessions/{id}/movements',
    summary: 'Sangria (withdrawal) or suprimento (reinforcement)',
    description:
      'Needs `X-Operator-Token`. Written in one transaction; the ticket is printed and the drawer opened. 409 ' +
      '`caixa_fechado` on a closed session.',
    tags: [T.register],
    headers: [{ name: 'X-Operator-Token', description: 'The operator moving the cash.' }],
    body: jsonBody(register.movementCreateSchema),
    responses: { 201: ok(register.movementViewSchema, 'Recorded.') },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/register-sessions/{id}/voids',
    summary: 'Report a removed item or an abandoned sale (shift report "voids")',
    tags: [T.register],
    headers: [{ name: 'X-Operator-Token', description: 'The operator at the register.' }],
    body: jsonBody(register.voidCreateSchema),
    responses: { 201: ok(register.voidViewSchema, 'Recorded.') },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/register-sessions/{id}/close',
    summary: 'Close with the blind count',
    description:
      'Needs `X-Operator-Token`. `contagem` per payment method (spelling-B names; a missing method counts 0) is ' +
      'compared with what was expected (cash: float + cash kept after change + suprimentos − sangrias); the ' +
      'report is fixed with the session in one transaction and printed. 409 `caixa_fechado` when already closed.',
    tags: [T.register],
    headers: [{ name: 'X-Operator-Token', description: 'The operator closing the register.' }],
    body: jsonBody(register.sessionCloseSchema),
    responses: { 200: ok(register.sessionClosedSchema) },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/register-sessions/{id}/report',
    summary: 'The shift report',
    description:
      'Fixed at closing. While the session is open, a partial reading with `esperado`, `contado` and `diferenca` null.',
    tags: [T.register],
    responses: { 200: ok(register.shiftReportSchema) },
  },
  {
    method: 'post',
    path: '/v1/register-sessions/{id}/report/print',
    summary: 'Print the shift report',
    tags: [T.register],
    responses: { 202: ok(printers.queuedPrintSchema, 'Queued.') },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/reports/sales',
    summary: 'Sales report by day, register session, operator, product or payment method',
    description:
      'Authorized and contingency NF-e and NFC-e whose issue day (`dhEmi`, local) is within `de`..`ate`; cancelled ' +
      'notes are left out and summed in `canceladas`. `formato=csv` (or `Accept: text/csv`) answers a ' +
      '`;`-separated CSV with decimal commas and a UTF-8 BOM, as an attachment.',
    tags: [T.reports],
    auth: 'key-or-query',
    company: true,
    query: register.salesReportQuerySchema,
    responses: {
      200: {
        description: 'The report.',
        content: { ...json(register.salesReportSchema), 'text/csv': { binary: true } },
      },
    },
  },
  // --- API keys ---
  {
    method: 'get',
    path: '/v1/api-keys',
    summary: 'API keys the key manages',
    tags: [T.keys],
    query: pageQuerySchema,
    responses: { 200: ok(pageListSchema(apiKeys.apiKeyViewSchema)) },
  },
  {
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create an API key (the secret is shown once)',
    tags: [T.keys],
    body: jsonBody(apiKeys.apiKeyCreateSchema),
    responses: { 201: ok(apiKeys.apiKeyCreatedSchema, 'Created.') },
    errors: [403],
  },
  {
    method: 'get',
    path: '/v1/api-keys/{id}',
    summary: 'Read an API key',
    tags: [T.keys],
    responses: { 200: ok(apiKeys.apiKeyViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/api-keys/{id}/rotate',
    summary: 'Rotate: a new key; the old one works until the grace period ends',
    tags: [T.keys],
    body: jsonBody(apiKeys.apiKeyRotateSchema, false),
    responses: { 201: ok(apiKeys.apiKeyCreatedSchema, 'The new key.') },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/api-keys/{id}/revoke',
    summary: 'Revoke an API key at once',
    tags: [T.keys],
    responses: { 200: ok(apiKeys.apiKeyViewSchema) },
    errors: [409],
  },
  // --- webhooks ---
  {
    method: 'get',
    path: '/v1/webhooks',
    summary: 'Webhooks of the company',
    tags: [T.webhooks],
    company: true,
    query: pageLimitQuery,
    responses: { 200: ok(dataListSchema(webhookView)) },
  },
  {
    method: 'post',
    path: '/v1/webhooks',
    summary: 'Subscribe a URL to events (the secret is shown once)',
    tags: [T.webhooks],
    company: true,
    body: jsonBody(webhooks.webhookCreateSchema),
    responses: { 201: ok(webhookWithSecret, 'Created.') },
  },
  {
    method: 'get',
    path: '/v1/webhooks/{id}',
    summary: 'Read a webhook',
    tags: [T.webhooks],
    responses: { 200: ok(webhookView) },
  },
  {
    method: 'put',
    path: '/v1/webhooks/{id}',
    summary: 'Change a webhook (`ativo: false` pauses deliveries)',
    tags: [T.webhooks],
    body: jsonBody(webhooks.webhookUpdateSchema),
    responses: { 200: ok(webhookView) },
  },
  {
    method: 'delete',
    path: '/v1/webhooks/{id}',
    summary: 'Delete a webhook',
    tags: [T.webhooks],
    responses: { 204: noContent },
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/rotate-secret',
    summary: 'New signing secret (shown once)',
    tags: [T.webhooks],
    responses: { 200: ok(webhookWithSecret) },
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/test-connection',
    summary: 'Queue a `ping` delivery',
    tags: [T.webhooks],
    responses: { 202: ok(queuedJob, 'Queued.') },
  },
  {
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    summary: 'Delivery history',
    tags: [T.webhooks],
    query: webhooks.deliveryListQuerySchema,
    responses: { 200: ok(dataListSchema(deliveryView)) },
  },
  {
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries/{deliveryId}',
    summary: 'One delivery with its payload and attempts',
    tags: [T.webhooks],
    params: { deliveryId: 'Id of the delivery.' },
    responses: { 200: ok(deliveryDetailView) },
  },
  {
    method: 'post',
    path: '/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    summary: 'Send a delivery again',
    tags: [T.webhooks],
    params: { deliveryId: 'Id of the delivery.' },
    responses: { 202: ok(queuedJob, 'Queued.') },
    errors: [409],
  },
  // --- sandbox authority ---
  {
    method: 'get',
    path: '/v1/sandbox/faults',
    summary: 'Fault switches of the embedded sandbox authority (organization key)',
    tags: [T.sandbox],
    responses: { 200: ok(answers.sandboxFaultsSchema) },
    errors: [403, 404],
  },
  {
    method: 'post',
    path: '/v1/sandbox/faults',
    summary: 'Switch faults of the embedded sandbox authority (organization key)',
    description:
      'Offline, timeouts, slow answers, 108/109 pauses, lost responses, rejections, seeded random chaos.',
    tags: [T.sandbox],
    body: {
      required: true,
      content: {
        'application/json': {
          jsonSchema: {
            type: 'object',
            additionalProperties: false,
            properties: {
              clear: { type: 'boolean', description: 'Clear every switch first.' },
              online: { type: 'boolean', description: 'false: the authority stops answering.' },
              forMs: {
                type: 'number',
                description: 'With `online: false`: back by itself after this many ms.',
              },
              timeout: { description: 'true, false, null or `{services?, times?}`.' },
              slow: { description: 'Milliseconds, false, null or `{ms, services?, times?}`.' },
              paused: { description: '108, 109, false, null or `{cStat, services?, times?}`.' },
              loseResponse: { description: 'true, false, null or `{services?, times?}`.' },
              reject: {
                description: 'A rejection cStat (201–999), false, null or `{cStat, services?, times?}`.',
              },
              random: {
                description: 'null or `{seed, refuse?, timeout?, slow?, pause?, lose?, slowMs?, services?}`.',
              },
            },
          },
        },
      },
    },
    responses: { 200: ok(answers.sandboxFaultsSchema) },
    errors: [403, 404],
  },
  // --- NF-e batch and received notes (before the documents: /nfe/batch is not /nfe/{id}) ---
  {
    method: 'post',
    path: '/v1/nfe/batch',
    summary: 'Issue up to 50 NF-e at once',
    description:
      'All are validated before any is created; then each is queued. Also accepts the list as `nfes`.',
    tags: [T.batch],
    company: true,
    headers: [idempotencyKey],
    body: {
      required: true,
      content: {
        'application/json': {
          jsonSchema: {
            type: 'object',
            properties: { notas: { type: 'array', minItems: 1, maxItems: 50, items: payloadEither } },
            required: ['notas'],
          },
        },
      },
    },
    responses: { 202: ok(answers.batchCreatedSchema, 'Queued.') },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/nfe/batch/{batchId}',
    summary: 'Progress of a batch and the state of each note',
    tags: [T.batch],
    params: { batchId: 'Id of the batch.' },
    responses: { 200: ok(documents.batchProgressSchema) },
  },
  {
    method: 'get',
    path: '/v1/nfe/received',
    summary: 'Notes addressed to the company (NFeDistribuicaoDFe)',
    tags: [T.received],
    company: true,
    query: withPaging(requests.receivedListFilterSchema.shape),
    responses: { 200: ok(dataListSchema(documents.receivedNoteViewSchema)) },
  },
  {
    method: 'post',
    path: '/v1/nfe/received/sync',
    summary: 'Ask the authority for new notes now',
    tags: [T.received],
    company: true,
    responses: { 200: ok(answers.receivedSyncSchema) },
    errors: [502, 503],
  },
  {
    method: 'get',
    path: '/v1/nfe/received/{id}',
    summary: 'A received note with its XML, manifestations and events',
    tags: [T.received],
    responses: { 200: ok(documents.receivedNoteDetailSchema) },
  },
  {
    method: 'get',
    path: '/v1/nfe/received/{id}/xml',
    summary: "The received note's XML",
    tags: [T.received, T.files],
    responses: { 200: fileAnswer('application/xml', 'The XML.') },
  },
  {
    method: 'post',
    path: '/v1/nfe/received/{id}/manifest',
    summary: 'Manifest the recipient (ciência, confirmação, desconhecimento, não realizada)',
    description:
      'Event codes 210210, 210200, 210220, 210240; `justificativa` (15–255) only with `nao_realizada`.',
    tags: [T.received],
    body: jsonBody(requests.manifestRequestSchema),
    responses: {
      200: ok(manifestationResult, 'Registered by the authority.'),
      202: ok(manifestationResult, 'Queued; the authority has not answered yet.'),
    },
    errors: [409, 422],
  },
  // --- NF-e and NFC-e ---
  ...documentRoutes('/v1/nfe'),
  ...documentRoutes('/v1/nfce'),
  {
    method: 'get',
    path: '/v1/nfce/{id}/escpos',
    summary: 'The receipt as ESC/POS bytes',
    description: '`largura` 80 (48 columns) or 58 (32); `format` raw (octet-stream), base64 (text) or json.',
    tags: [T.nfce, T.files],
    auth: 'key-or-query',
    query: requests.escposQuerySchema(codePages),
    responses: {
      200: {
        description: 'The bytes, as asked by `format`.',
        content: {
          'application/octet-stream': { binary: true },
          'text/plain': { text: true },
          'application/json': answers.escposJsonSchema,
        },
      },
    },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/nfce/{id}/escpos/preview.png',
    summary: 'PNG of exactly what the printer prints',
    tags: [T.nfce, T.files],
    auth: 'key-or-query',
    query: requests.receiptQuerySchema(codePages),
    responses: { 200: fileAnswer('image/png', 'The image.') },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/nfe/{id}/correction-letter',
    summary: 'Send a correction letter (CC-e)',
    description:
      '`correcao` (or `texto_correcao`) 15–1000 characters; authorized NF-e only; sequence numbered automatically.',
    tags: [T.nfe, T.events],
    body: jsonBody(requests.correctionRequestSchema),
    responses: { 202: ok(correctionLetterView, 'Queued.') },
    errors: [409, 422, 502, 503],
  },
  {
    method: 'get',
    path: '/v1/nfe/{id}/correction-letters',
    summary: "The note's correction letters",
    tags: [T.nfe, T.events],
    responses: { 200: ok(z.object({ items: z.array(correctionLetterView) })) },
  },
  {
    method: 'get',
    path: '/v1/nfe/{id}/events',
    summary: "All the note's events and their outcome",
    tags: [T.nfe, T.events],
    responses: { 200: ok(z.object({ items: z.array(documents.eventViewSchema) })) },
  },
  {
    method: 'post',
    path: '/v1/nfe/inutilizar',
    summary: 'Void a range of numbers (inutilização)',
    description:
      'Synchronous: 200 with the outcome (`status` `inutilizada`, or still `processando` when the authority is slow: follow GET /v1/nfe/inutilizar/{id}).',
    tags: [T.voids],
    company: true,
    body: {
      required: true,
      content: {
        'application/json': {
          jsonSchema: {
            anyOf: [
              { $ref: '#/components/schemas/VoidRequest' },
              { $ref: '#/components/schemas/VoidRequestSnakeCase' },
            ],
          },
        },
      },
    },
    responses: { 200: ok(voidResult, 'The number void result.') },
    errors: [409, 422, 502, 503],
  },
  {
    method: 'get',
    path: '/v1/nfe/inutilizar/{id}',
    summary: 'An inutilização and its outcome',
    tags: [T.voids],
    responses: { 200: ok(voidResult) },
  },
  {
    method: 'post',
    path: '/v1/nfe/{id}/devolucao',
    summary: 'Devolução draft of an authorized NF-e',
    description:
      'tipoOperacao 0, finalidade 4, the original key referenced, CFOPs inverted; optional partial `itens`.',
    tags: [T.nfe],
    body: jsonBody(requests.devolucaoRequestSchema, false),
    responses: { 201: ok(documentView, 'The draft.') },
    errors: [409, 422, 503],
  },
  // --- CT-e (cte-routes.ts) ---
  ...CTE_ROUTES,
  // --- NFS-e (nfse-routes.ts) ---
  ...NFSE_ROUTES,
  // --- DC-e (dce-routes.ts) ---
  ...DCE_ROUTES,
  ...DCE_SETTINGS_ROUTES,
  // --- dynamic PIX (pix-routes.ts) ---
  ...PIX_ROUTES,
  ...REFERENCE_ROUTES,
  // --- printers and print jobs ---
  {
    method: 'get',
    path: '/v1/companies/{companyId}/printers',
    summary: 'Printers of the company',
    tags: [T.printers],
    params: { companyId: 'Id of the company.' },
    query: pageQuerySchema,
    responses: { 200: ok(pageListSchema(printers.printerViewSchema)) },
  },
  {
    method: 'post',
    path: '/v1/companies/{companyId}/printers',
    summary: 'Add a printer',
    tags: [T.printers],
    params: { companyId: 'Id of the company.' },
    body: jsonBody(printers.printerCreateSchema),
    responses: { 201: ok(printers.printerViewSchema, 'Created.') },
  },
  {
    method: 'get',
    path: '/v1/companies/{companyId}/printers/{printerId}',
    summary: 'Read a printer',
    tags: [T.printers],
    params: { companyId: 'Id of the company.', printerId: 'Id of the printer.' },
    responses: { 200: ok(printers.printerViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{companyId}/printers/{printerId}',
    summary: 'Change a printer',
    tags: [T.printers],
    params: { companyId: 'Id of the company.', printerId: 'Id of the printer.' },
    body: jsonBody(printers.printerUpdateSchema('rede')),
    responses: { 200: ok(printers.printerViewSchema) },
  },
  {
    method: 'delete',
    path: '/v1/companies/{companyId}/printers/{printerId}',
    summary: 'Remove a printer (its waiting jobs are cancelled)',
    tags: [T.printers],
    params: { companyId: 'Id of the company.', printerId: 'Id of the printer.' },
    responses: { 204: noContent },
  },
  {
    method: 'get',
    path: '/v1/companies/{companyId}/printers/{printerId}/status',
    summary: 'Live printer status (DLE EOT)',
    tags: [T.printers],
    params: { companyId: 'Id of the company.', printerId: 'Id of the printer.' },
    responses: { 200: ok(printers.printerStatusViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/companies/{companyId}/printers/{printerId}/test',
    summary: 'Print a test page',
    tags: [T.printers],
    params: { companyId: 'Id of the company.', printerId: 'Id of the printer.' },
    responses: { 202: ok(printers.queuedPrintSchema, 'Queued.') },
  },
  {
    method: 'post',
    path: '/v1/companies/{companyId}/printers/{printerId}/drawer',
    summary: "Open the cash drawer on the printer's kick connector",
    tags: [T.printers],
    params: { companyId: 'Id of the company.', printerId: 'Id of the printer.' },
    responses: { 202: ok(printers.queuedPrintSchema, 'Queued.') },
    errors: [403, 409],
  },
  ...(['print', 'reprint'] as const).map((action): RouteSpec => ({
    method: 'post',
    path: `/v1/nfce/{id}/${action}`,
    summary: action === 'print' ? 'Print the receipt' : 'Print a recorded further copy of the receipt',
    tags: [T.nfce, T.printers],
    body: jsonBody(printers.printRequestSchema, false),
    responses: { 202: ok(printers.queuedPrintSchema, 'Queued.') },
    errors: [409],
  })),
  {
    method: 'get',
    path: '/v1/print-jobs',
    summary: 'Print jobs of the company (newest first)',
    tags: [T.printers],
    company: true,
    query: printers.printJobListQuerySchema,
    responses: { 200: ok(pageListSchema(printers.printJobViewSchema)) },
  },
  {
    method: 'get',
    path: '/v1/print-jobs/{jobId}',
    summary: 'Read a print job',
    tags: [T.printers],
    params: { jobId: 'Id of the print job.' },
    responses: { 200: ok(printers.printJobViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/print-jobs/{jobId}/retry',
    summary: 'Retry a print job now',
    tags: [T.printers],
    params: { jobId: 'Id of the print job.' },
    responses: { 202: ok(printers.printJobViewSchema, 'Queued again.') },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/print-jobs/{jobId}/cancel',
    summary: 'Cancel a waiting or given-up print job',
    tags: [T.printers],
    params: { jobId: 'Id of the print job.' },
    responses: { 200: ok(printers.printJobViewSchema) },
    errors: [409],
  },
];

function crud(
  base: string,
  tag: string,
  what: string,
  create: z.ZodType,
  view: z.ZodType,
  options: { listFilters: z.ZodRawShape; remove: boolean },
): RouteSpec[] {
  const routes: RouteSpec[] = [
    {
      method: 'get',
      path: base,
      summary: `List ${what}s`,
      tags: [tag],
      company: true,
      query: withPaging(options.listFilters),
      responses: { 200: ok(dataListSchema(view)) },
    },
    {
      method: 'post',
      path: base,
      summary: `Create a ${what}`,
      tags: [tag],
      company: true,
      body: jsonBody(create),
      responses: { 201: ok(view, 'Created.') },
      errors: [409],
    },
    {
      method: 'get',
      path: `${base}/{id}`,
      summary: `Read a ${what}`,
      tags: [tag],
      responses: { 200: ok(view) },
    },
    {
      method: 'put',
      path: `${base}/{id}`,
      summary: `Replace a ${what}`,
      tags: [tag],
      body: jsonBody(create),
      responses: { 200: ok(view) },
      errors: [409],
    },
  ];
  if (options.remove) {
    routes.push({
      method: 'delete',
      path: `${base}/{id}`,
      summary: `Delete a ${what}`,
      tags: [tag],
      responses: { 204: noContent },
      errors: [409],
    });
  }
  return routes;
}

/** Named schemas: each becomes one entry of components/schemas. */
export const COMPONENTS: ComponentNames = {
  requests: [
    ['CompanyCreate', companies.companyCreateSchema],
    ['CompanyConfig', companies.companyConfigSchema],
    ['CustomerCreate', customers.customerCreateSchema],
    ['FiscalProfileCreate', catalog.fiscalProfileCreateSchema],
    ['ProductCreate', catalog.productCreateSchema],
    ['ServiceCreate', services.serviceFieldsSchema],
    ['ApiKeyCreate', apiKeys.apiKeyCreateSchema],
    ['WebhookCreate', webhooks.webhookCreateSchema],
    ['WebhookUpdate', webhooks.webhookUpdateSchema],
    ['PrinterCreate', printers.printerCreateSchema],
    ['OperatorCreate', operators.operatorCreateSchema],
    ['OperatorUpdate', operators.operatorUpdateSchema],
    ['VoidRequest', requests.voidRequestSchemaA],
    ['VoidRequestSnakeCase', requests.voidRequestSchemaB],
    ['ManifestRequest', requests.manifestRequestSchema],
  ],
  responses: [
    ['ErrorBody', errorBodySchema],
    ['DocumentView', documentView],
    ['VoidResult', voidResult],
    ['CorrectionLetterView', correctionLetterView],
    ['EventView', documents.eventViewSchema],
    ['BatchProgress', documents.batchProgressSchema],
    ['ReceivedNoteView', documents.receivedNoteViewSchema],
    ['ReceivedNoteDetail', documents.receivedNoteDetailSchema],
    ['ManifestationResult', manifestationResult],
    ['CompanyStatus', documents.companyStatusSchema],
    ['CompanyView', companies.companyViewSchema],
    ['NfeSequenceView', companies.nfeSequenceViewSchema],
    ['CertificateStatusView', companies.certificateStatusViewSchema],
    ['CustomerView', customers.customerViewSchema],
    ['FiscalProfileView', catalog.fiscalProfileViewSchema],
    ['ProductView', catalog.productViewSchema],
    ['ServiceView', services.serviceViewSchema],
    ['ApiKeyView', apiKeys.apiKeyViewSchema],
    ['ApiKeyCreated', apiKeys.apiKeyCreatedSchema],
    ['WebhookView', webhookView],
    ['WebhookWithSecret', webhookWithSecret],
    ['DeliveryView', deliveryView],
    ['DeliveryDetailView', deliveryDetailView],
    ['QueuedJob', queuedJob],
    ['PrinterView', printers.printerViewSchema],
    ['OperatorView', operators.operatorViewSchema],
    ['PrinterStatusView', printers.printerStatusViewSchema],
    ['PrintJobView', printers.printJobViewSchema],
    ['QueuedPrint', printers.queuedPrintSchema],
    ['SyncSendAnswer', answers.syncSendAnswerSchema],
    ['SandboxFaults', answers.sandboxFaultsSchema],
  ],
};

/** The OpenAPI 3.1 document of /v1. */
/**
 * What the service requires beyond the payload's shape (src-main/fiscal/nfe/normalize.ts checks it and reports
 * every missing field at once); the schema keeps these optional so that they are reported together.
 */
const PAYLOAD_RULES_A =
  'Spelling A (camelCase) of the NF-e / NFC-e creation payload. Besides `itens`, the service requires: ' +
  '`naturezaOperacao` for an NF-e (an NFC-e defaults to VENDA AO CONSUMIDOR); at least one payment in ' +
  '`pagamentos` (or one in `pagamento`) with `forma` and `valor`; per item `descricao`, `ncm`, `quantidade` and ' +
  '`valorUnitario` (and `codigo` for an NF-e) unless `productId` gives them; for an NF-e the recipient ' +
  '(`customer` or `customerId`) with name and address; `nfeReferenciada` when `finalidade` is 4. ' +
  'Taxes come from `fiscalProfileId`, `tributacao` (simple mode) or `impostos` (detailed mode).';
const PAYLOAD_RULES_B =
  'Spelling B (snake_case) of the creation payload: the names of spelling A in snake_case (`natureza_operacao`, ' +
  '`valor_unitario`, `destinatario` for `customer`, `metodo` for `forma`, `pagamento` as one object); the ' +
  "layout's tags (`CFOP`, `xLgr`, tax groups) are the same. Requirements as in spelling A.";

/** The DC-e payload (dce-payload.ts) in both spellings, named by the `$ref`s of dce-routes.ts. */
function dcePayloadComponents(): Record<string, JsonSchema> {
  const a = z.toJSONSchema(dcePayloadSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete a['$schema'];
  return {
    [DCE_PAYLOAD_COMPONENTS.a]: a,
    // The service renames spelling B's keys to A the same mechanical way (razao_social is nome), see dce-payload.ts.
    [DCE_PAYLOAD_COMPONENTS.b]: toSpellingBSchema(a) as JsonSchema,
  };
}

/** The OpenAPI 3.1 document of /v1. */
export function openApiDocument(version: string): JsonSchema {
  const generated = z.toJSONSchema(nfePayloadSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete generated['$schema'];
  const required = new Set([...((generated['required'] as string[] | undefined) ?? []), 'itens']);
  const spellingA = { ...generated, required: [...required], description: PAYLOAD_RULES_A };
  // The spelling-B payload is the spelling-A schema under snake_case names (the service renames keys the
  // same way before validating; see the spelling test), so it is derived rather than written twice.
  const spellingB = { ...(toSpellingBSchema(spellingA) as JsonSchema), description: PAYLOAD_RULES_B };
  return buildOpenApiDocument(
    ROUTES,
    COMPONENTS,
    { NfePayload: spellingA, NfePayloadSnakeCase: spellingB, ...dcePayloadComponents() },
    {
      version,
      title: 'Balcão /v1 fiscal API',
      description:
        'NF-e, NFC-e, CT-e, NFS-e and DC-e, events, inutilização, received notes, printing and webhooks. ' +
        'Every route needs `X-API-Key` except this document; errors share one body (`ErrorBody`) listing every ' +
        'faulty field in `details`. ' +
        'Money, quantities and rates travel as decimal text (`"18.90"`); JSON numbers are accepted.',
    },
  );
}
