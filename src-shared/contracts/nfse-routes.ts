// The /v1/nfse routes (§4.4) and the provider's NFS-e settings for the OpenAPI document (api-routes.ts
// spreads them into ROUTES).
import { z } from 'zod';
import type { RouteSpec } from './openapi.ts';
import { idempotencyKey, jsonBody, ok } from './route-spec.ts';
import { dataListSchema, pageLimitQueryShape, printedPdfQuerySchema } from './common.ts';
import { nfsePayloadSchema, nfseSubstitutePayloadSchema } from './nfse-payload.ts';
import {
  nfseCancelAnswerSchema,
  nfseCancelRequestSchema,
  nfseCreateQuerySchema,
  nfseDanfseLinkSchema,
  nfseListFilterShape,
  nfseSettingsSchema,
  nfseSettingsViewSchema,
  nfseViewSchema,
  nfseXmlAnswerSchema,
  nfseXmlQuerySchema,
} from './nfse-view.ts';

const TAG = 'NFS-e';
const queuedView = nfseViewSchema.extend({ message: z.string() });

const TRANSMITTED =
  '200 with the NFS-e when the national environment authorized it within 10 s; 202 with the NFS-e (`processando`) and a `message` on how to follow it ' +
  '(GET /v1/nfse/{id}, webhook `nfse.autorizada`) when it did not answer in time: the DPS stays queued and is sent by the queue, which looks the DPS up by its Id before any re-send. ' +
  '422 `fiscal_rejection` with `cStat` when the national environment refused it: the note is kept in `erro` and named in the error body’s `document` (correct it with PUT and send it again, same DPS number).';

export const NFSE_ROUTES: RouteSpec[] = [
  {
    method: 'post',
    path: '/v1/nfse',
    summary: 'Issue an NFS-e (national standard)',
    description:
      'The §2.8 payload. The national tax code is checked first (E001), then the municipal parameters of the national environment: the municipality must have joined the agreement (E004) and the ISS rate (of the service in the catalogue, else the municipality’s) must be the registered one, 2–5 % (E012); these answer 422 `fiscal_rejection` and create nothing (no DPS number used). ' +
      'Then a DPS number of the company’s series is reserved and the DPS is signed and sent. ' +
      TRANSMITTED +
      ' `?rascunho=true` only creates a draft (201 `rascunho`), sent later with POST /v1/nfse/{id}/send.',
    tags: [TAG],
    company: true,
    headers: [idempotencyKey],
    query: nfseCreateQuerySchema,
    body: jsonBody(nfsePayloadSchema),
    responses: {
      200: ok(nfseViewSchema, 'Authorized.'),
      201: ok(queuedView, 'The draft (`?rascunho=true`).'),
      202: ok(queuedView, 'Queued: the national environment did not answer in time.'),
    },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/nfse',
    summary: 'List NFS-e',
    description:
      '§4.6 shape `{data, meta}`, newest first. Filters: `status` (`authorized`, alias `autorizada`; `rejeitada` = `erro`), `from`/`to` on `created_at` (a date AAAA-MM-DD takes the whole day).',
    tags: [TAG],
    company: true,
    query: z.object({ ...pageLimitQueryShape, ...nfseListFilterShape }),
    responses: { 200: ok(dataListSchema(nfseViewSchema)) },
  },
  {
    method: 'get',
    path: '/v1/nfse/{id}',
    summary: 'Read an NFS-e (status, 50-digit national key, protocol)',
    tags: [TAG],
    responses: { 200: ok(nfseViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/nfse/{id}',
    summary: 'Replace a draft or a rejected NFS-e',
    description:
      'The §2.8 payload again; only `rascunho` or `erro` (409 otherwise). The DPS keeps its number and is signed again; a substitute keeps its link to the note it replaces.',
    tags: [TAG],
    body: jsonBody(nfsePayloadSchema),
    responses: { 200: ok(nfseViewSchema) },
    errors: [409, 422, 503],
  },
  {
    method: 'delete',
    path: '/v1/nfse/{id}',
    summary: 'Delete a draft or an NFS-e rejected before transmission',
    description:
      'Only `rascunho`, or `erro` of a DPS the national environment never received; 409 otherwise.',
    tags: [TAG],
    responses: { 204: { description: 'Deleted; no body.' } },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/nfse/{id}/send',
    summary: 'Send a draft or a rejected NFS-e',
    description: 'No body. The municipal parameters are checked again (E004, E012). ' + TRANSMITTED,
    tags: [TAG],
    headers: [idempotencyKey],
    responses: {
      200: ok(nfseViewSchema, 'Authorized.'),
      202: ok(queuedView, 'Queued: the national environment did not answer in time.'),
    },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/nfse/{id}/xml',
    summary: 'The NFS-e XML (the signed DPS and the authorized note)',
    description:
      'JSON `{id, dps_xml, nfse_xml, eventos: [{tpEvento, xml}]}` (`nfse_xml` null before authorization; an event’s XML is the registered `<evento>` once answered). ' +
      '`formato=dps` or `formato=nfse` answers that XML alone as `application/xml` (`nfse` before authorization: 409).',
    tags: [TAG],
    auth: 'key-or-query',
    query: nfseXmlQuerySchema,
    responses: {
      200: {
        description: 'The XML.',
        content: { 'application/json': nfseXmlAnswerSchema, 'application/xml': { binary: true } },
      },
    },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/nfse/{id}/danfse',
    summary: 'The DANFSe (PDF with the QR code of the public consultation)',
    description:
      'Rendered locally on A4 from the authorized note (the national layout; SEM VALOR FISCAL in homologação; a cancelled or substituted note is marked). Cached once built. ' +
      '`download=true` adds `Content-Disposition: attachment`; `regenerate=true` rebuilds it. 409 before authorization. ' +
      'With `Accept: application/json` (and not `application/pdf`) the answer is `{id, danfse_url, qr_code_url}`: the PDF’s absolute URL and the public consultation the QR code opens.',
    tags: [TAG],
    auth: 'key-or-query',
    query: printedPdfQuerySchema,
    responses: {
      200: {
        description: 'The PDF, or its links.',
        content: { 'application/pdf': { binary: true }, 'application/json': nfseDanfseLinkSchema },
      },
    },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/nfse/{id}/cancel',
    summary: 'Cancel an authorized NFS-e (event e101101)',
    description:
      '`codigo_motivo` 1 (issue error), 2 (service not rendered) or 3 (duplicate note) and `justificativa` 15–255 characters. ' +
      '200 `{id, status, cancelamento}` when the national environment registered it within 10 s (the note is `cancelada`); 202 with `message` while it is on its way (the note reads `processando`); ' +
      '422 `fiscal_rejection` with `cStat` when refused. 409 when the note is not authorized or a cancellation is already on its way.',
    tags: [TAG],
    body: jsonBody(nfseCancelRequestSchema),
    responses: {
      200: ok(nfseCancelAnswerSchema, 'Registered.'),
      202: ok(nfseCancelAnswerSchema, 'Queued.'),
    },
    errors: [409, 422, 503],
  },
  {
    method: 'post',
    path: '/v1/nfse/{id}/substituir',
    summary: 'Substitute an authorized NFS-e',
    description:
      'The §2.8 substitute body, all optional (`codigoServico`, `descricao`, `valorServico`, `cMotivo`, `xMotivo`, `sendImmediate`; the create body’s names are accepted too): what is absent is taken from the note replaced. ' +
      'Creates a new NFS-e whose DPS names the replaced note (`subst`): 201 `rascunho`, or `processando` with `sendImmediate: true`; `substitui_nfse_id` names the replaced note. ' +
      'When the substitute is authorized, the replaced note becomes `substituida` (and its `substituida_por_nfse_id` names the new one). 409 unless the note is authorized and not already being substituted.',
    tags: [TAG],
    body: jsonBody(nfseSubstitutePayloadSchema, false),
    responses: { 201: ok(queuedView, 'The substitute.') },
    errors: [409, 422, 503],
  },
  {
    method: 'get',
    path: '/v1/companies/{id}/nfse-settings',
    summary: 'The provider’s NFS-e tax regime (DPS regTrib)',
    description: 'Without a saved setting the values come from the company’s CRT (`padrao: true`).',
    tags: [TAG],
    responses: { 200: ok(nfseSettingsViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{id}/nfse-settings',
    summary: 'Set the provider’s NFS-e tax regime',
    description:
      '`op_simp_nac` (1 not in the Simples Nacional, 2 MEI, 3 ME/EPP), `reg_ap_trib_sn` (only with 3), `reg_esp_trib` (0–6 or 9); used by the DPS signed afterwards.',
    tags: [TAG],
    body: jsonBody(nfseSettingsSchema),
    responses: { 200: ok(nfseSettingsViewSchema) },
  },
];
