// The /v1/dce routes (the DC-e, content declaration, model 99) and the company's DC-e settings for the OpenAPI
// document (api-routes.ts spreads both lists into ROUTES).
import { z } from 'zod';
import type { RouteSpec } from './openapi.ts';
import { idempotencyKey, jsonBody, ok } from './route-spec.ts';
import { dataListSchema, pageLimitQueryShape } from './common.ts';

import {
  dceCancelAnswerSchema,
  dceCancelRequestSchema,
  dceCreateQuerySchema,
  dceDaceQuerySchema,
  dceListFilterShape,
  dceSettingsSchema,
  dceSettingsViewSchema,
  dceViewSchema,
  dceXmlAnswerSchema,
  dceXmlQuerySchema,
} from './dce-view.ts';

const TAG = 'DC-e';
const answerView = dceViewSchema.extend({ message: z.string() });

/** The components api-routes.ts generates from the payload contract (spelling A, and B derived from it). */
export const DCE_PAYLOAD_COMPONENTS = { a: 'DcePayload', b: 'DcePayloadSnakeCase' } as const;

const PAYLOAD =
  'Spelling A shown; spelling B is accepted as written (the same names in snake_case: `tipo_emitente`, `valor_unitario`, `informacoes_complementares`, `razao_social` for `nome`…), and the faults name the fields in the caller’s spelling. ' +
  '`tipoEmitente` `marketplace` (tpEmit 1, default: the company’s DC-e setting), `proprio` (2: the company is the declarant, no `emitente`) or `transportadora` (3); 0 (the fisco’s app) and 4 (the Correios) are refused. ' +
  '`emitente` (the declarant: the natural person or non-taxpayer company sending the goods) is required for marketplace and transportadora; `destinatario` always; `itens` 1–999 (`descricao`, `quantidade`, `valorUnitario`, `ncm?`); `transporte.modalidade` `correios` (default), `proprio` or `transportadora` (with `cnpjTransportadora`). ' +
  'Every faulty field is reported at once (400 `validation_error`).';

const payloadBody = {
  required: true,
  content: {
    'application/json': {
      jsonSchema: {
        anyOf: Object.values(DCE_PAYLOAD_COMPONENTS).map((name) => ({
          $ref: `#/components/schemas/${name}`,
        })),
        description: 'The DC-e payload in spelling A (camelCase) or B (snake_case).',
      },
    },
  },
};

export const DCE_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/dce',
    summary: 'Create a DC-e (content declaration) draft',
    description:
      'Reserves the next number of the company’s DC-e series, builds, validates (XSD) and signs the DC-e (its 44-digit key and QR code are fixed then): 201 `rascunho`. ' +
      '`?enviar=true` also queues it at once: 202 `processando`. ' +
      PAYLOAD,
    tags: [TAG],
    company: true,
    headers: [idempotencyKey],
    query: dceCreateQuerySchema,
    body: payloadBody,
    responses: {
      201: ok(answerView, 'The draft.'),
      202: ok(answerView, 'Created and queued (`?enviar=true`).'),
    },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/dce',
    summary: 'List DC-e',
    description:
      '§4.6 shape `{data, meta}`, newest first. Filters: `status` (`rejeitada` = `erro`), `from`/`to` on `created_at` (a date AAAA-MM-DD takes the whole day), `q` (part of the key, the number, or part of the recipient’s name).',
    tags: [TAG],
    company: true,
    query: z.object({ ...pageLimitQueryShape, ...dceListFilterShape }),
    responses: { 200: ok(dataListSchema(dceViewSchema)) },
  },
  {
    method: 'get',
    path: '/v1/dce/{id}',
    summary: 'Read a DC-e',
    tags: [TAG],
    responses: { 200: ok(dceViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/dce/{id}',
    summary: 'Replace a draft or a rejected DC-e',
    description:
      'The create payload again; only `rascunho` or `erro` (409 otherwise). The DC-e keeps its number and is signed again.',
    tags: [TAG],
    body: payloadBody,
    responses: { 200: ok(dceViewSchema) },
    errors: [409, 422, 503],
  },
  {
    method: 'delete',
    path: '/v1/dce/{id}',
    summary: 'Delete a draft or a DC-e rejected before reaching the authority',
    description: 'Only a DC-e the authority never received; 409 otherwise.',
    tags: [TAG],
    responses: { 204: { description: 'Deleted; no body.' } },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/dce/{id}/send',
    summary: 'Send a DC-e to the authority',
    description:
      'No body. 202 with the DC-e (`processando`) and `message`: queued; the authority answers at once and the queue settles it (`autorizada` or `erro`). Follow it with GET /v1/dce/{id} or the webhooks `dce.autorizada` / `dce.rejeitada`. 409 unless `rascunho` or `erro`.',
    tags: [TAG],
    headers: [idempotencyKey],
    responses: { 202: ok(answerView, 'Queued.') },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/dce/{id}/xml',
    summary: 'The DC-e XML',
    description:
      '`application/xml`: `dceProc` (the signed `DCe` and its `protDCe`, byte for byte) once authorized, the signed `DCe` before. ' +
      '`formato=json` answers `{id, dce_xml, proc_xml, eventos: [{tpEvento, nSeqEvento, xml}]}` (an event’s XML is its `procEventoDCe` once registered).',
    tags: [TAG],
    auth: 'key-or-query',
    query: dceXmlQuerySchema,
    responses: {
      200: {
        description: 'The XML.',
        content: { 'application/xml': { binary: true }, 'application/json': dceXmlAnswerSchema },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/dce/{id}/dace',
    summary: 'The DACE (PDF): A4 or the 100 × 150 mm label',
    description:
      '`formato=a4` (default) or `formato=etiqueta` (one 100 × 150 mm page for shipping-label printers). Key barcode (Code 128) and the QR code of `qr_code`; SEM VALOR FISCAL in homologação; a cancelled DC-e is marked. ' +
      'Only an authorized or cancelled DC-e (409 before: the DACE travels with an authorized DC-e); `previa=true` prints a draft marked PRÉVIA — SEM VALOR for checking. ' +
      'Cached once built; `regenerate=true` rebuilds it; `download=true` adds `Content-Disposition: attachment`.',
    tags: [TAG],
    auth: 'key-or-query',
    query: dceDaceQuerySchema,
    responses: { 200: { description: 'The PDF.', content: { 'application/pdf': { binary: true } } } },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/dce/{id}/cancel',
    summary: 'Cancel an authorized DC-e (event 110111)',
    description:
      '`justificativa` 15–255 characters. 200 `{document, event}` when the authority registered it within 10 s (the DC-e is `cancelada`); 202 with `message` while it is on its way. ' +
      '409 unless `autorizada`; 422 `fiscal_rejection` with `cStat` 501 past the cancellation deadline (checked before anything is sent), or with the authority’s `cStat` when it refused it.',
    tags: [TAG],
    body: jsonBody(dceCancelRequestSchema),
    responses: {
      200: ok(dceCancelAnswerSchema, 'Registered.'),
      202: ok(dceCancelAnswerSchema, 'Queued.'),
    },
    errors: [409, 422, 503],
  },
];

/** GET and PUT /v1/companies/:id/dce-settings. */
export const DCE_SETTINGS_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/companies/{id}/dce-settings',
    summary: 'The company’s DC-e defaults',
    description: 'Without a saved setting: marketplace, no site, series 1 (`padrao: true`).',
    tags: [TAG],
    responses: { 200: ok(dceSettingsViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{id}/dce-settings',
    summary: 'Set the company’s DC-e defaults',
    description:
      '`tipo_emitente` (`marketplace`, `proprio`, `transportadora`), `site` (Marketplace/Site, null for none), `serie` (0–999): the defaults of the DC-e created afterwards (the payload may override each).',
    tags: [TAG],
    body: jsonBody(dceSettingsSchema),
    responses: { 200: ok(dceSettingsViewSchema) },
  },
];
