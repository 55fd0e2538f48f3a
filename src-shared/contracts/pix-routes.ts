// The dynamic PIX routes for the OpenAPI document (api-routes.ts spreads them into ROUTES).
import type { RouteSpec } from './openapi.ts';
import { jsonBody, ok } from './route-spec.ts';
import { queuedPrintSchema } from './printers.ts';
import {
  pixChargeCreateSchema,
  pixChargeViewSchema,
  pixConfigSchema,
  pixConfigViewSchema,
  pixConnectionTestSchema,
  pixSandboxFaultsSchema,
  pixSandboxFaultsViewSchema,
} from './pix.ts';

const TAG = 'PIX dinâmico';
const txid = { txid: 'The charge’s txid (26–35 letters or digits).' };
const companyId = { companyId: 'Id of the company.' };

export const PIX_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/companies/{companyId}/pix',
    summary: "The company's PSP for dynamic PIX (no secret is shown)",
    tags: [TAG],
    params: companyId,
    responses: { 200: ok(pixConfigViewSchema) },
  },
  {
    method: 'put',
    path: '/v1/companies/{companyId}/pix',
    summary: 'Set the PSP for dynamic PIX (secrets and client certificate sealed at rest)',
    description:
      '`provedor` `sandbox` uses the PSP embedded in the service (credentials and client certificate generated); `psp` needs `base_url`, `client_id`, `client_secret`, `certificado_pfx` and `cnpj_psp`. Omitted secrets keep the stored ones.',
    tags: [TAG],
    params: companyId,
    body: jsonBody(pixConfigSchema),
    responses: { 200: ok(pixConfigViewSchema) },
    errors: [409, 422],
  },
  {
    method: 'post',
    path: '/v1/companies/{companyId}/pix/test',
    summary: 'Test the PSP settings: ask the PSP for an OAuth2 token with them',
    description:
      'A new token (client credentials over mutual TLS), whatever is cached. 404 without PSP settings; the PSP refusing the credentials or certificate is 502 `psp_unavailable` with its reason in `message`, no answer in 5 s is 504.',
    tags: [TAG],
    params: companyId,
    responses: { 200: ok(pixConnectionTestSchema, 'The PSP issued a token.') },
    errors: [502],
  },
  {
    method: 'delete',
    path: '/v1/companies/{companyId}/pix',
    summary: 'Remove the PSP settings (PIX goes back to static, tPag 20)',
    description:
      'The choice is kept: a demo company switched off this way does not get the sandbox PSP back on the next start.',
    tags: [TAG],
    params: companyId,
    responses: { 204: { description: 'Done; no body.' } },
  },
  {
    method: 'post',
    path: '/v1/pix/charges',
    summary: 'Create a PIX charge (PUT /cob at the PSP)',
    description:
      '201 with `status` `ATIVA` and `pixCopiaECola` to show as a QR code. 409 when the company has no PSP; 422 `psp_rejection` when the PSP refuses; 502/504 `psp_unavailable` when it fails or does not answer in 5 s.',
    tags: [TAG],
    company: true,
    headers: [
      {
        name: 'Idempotency-Key',
        description: 'A retry with the same key answers the first charge instead of creating another.',
      },
    ],
    body: jsonBody(pixChargeCreateSchema),
    responses: { 201: ok(pixChargeViewSchema, 'The charge.') },
    errors: [409, 422, 502],
  },
  {
    method: 'get',
    path: '/v1/pix/charges/{txid}',
    summary: 'Read a PIX charge (asks the PSP again while ATIVA)',
    tags: [TAG],
    params: txid,
    responses: { 200: ok(pixChargeViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/pix/charges/{txid}/cancel',
    summary: 'Cancel an active PIX charge (PATCH /cob, REMOVIDA_PELO_USUARIO_RECEBEDOR)',
    tags: [TAG],
    params: txid,
    responses: { 200: ok(pixChargeViewSchema) },
    errors: [409, 422, 502],
  },
  {
    method: 'get',
    path: '/v1/pix/charges/{txid}/qrcode.png',
    summary: "The charge's QR code (PNG of pixCopiaECola)",
    tags: [TAG],
    params: txid,
    responses: { 200: { description: 'The PNG.', content: { 'image/png': { binary: true } as const } } },
  },
  {
    method: 'post',
    path: '/v1/pix/charges/{txid}/print',
    summary: "Print the charge's QR code for the customer",
    tags: [TAG],
    params: txid,
    responses: { 202: ok(queuedPrintSchema, 'Queued.') },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/sandbox/pix/faults',
    summary: 'Fault switches of the embedded sandbox PSP (organization key)',
    tags: [TAG],
    responses: { 200: ok(pixSandboxFaultsViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/sandbox/pix/faults',
    summary: 'Switch faults of the embedded sandbox PSP (organization key)',
    tags: [TAG],
    body: jsonBody(pixSandboxFaultsSchema),
    responses: { 200: ok(pixSandboxFaultsViewSchema) },
  },
  {
    method: 'post',
    path: '/v1/sandbox/pix/charges/{txid}/pay',
    summary: 'Simulate the payment of a charge on the sandbox PSP',
    description: 'The PSP settles the charge (CONCLUIDA, endToEndId) and calls the company’s webhook.',
    tags: [TAG],
    params: txid,
    responses: { 200: ok(pixChargeViewSchema) },
    errors: [409],
  },
];
