// The /v1/cte routes (§4.3) for the OpenAPI document (api-routes.ts spreads them into ROUTES).
import { z } from 'zod';
import type { RouteSpec } from './openapi.ts';
import { idempotencyKey, jsonBody, ok } from './route-spec.ts';
import { dataListSchema, pageLimitQueryShape, printedPdfQuerySchema } from './common.ts';
import { ctePayloadSchema } from './cte-payload.ts';
import {
  cteCancelRequestSchema,
  cteCceRequestSchema,
  cteDebugSchema,
  cteEventViewSchema,
  cteListFilterShape,
  cteSendAnswerSchema,
  cteSettingsSchema,
  cteSettingsViewSchema,
  cteViewSchema,
  cteVoidAnswerSchema,
  cteVoidRequestSchema,
} from './cte-view.ts';

const TAG = 'CT-e';

export const CTE_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/cte',
    summary: 'Create a CT-e draft',
    description:
      'The §2.7 payload. Reserves the next number of the company’s CT-e series, builds, validates (XSD) and signs the CT-e: 201 `rascunho`. ' +
      'The rules 512 (valorTotal ≠ sum of componentesValor), 522 (CFOP 5xxx within a state, 6xxx between states) and 529 (absent or invalid NF-e key in docsOriginarios) answer 422 `fiscal_rejection` with the `cStat`.',
    tags: [TAG],
    company: true,
    headers: [idempotencyKey],
    body: jsonBody(ctePayloadSchema),
    responses: { 201: ok(cteViewSchema, 'The CT-e draft.') },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/cte',
    summary: 'List CT-e',
    description:
      '§4.6 shape `{data, meta}`. Filters: `status` (`rejeitada` = `erro`), `from`/`to` on `created_at` (a date AAAA-MM-DD takes the whole day).',
    tags: [TAG],
    company: true,
    query: z.object({ ...pageLimitQueryShape, ...cteListFilterShape }),
    responses: { 200: ok(dataListSchema(cteViewSchema)) },
  },
  {
    method: 'get',
    path: '/v1/cte/{id}',
    summary: 'Read a CT-e (§2.7 CT-e object)',
    tags: [TAG],
    responses: { 200: ok(cteViewSchema) },
  },
  {
    method: 'delete',
    path: '/v1/cte/{id}',
    summary: 'Delete a draft or a CT-e rejected before transmission',
    description:
      'Only `rascunho`, or `erro` of a CT-e the authority never received; its number stays used (void it with POST /v1/cte/inutilizar where the authority offers it). 409 otherwise.',
    tags: [TAG],
    responses: { 204: { description: 'Deleted; no body.' } },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/cte/{id}/send',
    summary: 'Send a CT-e to the authority',
    description:
      'No body. 202 `{success: true, message}`: queued; follow it with GET /v1/cte/{id} or the webhooks `cte.*`.',
    tags: [TAG],
    headers: [idempotencyKey],
    responses: { 202: ok(cteSendAnswerSchema, 'Queued.') },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/cte/{id}/xml',
    summary: 'The CT-e XML',
    description: '`cteProc` (the signed `CTe` and its `protCTe`) once authorized; the signed `CTe` before.',
    tags: [TAG],
    auth: 'key-or-query',
    responses: { 200: { description: 'The XML.', content: { 'application/xml': { binary: true } } } },
  },
  {
    method: 'get',
    path: '/v1/cte/{id}/dacte',
    summary: 'The DACTE (PDF)',
    description:
      'Cached once built. `download=true` adds `Content-Disposition: attachment` (`<chave>-dacte.pdf`); `regenerate=true` rebuilds it.',
    tags: [TAG],
    auth: 'key-or-query',
    query: printedPdfQuerySchema,
    responses: { 200: { description: 'The PDF.', content: { 'application/pdf': { binary: true } } } },
  },
  {
    method: 'post',
    path: '/v1/cte/{id}/cancel',
    summary: 'Cancel an authorized CT-e (event 110111)',
    description:
      '`justificativa` 15–255 characters. Within 7 days (168 h) of the authorization (422 with `cStat` 220 after); the authority also refuses it once the trip started (a later MDF-e). 202 with the event, the CT-e ends `cancelada`.',
    tags: [TAG],
    body: jsonBody(cteCancelRequestSchema),
    responses: { 202: ok(cteEventViewSchema, 'Cancellation queued.') },
    errors: [409, 422, 503],
  },
  {
    method: 'post',
    path: '/v1/cte/{id}/cce',
    summary: 'Correction letter of a CT-e (CC-e, event 110110)',
    description:
      '`correcao` (free text, at least 15 characters: sent as `compl/xObs`) or `correcoes` (`{grupoAlterado, campoAlterado, valorAlterado, nroItemAlterado?}`), and `sequencia` (next free one when omitted, at most 20). Tax values, rates, the parties’ identity and dates cannot be corrected (422).',
    tags: [TAG],
    body: jsonBody(cteCceRequestSchema),
    responses: { 202: ok(cteEventViewSchema, 'CC-e queued.') },
    errors: [409, 422, 503],
  },
  {
    method: 'post',
    path: '/v1/cte/inutilizar',
    summary: 'Void a range of CT-e numbers',
    description:
      '`{serie, numeroInicial, numeroFinal, justificativa}`; the answer says what the authority did and `prazo`, the 10th day of the following month.',
    tags: [TAG],
    company: true,
    body: jsonBody(cteVoidRequestSchema),
    responses: { 200: ok(cteVoidAnswerSchema, 'The outcome.') },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/cte/{id}/debug',
    summary: 'Debug object (§2.7)',
    description:
      '`cte` with `request_payload` (the JSON received), the queue `logs` with `cStat`/`xMotivo`, the `cce` events, the signed and transmitted XML and a `snapshot` of the rows.',
    tags: [TAG],
    responses: { 200: ok(cteDebugSchema) },
  },
  {
    method: 'get',
    path: '/v1/companies/{id}/cte-settings',
    summary: 'The carrier’s CT-e settings (RNTRC, ICMS of the service)',
    description: 'Without a saved setting: RNTRC `ISENTO` and the ICMS by the tax regime (`padrao: true`).',
    tags: [TAG],
    responses: { 200: ok(cteSettingsViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{id}/cte-settings',
    summary: 'Set the carrier’s CT-e settings',
    description:
      '`rntrc` (8 digits or `ISENTO`) and `icms` (`{cst: "00", aliquota: "12.00"}`, `{cst: "40" | "41" | "51" | "SN"}` or null for the regime’s default); used by the CT-e created afterwards.',
    tags: [TAG],
    body: jsonBody(cteSettingsSchema),
    responses: { 200: ok(cteSettingsViewSchema) },
  },
];
